"""Race reports do not depend on how the numpy engine batches workgroups: every racy program
reports the same warnings (kinds, text, instructions, lanes, addresses, order) whatever
`max_batch_lanes`, equal to running the workgroups one at a time, in order."""

from __future__ import annotations

import numpy as np
import pytest

from numpy_engine import run
from test_emu_races import VECTOR_ADD
from wave_lsp.emu import IotaFill, Launch

HEAD = (".kernel k\n.registers 16\n    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 4\n"
        "    imul r2, r0, r1\n    mov_sr r3, sr_workgroup_id_x\n")


def kernel(body: str) -> str:
    return HEAD + body + "    halt\n.end\n"



PROGRAMS = {
    # read-after-write between workgroups (the b[] of a later workgroup is an earlier one's c[])
    "vector_add": (VECTOR_ADD, Launch(grid=(5, 1, 1),
                                      memory_init=[IotaFill(0, 256 * 7, 1.0)])),
    # every workgroup writes word 0, then reads it
    "one_word": (kernel("    mov_imm r6, 0\n    device_store_u32 r6, r3\n"
                        "    device_load_u32 r7, r6\n"),
                 Launch(grid=(6, 1, 1), workgroup=(8, 1, 1), wave_width=4)),
    # waves of a workgroup write one device word, a lower word in a higher workgroup
    "device_waves": (kernel("    mov_imm r6, 8\n    isub r6, r6, r3\n    imul r6, r6, r1\n"
                            "    device_store_u32 r6, r0\n    device_load_u32 r7, r6\n"),
                     Launch(grid=(6, 1, 1), workgroup=(8, 1, 1), wave_width=4)),
    # local memory: a store read by another wave with no barrier between, then a barrier
    "local": (kernel("    local_store_u32 r2, r0\n    mov_imm r6, 0\n"
                     "    local_load_u32 r7, r6\n    barrier\n    local_store_u32 r6, r3\n"),
              Launch(grid=(5, 1, 1), workgroup=(8, 1, 1), wave_width=4)),
    # atomics of every workgroup on one word, then a plain store and load of it
    "atomics_and_stores": (kernel("    mov_imm r6, 0\n    mov_imm r5, 1\n"
                                  "    atomic_add r7, r6, r5, .device\n"
                                  "    device_store_u32 r6, r0\n    device_load_u32 r8, r6\n"),
                           Launch(grid=(4, 1, 1), workgroup=(8, 1, 1), wave_width=4)),
    # unaligned atomics of each workgroup's lanes over neighbouring words
    "unaligned_atomic": (kernel("    mov_imm r6, 2\n    iadd r6, r6, r0\n    mov_imm r5, 3\n"
                                "    imul r8, r3, r1\n    iadd r6, r6, r8\n"
                                "    atomic_add r7, r6, r5, .device\n"),
                         Launch(grid=(4, 1, 1), workgroup=(8, 1, 1), wave_width=4)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_race_reports_do_not_depend_on_batching(name):
    source, launch = PROGRAMS[name]
    alone = run(source, launch, max_batch_lanes=1)
    assert alone.warnings, name                      # each program reports something
    for lanes in (16, 1 << 20):
        batched = run(source, launch, max_batch_lanes=lanes)
        assert batched.warnings == alone.warnings, (name, lanes)
        assert np.array_equal(batched.device_memory, alone.device_memory)
        assert batched.stats == alone.stats


def test_a_race_between_batches_is_reported():
    """Two workgroups in different batches meet on a word: one at a time, it is a race."""
    source, launch = PROGRAMS["one_word"]
    (race,) = [w for w in run(source, launch, max_batch_lanes=8).warnings
               if w.kind == "data_race"]
    assert race.workgroup == (0, 0, 0) and race.other_workgroup == (1, 0, 0)
    assert race.other_access == "write" and race.address == 0
