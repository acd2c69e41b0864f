"""One lifecycle, every kind of editor job, through the real server (`wave-lsp serve`).

Runs, profiles, kernel tests and the portability check are kinds of the one job service
(`ide.jobs`, `server.job_feature.JobFeature`), so each property below holds for each kind:

- an edit cancels the job in flight (a job that would run for ten minutes answers at once);
- closing the document cancels it;
- a settling of the same revision (the client's configuration arriving in the click's own write)
  does not cancel a clicked job: it runs to the end;
- the configured limits hold: `run.timeLimitMs` stops runs, profiles and kernel tests; the
  portability check stops at its own limits (`ide.portability`: 2,000,000 wave-instructions per
  width, 10 s for all widths), which no launch line lifts;
- the pulled diagnostics' result id changes when the job's results change.

And one trust gate: in an untrusted workspace every kind refuses with the one message.

The tests of one set of initialization options share one server (`servers`), each on its own
document and request ids; a test that fails stops its server, so the next test of those options
starts a fresh one.

GPU runs are a kind of the service too, but with no CUDA device the command answers before any
job runs, so their row is skipped here with that reason.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

import pytest

from .rawclient import INIT_PARAMS, Fresh, RawClient, SharedServers, frame
from .test_editor_jobs import SLOW_SETUP
from .test_runaway_runs import HUGE, UNLIMITED, answer

TEN_MINUTES = 600          # what each long job would take unless stopped
PROMPT = 30                # seconds within which a stopped job answers (a loaded machine)

# kernel tests need an expectation right after the launch line
EXPECT = "; wave-lsp expect: 0\n"
LAUNCH_END = "--time-limit 604800\n"
HUGE_TEST = HUGE.replace(LAUNCH_END, LAUNCH_END + EXPECT)
QUICK = HUGE.replace("--grid 4294967295,1,1", "--grid 1,1,1")
QUICK_TEST = HUGE_TEST.replace("--grid 4294967295,1,1", "--grid 1,1,1")
# runs a few hundred milliseconds, under the default limits
MEDIUM = (".kernel k\n; wave-lsp run: --grid 2000,1,1 --workgroup 64,1,1\n.registers 8\n"
          "    mov_sr  r0, sr_thread_id_x\n    cvt_f32_u32 r1, r0\n    mov_imm r2, 3.0\n"
          "    fdiv    r3, r1, r2\n    halt\n.end\n")
MEDIUM_TEST = MEDIUM.replace("--workgroup 64,1,1\n", "--workgroup 64,1,1\n" + EXPECT)
# the portability check: set-up of 1 GiB per width (seconds), and without the fills
SLOW_CHECK = SLOW_SETUP
QUICK_CHECK = SLOW_SETUP.replace(" --fill-zero 0:u32:67108864", "").replace(
    "--device-memory 268435456", "--device-memory 4096")


@dataclass(frozen=True)
class Kind:
    command: str
    extra: tuple            # arguments after [uri, kernel]
    long: str               # a job that runs for ten minutes (or seconds, for the check)
    quick: str              # the same kernel, done in milliseconds
    medium: str             # done in well under a second, under the default limits
    stopped: Callable[[dict], bool]     # the answer of a cancelled job
    finished: Callable[[dict], bool]    # the answer of a job that ran to its end
    limited: Callable[[dict], bool]     # the answer of a job its limit stopped


def _test(result: dict) -> dict:
    return result["tests"][0]


def _check_errors(result: dict) -> list[str]:
    return list(result["errors"].values())


KINDS = {
    "run": Kind(
        "wave-lsp.run", (None,), HUGE, QUICK, MEDIUM,
        stopped=lambda r: r["status"] == "cancelled",
        finished=lambda r: r["status"] == "ok",
        limited=lambda r: r["status"] == "error" and r["errors"][0]["kind"] == "time_limit"),
    "profile": Kind(
        "wave-lsp.profile", (None,), HUGE, QUICK, MEDIUM,
        stopped=lambda r: r["status"] == "cancelled",
        finished=lambda r: r["status"] == "ok" and r["heat"],
        limited=lambda r: r["status"] == "error" and "time limit" in r["message"]),
    "test": Kind(
        "wave-lsp.test", (None,), HUGE_TEST, QUICK_TEST, MEDIUM_TEST,
        # after an edit the command tests the new text (version 2); after a close, the run
        # in flight says it was cancelled
        stopped=lambda r: r["version"] == 2 or "run cancelled" in _test(r)["message"],
        finished=lambda r: _test(r)["exitStatus"] == 0 and _test(r)["status"] == "failed",
        limited=lambda r: "time limit" in _test(r)["message"]),
    "portability": Kind(
        "wave-lsp.checkPortability", (), SLOW_CHECK, QUICK_CHECK, MEDIUM,
        stopped=lambda r: "run cancelled" in _check_errors(r),
        finished=lambda r: r["errors"] == {} and r["portable"] is True,
        # each width stops at the check's instruction limit, or its share of the time limit
        # first on a busy machine
        limited=lambda r: len(r["errors"]) == 4 and all(
            "instruction limit" in e or "time limit" in e for e in _check_errors(r))),
}


def start(tmp_path, options: dict | None = None, pull: bool = False) -> RawClient:
    client = RawClient(tmp_path / "cache")
    client.seen = []
    capabilities = {"textDocument": {"diagnostic": {}},
                    "workspace": {"diagnostics": {"refreshSupport": True}}} if pull else {}
    client.request(0, "initialize", {**INIT_PARAMS, "capabilities": capabilities,
                                     "initializationOptions": options or {}})
    client.response(0)
    client.notify("initialized", {})
    return client


class Servers(SharedServers):
    """The module's servers; each session gets a document of its own, closed at its end."""

    @contextmanager
    def session(self, name: str, options: dict | None = None,
                pull: bool = False) -> Iterator[tuple[RawClient, Fresh]]:
        with super().session(name, options, pull) as client:
            doc = Fresh()
            yield client, doc
            client.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri()}})


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> Iterator[Servers]:
    started = Servers(tmp_path_factory.mktemp, start)
    yield started
    started.close()


