"""What the editor shows, recorded by the native core (record.c): the per-line records of the
shown threads (`recording.LineRecorder`'s `line_records`) and the store-writer record
(`writers.StoreWriters`), asked for and read back as the numpy engine's observers keep them.

`lines_spec(recorder, kernel, geo)` says what the core records for a `LineRecorder` (a
`LineSpec`, or a refusal: the shown threads lie in several workgroups, which the numpy engine
runs in lock-step); `read_lines` turns the core's record into `LineRecord`s. `writers_spec` and
`read_writers` do the same for a `StoreWriters`."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from ..report import LineRecord, WriteRecord

PLAN_FIELDS = 16                  # core.h REC_PLAN: slot, address register, captures, ...


@dataclass
class LineSpec:
    spec: tuple                   # what `_wavecore.run(lines=...)` takes
    threads: tuple[int, ...]      # every shown thread (the report's `recorded_threads`)
    ids: tuple[int, ...]          # the shown threads in the recorded workgroup, in order
    keys: list                    # line (or pc) of each slot
    slots: list                   # per instruction: its line's slot
    items: list                   # per instruction: what each capture writes


def _items(ins, registers: int):
    """An instruction's captures as the numpy recorder writes them: per write-plan item,
    ("reg", name, kind, capture) / ("mem", space, rs1, [captures]) and the address register."""
    from ..recording import write_plan
    out, captures, address = [], [], -1
    for item in write_plan(ins):
        if item[0] == "r" and item[1] < registers:
            out.append(("reg", f"r{item[1]}", item[2]))
            captures.append(item[1])
        elif item[0] == "p" and item[1] < 4:
            out.append(("reg", f"p{item[1]}", "pred"))
            captures.append(-1 - item[1])
        elif item[0] == "mem":
            _, space, rs1, rv, words = item
            count = 0
            for w in range(words):
                if rv + w >= registers:
                    break
                captures.append(rv + w)
                count += 1
            out.append(("mem", space, rs1, count))
            address = rs1 if rs1 < registers else -1
    assert len(captures) <= PLAN_FIELDS - 3, ins.spec.mnemonic
    return out, captures, address


def lines_spec(recorder, kernel, geo) -> LineSpec | str:
    """What the core records for `recorder` (a `LineRecorder`), or why it cannot."""
    from ..recording import shown_threads
    threads = shown_threads(recorder.record_threads, geo)
    tpw = geo.threads_per_wg
    inside = [t for t in threads if t // tpw < geo.workgroup_count]
    groups = {t // tpw for t in inside}
    if len(groups) > 1:
        return "shown threads in several workgroups"
    workgroup = groups.pop() if groups else -1
    keys, slot_of = [], {}
    plan = array("i")
    items, slots = [], []
    for ins in kernel.instructions:
        key = ins.line if ins.line is not None else ins.offset
        if key not in slot_of:
            slot_of[key] = len(keys)
            keys.append(key)
        out, captures, address = _items(ins, geo.registers)
        items.append(out)
        slots.append(slot_of[key])
        row = [slot_of[key], address, len(captures), *captures]
        plan.extend(row + [0] * (PLAN_FIELDS - len(row)))
    lanes = [t % tpw for t in inside]
    spec = (plan.tobytes(), lanes, workgroup, len(keys), recorder.limit)
    return LineSpec(spec, threads, tuple(inside), keys, slots, items)


def read_lines(raw, spec: LineSpec, kernel) -> dict:
    """The `line_records` of the core's record `raw` (record_py.c: order, first, count,
    first_active, log)."""
    order, first, count, first_active, log = raw
    order, first, count = array("q", order), array("q", first), array("q", count)
    k = len(spec.ids)
    instructions = kernel.instructions
    records, by_slot = {}, {}
    for slot in order:
        ins = instructions[first[slot]]
        record = LineRecord(ins.line, ins.offset, ins.spec.mnemonic)
        record.count = count[slot]
        record.first_active = tuple(bool(v) for v in first_active[slot * k:(slot + 1) * k])
        records[spec.keys[slot]] = by_slot[slot] = record
    data = array("I", log or b"").tolist()
    at, end = 0, len(data)
    ids = spec.ids
    identity = ids == tuple(range(len(ids)))     # "first_wave": positions are the ids
    decoders: dict[int, tuple] = {}
    while at < end:
        index, n = data[at], data[at + 1]
        at += 2
        who = data[at:at + n] if identity else [ids[i] for i in data[at:at + n]]
        at += n
        decoder = decoders.get(index)
        if decoder is None:
            items = spec.items[index]
            captures = sum(1 if item[0] == "reg" else item[3] for item in items)
            decoder = decoders[index] = (items, captures,
                                         any(item[0] == "mem" for item in items),
                                         by_slot[spec.slots[index]].writes)
        items, captures, has_mem, kept = decoder
        writes = []
        if has_mem:
            addresses = data[at + captures * n:at + (captures + 1) * n]
        for item in items:
            if item[0] == "reg":
                writes.append(WriteRecord(item[1], dict(zip(who, data[at:at + n])), item[2]))
                at += n
                continue
            _, space, rs1, words_kept = item
            single = len(set(addresses)) == 1
            for w in range(words_kept):
                target = f"{space}[0x{addresses[0] + 4 * w:x}]" if single \
                    else f"{space}[r{rs1}{'+' + str(4 * w) if w else ''}]"
                writes.append(WriteRecord(target, dict(zip(who, data[at:at + n])), "u32"))
                at += n
        if has_mem:
            at += n
        kept.append(writes)
    return records


def writers_spec(kernel, geo) -> tuple:
    """What the core records for a `StoreWriters`: per instruction its line (or pc) and the
    bytes each lane of a device store or atomic writes (0: none)."""
    where = array("q")
    for ins in kernel.instructions:
        access = ins.spec.memory
        wanted = access is not None and access.space == "device" and access.kind != "load" \
            and ins.rs1 < geo.registers
        where.extend((ins.line if ins.line is not None else ins.offset,
                      access.width if wanted else 0))
    return where.tobytes(), geo.threads_per_wg


def read_writers(raw, size: int):
    """A `StoreWriters` of the core's record `raw` ([(page, lines, lanes)])."""
    from ..writers import StoreWriters
    return StoreWriters.of_pages(size, {page: (memoryview(lines).cast("i"),
                                               memoryview(lanes).cast("q"))
                                        for page, lines, lanes in raw})
