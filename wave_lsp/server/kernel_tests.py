"""Kernel tests in the language server: a launch line `; wave-lsp run: FLAGS` directly followed
by `; wave-lsp expect: TEXT` lines is a test (`wave_lsp.ide.kernel_tests`).

- Code lenses: "▶ Test" on each launch line with expectations, then "✓ passed" or
  "✕ failed: line 13, lane 2 wrote 5, expected 4" once it ran (after the run lenses, within the
  line budget of `ide.lens_layout`; decided by `ide.lenses.kernel_test_lenses`).
- Diagnostics: each expectation line the run did not meet (`R011`, saying what it printed; the
  first one also which store, in which lane, wrote the wrong value), a test that cannot run
  (`R012`, on its launch line); the quick fix "Update expectation" rewrites that one line's
  expected text, "Update the expectations of kernel K" the test's whole block.
- Completion on an expect line: what the last run of that launch printed there (and the lines
  after it, as one multi-line item); a test that never ran runs first.
- Of what a test printed the editor keeps a window (`test_view.KEPT_OUTPUT_LINES`), as of a
  run's dumps: a test dumping a million values costs a bounded answer; the completion says how
  many lines it left out, and "Update the expectations" is not offered for such an output (a
  client that shows disabled actions sees it, disabled, with the reason).
- Commands: `wave-lsp.test [uri, kernel|null, launchLine|null]` runs one test (or a kernel's,
  or all the document's) and returns `{uri, version, tests: [outcome], passed, failed}`;
  `wave-lsp.discoverTests [uri]` returns `{uri, version, tests: [{kernel, launchLine, ordinal,
  flags, args, range, kernelRange}]}`. A `file:` URI that is not open is read from disk (nothing
  is shown for it then).

Tests are a kind of the one job service (`job_feature.JobFeature`): they run on its one worker
with the run limits of the settings (`run.maxInstructions`, `run.timeLimitMs`); once a
document's tests ran they run again after every edit (debounced, as runs), a newer edit or a
close cancelling the tests in flight, and results are kept only for the revision they ran on.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.lenses import Lens, kernel_test_lenses
from ..ide.run_limits import RunLimits
from ..ide.state import DocumentState
from ..ide.test_view import (KEPT_OUTPUT_LINES, DocumentTests, Problem, TestRecord,
                             expected_output, left_out_text, problems, stated,
                             value_columns, with_limits)
from . import proto
from .handlers import report_failure
from .proto import file_path, span
from . import extensions
from .run_documents import arg_root
from .job_feature import JobFeature
from .runs import CLICKED, RunService, moment_actions
from ..ide.moments import value_moment
from .server import WaveLanguageServer

if TYPE_CHECKING:
    from ..ide.kernel_tests import KernelTest, TestOutcome

TEST = extensions.TEST.name
DISCOVER = extensions.DISCOVER_TESTS.name
MAX_FILE_BYTES = 8 << 20        # a test file read from disk (not open in the editor)
EXPECTATION_MARKER = "wave-lsp expect"   # in every expectation comment: a cheap test first
# a document that is no file reads no `--arg` file: its tests run as if in an empty folder
NO_FOLDER = Path("/nonexistent-wave-lsp-folder")
RETRIES = 3                     # a test command re-runs on the new text after an edit


class TestService(JobFeature):
    """Kernel tests, a kind of the one job service (`JobFeature`: re-run when an edit settles,
    cancelled at once by an edit or a close), kept in `DocumentState.tests`, and what they
    show."""

    kind = "tests"
    what = "kernel tests"

    @property
    def runs(self) -> RunService:
        return self.server.get_feature(RunService)

    # ---- state -------------------------------------------------------------------------------
    def state(self, doc: DocumentState) -> DocumentTests:
        return doc.test_state()

    def tests(self, doc: DocumentState) -> list["KernelTest"]:
        """The document's tests, found once per revision."""
        if not any(EXPECTATION_MARKER in line for line in doc.lines):
            return []
        from ..ide.kernel_tests import discover

        def found(state: DocumentState) -> list["KernelTest"]:
            try:
                return discover(state.text)
            except Exception as exc:     # the other lenses and diagnostics still show
                report_failure(self.server, "finding kernel tests", exc)
                return []
        return doc.derived(("kernel_tests",), found)

    def current(self, doc: DocumentState) -> dict[tuple[str, int], TestRecord]:
        state = self.existing(doc)
        return state.current(doc.revision) if state is not None else {}

    # ---- what runs ----------------------------------------------------------------------------
    def live_work(self, doc: DocumentState) -> list["KernelTest"]:
        """The tests of the kernels whose tests ran (they are live from then on)."""
        state = self.existing(doc)
        if state is None or not state.live:
            return []
        return [t for t in self.tests(doc) if t.kernel in state.live]

    def job_key(self, doc: DocumentState, tests: list["KernelTest"]) -> tuple:
        """All that decides the outcomes of `tests`: the revision, the tests, the limits."""
        return (doc.revision, tuple(sorted((t.kernel, t.launch_line) for t in tests)),
                self.limits())

    # ---- contributions -----------------------------------------------------------------------
    def code_lenses(self, doc: DocumentState) -> list[Lens]:
        """"▶ Test" on each launch line with expectations, then its outcome once it ran."""
        found = self.tests(doc)
        if not found:
            return []
        state = self.existing(doc)
        return kernel_test_lenses(doc, found, self.current(doc),
                                  state.running if state is not None else ())

    def diagnostics(self, doc: DocumentState) -> list[types.Diagnostic]:
        related = self.server.client.related_information
        return [proto.diagnostic(doc, p.diagnostic, self.server.codec, related)
                for p in _problems(self, doc)]

    def quick_fixes(self, doc: DocumentState, first: tuple[int, int],
                    last: tuple[int, int]) -> list[types.CodeAction]:
        return code_actions(self, doc, first, last)

    def completions(self, doc: DocumentState, line: int, col: int):
        return completion(self, doc, line, col)

    # ---- running -----------------------------------------------------------------------------
    def execute(self, text: str, tests: list["KernelTest"], path: Path | None,
                root: Path | None, cancel: threading.Event,
                limits: RunLimits) -> list["TestOutcome"]:
        """Run `tests` of `text` (on the worker thread), within the editor's run limits."""
        from ..ide.kernel_tests import run_test

        def cancelled() -> bool:
            return cancel.is_set() or self.closing

        if path is None:
            path, root = NO_FOLDER / "untitled.wave", NO_FOLDER
        return [run_test(text, with_limits(test, limits), path=path, root=root,
                         cancel=cancelled, keep_lines=KEPT_OUTPUT_LINES)
                for test in tests if not cancelled()]

    def submit(self, text: str, tests: list["KernelTest"], uri: str, cancel: threading.Event,
               key: tuple | None = None, priority: int = CLICKED):
        """The outcomes of `tests` of `text` (the file of `uri`), on the one worker."""
        limits, root = self.limits(), arg_root(self.server, uri)
        return self.jobs.submit(key, priority, lambda: self.execute(
            text, tests, path_of(uri), root, cancel, limits), lambda reason: [], cancel)

    async def run(self, doc: DocumentState, tests: list["KernelTest"], priority: int = CLICKED
                  ) -> tuple[list[TestRecord], bool]:
        """Run `tests` of the current revision off the event loop; keep and show the outcomes
        if the document did not change meanwhile. Returns them, and whether they were kept."""
        state = self.state(doc)
        cancel = state.begin(self.job_key(doc, tests))
        revision, text = doc.revision, doc.text
        state.running = {(t.kernel, t.launch_line) for t in tests}
        try:
            outcomes = await self.wait(state, self.submit(text, tests, doc.uri, cancel,
                                                          self.queue_key(doc), priority), cancel)
        finally:
            state.finished(cancel)
        records = [TestRecord(t, o, revision) for t, o in zip(tests, outcomes)]
        fresh = self.fresh(doc, revision, cancel) and len(records) == len(tests)
        if fresh:
            state.store(records)
            self.refresh(doc)
        return records, fresh