def open_doc(client: RawClient, doc: Fresh, text: str) -> None:
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": doc.uri(), "languageId": "wave", "version": 1, "text": text}})


def click(kind: Kind, doc: Fresh, n: int) -> dict:
    return {"jsonrpc": "2.0", "id": doc.id(n), "method": "workspace/executeCommand",
            "params": {"command": kind.command, "arguments": [doc.uri(), "k", *kind.extra]}}


def result_of(client: RawClient, msg_id: str, timeout: float) -> dict:
    message = answer(client, msg_id, timeout)
    assert "result" in message, message
    return message["result"]


@pytest.fixture(params=list(KINDS) + ["gpu"])
def kind(request) -> Kind:
    if request.param == "gpu":
        from wave_lsp.ide.gpu import gpu_status
        reason = gpu_status()
        if reason is not None:
            pytest.skip(f"GPU runs: {reason} (the command answers before a job runs)")
        pytest.skip("GPU runs: no kernel here runs long on a device and in the emulator")
    return KINDS[request.param]


@pytest.mark.parametrize("change", ["edit", "close"])
def test_an_edit_or_a_close_cancels_the_job(servers, kind, change):
    with servers.session("unlimited", UNLIMITED) as (client, doc):
        open_doc(client, doc, kind.long)
        began = time.monotonic()
        client.send(click(kind, doc, 1))
        time.sleep(1.0)
        if change == "edit":
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": doc.uri(), "version": 2},
                "contentChanges": [{"text": kind.quick}]})
        else:
            client.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri()}})
        result = result_of(client, doc.id(1), PROMPT)
        took = time.monotonic() - began
        assert kind.stopped(result), result
        assert took < PROMPT, took


def test_a_settling_of_the_same_revision_does_not_cancel_a_clicked_job(servers, kind):
    with servers.session("default") as (client, doc):
        open_doc(client, doc, kind.medium)
        client.request(doc.id(1), "textDocument/documentSymbol",
                       {"textDocument": {"uri": doc.uri()}})
        client.response(doc.id(1))              # the open settled
        client.send(frame(click(kind, doc, 2)) + frame({
            "jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
            "params": {"settings": {}}}))
        result = result_of(client, doc.id(2), 120)
        assert kind.finished(result), result


def test_the_configured_limits_hold(servers, kind):
    with servers.session("limited", {"run": {"maxInstructions": 0, "timeLimitMs": 1000}}) \
            as (client, doc):
        open_doc(client, doc,
                 kind.long if kind.command != "wave-lsp.checkPortability" else HUGE)
        began = time.monotonic()
        client.send(click(kind, doc, 1))
        result = result_of(client, doc.id(1), PROMPT)
        assert kind.limited(result), result
        assert time.monotonic() - began < PROMPT


def pulled_id(client: RawClient, doc: Fresh, n: int) -> str:
    client.request(doc.id(n), "textDocument/diagnostic", {"textDocument": {"uri": doc.uri()}})
    return result_of(client, doc.id(n), 30)["resultId"]


def test_the_pulled_result_id_changes_with_the_results(servers, kind):
    with servers.session("pull", pull=True) as (client, doc):
        open_doc(client, doc, kind.quick)
        before = pulled_id(client, doc, 1)
        assert pulled_id(client, doc, 2) == before        # nothing changed: the same id
        client.send(click(kind, doc, 3))
        result_of(client, doc.id(3), 60)
        after = pulled_id(client, doc, 4)
        assert after != before, (before, after)


@pytest.mark.parametrize("command, extra, field", [
    ("wave-lsp.run", (None,), "message"), ("wave-lsp.profile", (None,), "message"),
    ("wave-lsp.test", (None,), "error"), ("wave-lsp.checkPortability", (), "message"),
    ("wave-lsp.runOnGpu", (), "message"),
    ("wave-lsp.dump", (1, 0, 0, 4), "message")])
def test_one_trust_gate_refuses_every_kind_with_one_message(servers, command, extra, field):
    with servers.session("untrusted", {"workspaceTrusted": False}) as (client, doc):
        open_doc(client, doc, QUICK_TEST)
        client.send({"jsonrpc": "2.0", "id": doc.id(1), "method": "workspace/executeCommand",
                     "params": {"command": command, "arguments": [doc.uri(), "k", *extra]}})
        said = result_of(client, doc.id(1), 30)[field]
        assert said.startswith("kernels do not run in an untrusted workspace (trust the "
                               "workspace to "), said
