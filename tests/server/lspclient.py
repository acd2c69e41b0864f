"""The pytest-lsp client the server tests drive, made so that a lost message fails a test
quickly and clearly instead of hanging the run.

pytest-lsp's own client has three ways to wait forever:

- `wait_for_notification(method)` resolves with the *next* notification of that method only.
  A helper that loops on it ("wait until the publication for my document comes") drops every
  publication that arrives in the same read as the previous one: the client handles all the
  messages of a read back to back, before the awaiting test resumes and asks again. Under load
  the server's debounced publications of one test's documents arrive together with the next
  test's, and the test then waited forever for a publication it had already been sent.
  Here every `textDocument/publishDiagnostics` is recorded as it is handled, and
  `publication()` looks through what was recorded before it waits.
- A request the server never answers is awaited forever: every request here has a deadline
  (`REQUEST_TIMEOUT` seconds, `WAVE_LSP_TEST_TIMEOUT` in the environment) and fails with
  `NoAnswer`, naming the method and id.
- When the server process has died, a request sent or a publication awaited afterwards fails
  at once, with the exit status (pygls fails the requests pending at that moment).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any, Callable

from lsprotocol import types as t
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient
from pytest_lsp.checks import check_params_against_client_capabilities, \
    check_result_against_client_capabilities
from pytest_lsp.client import register_lsp_features
from pytest_lsp.protocol import LanguageClientProtocol

REQUEST_TIMEOUT = float(os.environ.get("WAVE_LSP_TEST_TIMEOUT", "120"))


class NoAnswer(AssertionError):
    """The server did not answer a request, or did not send an awaited notification, in time."""


class WaveTestProtocol(LanguageClientProtocol):
    """pytest-lsp's client protocol with deadlines and a record of the publications."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.timeout = REQUEST_TIMEOUT
        self.publications: list[t.PublishDiagnosticsParams] = []   # in arrival order
        self._arrived = asyncio.Event()
        self.exit_reason: str | None = None

    # ---- notifications ------------------------------------------------------------------------
    def _handle_notification(self, method_name: str, params: Any) -> None:
        if method_name == t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            self.publications.append(params)
            self._arrived.set()     # wakes every waiter; each re-reads the record
            self._arrived = asyncio.Event()
        super()._handle_notification(method_name, params)

    def mark(self) -> int:
        """A position in the record: `publication(after=mark)` only sees what came later."""
        return len(self.publications)

    async def publication(self, uri: str, accept: Callable[[t.PublishDiagnosticsParams], bool]
                          = lambda _params: True, after: int = 0,
                          timeout: float | None = None) -> t.PublishDiagnosticsParams:
        """The first publication for `uri` that `accept`s, among those recorded from `after`
        on, waiting for it when it has not come yet."""
        timeout = self.timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen = after
        while True:
            for params in self.publications[seen:]:
                if params.uri == uri and accept(params):
                    return params
            seen = len(self.publications)
            if self.exit_reason is not None:
                raise NoAnswer(f"no publishDiagnostics for {uri}: {self.exit_reason}")
            arrived = self._arrived
            try:
                await asyncio.wait_for(arrived.wait(), max(0.0, deadline - loop.time()))
            except (TimeoutError, asyncio.TimeoutError):
                got = [(p.uri, p.version) for p in self.publications[after:]][-10:]
                raise NoAnswer(f"no matching publishDiagnostics for {uri} within {timeout:g} s "
                               f"(the last ones received: {got})") from None

    async def wait_for_notification_async(self, method: str):
        """pytest-lsp's wait (the next notification of `method`), with the deadline."""
        future = self.wait_for_notification(method)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
        except (TimeoutError, asyncio.TimeoutError):
            raise NoAnswer(f"no {method} notification within {self.timeout:g} s") from None

    # ---- requests -----------------------------------------------------------------------------
    def send_request_async(self, method, params=None, msg_id=None):
        """Send a request now (as pygls does: a `$/cancelRequest` sent right after finds it
        sent) and return a future of its answer, which fails after `self.timeout` s."""
        if self.exit_reason is not None:
            raise NoAnswer(f"{method} not sent: {self.exit_reason}")
        check_params_against_client_capabilities(self._server.capabilities, method, params)
        msg_id = str(uuid.uuid4()) if msg_id is None else msg_id
        answer = asyncio.wrap_future(self.send_request(method, params=params, msg_id=msg_id))
        return asyncio.ensure_future(self._answer(method, msg_id, answer))

    async def _answer(self, method: str, msg_id, answer: asyncio.Future) -> Any:
        try:
            result = await asyncio.wait_for(answer, self.timeout)
        except (TimeoutError, asyncio.TimeoutError):
            self._request_futures.pop(msg_id, None)   # a late answer is then only logged
            raise NoAnswer(f"the server did not answer {method} (id {msg_id!r}) within "
                           f"{self.timeout:g} s: a request it lost, or a stalled server") \
                from None
        check_result_against_client_capabilities(self._server.capabilities, method, result)
        return result

    def server_gone(self, reason: str) -> None:
        """The server process has exited: what is still awaited can never come."""
        self.exit_reason = reason
        self._arrived.set()


class WaveTestClient(LanguageClient):
    """pytest-lsp's test client on `WaveTestProtocol`."""

    protocol: WaveTestProtocol

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        if not self._stop_event.is_set():
            self.protocol.server_gone(
                f"the server process {server.pid} exited with status {server.returncode}")
        await super().server_exit(server)


def make_client() -> WaveTestClient:
    """The client factory of the fixtures (`ClientServerConfig(client_factory=...)`)."""
    client = WaveTestClient(protocol_cls=WaveTestProtocol, converter_factory=default_converter)
    register_lsp_features(client)
    # VS Code answers client/registerCapability (pytest-lsp's client has no handler): each
    # registration is recorded in `registrations`
    client.registrations = []
    client.feature(t.CLIENT_REGISTER_CAPABILITY)(
        lambda params: client.registrations.extend(params.registrations))
    return client


def edits_of(edit, uri: str) -> list:
    """The text edits a WorkspaceEdit makes to `uri`, whether plain `changes` (Neovim) or
    versioned `documentChanges` (VS Code); a versioned edit must name a version."""
    if edit.document_changes:
        found = [change for change in edit.document_changes if change.text_document.uri == uri]
        assert all(change.text_document.version is not None for change in found)
        return [e for change in found for e in change.edits]
    return list(edit.changes[uri])