def path_of(uri: str) -> Path | None:
    """The file of a `file:` URI (None for other schemes)."""
    return file_path(uri)


# ---- what the editor shows ------------------------------------------------------------------
def _problems(tests: TestService, doc: DocumentState) -> list[Problem]:
    out = []
    for record in tests.current(doc).values():
        out.extend(problems(record.test, record.outcome, doc.lines))
    return out


def code_actions(tests: TestService, doc: DocumentState, first: tuple[int, int],
                 last: tuple[int, int]) -> list[types.CodeAction]:
    """For each unmet expectation line in [first, last]: "Update expectation" (a WorkspaceEdit
    of that line's stated text only) where one line's edit fixes it, and "Update the
    expectations of kernel K" (the test's expectation lines, rewritten from its output)."""
    server = tests.server
    out: list[types.CodeAction] = []
    whole: set[tuple[str, int]] = set()
    for record in tests.current(doc).values():
        for problem in problems(record.test, record.outcome, doc.lines):
            diag = problem.diagnostic
            line = diag.range.start_line
            if not first[0] <= line <= last[0]:
                continue
            lsp_diag = proto.diagnostic(doc, diag, server.codec,
                                        server.client.related_information)
            columns = value_columns(doc.lines[line])
            if problem.replacement is not None and columns is not None:
                rng = span(doc, line, columns[0], len(doc.lines[line]), server.codec)
                out.append(types.CodeAction(
                    title=f"Update expectation to “{problem.replacement}”",
                    kind=types.CodeActionKind.QuickFix, diagnostics=[lsp_diag],
                    is_preferred=True, edit=proto.document_edit(doc, [types.TextEdit(
                        range=rng, new_text=stated(problem.replacement))],
                        server.client.versioned_edits)))
            key = (record.test.kernel, record.test.launch_line)
            moment = wrong_value_moment(doc, record) if key not in whole else None
            if moment is not None:
                out.extend(moment_actions([moment]))
            if key not in whole and record.outcome.ran and record.test.block:
                whole.add(key)
                if not record.outcome.left_out:
                    out.append(_update_all(server, doc, record, lsp_diag))
                elif server.client.disabled_code_actions:
                    out.append(_cannot_update(record, lsp_diag))
    return out


