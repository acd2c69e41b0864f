"""A kernel's occupancy on each architecture of its configured targets, as text and JSON for the
resource hover, code lens and `wave-lsp.kernelResources`.

The limits and the calculator are `isa.occupancy`'s; this module chooses the register count
(the vendor compiler's when it reported one for that architecture, else the kernel's
`.registers`, called an estimate) and the local memory (`.local_memory`, or what `wave-lsp emit`
lends a kernel that uses local memory without declaring it), and renders the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..isa.occupancy import ARCH_LIMITS, TARGET_ARCHES, Occupancy, compute


@dataclass(frozen=True)
class ArchRow:
    """One architecture at one wave width, with where its register count came from."""

    target: str
    occupancy: Occupancy
    register_source: str        # "ptxas", "hipcc" or "estimate"

    @property
    def arch(self) -> str:
        return self.occupancy.limits.arch

    def registers_text(self) -> str:
        occ = self.occupancy
        if not occ.limits.partitions:
            return "registers set no limit (a fixed GRF per hardware thread)"
        if self.register_source == "estimate":
            return f"{occ.registers} registers per thread (estimate: the kernel's `.registers`)"
        return f"{occ.registers} registers per thread ({self.register_source})"

    def short(self) -> str:
        """`100%`, `not published`, `does not launch`."""
        occ = self.occupancy
        if not occ.limits.published:
            return "not published"
        if occ.exceeds:
            return "does not launch"
        return percent(occ.fraction)

    def text(self) -> str:
        """The hover's value for this row."""
        occ, a = self.occupancy, self.occupancy.limits
        width = f"W{occ.width}: " if len(a.wave_widths) > 1 else ""
        if not a.published:
            state = ("exceeds " + "; ".join(occ.exceeds)) if occ.exceeds else \
                f"within the per-threadgroup limits ({a.max_workgroup_size} threads, " \
                f"{a.local_per_workgroup // 1024} KiB threadgroup memory: the Metal Feature Set " \
                "Tables' figures as commonly cited, an estimate)"
            return f"{width}Apple publishes no occupancy limits: no occupancy is claimed; {state}"
        if occ.exceeds:
            return (f"{width}does not launch: exceeds " + "; ".join(occ.exceeds)
                    + f" · {self.registers_text()}")
        notes = "".join(f" · {n}" for n in occ.notes)
        limited = f"({percent(occ.fraction)}), limited by {' and '.join(occ.limited_by)}"
        if occ.workgroups is None:
            return (f"{width}workgroup size chosen at launch: at most {occ.waves} of "
                    f"{a.max_waves} {a.wave_name}s per {a.unit} {limited} · "
                    f"{self.registers_text()}{notes}")
        plural = "s" if occ.workgroups != 1 else ""
        allowed = ", ".join(f"{n} {v}" for n, v in occ.by_limit if v is not None)
        return (f"{width}{occ.workgroups} workgroup{plural} per {a.unit}, {occ.waves} of "
                f"{a.max_waves} {a.wave_name}s {limited} · {self.registers_text()} · "
                f"workgroups allowed by {allowed}{notes}")

    def as_dict(self) -> dict:
        occ, a = self.occupancy, self.occupancy.limits
        return {"arch": a.arch, "hardware": a.hardware, "unit": a.unit, "waveWidth": occ.width,
                "published": a.published, "registers": occ.registers,
                "registerSource": self.register_source, "localMemory": occ.local,
                "wavesPerWorkgroup": occ.waves_per_workgroup,
                "residentWorkgroups": occ.workgroups, "residentWaves": occ.waves,
                "maxWaves": a.max_waves,
                "occupancy": round(occ.fraction, 4) if occ.fraction is not None else None,
                "limitedBy": list(occ.limited_by), "limits": dict(occ.by_limit),
                "exceeds": list(occ.exceeds), "notes": list(occ.notes)}


def percent(fraction: float) -> str:
    """`100%`, `62.5%`."""
    return f"{100 * fraction:.1f}".rstrip("0").rstrip(".") + "%"


def arch_rows(target: str, threads: int | None, registers: int, local: int,
              vendor: dict[str, tuple[int, str]]) -> list[ArchRow]:
    """Rows of one target: each of its architectures at each width. `vendor`: arch ->
    (registers per thread, compiler) from the vendors' compilers."""
    rows = []
    for arch in TARGET_ARCHES.get(target, ()):
        limits = ARCH_LIMITS[arch]
        count, source = vendor.get(arch, (registers, "estimate"))
        for width in limits.wave_widths:
            rows.append(ArchRow(target, compute(limits, width, threads or None, count, local),
                                source))
    return rows


def summary_text(rows: list[ArchRow]) -> str:
    """`occupancy sm_75 100% · gfx90a 50% · xe-hpg W8 100%/W16 ...` for the code lens tooltip."""
    parts: dict[str, list[str]] = {}
    for row in rows:
        many = len(row.occupancy.limits.wave_widths) > 1
        parts.setdefault(row.arch, []).append(
            (f"W{row.occupancy.width} " if many else "") + row.short())
    return "occupancy " + " · ".join(f"{arch} {'/'.join(p)}" for arch, p in parts.items())
