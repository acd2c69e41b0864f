"""The one observer protocol of a run (wave_lsp/emu/observer.py): the options' flags become
observers in one place, an observer given to `run` sees every event of a numpy-engine run, and
the engine is chosen by which observers are present."""

from __future__ import annotations

import pytest

from wave_lsp.emu import Launch, Observer, RunOptions, run
from wave_lsp.emu.pipeline import observers_of

from emu_native.native_support import need_core

KERNEL = """\
.kernel k
.registers 6
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 4
    imul    r2, r0, r1
    device_store_u32 r2, r0
    halt
.end
"""
LAUNCH = Launch(workgroup=(8, 1, 1), wave_width=4, device_memory=64)     # two waves


class Counting(Observer):
    """Counts the events it sees, and puts the counts in the report's registers."""

    kind = "counting"
    refusal = "a counting observer"

    def __init__(self) -> None:
        self.events = {"start": 0, "attach": 0, "before": 0, "after": 0, "finish": 0}

    def start(self, run) -> None:
        self.events["start"] += 1
        self.instructions = len(run.compiled.instructions)

    def attach(self, b) -> None:
        self.events["attach"] += 1

    def before(self, index: int, b):
        self.events["before"] += 1
        return index

    def after(self, index: int, b, seen) -> None:
        assert seen == index
        self.events["after"] += 1

    def finish(self) -> None:
        self.events["finish"] += 1

    def fill(self, report) -> None:
        report.counted = dict(self.events)


def test_the_options_flags_become_observers_in_one_order():
    options = RunOptions(profile=True, trace=True, mem_trace="record", record_threads=(0,),
                         writers=True)
    assert [o.kind for o in observers_of(options)] == [
        "initcheck", "profile", "trace", "mem_trace", "lines", "writers"]
    assert [o.kind for o in observers_of(RunOptions(initcheck=False))] == []


def test_an_observer_given_to_run_sees_every_event():
    counting = Counting()
    report = run(KERNEL, LAUNCH, RunOptions(), observers=[counting])
    assert not report.errors and report.engine == "numpy"
    assert report.fallback in (None, "a counting observer", "the native core is not built")
    # 5 instructions, one batch: every instruction seen once before and after, for both waves
    assert report.counted == {"start": 1, "attach": 1, "before": 5, "after": 5, "finish": 1}
    assert report.stats.total == 10                     # two waves
    assert list(report.device[:32:4]) == list(range(8))


def test_a_sequential_redo_starts_the_observers_afresh():
    """Two workgroups storing to the same words are run again one at a time: the observers
    start again (the abandoned attempt is not finished), and see each workgroup as a batch of
    its own."""
    counting = Counting()
    report = run(KERNEL, Launch(grid=(2, 1, 1), workgroup=(8, 1, 1), wave_width=4,
                                device_memory=64), RunOptions(), observers=[counting])
    assert not report.errors
    assert report.counted == {"start": 2, "attach": 3, "before": 15, "after": 15, "finish": 1}


@pytest.mark.parametrize("engine", ["numpy", "native"])
def test_several_observers_share_one_run(engine):
    """The per-line recorder and the store-writer record come from the same run, on either
    engine (the native core records both itself)."""
    if engine == "native":
        need_core()
    report = run(KERNEL, LAUNCH, RunOptions(record_threads=(1,), writers=True, engine=engine))
    assert report.engine == engine and not report.errors
    store = next(r for r in report.line_records.values() if r.mnemonic == "device_store_u32")
    assert store.count == 1 and [(w.target, w.values) for w in store.writes[0]] == [
        ("device[0x4]", {1: 1})]
    assert report.recorded_threads == (1,)
    assert report.writers.at(4) == (5, 1) and report.writers.at(28) == (5, 7)


def test_the_engine_follows_the_observers_present():
    need_core()
    assert run(KERNEL, LAUNCH, RunOptions()).engine == "native"
    report = run(KERNEL, LAUNCH, RunOptions(), observers=[Counting()])
    assert (report.engine, report.fallback) == ("numpy", "a counting observer")
    assert run(KERNEL, LAUNCH, RunOptions(profile=True)).engine == "native"
    assert run(KERNEL, LAUNCH, RunOptions(profile=True, record_threads="first_wave",
                                          writers=True)).engine == "native"


def test_observers_the_native_core_records_load_no_numpy(tmp_path):
    """Building the options' observers loads no numpy: a native run with the initcheck and the
    memory trace loads none."""
    import json
    import subprocess
    import sys
    need_core()
    kernel = tmp_path / "k.wave"
    kernel.write_text(KERNEL)
    probe = ("import json, sys\nfrom wave_lsp.emu import Launch, RunOptions, run\n"
             f"r = run(open({str(kernel)!r}).read(), Launch(workgroup=(4, 1, 1), wave_width=4,"
             " device_memory=64), RunOptions(mem_trace='record'))\n"
             "print(json.dumps([r.engine, len(r.mem_trace), "
             "any(m.split('.')[0] == 'numpy' for m in sys.modules)]))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["native", 4, False]