def wrong_value_moment(doc: DocumentState, record: TestRecord):
    """"Debug at this moment" of a failing test whose wrong value has a known writer: the
    last write of that word (`ide.moments.value_moment`)."""
    outcome, test = record.outcome, record.test
    path = path_of(doc.uri)
    if outcome.passed or outcome.written_by is None or outcome.address is None or path is None:
        return None
    line, thread = outcome.written_by
    return value_moment(path, test.kernel, list(test.flags), outcome.address, line, thread,
                        f"the wrong value at 0x{outcome.address:x} ({outcome.message})")


def _cannot_update(record: TestRecord, lsp_diag: types.Diagnostic) -> types.CodeAction:
    """The update of a test whose output the editor did not keep whole, disabled: why."""
    outcome = record.outcome
    return types.CodeAction(
        title=_update_title(record), kind=types.CodeActionKind.QuickFix,
        diagnostics=[lsp_diag], disabled=types.CodeActionDisabled(
            reason=f"its run printed {left_out_text(len(outcome.actual), outcome.printed)}"))


def _update_title(record: TestRecord) -> str:
    return (f"Update the expectations of kernel {record.test.kernel} (line "
            f"{record.test.launch_line + 1}) to its output")


def _update_all(server: WaveLanguageServer, doc: DocumentState, record: TestRecord,
                lsp_diag: types.Diagnostic) -> types.CodeAction:
    """Rewrite the test's expectation lines from what its run printed (`updated_text`)."""
    from ..ide.kernel_tests import updated_text
    from ..syntax.document import split_lines
    block = record.test.block
    old = doc.lines
    new, breaks = split_lines(updated_text(doc.text, [record.outcome]))
    kept = len(new) - len(old) + len(block)
    first, last = block[0], block[-1]
    rng = types.Range(start=span(doc, first, 0, 0, server.codec).start,
                      end=span(doc, last, len(old[last]), len(old[last]), server.codec).end)
    # the block's own line breaks (`updated_text` keeps the document's: CRLF stays CRLF)
    text = "".join(line + brk for line, brk in zip(new[first:first + kept - 1],
                                                   breaks[first:first + kept - 1]))
    return types.CodeAction(
        title=_update_title(record), kind=types.CodeActionKind.QuickFix, diagnostics=[lsp_diag],
        edit=proto.document_edit(doc, [types.TextEdit(range=rng, new_text=text +
                                                      new[first + kept - 1])],
                                 server.client.versioned_edits))


