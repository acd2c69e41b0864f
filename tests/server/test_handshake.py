"""The early `initialize` answer (server/handshake.py): the cached response equals the one pygls
gives, the session works after it, and pygls' own answer is not sent twice."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time

import pytest
from lsprotocol import converters, types as t
from pytest_lsp import client_capabilities

from tests.forkserver import serve_command
from wave_lsp.server.handshake import KEPT, PATTERN

TEXT = ".kernel k\n    iadd r1, r2, r3\n    halt\n.end\n"


class RawClient:
    """A JSON-RPC client over a real server's stdin/stdout (forked, tests/forkserver.py: what
    the handshake answers and caches is the same; how fast it answers is benchmarks')."""

    def __init__(self, env: dict) -> None:
        self.proc = subprocess.Popen(serve_command(env=env), env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.messages: list[dict] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(out.read(length))
            with self.cond:
                self.messages.append(message)
                self.cond.notify_all()

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def response(self, request_id, timeout: float = 60) -> dict:
        with self.cond:
            assert self.cond.wait_for(lambda: any(m.get("id") == request_id and "method" not in m
                                                  for m in self.messages), timeout)
            return next(m for m in self.messages if m.get("id") == request_id and "method" not in m)

    def close(self) -> None:
        self.send({"id": 99, "method": "shutdown"})
        self.response(99)
        self.send({"method": "exit"})
        self.proc.wait(timeout=30)


def initialize_params(preset: str, pid: int) -> dict:
    params = t.InitializeParams(capabilities=client_capabilities(preset), process_id=pid)
    return converters.get_converter().unstructure(params, t.InitializeParams)


def session(env: dict, preset: str, pid: int) -> tuple[dict, list[dict]]:
    client = RawClient(env)
    try:
        client.send({"id": 1, "method": "initialize", "params": initialize_params(preset, pid)})
        first = client.response(1)
        client.send({"method": "initialized", "params": {}})
        uri = "file:///tmp/handshake.wave"
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": TEXT}}})
        client.send({"id": 2, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": uri}, "position": {"line": 1, "character": 5}}})
        hover = client.response(2)
        client.close()
        return first, client.messages + [hover]
    finally:
        if client.proc.poll() is None:
            client.proc.kill()


@pytest.mark.parametrize("preset", ["neovim", "visual-studio-code"])
def test_cached_initialize_matches_pygls(tmp_path, preset):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    first, messages = session(env, preset, 1000)            # pygls answers; the answer is stored
    assert list((tmp_path / "wave-lsp").glob("initialize-*.json"))
    second, messages2 = session(env, preset, 2000)          # answered from the cache
    assert first["result"] == second["result"]
    assert "capabilities" in first["result"]
    for msgs in (messages, messages2):
        assert sum(1 for m in msgs if m.get("id") == 1 and "method" not in m) == 1
        hover = next(m for m in msgs if m.get("id") == 2)
        assert "iadd" in json.dumps(hover["result"])


def test_changed_parameters_miss_the_cache(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    session(env, "neovim", 1)
    session(env, "visual-studio-code", 1)
    assert len(list((tmp_path / "wave-lsp").glob("initialize-*.json"))) == 2


def test_initialize_names_the_engine_and_the_cache_keeps_them_apart(tmp_path):
    """The initialize result says which engine runs kernels (`capabilities.experimental`), and a
    server without the native core (WAVE_LSP_NATIVE=0 here, as a pure install) never gets the
    cached answer of one with it; its log says the engine once."""
    from wave_lsp.emu.native import core
    from wave_lsp.server.extensions import Engine

    if core() is None:
        pytest.skip("the native core is not built here (setup.py build_ext --inplace)")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    native, messages = session(env, "visual-studio-code", 1)
    numpy, numpy_messages = session(dict(env, WAVE_LSP_NATIVE="0"), "visual-studio-code", 1)
    again, _ = session(env, "visual-studio-code", 2)        # from the cache: still native
    engine = native["result"]["capabilities"]["experimental"][Engine.CAPABILITY]
    assert set(engine) == {"engine", "reason"} and engine["engine"] == "native core"
    assert "_wavecore" in engine["reason"]
    assert numpy["result"]["capabilities"]["experimental"][Engine.CAPABILITY] == {
        "engine": "numpy engine", "reason": "WAVE_LSP_NATIVE=0 turns the native core off"}
    assert again["result"] == native["result"]
    logs = [m["params"]["message"] for m in numpy_messages if m.get("method") == "window/logMessage"]
    assert [line for line in logs if "kernels run on the" in line] == [
        "wave-lsp 0.1.0: kernels run on the numpy engine: WAVE_LSP_NATIVE=0 turns the native "
        "core off"]
    logs = [m["params"]["message"] for m in messages if m.get("method") == "window/logMessage"]
    assert [line for line in logs if "kernels run on the" in line] == [
        "wave-lsp 0.1.0: kernels run on the native core"]


def test_the_cache_keeps_the_answers_used_last(tmp_path):
    """Storing a new answer deletes all but the `KEPT` used last; an answer sent from the cache
    counts as used (else one file per workspace, client and version piles up for good)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    folder = tmp_path / "wave-lsp"
    session(env, "neovim", 1)                         # stored: the answer used again below
    (used,) = folder.glob(PATTERN)
    hour_ago = time.time() - 3600
    for n in range(KEPT + 10):                        # answers of other clients, used earlier
        other = folder / PATTERN.replace("*", f"{n:032x}")
        other.write_text("{}")
        os.utime(other, (hour_ago + n, hour_ago + n))
    os.utime(used, (hour_ago - 60, hour_ago - 60))    # the oldest of all, until...
    session(env, "neovim", 2)                         # ...it answers again
    assert used.stat().st_mtime > time.time() - 600
    assert len(list(folder.glob(PATTERN))) == KEPT + 11          # nothing stored: no pruning
    session(env, "visual-studio-code", 3)             # a new answer stored: the folder pruned
    kept = set(folder.glob(PATTERN))
    assert len(kept) == KEPT and used in kept
    assert folder / PATTERN.replace("*", f"{KEPT + 9:032x}") in kept     # used last of those
    assert folder / PATTERN.replace("*", f"{0:032x}") not in kept        # used first
