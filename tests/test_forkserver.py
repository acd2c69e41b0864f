"""The fork servers of the tests (tests/forkserver.py) give servers and commands that behave as
`python -m wave_lsp ARGS` does: the same answers and output on the same pipes (the standard
streams made as the environment asks), the same exit status, signals passed on; a killed shim
takes its process with it; an editor's `wave-lsp` on PATH goes through them; and they step aside
where how the process started matters."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import forkserver
from tests.forkserver import SHIM, bin_folder, real_command, serve_command, wave_lsp_argv
from tests.server.rawclient import frame, read_messages

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the fork server is for Linux")


OPEN = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"processId": None, "rootUri": None, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///tmp/f.wave", "languageId": "wave", "version": 1,
        "text": ".kernel k\n    iadd r1, r2, r3\n    halt\n.end\n"}}},
    {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": "file:///tmp/f.wave"}, "position": {"line": 1, "character": 5}}},
    {"jsonrpc": "2.0", "id": 3, "method": "textDocument/documentSymbol", "params": {
        "textDocument": {"uri": "file:///tmp/f.wave"}}}]
CLOSE = [{"jsonrpc": "2.0", "id": 4, "method": "shutdown"},
         {"jsonrpc": "2.0", "method": "exit"}]


def session(command: list[str], tmp_path: Path, env: dict | None = None) -> tuple[int, list[dict]]:
    """The messages of a session (answered before the shutdown), and the exit status."""
    env = {**(env or os.environ), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    proc.stdin.write(b"".join(frame(m) for m in OPEN))
    proc.stdin.flush()
    received, reader = [], read_messages(proc.stdout)
    while {2, 3} - {m.get("id") for m in received}:
        received.append(next(reader))
    proc.stdin.write(b"".join(frame(m) for m in CLOSE))
    proc.stdin.close()
    received.extend(reader)
    return proc.wait(60), received


def forked(*args: str) -> list[str]:
    command = serve_command(*args)
    if str(SHIM) not in command:
        pytest.fail(f"no fork server here: {command}")
    return command


def test_a_forked_server_answers_as_the_real_one(tmp_path):
    real_status, real = session(real_command(), tmp_path / "real")
    fork_status, fork = session(forked(), tmp_path / "fork")
    assert real_status == fork_status == 0
    assert [m.get("method") or m.get("id") for m in fork] == \
        [m.get("method") or m.get("id") for m in real]
    answers = {m["id"]: m.get("result") for m in fork if "id" in m}
    assert answers == {m["id"]: m.get("result") for m in real if "id" in m}
    assert "iadd" in json.dumps(answers[2]) and answers[3]        # the hover, the symbols


def test_a_bad_command_line_ends_the_same_way():
    real = subprocess.run(real_command("--tcp", "nowhere"), capture_output=True, timeout=60)
    fork = subprocess.run(forked("--tcp", "nowhere"), capture_output=True, timeout=60)
    assert real.returncode == fork.returncode == 2
    assert fork.stderr == real.stderr and b"HOST:PORT" in fork.stderr


def test_a_signal_reaches_the_server_and_its_status_comes_back():
    statuses = []
    for command in (real_command(), forked()):
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"processId": None, "rootUri": None,
                                           "capabilities": {}}}))
        proc.stdin.flush()
        assert proc.stdout.read1(16).startswith(b"Content-Length")   # it runs and answers
        proc.send_signal(signal.SIGTERM)
        statuses.append(proc.wait(60))
        proc.stdin.close()
        proc.stdout.close()
    assert statuses == [-signal.SIGTERM] * 2


def children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(c) for c in (task / "children").read_text().split())
    return found


def test_a_killed_shim_takes_its_server_with_it():
    proc = subprocess.Popen(forked(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    zygote = forkserver._servers["serve"].process.pid
    deadline = time.monotonic() + 30
    while not (servers := children(zygote)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert servers, "the fork server started no server"
    proc.kill()
    proc.wait(30)
    deadline = time.monotonic() + 30
    while children(zygote) & servers and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not children(zygote) & servers
    proc.stdin.close()


def test_it_steps_aside_where_the_start_matters(monkeypatch):
    assert str(SHIM) in serve_command("--stdio")
    assert serve_command(env={**os.environ, "PYTHONMALLOC": "pymalloc"}) == real_command()
    assert serve_command(env={**os.environ, "LANG": "xx_YY.UTF-8"}) == real_command()
    assert str(SHIM) in serve_command(env={**os.environ, "WAVE_LSP_HIPCC": "off"})
    assert str(SHIM) in wave_lsp_argv("run", env={**os.environ, "PYTHONIOENCODING": "latin-1"})
    assert wave_lsp_argv("run", env={**os.environ, "PYTHONHASHSEED": "1"})[1:] == [
        "-m", "wave_lsp", "run"]
    monkeypatch.setenv(forkserver.SWITCH, "0")
    assert serve_command() == real_command()
    assert wave_lsp_argv("lint") == [sys.executable, "-m", "wave_lsp", "lint"]
    assert bin_folder() is None


KERNEL = (".kernel k\n; caf\u00e9\n.registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n"
          ".kernel bad\n    frob r1\n.end\n")


def real_and_forked(*args: str, env: dict | None = None, **kwargs) -> list:
    done = []
    for argv in ([sys.executable, "-m", "wave_lsp", *args], wave_lsp_argv(*args, env=env)):
        done.append(subprocess.run(argv, capture_output=True, timeout=60, env=env, **kwargs))
    assert str(SHIM) in wave_lsp_argv(*args, env=env), "no command fork server here"
    return done


@pytest.mark.parametrize("encoding", [None, "latin-1:replace", "ascii:backslashreplace"])
def test_a_forked_command_prints_what_the_real_one_prints(tmp_path, encoding):
    path = tmp_path / "caf\u00e9.wave"               # named in what the commands print
    path.write_text(KERNEL, encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": encoding} if encoding else None
    for args in (("lint", path.name), ("run", path.name), ("dis", "nothing.wbin"),
                 ("frobnicate",)):
        real, fork = real_and_forked(*args, env=env, cwd=tmp_path)
        assert (fork.returncode, fork.stdout, fork.stderr) == \
            (real.returncode, real.stdout, real.stderr), args
    assert real.returncode == 2 and b"frobnicate" in real.stderr
    lint, _ = real_and_forked("lint", path.name, env=env, cwd=tmp_path)
    assert path.name.encode((encoding or "utf-8").split(":")[0], "backslashreplace") \
        in lint.stdout


def test_a_forked_command_reads_its_stdin_and_is_stopped_by_a_signal(tmp_path):
    requests = frame({"seq": 1, "type": "request", "command": "initialize",
                      "arguments": {"adapterID": "wave"}})
    real, fork = real_and_forked("debug", input=requests, cwd=tmp_path)
    assert real.returncode == fork.returncode == 0
    assert fork.stdout == real.stdout and b"supportsConfigurationDoneRequest" in fork.stdout
    proc = subprocess.Popen(wave_lsp_argv("debug", "--server"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    folder = Path(json.loads(proc.stdout.readline())["socket"]).parent   # it listens, says where
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0 and not folder.exists()       # its SIGTERM handler cleaned up
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        stream.close()


def test_an_editors_wave_lsp_on_path_goes_through_the_fork_servers(tmp_path):
    folder = bin_folder()
    assert folder is not None and (folder / "wave-lsp").is_file()
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    version = subprocess.run(["wave-lsp", "--version"], capture_output=True, text=True, env=env,
                             timeout=60)
    real = subprocess.run([sys.executable, "-m", "wave_lsp", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert version.returncode == 0 and version.stdout == real.stdout
    status, received = session(["wave-lsp", "serve"], tmp_path, env)
    assert status == 0 and "iadd" in json.dumps(received)
    serving = forkserver._servers["serve"].process.pid
    assert forkserver._servers["command"].process.pid != serving