def completion(tests: TestService, doc: DocumentState, line: int, col: int):
    """On an expect line, after `expect:` (None elsewhere): what the last run of its launch
    printed there; on the last expect line also everything printed from there on. A test that
    never ran runs first (off the event loop): the answer is then awaitable."""
    server = tests.server
    text = doc.lines[line]
    columns = value_columns(text)
    if columns is None or col < columns[0] or \
            not text[:columns[0]].rstrip(":").endswith("expect"):
        return None
    test = next((t for t in tests.tests(doc) if line in t.expect_lines), None)
    if test is None:
        return []
    # after a blank the user typed the items replace from there (a text starting with a blank
    # is an empty word to Neovim, which then inserts nothing); else they bring their blank
    typed_blank = col > columns[0] and text[columns[0]:columns[0] + 1] == " "
    start = columns[0] + 1 if typed_blank else columns[0]
    place = (span(doc, line, start, len(text), server.codec), text[:columns[0]],
             line == test.expect_lines[-1], typed_blank)
    printed = tests.state(doc).printed.get((test.kernel, test.flags))
    if printed is not None or not tests.trusted:
        kept, count = printed or ((), 0)
        return _printed_items(expected_output(kept, test, line), *place, count - len(kept))

    async def run_first() -> list[types.CompletionItem]:
        records, _fresh = await tests.run(doc, [test])
        ran = [r.outcome for r in records if r.outcome.ran]
        return _printed_items(expected_output(ran[0].actual, test, line) if ran else [],
                              *place, ran[0].left_out if ran else 0)
    return run_first()


def _printed_items(output: list[str], rng: types.Range, marker: str, last: bool,
                   typed_blank: bool, left_out: int = 0) -> list[types.CompletionItem]:
    """The completion of an expect line (replacing `rng`, after `marker`) from the `output`
    printed there and after it (`left_out` more lines not kept: the window); `last`: the line
    is the test's last expect line; `typed_blank`: `rng` starts after the blank that follows
    `marker`."""
    def item(label: str, new_text: str, detail: str, order: str) -> types.CompletionItem:
        return types.CompletionItem(
            label=label, kind=types.CompletionItemKind.Value, detail=detail, sort_text=order,
            filter_text=new_text.split("\n")[0] or label,
            text_edit=types.TextEdit(range=rng, new_text=new_text))

    if not output:
        return []
    first = output[0] if typed_blank else stated(output[0])
    items = [item(output[0] or "(empty line)", first, "what the last run printed here", "0")]
    if len(output) > 1 and last:
        rest = "\n".join([first] + [marker + stated(o) for o in output[1:]])
        if left_out:
            items.append(item(f"{output[0] or '(empty line)'} … (the first {len(output):,} "
                              f"of {len(output) + left_out:,} lines)", rest,
                              f"what the last run printed from here on: "
                              f"{left_out_text(len(output), len(output) + left_out)}", "1"))
        else:
            items.append(item(f"{output[0] or '(empty line)'} … ({len(output)} lines)", rest,
                              "everything the last run printed from here on", "1"))
    return items
