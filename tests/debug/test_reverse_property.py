"""Property test of reverse execution: on random programs (divergent ifs, loops with break and
continue, halts, wave operations, stores; barriers with floats; several workgroups), going back
to any earlier moment — by `stepBack`, by `goto` a position, under a budget small enough to
thin the checkpoints — and stepping forward again reaches exactly the states that plain forward
stepping reached (registers, predicates, masks, local and device memory, position, and the
warnings so far: data races and uninitialised reads found again on the way forward)."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import test_emu_differential as upstream_generated  # noqa: E402
import test_emu_hypothesis as structured  # noqa: E402

from wave_lsp.debug.session import Session  # noqa: E402
from wave_lsp.debug.target import resolve  # noqa: E402
from wave_lsp.debug.timeline import Timeline  # noqa: E402
from wave_lsp.emu import FAULTED, FINISHED  # noqa: E402

LIMIT = 400          # forward steps recorded per example


class Events:
    """The session's channel: keeps the events it is sent."""

    def __init__(self):
        self.events: list[tuple[str, dict]] = []

    def event(self, name, body=None):
        self.events.append((name, body or {}))


def state(run) -> tuple:
    b = run.batch
    return (run.position, run.workgroup, run.index, b.R.tobytes(), b.P.tobytes(),
            b.active.tobytes(), b.alive.tobytes(), b.local.tobytes(), run.device.tobytes(),
            len(b.ctrl), len(b.calls), run.error is not None,
            tuple((w.kind, w.line, w.count, w.lanes) for w in run.ctx.ordered_warnings()))


def session_for(tmp_path, source, args, budget):
    path = tmp_path / "k.wave"
    path.write_text(source, encoding="utf-8")
    session = Session(Events())
    session.load(resolve({"program": str(path), "args": args,
                          "checkpointBudgetMiB": budget}))
    return session


def forward(session) -> list[tuple]:
    """Step as the session's loop does (recording the history); the state at each position."""
    run, states = session.run, []
    while len(states) < LIMIT:
        states.append(state(run))
        index = run.index
        result = run.step()
        session._after_step(index)
        session.reverse.recorded()
        if result in (FAULTED, FINISHED):
            break
    return states


def check_round_trips(session, states, moves):
    run, timeline = session.run, session.reverse.timeline
    last = len(states) - 1
    timeline.seek(run, last)
    assert state(run) == states[last]
    for kind, where, ahead in moves:
        if kind == "back":
            wave = where % run.waves
            before = run.position
            session.reverse.step_back(wave)
            assert run.position < before or before == timeline.start
        else:
            timeline.seek(run, where % (last + 1))
        here = run.position
        assert state(run) == states[here]
        for k in range(1, ahead + 1):          # forward again from there
            if here + k > last:
                break
            run.step()
            assert state(run) == states[here + k]


moves = st.lists(st.tuples(st.sampled_from(["back", "goto"]), st.integers(0, 10_000),
                           st.integers(0, 6)), min_size=1, max_size=12)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(body=structured.block(0), width=st.sampled_from([1, 4, 8]), threads=st.integers(1, 20),
       grid=st.integers(1, 3), budget=st.sampled_from([256, 0.1]), moves=moves)
def test_reverse_then_forward_matches_forward_on_structured_programs(
        tmp_path_factory, body, width, threads, grid, budget, moves):
    source = structured.program(body)
    session = session_for(tmp_path_factory.mktemp("rev"), source,
                          ["--workgroup", f"{threads},1,1", "--grid", f"{grid},1,1",
                           "--wave-width", str(width), "--device-memory", "4096",
                           "--max-instructions", "100000"], budget)
    states = forward(session)
    check_round_trips(session, states, moves)


@SETTINGS
@given(lines=st.lists(upstream_generated.statement(), min_size=1, max_size=8),
       width=st.sampled_from([4, 8, 16]), moves=moves)
def test_reverse_then_forward_matches_forward_across_barriers(tmp_path_factory, lines, width,
                                                              moves):
    source = (upstream_generated.PROLOGUE + "".join(f"    {text}\n" for text in lines)
              + upstream_generated.store_all() + upstream_generated.EPILOGUE)
    session = session_for(tmp_path_factory.mktemp("rev"), source,
                          ["--workgroup", "16,1,1", "--grid", "2,1,1", "--wave-width",
                           str(width), "--device-memory", "2048"], 256)
    states = forward(session)
    check_round_trips(session, states, moves)


def test_a_small_budget_thins_checkpoints_and_says_so(tmp_path, monkeypatch):
    # the interval follows measured costs: on a loaded machine a slow checkpoint alone could widen
    # it so far that the budget is never reached; here it changes only when the budget thins
    monkeypatch.setattr(Timeline, "_pace", lambda self, snapshot, step: None)
    source = structured.program(["mov_imm r10, 0", "loop", "iadd r10, r10, r8",
                                 "icmp_gt p0, r10, r9", "break p0", "iadd r2, r2, r8",
                                 "endloop"] * 20)
    session = session_for(tmp_path, source, ["--workgroup", "8,1,1", "--wave-width", "4",
                                             "--device-memory", "4096"], 0.1)
    states = forward(session)
    timeline = session.reverse.timeline
    assert timeline.interval > 64 and timeline.used <= 0.1 * 1024 * 1024
    assert any("checkpoint budget of 0.1 MiB reached" in body.get("output", "")
               for _, body in session.channel.events)
    check_round_trips(session, states, [("goto", 0, 3), ("back", 0, 2), ("goto", 77, 5)])


def test_a_budget_below_one_checkpoint_turns_reverse_off_with_the_reason(tmp_path):
    session = session_for(tmp_path, structured.program(["iadd r2, r2, r8"]),
                          ["--workgroup", "8,1,1", "--device-memory", "65536"], 0.01)
    off = session.reverse.timeline.off
    assert off is not None and "more than the checkpoint budget of 0.01 MiB" in off
    assert "checkpointBudgetMiB" in off
