"""The kernel test commands, through `workspace/executeCommand` (for the Testing view of VS Code,
`:LspWaveTest` in Neovim, the "▶ Test" lens and scripts):

- `wave-lsp.test [uri, kernel|null, launchLine|null]` runs the test on 0-based line `launchLine`
  of `kernel` (null: every test of the kernel; kernel null: every test of the document), off the
  event loop, and returns `{uri, version, tests: [outcome], passed, failed}`; each outcome is
  `{kernel, launchLine, passed, status (passed|failed|error|cancelled), message, expected,
  actual, difference: {line, expected, got} | null, writtenBy: {line, lane} | null, range}`
  (lines 0-based). The document's tests then run again after every edit.
- `wave-lsp.discoverTests [uri]` returns `{uri, version, tests: [{kernel, launchLine, ordinal,
  flags, args, range, kernelRange}]}`: each test with its place, for a client's test tree.

Both take an open document, or a `file:` URI of a `.wave` file on disk (read then; no lens or
diagnostic is shown for it). A kernel never runs in an untrusted workspace.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.diagnostic import Range
from ..files import read_regular
from ..ide.test_view import TestRecord, status_of
from ..ide.state import DocumentState
from .extensions import (Difference, DiscoveredTest, Discovery, DocumentArgs, LaunchArgs,
                         Position, TestOutcome, TestRun, WireRange, WrittenBy, wire)
from .handlers import command
from .kernel_tests import (DISCOVER, MAX_FILE_BYTES, RETRIES, TEST, TestService, path_of,
                           wrong_value_moment)
from .proto import ABSENT, to_client_range
from .server import WaveLanguageServer

if TYPE_CHECKING:
    from ..ide.kernel_tests import KernelTest


class Unavailable(Exception):
    """The command cannot act on its document; the message says why."""


async def _document(server: WaveLanguageServer, uri: Any) -> tuple[DocumentState, bool]:
    """The open document at `uri` (True), or the `.wave` file it names read from disk (False)."""
    if not isinstance(uri, str):
        raise Unavailable(f"expected a document URI, not {uri!r}")
    await server.documents.ready(uri)
    doc = server.text_document(uri)
    if doc is not None:
        return doc, True
    path = path_of(uri)
    if path is None or path.suffix != ".wave":
        raise Unavailable(f"{uri} is neither an open WAVE document nor a .wave file")
    try:
        data = await asyncio.to_thread(read_regular, path, MAX_FILE_BYTES)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise Unavailable(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") \
            from None
    return await asyncio.to_thread(DocumentState, uri, text), False


def _range(server: WaveLanguageServer, doc: DocumentState, first: int, last: int) -> WireRange:
    end = len(doc.lines[last]) if last < len(doc.lines) else 0
    rng = to_client_range(doc, Range(first, 0, last, end), server.codec)
    return WireRange(Position(rng.start.line, rng.start.character),
                     Position(rng.end.line, rng.end.character))


def test_json(server: WaveLanguageServer, doc: DocumentState, test: "KernelTest",
              ordinal: int) -> DiscoveredTest:
    """A test's place: `args` are its flags as `wave-lsp run` (and the debugger) take them."""
    from ..ide.kernel_run import command_words
    kernel = doc.program.kernel_named(test.kernel)
    kernel_range = None
    if kernel is not None:
        kernel_range = _range(server, doc, kernel.line,
                              kernel.end_line if kernel.end_line is not None else kernel.line)
    return DiscoveredTest(test.kernel, test.launch_line, ordinal, " ".join(test.flags),
                          command_words(test.flags),
                          _range(server, doc, test.launch_line, _last_line(test)), kernel_range)


def _last_line(test: "KernelTest") -> int:
    return test.block[-1] if test.block else test.launch_line


