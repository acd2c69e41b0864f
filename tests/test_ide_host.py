"""The analysis host and the per-document state (wave_lsp/ide): results by revision, work off the
event loop, cancellation by a newer edit, and requests for other documents answered meanwhile.
In process, on real documents built from distinct lines (benchmarks/corpus.py)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

from wave_lsp.analysis import analyze
from wave_lsp.cancellation import (YIELD_SECONDS, CancelToken, Cancelled, checkpoint,
                                   foreground, running)
from wave_lsp.ide.host import AnalysisHost
from wave_lsp.ide.state import DocumentState

from conftest import distinct_source

SMALL = ".kernel k\n    mov_sr r0, sr_lane_id\n    iadd r1, r0, r0\n    halt\n.end\n"


async def analysis_started(host: AnalysisHost, state: DocumentState) -> asyncio.Future:
    """The analysis of `state` as a job in the worker, once it is running."""
    started = threading.Event()

    def analyse(s: DocumentState):
        started.set()
        return s.diagnostics()

    job = asyncio.ensure_future(host.run(state, analyse, inline=False))
    await asyncio.get_running_loop().run_in_executor(None, started.wait)
    return job


def test_derived_results_belong_to_one_revision():
    state = DocumentState("file:///a.wave", SMALL, 1)
    calls = []

    def count(s: DocumentState) -> int:
        calls.append(s.revision)
        return len(s.document.program.kernels[0].instructions)

    assert state.derived("count", count) == 3
    assert state.derived("count", count) == 3 and len(calls) == 1      # same revision: kept
    state.apply_edit((2, 0), (2, 0), "    nop\n", 2)
    assert state.derived("count", count) == 4 and len(calls) == 2      # never the old value
    assert state.diagnostics() == analyze(state.document.text)


def test_diagnostics_follow_edits_and_binary_switches():
    state = DocumentState("file:///b.wave", SMALL, 1)
    assert state.diagnostics() == []
    state.apply_edit((3, 4), (3, 8), "nop", 2)                           # halt -> nop: U505
    assert [d.code for d in state.diagnostics()] == ["U505"]
    state.replace("\x00\x01binary", 3)
    assert [d.code for d in state.diagnostics()] == ["X900"]
    state.replace(SMALL, 4)
    assert state.diagnostics() == []


def test_checkpoint_raises_only_inside_a_cancelled_job():
    checkpoint()                                  # no job: nothing happens
    token = CancelToken()
    with running(token):
        checkpoint()
        token.cancel("newer edit")
        with pytest.raises(Cancelled, match="newer edit"):
            checkpoint()
    checkpoint()


def test_a_background_job_yields_to_a_foreground_job_at_its_checkpoints():
    passed: list[int] = []
    token = CancelToken(background=True)

    def background() -> None:
        with running(token):
            for i in range(3):
                checkpoint()
                passed.append(i)

    with foreground():
        worker = threading.Thread(target=background)
        worker.start()
        worker.join(YIELD_SECONDS / 3)
        assert passed == []                       # waiting at its first checkpoint
        worker.join(10)                           # ... but never longer than a while each
        assert passed == [0, 1, 2] and not worker.is_alive()
    cancelled = CancelToken(background=True)
    cancelled.cancel("newer edit")
    with foreground(), running(cancelled), pytest.raises(Cancelled, match="newer edit"):
        checkpoint()                              # cancelled, it stops after its wait
    passed.clear()
    worker = threading.Thread(target=background)
    worker.start()
    worker.join(10)
    assert passed == [0, 1, 2]                    # no foreground job: no wait


def test_a_cancellation_ends_a_background_jobs_wait_at_once(monkeypatch):
    """An edit cancels the analysis and then waits for it to stop (its lock): a background
    job waiting for a foreground one stops at once, not after its wait."""
    import wave_lsp.cancellation as cancellation
    monkeypatch.setattr(cancellation, "YIELD_SECONDS", 600)
    token = CancelToken(background=True)
    outcome: list[str] = []
    waiting = threading.Event()

    def background() -> None:
        with running(token):
            waiting.set()
            try:
                checkpoint()
                outcome.append("passed")
            except Cancelled as err:
                outcome.append(str(err))

    with foreground():
        worker = threading.Thread(target=background)
        worker.start()
        waiting.wait(10)
        worker.join(0.2)
        assert outcome == []                      # waiting for the foreground job
        token.cancel("newer edit")
        worker.join(30)
        assert outcome == ["newer edit"]          # long before its 600 s


async def test_a_large_document_is_parsed_off_the_event_loop():
    host = AnalysisHost()
    text = distinct_source(50_000)
    state = host.open("file:///big.wave", text, 1)
    assert not host.is_ready("file:///big.wave")          # returned before the parse
    host.change("file:///big.wave", lambda s: s.apply_edit((0, 0), (0, 0), "; first\n", 2))
    ready = await host.ready("file:///big.wave")
    assert ready is state and host.is_ready("file:///big.wave")
    assert state.lines[0] == "; first" and state.version == 2        # queued edit applied
    assert state.document.text == "; first\n" + text
    host.shutdown()


async def test_a_failing_queued_change_does_not_lose_the_ones_after_it():
    host = AnalysisHost()
    state = host.open("file:///big.wave", distinct_source(20_000, seed=6), 1)
    assert not host.is_ready("file:///big.wave")

    def broken(_state: DocumentState) -> None:
        raise RuntimeError("injected failure of a queued change")

    host.change("file:///big.wave", broken)
    host.change("file:///big.wave", lambda s: s.apply_edit((0, 0), (0, 0), "; after\n", 2))
    assert await host.ready("file:///big.wave") is state
    assert state.lines[0] == "; after" and state.version == 2
    host.shutdown()


async def test_an_edit_cancels_the_running_analysis_and_other_documents_are_answered():
    host = AnalysisHost()
    big = host.open("file:///big.wave", distinct_source(20_000, seed=3), 1)
    await host.ready("file:///big.wave")
    small = host.open("file:///small.wave", SMALL, 1)
    job = await analysis_started(host, big)
    # the worker is analysing 20,000 lines; a request about another document is answered now
    answer = await host.run(small, lambda s: [d.code for d in s.diagnostics()])
    assert answer == [] and not job.done()
    # an edit of the big document cancels its running analysis (cooperative checkpoints)
    host.change("file:///big.wave", lambda s: s.apply_edit((1, 0), (1, 0), "; edit\n", 2))
    with pytest.raises(Cancelled):
        await job
    # and the next analysis is of the new text
    found = await host.run(big, lambda s: s.diagnostics(), inline=False)
    assert found == analyze(big.document.text)
    host.shutdown()


async def test_a_cancelled_request_cancels_its_job():
    host = AnalysisHost()
    big = host.open("file:///big.wave", distinct_source(20_000, seed=4), 1)
    await host.ready("file:///big.wave")
    tokens: list[CancelToken] = []
    started = threading.Event()

    def analyse(state: DocumentState):
        tokens.extend(state.jobs)
        started.set()
        return state.diagnostics()

    task = asyncio.ensure_future(host.run(big, analyse, inline=False))
    await asyncio.get_running_loop().run_in_executor(None, started.wait)
    task.cancel()                                   # what pygls does on $/cancelRequest
    with pytest.raises(asyncio.CancelledError):
        await task
    assert tokens and all(t.cancelled for t in tokens)
    host.shutdown()


async def test_a_reader_of_the_document_being_analysed_is_answered_meanwhile():
    from wave_lsp.ide.hover import hover_markdown
    from wave_lsp.ide.locate import target_at

    host = AnalysisHost()
    big = host.open("file:///big.wave", distinct_source(20_000, seed=5), 1)
    await host.ready("file:///big.wave")
    job = await analysis_started(host, big)
    line = next(i for i, text in enumerate(big.lines) if text.startswith("    mov_imm"))

    def hover(state: DocumentState) -> str | None:
        target = target_at(state.document, line, 6)
        return hover_markdown(state, target)

    text = await host.run(big, hover, reader=True, inline=False)
    assert "mov_imm" in text and not job.done()     # a reader does not wait for the writer
    assert await job == analyze(big.document.text)
    host.shutdown()


def test_run_state_belongs_to_the_document_and_stops_when_it_closes():
    import threading as _threading
    host = AnalysisHost()
    state = host.open("file:///run.wave", ".kernel k\n    halt\n.end\n", 1)
    assert state.runs is None                       # nothing is created for documents never run
    runs = state.run_state()
    assert state.run_state() is runs
    in_flight = runs.cancel = _threading.Event()
    host.close("file:///run.wave")
    assert in_flight.is_set() and runs.cancel is None
    again = host.open("file:///run.wave", ".kernel k\n    halt\n.end\n", 1)
    assert again.runs is None                       # a reopened document starts without results
    host.shutdown()


# ---- closed documents give their memory back --------------------------------------
RELEASE_SCRIPT = r'''
import asyncio, sys
from wave_lsp.ide.host import AnalysisHost
from wave_lsp.syntax.memo import memo_entries

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

def text(index, lines=1_900):
    body = "".join(f"    mov_imm r{1 + i % 6}, {index * 100_000 + i}\n" if i % 2 else
                   f"    iadd r{1 + i % 6}, r{1 + (i + index) % 6}, r7\n" for i in range(lines))
    return f".kernel k{index}\n.registers 8\n    mov_sr r7, sr_lane_id\n{body}    halt\n.end\n"

async def main():
    host = AnalysisHost()
    warm = host.open("file:///warm.wave", text(9999, 20), 1)
    warm.diagnostics()
    baseline = rss()
    for i in range(100):
        host.open(f"file:///d{i}.wave", text(i), 1)
        (await host.ready(f"file:///d{i}.wave")).diagnostics()
    opened, held = rss(), memo_entries()
    for i in range(100):
        host.close(f"file:///d{i}.wave")
    host.release_memory()
    await asyncio.sleep(1.0)         # the allocator is trimmed in a thread
    print(baseline, opened, rss(), held, memo_entries())

asyncio.run(main())
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_closed_documents_give_their_memory_back():
    """100 documents of 1,900 distinct lines analysed then closed: the memos of their lines
    are emptied and the process' resident memory comes back near where it was (it kept
    ~300 MB: every line's parse and analysis stayed in the shared memos)."""
    out = subprocess.run([sys.executable, "-c", RELEASE_SCRIPT], capture_output=True,
                         text=True, timeout=600, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    baseline, opened, closed, held, left = map(float, out.stdout.split())
    assert held > 100_000 and left < 1_000, (held, left)
    assert opened - baseline > 100, (baseline, opened)
    assert closed - baseline < 30, (baseline, opened, closed)
