"""`RunReport`, what a run returns whichever engine ran it (the rest of the report's types are in
`report`, which re-exports it). Its own module so that a native run, which only prints, loads
nothing else of the report; no numpy until `device_memory` is asked for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .stats import Stats

if TYPE_CHECKING:
    import numpy as np


@dataclass
class RunReport:
    """The result of `run`, whichever engine ran it (`engine`: "native" or "numpy";
    `fallback`: why the numpy engine ran a launch the native core was asked for first, else
    None). `device` is the final device memory as the engine left it (a numpy uint8 array or,
    from the native core, a buffer); `device_memory` is it as a numpy array (made on first use,
    so a native run that only prints needs no numpy). `writers` is the store-writer record
    (`RunOptions(writers=True)`, see `writers`), `profile` the per-line counters' record
    (`RunOptions(profile=True)`; filled by the engines' profile support), `mem_trace` the memory
access log (`RunOptions(mem_trace="record")`, see `mem_trace`)."""

    kernel: str
    device: Any                                 # uint8 final contents (see above)
    registers: dict[int, dict[str, int]] = field(default_factory=dict)  # thread -> {"r0": v, "p0": 0}
    stats: Stats = field(default_factory=Stats)
    warnings: list = field(default_factory=list)        # report.EmuWarning
    errors: list = field(default_factory=list)          # report.EmuError
    line_records: dict | None = None     # report.LineRecord by line (or pc for .wbin input)
    recorded_threads: tuple[int, ...] = ()
    launch_summary: dict[str, Any] = field(default_factory=dict)
    engine: str = "numpy"
    fallback: str | None = None
    threads: int = 1                            # native: threads whose workgroups it reports
    writers: Any = None                         # a `writers.StoreWriters`, or None
    write_log: Any = None                       # a `write_log.WriteLog`, or None
    profile: Any = None                         # the profile record, or None
    mem_trace: list | None = None               # mem_trace.MemAccess records ("record")

    @property
    def device_memory(self) -> np.ndarray:
        """The final device memory as a numpy uint8 array (the same memory as `device`)."""
        import numpy as np
        if not isinstance(self.device, np.ndarray):
            self.device = np.frombuffer(self.device, dtype=np.uint8)
        return self.device

    @device_memory.setter
    def device_memory(self, value) -> None:
        self.device = value

    @property
    def ok(self) -> bool:
        return not self.errors

    def read_u32(self, offset: int, count: int) -> list[int]:
        """`count` little-endian u32 values of device memory from byte `offset`."""
        return self.device_memory[offset:offset + 4 * count].view("<u4").tolist()

    def read_f32(self, offset: int, count: int) -> list[float]:
        return self.device_memory[offset:offset + 4 * count].view("<f4").tolist()

    def to_json(self, include_memory: bool = True) -> dict[str, Any]:
        """The whole report as JSON-compatible data (memory as a hex string)."""
        from dataclasses import asdict
        records = None
        if self.line_records is not None:
            records = [asdict(r) for r in self.line_records.values()]
            for r in records:
                for execution in r["writes"]:
                    for w in execution:
                        w["values"] = {str(k): v for k, v in w["values"].items()}
        return {
            "kernel": self.kernel,
            "ok": self.ok,
            "launch": self.launch_summary,
            "errors": [asdict(e) for e in self.errors],
            "warnings": [asdict(w) for w in self.warnings],
            "stats": asdict(self.stats),
            "registers": {str(k): v for k, v in self.registers.items()},
            "recorded_threads": list(self.recorded_threads),
            "line_records": records,
            "device_memory_size": len(memoryview(self.device)),
            **({"mem_trace": [asdict(m) for m in self.mem_trace]}
               if self.mem_trace is not None else {}),
            "device_memory": self.device_memory.tobytes().hex() if include_memory else None,
        }