def outcome_json(server: WaveLanguageServer, doc: DocumentState,
                 record: TestRecord) -> TestOutcome:
    """An outcome for clients: `difference.line` is the line where the first difference shows
    (an expectation line, or the launch line), `writtenBy` the wrong store's line and lane,
    `actual` the output lines the editor kept and `actualLines` how many the run printed."""
    test, outcome = record.test, record.outcome
    difference = None
    if outcome.first_difference is not None:
        found = outcome.first_difference
        difference = Difference(outcome.line, found.expected, found.got, found.what)
    written = None
    if outcome.written_by is not None:
        written = WrittenBy(*outcome.written_by)
    moment = wrong_value_moment(doc, record)
    return TestOutcome(test.kernel, test.launch_line, outcome.passed, status_of(outcome),
                       outcome.message, list(test.expected), list(outcome.actual),
                       outcome.printed, outcome.exit_status, outcome.stderr, difference,
                       written, _range(server, doc, test.launch_line, _last_line(test)),
                       moment.configuration if moment is not None else ABSENT)


def _chosen(tests: list["KernelTest"], kernel: Any, line: Any) -> list["KernelTest"]:
    if kernel is not None and not isinstance(kernel, str):
        raise Unavailable(f"expected a kernel name or null, not {kernel!r}")
    if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
        raise Unavailable(f"expected a 0-based launch line or null, not {line!r}")
    chosen = [t for t in tests if (kernel is None or t.kernel == kernel)
              and (line is None or t.launch_line == line)]
    if line is not None and not chosen:
        raise Unavailable(f"line {line} is not a launch line with expectations of kernel "
                          f"{kernel!r}")
    return chosen


async def test_command(server: WaveLanguageServer, uri: Any = None, kernel: Any = None,
                       line: Any = None, *_: Any) -> dict:
    service = server.get_feature(TestService)
    try:
        doc, is_open = await _document(server, uri)
        refusal = service.jobs.refusal("run")
        if refusal is not None:
            raise Unavailable(refusal)
        for _attempt in range(RETRIES):
            chosen = _chosen(service.tests(doc), kernel, line)
            if not is_open:
                records = await _run_closed(server, doc, chosen)
                break
            if chosen:
                service.state(doc).live.update(t.kernel for t in chosen)
            records, fresh = await service.run(doc, chosen)
            if fresh or server.text_document(doc.uri) is not doc:
                break
        else:
            raise Unavailable("the document kept changing while its tests ran")
    except Unavailable as err:
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning, message=f"wave-lsp: {err}"))
        return wire(TestRun(uri, error=str(err)))
    outcomes = [outcome_json(server, doc, r) for r in records]
    passed = sum(1 for o in outcomes if o.passed)
    return wire(TestRun(doc.uri, doc.version if is_open else None, outcomes, passed,
                        len(outcomes) - passed))


async def _run_closed(server: WaveLanguageServer, doc: DocumentState,
                      tests: list["KernelTest"]) -> list[TestRecord]:
    """Run the tests of a file that is not open (nothing is kept)."""
    service = server.get_feature(TestService)
    cancel = threading.Event()
    outcomes = await asyncio.wrap_future(service.submit(doc.text, tests, doc.uri, cancel))
    return [TestRecord(t, o, doc.revision) for t, o in zip(tests, outcomes)]


async def discover_command(server: WaveLanguageServer, uri: Any = None, *_: Any) -> dict:
    service = server.get_feature(TestService)
    try:
        doc, is_open = await _document(server, uri)
    except Unavailable as err:
        return wire(Discovery(uri, error=str(err)))
    ordinals: dict[str, int] = {}
    out = []
    for test in service.tests(doc):
        ordinal = ordinals.get(test.kernel, 0)
        ordinals[test.kernel] = ordinal + 1
        out.append(test_json(server, doc, test, ordinal))
    return wire(Discovery(doc.uri, doc.version if is_open else None, out))


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(TestService(server))

    @command(server, TEST)
    async def test(*args):
        a = LaunchArgs.parse(args)
        return await test_command(server, a.uri, a.kernel, a.launch_line)

    @command(server, DISCOVER)
    async def discover(*args):
        return await discover_command(server, DocumentArgs.parse(args).uri)
