"""What a stopped session shows, as DAP bodies: threads (waves), stack frames (the kernel and
`call` frames), scopes and variables (registers with their lanes, predicates as lane masks,
special registers, the active mask and the divergence/loop/call stack, memory), `setVariable`,
`readMemory`/`writeMemory` and `disassemble`. Variable references and frame ids are handles
valid until the session runs again.
"""

from __future__ import annotations

import base64
import re

import numpy as np

from ..emu import CallFrame, IfFrame, LoopFrame
from ..isa import PREDICATE_COUNT, SPECIAL_REGISTERS
from .expressions import ExpressionError
from ..isa.value_format import (ACTIVE, INACTIVE, lane_list, lanes_summary as summary,
                                 mask_text, register_lanes)
from .moment import focus_rows
from .values import parse_value

_REGISTER_NAME = re.compile(r"r(\d{1,3})")
_LANE_NAME = re.compile(rf"lane (\d{{1,4}})(?: [{ACTIVE}{INACTIVE}])?")   # _lanes_of marks each


class Handles:
    """Integer ids for objects handed to the client (ids start at 1; 0 means none)."""

    def __init__(self):
        self.items: list = []

    def add(self, item) -> int:
        self.items.append(item)
        return len(self.items)

    def get(self, ref: int):
        if not 1 <= ref <= len(self.items):
            raise KeyError(f"unknown reference {ref} (references last until the kernel runs "
                           "again)")
        return self.items[ref - 1]

    def reset(self) -> None:
        self.items = []


