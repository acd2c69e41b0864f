"""Wave-width portability lints: code whose meaning depends on how many lanes a wave has, on the
backends whose widths (`isa/backends.py`) make it differ.

P803 a ballot mask stored, bit-counted or compared with a constant other than 0, as if the wave
were 32 lanes wide; P804 a constant shuffle/broadcast lane or shuffle offset at or beyond a
target's width; P805 a comparison of `sr_wave_width` or `sr_lane_id` with a constant whose
outcome differs between the targets' widths; P807 a store whose address comes from
`sr_lane_id` alone in a kernel whose `.workgroup_size` holds more threads than a target's wave:
threads of different waves then store to the same address.
"""

from __future__ import annotations

from ..isa.backends import BACKENDS
from .portability_flow import BALLOT, LANE_DERIVED, LANE_ID, WAVE_WIDTH, Step

_COMPARES = {"icmp_eq": lambda a, b: a == b, "icmp_ne": lambda a, b: a != b,
             "icmp_lt": lambda a, b: a < b, "icmp_le": lambda a, b: a <= b,
             "icmp_gt": lambda a, b: a > b, "icmp_ge": lambda a, b: a >= b,
             "ucmp_lt": lambda a, b: a < b, "ucmp_le": lambda a, b: a <= b}
_LANE_OPERAND = {"wave_shuffle": "lane", "wave_broadcast": "lane", "wave_shuffle_xor": "xor mask",
                 "wave_shuffle_up": "offset", "wave_shuffle_down": "offset"}


_STORES = frozenset({"device_store_u8", "device_store_u16", "device_store_u32", "device_store_u64",
                     "device_store_u128", "local_store_u8", "local_store_u16", "local_store_u32",
                     "local_store_u64"})


def width_findings(flow: list[Step], finding, threads: int = 0) -> list:
    """P803-P805 and P807 findings over the steps of one kernel (`finding` builds a Finding;
    `threads` is the declared workgroup size, 0 when the launcher chooses it)."""
    out = []
    for step in flow:
        if step.mnemonic in _STORES and threads and len(step.sources) == 2:
            out.extend(_lane_address(step, finding, threads))
        m = step.mnemonic
        if m in _COMPARES and len(step.sources) == 3:
            out.extend(_compare(step, finding))
        elif m in _LANE_OPERAND and len(step.sources) == 3:
            out.extend(_shuffle(step, finding))
        elif m in ("device_store_u32", "local_store_u32", "device_store_u16", "local_store_u16",
                   "device_store_u8", "local_store_u8") and len(step.sources) == 2:
            op, value = step.sources[1]
            if value is not None and value.kind == BALLOT:
                out.append(finding("P803", step.line, op.start, op.end,
                                   f"'{op.text}' holds a ballot mask, stored as 32 bits: "
                                   "{targets}", _wide("lanes 32..63 are lost")))
        elif m == "bitcount" and len(step.sources) == 2:
            op, value = step.sources[1]
            if value is not None and value.kind == BALLOT:
                out.append(finding("P803", step.line, op.start, op.end,
                                   f"bitcount of the ballot mask '{op.text}' counts 32 lanes "
                                   "at most: {targets}", _wide("lanes 32..63 are not counted")))
    return out


def _wide(what: str):
    return tuple((b.name, f"{b.name} runs waves of {max(b.wave_widths)} lanes, {what}")
                 for b in BACKENDS if max(b.wave_widths) > 32)


def _compare(step: Step, finding) -> list:
    (_pd, _), (a, va), (b, vb) = step.sources
    for (reg, value), (other, ovalue), flipped in (((a, va), (b, vb), False),
                                                   ((b, vb), (a, va), True)):
        if value is None or ovalue is None or ovalue.constant is None:
            continue
        c = ovalue.constant
        at = (step.line, step.instruction.mnemonic.start, step.instruction.end)
        if value.kind == BALLOT and c != 0:
            return [finding("P803", *at, f"ballot mask '{reg.text}' compared with {c:#x}, a "
                            "mask of a 32-lane wave: {targets}",
                            tuple((b.name, f"{b.name} runs {b.widths_text()}-lane waves")
                                  for b in BACKENDS if b.wave_widths != (32,)))]
        test = _COMPARES[step.mnemonic]
        if value.kind == WAVE_WIDTH:
            outcome = {w: (test(c, w) if flipped else test(w, c))
                       for bk in BACKENDS for w in bk.wave_widths}
            if len(set(outcome.values())) > 1:
                return [finding("P805", *at, f"compares sr_wave_width with {c}, true at some "
                                "widths and false at others: {targets}",
                                _outcomes(outcome), tuple(outcome.items()))]
        if value.kind == LANE_ID:
            exists = {w: c < w for bk in BACKENDS for w in bk.wave_widths}
            if len(set(exists.values())) > 1:
                return [finding("P805", *at, f"compares sr_lane_id with {c}, a lane that only "
                                "waves wider than {c} have: {targets}".replace("{c}", str(c)),
                                tuple((bk.name, f"{bk.name} ({bk.widths_text()}) "
                                       + ("never has" if not any(exists[w] for w in
                                                                 bk.wave_widths)
                                          else "may lack") + f" lane {c}")
                                      for bk in BACKENDS
                                      if not all(exists[w] for w in bk.wave_widths)),
                                tuple(exists.items()))]
    return []


def _outcomes(outcome: dict[int, bool]):
    out = []
    for bk in BACKENDS:
        values = {w: outcome[w] for w in bk.wave_widths}
        text = ", ".join(f"{'true' if v else 'false'} at width {w}" for w, v in values.items())
        out.append((bk.name, f"{bk.name}: {text}"))
    return tuple(out)


def _shuffle(step: Step, finding) -> list:
    op, value = step.sources[2]
    if value is None or value.constant is None:
        return []
    c = value.constant
    what = _LANE_OPERAND[step.mnemonic]
    concerns = []
    for bk in BACKENDS:
        narrow = [w for w in bk.wave_widths if c >= w]
        if narrow:
            widths = "/".join(map(str, narrow))
            concerns.append((bk.name, f"{bk.name} waves of {widths} lanes have no "
                             + (f"lane {c}" if what == "lane" else f"lane {what} {c} reaches")))
    if not concerns:
        return []
    effect = ("reads lane" if what == "lane" else f"uses {what}")
    return [finding("P804", step.line, op.start, op.end,
                    f"'{step.mnemonic}' {effect} {c}: {{targets}}", tuple(concerns))]


def _lane_address(step: Step, finding, threads: int) -> list:
    op, value = step.sources[0]
    if value is None or value.kind not in (LANE_ID, LANE_DERIVED):
        return []
    concerns = []
    for bk in BACKENDS:
        narrow = [w for w in bk.wave_widths if w < threads]
        if narrow:
            widths = "/".join(map(str, narrow))
            concerns.append((bk.name, f"{bk.name} runs it as waves of {widths} lanes"))
    if not concerns:
        return []
    return [finding("P807", step.line, op.start, op.end,
                    f"store address '{op.text}' comes from sr_lane_id alone, but a workgroup of "
                    f"{threads} threads spans several waves, whose threads store to the same "
                    "addresses (use sr_thread_id_*): {targets}", tuple(concerns))]
