"""A witness's memory inputs: the device words whose loaded values a race depends on are
reported (address -> value) and its launch writes them (`--fill-iota` pairs, `model.memory_flags`),
so that the replay and "Debug witness" run with the memory the witness needs."""

from __future__ import annotations

import random
import shlex

import pytest

from wave_lsp.analysis.verify.model import memory_flags, unwritable
from wave_lsp.launch.request import parse_run_flags
from wave_lsp.launch.verify import verify_source
from wave_lsp.emu import run
from wave_lsp.syntax.document import Document

# each thread stores its id into the local slot a device word names: two threads of different
# waves race exactly when their words (masked) are equal
SCATTER = """.kernel scatter
.registers 8
.workgroup_size 64, 1, 1
.local_memory 256
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 4
    imul    r2, r0, r1
    device_load_u32 r3, r2
    mov_imm r5, 63
    and     r3, r3, r5
    imul    r4, r3, r1
    local_store_u32 r4, r0
    halt
.end
"""


def device_words(flags: list[str], addresses) -> dict[int, int]:
    """The device words at `addresses` after a launch of SCATTER with `flags` set memory up."""
    request = parse_run_flags(flags)
    words = run(SCATTER, request.launch, request.options).device_memory.view("<u4")
    return {a: int(words[a // 4]) for a in addresses}      # the kernel writes no device word


def test_the_loaded_words_a_race_needs_are_reported_and_set_by_its_launch():
    [(verdict, replay)] = verify_source(SCATTER, Document(SCATTER).program, {})
    w = verdict.witness
    assert verdict.verdict == "race" and not w.exact and replay.shown
    a, b = w.threads
    assert set(w.memory) == {4 * a.global_id, 4 * b.global_id}          # each thread's word
    assert len({v & 63 for v in w.memory.values()}) == 1                # they name one slot
    assert w.address == 4 * (next(iter(w.memory.values())) & 63)
    assert verdict.as_json()["witness"]["memory"] == {str(k): v for k, v in w.memory.items()}
    launch = shlex.split(verdict.launch())
    assert "--fill-iota" in launch
    assert device_words(launch, w.memory) == w.memory


@pytest.mark.parametrize("seed", range(5))
def test_memory_flags_write_any_word_but_the_first_or_an_infinity_or_nan(seed):
    rng = random.Random(seed)
    memory = {4 * i: rng.choice([0, 1, 30, 0x80000000, 0x7F800000, 0xFF800001,
                                 rng.getrandbits(32)]) for i in rng.sample(range(80), 12)}
    left = unwritable(memory)
    assert all(a == 0 or (memory[a] & 0x7F800000) == 0x7F800000 for a in left)
    flags = ["--kernel", "scatter"] + memory_flags(memory)
    written = device_words(flags, memory)
    assert {a: v for a, v in written.items() if a not in left} == \
        {a: v for a, v in memory.items() if a not in left}