class Views:
    """DAP bodies over the session's `SteppingRun` (`session.run`) and `Target`."""

    def __init__(self, session):
        self.session = session
        self.handles = Handles()
        self.recording = None          # (run, workgroup, Provenance): `provenance`

    # ---- naming ------------------------------------------------------------------------------
    @property
    def run(self):
        return self.session.run

    def thread_id(self, wave: int) -> int:
        return self.run.workgroup * self.run.waves + wave + 1

    def wave_of(self, thread_id: int) -> int:
        run = self.run
        wave = thread_id - 1 - run.workgroup * run.waves
        if not 0 <= wave < run.waves:
            raise KeyError(f"thread {thread_id} is not a wave of the running workgroup")
        return wave

    def thread_name(self, wave: int) -> str:
        x, y, z = self.run.geo.workgroup_id(self.run.workgroup)
        return f"wg({x},{y},{z}) wave {wave}"

    def threads(self) -> list[dict]:
        return [{"id": self.thread_id(w), "name": self.thread_name(w)}
                for w in range(self.run.waves)]

    def source(self) -> dict | None:
        target = self.session.target
        if target.source is None:
            return None
        return {"name": target.path.name, "path": str(target.path)}

    def line(self, line: int | None) -> int:
        return 0 if line is None else line + self.session.line_base

    def label(self, offset: int) -> str:
        """A call target's label (`loc_XXXX` with its code-section offset, as `wave-lsp dis`)."""
        code_offset = self.run.kernel.code_offset
        return self.session.target.labels.get(offset, f"loc_{code_offset + offset:04x}")

    # ---- stack -----------------------------------------------------------------------------
    def stack(self, thread_id: int) -> list[dict]:
        run = self.run
        wave = self.wave_of(thread_id)
        positions = [run.index]
        for frame in reversed(run.call_frames):
            positions.append(frame.ret - 1)
        names = []
        for frame in reversed(run.call_frames):
            names.append(self.label(run.instructions[frame.ret - 1].imm))
        names.append(run.kernel.name)
        active = run.executing(wave)[:run.lane_count(wave)]
        frames = []
        for depth, (index, name) in enumerate(zip(positions, names)):
            if index >= len(run.instructions):
                frames.append({"id": self.handles.add(("frame", wave, depth)),
                               "name": f"{name} (ended)", "line": 0, "column": 0})
                continue
            ins = run.instructions[index]
            if depth == 0:
                name += f" · lanes {lane_list(active)} active" if active.any() \
                    else " · no lane active"
            frame = {"id": self.handles.add(("frame", wave, depth)), "name": name,
                     "line": self.line(ins.line), "column": 1 if ins.line is not None else 0,
                     "instructionPointerReference": f"0x{ins.offset:x}"}
            if ins.line is not None and self.source():
                frame["source"] = self.source()
            frames.append(frame)
        return frames

    # ---- scopes and variables ----------------------------------------------------------------
    def frame(self, frame_id: int) -> tuple[int, int]:
        """(wave, depth) of a stack frame id."""
        item = self.handles.get(frame_id)
        if item[0] != "frame":
            raise KeyError(f"{frame_id} is a variables reference, not a stack frame id")
        return item[1], item[2]

    def container(self, ref: int) -> tuple:
        """The item of a variables reference (a scope or a variable with children)."""
        item = self.handles.get(ref)
        if item[0] == "frame":
            raise KeyError(f"{ref} is a stack frame id, not a variables reference")
        return item

    def scopes(self, frame_id: int) -> list[dict]:
        wave, _ = self.frame(frame_id)
        run = self.run
        scopes = [("Registers", ("registers", wave), run.geo.registers),
                  ("Predicates", ("predicates", wave), PREDICATE_COUNT),
                  ("Special registers", ("specials", wave), len(SPECIAL_REGISTERS)),
                  ("Lanes and divergence", ("lanes", wave), 4),
                  ("Memory", ("memory", wave), 2)]
        rows = focus_rows(run, self.session.focus)
        if rows:               # a finding's threads (launch attribute stopAt), first
            scopes.insert(0, ("Finding lanes", ("focus", wave), len(rows)))
        return [{"name": name, "variablesReference": self.handles.add(item),
                 "namedVariables": count, "expensive": False,
                 **({"presentationHint": "registers"} if name == "Registers" else {})}
                for name, item, count in scopes]

    def variables(self, ref: int, hex_format: bool = False) -> list[dict]:
        item = self.container(ref)
        kind, wave = item[0], item[1]
        return getattr(self, f"_{kind}")(wave, hex_format, *item[2:])

    def _typed_lanes(self, wave: int, reg: int, hex_format: bool) -> tuple[str, list[str]]:
        """The register's type and lane texts, by the one formatter of the inline hints and
        hovers (`isa.value_format.register_lanes`)."""
        run = self.run
        n = run.lane_count(wave)
        registers = run.registers_of(wave)
        values = registers[reg].tolist()[:n]
        highs = registers[reg + 1].tolist()[:n] if reg + 1 < run.geo.registers else None
        return register_lanes(values, self.session.kinds.get(reg, "auto"), highs, hex_format)

    def _lane_values(self, wave: int, reg: int, hex_format: bool) -> list[str]:
        return self._typed_lanes(wave, reg, hex_format)[1]

    def _registers(self, wave, hex_format):
        out = []
        for reg in range(self.run.geo.registers):
            kind, texts = self._typed_lanes(wave, reg, hex_format)
            out.append({"name": f"r{reg}", "value": summary(texts), "type": kind,
                        "evaluateName": f"r{reg}",
                        "variablesReference": self.handles.add(("lanes_of", wave, reg)),
                        "indexedVariables": self.run.lane_count(wave)})
        return out

    def _lanes_of(self, wave, hex_format, reg):
        kind, values = self._typed_lanes(wave, reg, hex_format)
        active = self.run.executing(wave)
        # active lanes ✓, inactive · (as the hover's table marks them); each expands to who
        # wrote its value
        return [{"name": f"lane {i} {ACTIVE if active[i] else INACTIVE}", "value": v,
                 "variablesReference": self.handles.add(("writer", wave, f"r{reg}", i)),
                 "type": kind if active[i] else f"{kind} (inactive lane)"}
                for i, v in enumerate(values)]

    def _writer(self, wave, hex_format, name, lane):
        """Who wrote a register lane's value as it is now (a recording of the launch's running
        workgroup, made once per workgroup: `provenance`), and where its inputs came from."""
        from .provenance import who_wrote_now
        return who_wrote_now(self, wave, name, lane)

    def _predicates(self, wave, hex_format):
        run = self.run
        n = run.lane_count(wave)
        out = []
        for p in range(PREDICATE_COUNT):
            mask = run.predicates_of(wave)[p][:n]
            out.append({"name": f"p{p}", "value": mask_text(mask), "type": "lane mask",
                        "evaluateName": f"p{p}",
                        "variablesReference": self.handles.add(("pred_lanes", wave, p))})
        return out

    def _pred_lanes(self, wave, hex_format, p):
        run = self.run
        mask = run.predicates_of(wave)[p][:run.lane_count(wave)]
        return [{"name": f"lane {i}", "value": "true" if on else "false",
                 "variablesReference": 0} for i, on in enumerate(mask.tolist())]

    def _specials(self, wave, hex_format):
        run = self.run
        n = run.lane_count(wave)
        out = []
        for sr in SPECIAL_REGISTERS:
            values = run.special_of(wave, sr.index)[:n].tolist()
            text = [f"0x{v:x}" if hex_format else str(v) for v in values]
            out.append({"name": sr.name, "value": summary(text), "variablesReference": 0,
                        "evaluateName": sr.name, "presentationHint": {"attributes": ["readOnly"]}})
        return out

    def _lanes(self, wave, hex_format):
        run = self.run
        n = run.lane_count(wave)
        calls = run.call_frames
        out = [{"name": "active", "value": mask_text(run.executing(wave)[:n]),
                "variablesReference": 0, "evaluateName": "active"},
               {"name": "alive (not halted)", "value": mask_text(run.alive_of(wave)[:n]),
                "variablesReference": 0}]
        frames = self._control_frames(wave)
        out.append({"name": "divergence stack", "value": f"{len(frames)} frames",
                    "variablesReference": self.handles.add(("control", wave)) if frames else 0})
        out.append({"name": "call stack", "value": f"{len(calls)} calls",
                    "variablesReference": self.handles.add(("calls", wave)) if calls else 0})
        return out

    def _focus(self, wave, hex_format):
        """One entry per thread of the finding: its wave, lane and registers."""
        run = self.run
        out = []
        for thread, w, lane in focus_rows(run, self.session.focus):
            state = "active" if run.executing(w)[lane] else "inactive"
            out.append({"name": f"thread {thread}", "value": f"wave {w}, lane {lane} ({state})",
                        "variablesReference": self.handles.add(("lane_registers", w, lane))})
        return out

    def _lane_registers(self, wave, hex_format, lane):
        return [{"name": f"r{reg}", "value": self._lane_values(wave, reg, hex_format)[lane],
                 "evaluateName": f"r{reg}", "variablesReference": 0}
                for reg in range(self.run.geo.registers)]

    def _control_frames(self, wave):
        run = self.run
        n = run.lane_count(wave)
        part = run.wave_lanes(wave)
        out = []
        for frame in reversed(run.control_frames):
            origin = self.session.origin_of(frame)
            ins = run.instructions[origin] if origin is not None else None
            where = f" (line {self.line(ins.line)})" if ins is not None and ins.line is not None \
                else (f" (0x{ins.offset:x})" if ins is not None else "")
            if isinstance(frame, IfFrame):
                value = (f"entry {mask_text(frame.entry[part][:n])}; "
                         f"else lanes {mask_text(frame.else_mask[part][:n])}")
                out.append({"name": "if" + where, "value": value, "variablesReference": 0})
            elif isinstance(frame, LoopFrame):
                continued = frame.out & ~frame.broken
                value = (f"entry {mask_text(frame.entry[part][:n])}; "
                         f"broken {mask_text(frame.broken[part][:n])}; "
                         f"continued {mask_text(continued[part][:n])}")
                out.append({"name": "loop" + where, "value": value, "variablesReference": 0})
        return out

    def _control(self, wave, hex_format):
        return self._control_frames(wave)

    def _calls(self, wave, hex_format):
        run = self.run
        n = run.lane_count(wave)
        part = run.wave_lanes(wave)
        out = []
        for frame in reversed(run.call_frames):
            assert isinstance(frame, CallFrame)
            call = run.instructions[frame.ret - 1]
            out.append({"name": f"call {self.label(call.imm)} (line {self.line(call.line)})",
                        "value": f"caller's lanes {mask_text(frame.active[part][:n])}",
                        "variablesReference": 0})
        return out

    def _memory(self, wave, hex_format):
        run = self.run
        return [{"name": "device", "value": f"{run.device.size} bytes",
                 "memoryReference": "device", "variablesReference": 0},
                {"name": "local", "value": f"{run.geo.local_memory} bytes (this workgroup)",
                 "memoryReference": "local", "variablesReference": 0}]

    # ---- setVariable -------------------------------------------------------------------------
    def set_variable(self, ref: int, name: str, text: str, hex_format: bool) -> dict:
        item = self.container(ref)
        run = self.run
        kind, wave = item[0], item[1]
        register, lane = _REGISTER_NAME.fullmatch(name), _LANE_NAME.fullmatch(name)
        if kind in ("lanes_of", "pred_lanes") and name.startswith("lane "):
            lane = int(lane.group(1)) if lane is not None else -1
            if not 0 <= lane < run.lane_count(wave):
                raise ExpressionError(f"{name} is not a lane of this wave (lanes 0 to "
                                      f"{run.lane_count(wave) - 1})")
        if kind == "registers" and register is not None:
            reg, targets = int(register.group(1)), range(run.lane_count(wave))
        elif kind == "lanes_of" and lane is not None:
            reg, targets = item[2], [lane]
        elif kind == "pred_lanes" and lane is not None:
            value = text.strip().lower() in ("1", "true", "yes", "on")
            run.predicates_of(wave)[item[2], lane] = value
            return {"value": "true" if value else "false"}
        else:
            raise ExpressionError(f"{name} cannot be changed")
        if reg >= run.geo.registers:
            raise ExpressionError(f"r{reg} does not exist")
        kind_of = self._typed_lanes(wave, reg, False)[0]
        for lane in targets:
            bits = parse_value(text, kind_of, run, wave, lane)
            run.registers_of(wave)[reg, lane] = bits
        values = self._lane_values(wave, reg, hex_format)
        shown = values[targets[0]] if len(targets) == 1 else summary(values)
        return {"value": shown, "type": kind_of}

    # ---- memory ------------------------------------------------------------------------------
    def memory(self, reference: str) -> np.ndarray:
        run = self.run
        if reference == "device":
            return run.device
        if reference == "local":
            return run.local_memory
        raise KeyError(f"unknown memory reference '{reference}' (device or local)")

    def read_memory(self, reference: str, offset: int, count: int) -> dict:
        memory = self.memory(reference)
        start = max(0, offset)
        end = max(start, min(memory.size, offset + max(0, count)))
        data = memory[start:end].tobytes()
        body = {"address": f"0x{start:x}", "data": base64.b64encode(data).decode("ascii")}
        if count - len(data) > 0:
            body["unreadableBytes"] = count - len(data)
        return body

    def write_memory(self, reference: str, offset: int, data: str) -> dict:
        memory = self.memory(reference)
        try:
            raw = np.frombuffer(base64.b64decode(data, validate=True), dtype=np.uint8)
        except ValueError as err:
            raise ExpressionError(f"'data' is not base64 ({err})") from None
        if offset < 0 or offset + raw.size > memory.size:
            raise ExpressionError(f"{reference} memory is {memory.size} bytes: cannot write "
                                  f"{raw.size} bytes at {offset}")
        memory[offset:offset + raw.size] = raw
        return {"offset": offset, "bytesWritten": int(raw.size)}

    # ---- disassemble -------------------------------------------------------------------------
    def disassemble(self, reference: str, offset: int, instruction_offset: int,
                    count: int) -> list[dict]:
        from ..asm.disassembler import format_instruction   # not loaded for a session's start
        run = self.run
        instructions = run.instructions
        try:
            address = int(reference, 0) + offset
        except ValueError:
            address = 0
        start = next((i for i, ins in enumerate(instructions) if ins.offset >= address),
                     len(instructions))
        first = start + instruction_offset
        out = []
        for position in range(first, first + count):
            if not 0 <= position < len(instructions):
                address = (4 * position) & 0xFFFFFFFF if position < 0 \
                    else _end(instructions) + 4 * (position - len(instructions))
                out.append({"address": f"0x{address:x}", "instruction": "",
                            "presentationHint": "invalid"})
                continue
            ins = instructions[position]
            words = [ins.word0] + ([ins.word1] if ins.word1 is not None else [])
            entry = {"address": f"0x{ins.offset:x}",
                     "instructionBytes": " ".join(f"{w:08x}" for w in words),
                     "instruction": format_instruction(ins, self.label)}
            label = self.session.target.labels.get(ins.offset)
            if label:
                entry["symbol"] = label
            if ins.line is not None and self.source():
                entry["location"] = self.source()
                entry["line"] = self.line(ins.line)
            out.append(entry)
        return out


def _end(instructions) -> int:
    return instructions[-1].offset + instructions[-1].size if instructions else 0

