"""The divergence corpus (`tests/divergence_corpus/*.wave`): every kernel gets exactly the
expected D6xx lints, each with its cause chain; precision and recall against the annotated ground
truth; and agreement with the emulator's run-time check for barriers in divergent flow.

Annotations, in comments on the line they are about:
- `; expect: D601 <- sr_lane_id, D604` — the lints the analysis must report on this line; the
  optional `<- word` must appear in the last link of the diagnostic's cause chain (its origin);
- `; false-positive` — the expected lint is a known over-approximation (not a real problem);
- `; missed: D601` — a real problem the analysis is known not to report (calls are not followed);
- `; launch: workgroup=8,1,1 wave_width=4` — how the agreement test runs the kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from wave_lsp.analysis.codes import severity_of
from wave_lsp.analysis.divergence import divergence_diagnostics
from wave_lsp.syntax.document import Document

CORPUS = Path(__file__).resolve().parent / "divergence_corpus"

_EXPECT = re.compile(r";\s*expect:\s*([^;]*)")
_MISSED = re.compile(r";\s*missed:\s*([^;]*)")
_LAUNCH = re.compile(r";\s*launch:\s*(.*)")


@dataclass
class Expected:
    """One kernel file's expectations."""

    path: Path
    text: str
    lints: dict[tuple[int, str], str | None] = field(default_factory=dict)  # (line, code) -> origin
    false_positives: set[tuple[int, str]] = field(default_factory=set)
    missed: set[tuple[int, str]] = field(default_factory=set)
    launch: dict[str, str] = field(default_factory=dict)


def read(path: Path) -> Expected:
    text = path.read_text(encoding="utf-8")
    exp = Expected(path, text)
    for number, line in enumerate(text.splitlines()):
        m = _EXPECT.search(line)
        if m:
            for item in filter(None, (s.strip() for s in m.group(1).split(","))):
                code, _, origin = item.partition("<-")
                exp.lints[(number, code.strip())] = origin.strip() or None
                if "false-positive" in line:
                    exp.false_positives.add((number, code.strip()))
        m = _MISSED.search(line)
        if m:
            for code in filter(None, (s.strip() for s in m.group(1).split(","))):
                exp.missed.add((number, code))
        m = _LAUNCH.search(line)
        if m:
            for part in m.group(1).split():
                name, _, value = part.partition("=")
                exp.launch[name] = value
    return exp


def corpus() -> list[Expected]:
    return [read(p) for p in sorted(CORPUS.glob("*.wave"))]


FILES = sorted(CORPUS.glob("*.wave"))


def _diagnostics(text: str):
    return divergence_diagnostics(Document(text).program)


def test_corpus_is_large_enough():
    assert len(FILES) >= 30
    kinds = {code for exp in corpus() for (_, code) in exp.lints}
    assert {"D601", "D602", "D603", "D604", "D605", "D606"} <= kinds


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_kernel_gets_exactly_the_expected_lints(path):
    exp = read(path)
    found = _diagnostics(exp.text)
    got = {(d.range.start_line, d.code) for d in found}
    assert got == set(exp.lints), "\n".join(f"{d.range.start_line + 1}: {d.code} {d.message}"
                                             for d in found)
    for diag in found:
        assert diag.severity == severity_of(diag.code)
        # the construct (or halt), then the chain back to where the variation starts
        assert len(diag.related) >= 2, diag
        origin_word = exp.lints[(diag.range.start_line, diag.code)]
        last = diag.related[-1].message
        assert "line " in last
        if origin_word:
            assert origin_word in last, [r.message for r in diag.related]
        for rel in diag.related:
            assert rel.message and rel.range.start_line >= 0


def test_cause_chain_reads_back_to_the_lane_id():
    exp = read(CORPUS / "if_lane_barrier.wave")
    (diag,) = _diagnostics(exp.text)
    messages = [r.message for r in diag.related]
    assert messages == ["`if p1` (line 9): condition varies per thread",
                        "p1 ← icmp_lt r0, r1",
                        "r0 ← mov_sr sr_lane_id: sr_lane_id varies per thread, line 6"]
    assert diag.related[1].range.start_line == 7
    assert diag.related[2].range.start_line == 5


def test_control_dependence_chain_names_the_if():
    exp = read(CORPUS / "control_dependent_value.wave")
    (diag,) = _diagnostics(exp.text)
    messages = [r.message for r in diag.related]
    assert any("written inside `if p1`" in m for m in messages), messages
    assert messages[-1].startswith("r0 ← mov_sr sr_thread_id_x")


def test_loop_exit_chain_names_the_break():
    exp = read(CORPUS / "loop_lane_break_barrier.wave")
    (diag,) = _diagnostics(exp.text)
    messages = [r.message for r in diag.related]
    assert "loop" in messages[0]
    assert any("`break p1`" in m for m in messages), messages


def _scores():
    tp = fp = fn = 0
    for exp in corpus():
        reported = set(exp.lints)
        fp += len(reported & exp.false_positives)
        tp += len(reported - exp.false_positives)
        fn += len(exp.missed)
    return tp, fp, fn


def test_precision_and_recall_on_the_corpus():
    tp, fp, fn = _scores()
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    # The annotations document the known over- and under-approximations; keep them rare.
    assert precision >= 0.9 and recall >= 0.9, (tp, fp, fn)


# ---- agreement with the emulator's run-time check ----------------------------------------------
def _emulator():
    try:
        from numpy_engine import run
        from wave_lsp.emu import Launch
    except ImportError:
        return None
    return Launch, run


BARRIER_CODES = {"D601", "D602", "D603", "D604"}
ERROR_CODES = {"D601", "D602"}


def _triple(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in text.split(",")]
    return tuple((parts + [1, 1, 1])[:3])  # type: ignore[return-value]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_static_lint_agrees_with_the_emulator(path):
    """Wherever the emulator executes a barrier in divergent flow, the static lint flags that
    barrier; where the lint reports an error, the run stops with a divergence or deadlock error;
    where it reports nothing, the run has no divergent-barrier error; a shuffle the run finds
    reading an inactive lane is flagged D606."""
    emu = _emulator()
    if emu is None:
        pytest.skip("the emulator (wave_lsp.emu.run / Launch) is not available yet")
    Launch, run = emu
    exp = read(path)
    launch = Launch(workgroup=_triple(exp.launch.get("workgroup", "8,1,1")),
                    wave_width=int(exp.launch.get("wave_width", "4")),
                    grid=_triple(exp.launch.get("grid", "1,1,1")))
    report = run(exp.text, launch, max_instructions=100_000)
    divergent = {e.line for e in report.errors if e.kind == "divergent_barrier"}
    stopped = {e.kind for e in report.errors}
    lints = {line: code for (line, code) in exp.lints if code in BARRIER_CODES}
    real = {line: code for line, code in lints.items() if (line, code) not in exp.false_positives}
    missed = {line for (line, code) in exp.missed if code in BARRIER_CODES}
    for line in divergent:
        assert line in lints or line in missed, (line + 1, report.errors)
    for line in missed:   # a documented false negative must really be one
        assert line in divergent, report.errors
    if any(code in ERROR_CODES for code in real.values()):
        assert stopped & {"divergent_barrier", "deadlock"}, report.errors
    if not real and not missed:
        assert not divergent, report.errors
    assert "instruction_limit" not in stopped, report.errors
    # a shuffle that really read an inactive lane was flagged statically
    inactive = {w.line for w in report.warnings if w.kind == "inactive_shuffle_source"}
    assert inactive <= {line for (line, code) in exp.lints if code == "D606"}, report.warnings
