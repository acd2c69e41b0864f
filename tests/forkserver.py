"""A fork server for the language servers the tests start.

A `wave-lsp serve` spends about 0.45 CPU-s before it reads its first message: the interpreter
starts, re-runs itself on the C allocator, and imports pygls, lsprotocol (569 attrs classes,
their methods compiled) and the server. The tests start some 150 servers outside the editors.

With the fork server on (the default; `WAVE_TESTS_FORK=0` turns it off), each test process
starts one process that imports what `serve` imports, on the allocator `serve` re-runs itself
on (`PYTHONMALLOC=malloc`), and nothing else. `serve_command` then gives the command of a small
shim (`forkserver_shim.py`) that stands where the server process would stand: it hands its
stdin, stdout, stderr, working directory, environment and arguments to the fork server, whose
fork runs `wave-lsp serve ARGS` on them, exactly as `python -m wave_lsp serve ARGS` would from
there on. The shim exits as the server does (its status, or the signal that killed it), passes
SIGTERM, SIGINT and SIGHUP on, and if it is killed, the server is killed.

What differs is only how the process started. Where that matters the server starts as an
editor starts it (`python -m wave_lsp serve`):
- in a module marked `pytestmark = pytest.mark.real_server` (tests/conftest.py): it reads the
  server's /proc entries, stops it with SIGSTOP, or tests how it starts and talks;
- with an environment that changes how an interpreter starts (`PYTHON*`, `MALLOC_*`, `LD_*`,
  `LC_*`, `LANG`) from the fork server's, or that chooses an allocator (`PYTHONMALLOC`);
- when the fork server cannot start (its log says why).
"""

from __future__ import annotations

import array
import atexit
import json
import os
import random
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

SWITCH = "WAVE_TESTS_FORK"          # "0": every server starts as an editor starts it
SHIM = Path(__file__).with_name("forkserver_shim.py")
_STARTUP = ("PYTHON", "MALLOC_", "LD_", "LC_", "LANG")


def real_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "wave_lsp", "serve", *args]


def serve_command(*args: str, env: dict[str, str] | None = None) -> list[str]:
    """The command that starts `wave-lsp serve ARGS` for a test whose process will have `env`
    (this process's environment when None): the shim of this process's fork server, or the
    real command (see the module's docstring for when)."""
    if os.environ.get(SWITCH) == "0":
        return real_command(*args)
    env = dict(os.environ) if env is None else env
    server = _fork_server()
    if "PYTHONMALLOC" in env or server is None or _startup(env) != _startup(server.env):
        return real_command(*args)
    return [sys.executable, "-I", "-S", str(SHIM), server.path, "serve", *args]


def _startup(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_STARTUP)}


class _ForkServer:
    """This process's fork server (stopped when this process exits)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="wave-lsp-fork-"))
        self.path = str(self.folder / "socket")
        self.env = dict(os.environ)
        self.log = self.folder / "log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-P", __file__, self.path], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=log, cwd=self.folder,
                env={**self.env, "PYTHONMALLOC": "malloc"})
        deadline = time.monotonic() + 60
        while not os.path.exists(self.path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the fork server did not start: {self.log.read_text()}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Ends the fork server; it kills the servers still running."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_server: _ForkServer | None = None
_failed = False
_starting = threading.Lock()


def _fork_server() -> _ForkServer | None:
    global _server, _failed
    with _starting:
        if _server is None and not _failed:
            try:
                _server = _ForkServer()
            except (OSError, RuntimeError) as error:
                _failed = True
                print(f"tests/forkserver.py: servers start as editors start them ({error})",
                      file=sys.stderr)
                return None
            atexit.register(_server.stop)
        return _server


# --- the fork server itself (`python -P forkserver.py SOCKET`) --------------------------------

def _receive(connection: socket.socket) -> tuple[dict, list[int]]:
    """A shim's request and the three descriptors it sent with it."""
    data, ancillary, _flags, _address = connection.recvmsg(1 << 16, socket.CMSG_SPACE(3 * 4))
    fds = array.array("i")
    for _level, _kind, payload in ancillary:
        fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    size = struct.unpack(">I", data[:4])[0]
    body = data[4:]
    while len(body) < size:
        more = connection.recv(size - len(body))
        if not more:
            raise ConnectionError("the shim went away")
        body += more
    return json.loads(body), list(fds)


def _run_server(request: dict, fds: list[int], inherited: list[int]) -> None:
    """In the fork: become the server process the shim stands for; never returns."""
    status = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in inherited:
            os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ.setdefault("PYTHONMALLOC", "malloc")   # as `serve` re-runs itself
        random.seed()
        sys.argv = ["wave-lsp", *request["argv"]]
        from wave_lsp.cli.main import main
        status = main()
    except SystemExit as end:
        code = end.code
        status = 0 if code is None else code if isinstance(code, int) else 1
        if isinstance(code, str):
            print(code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        try:            # what the interpreter does at exit
            threading._shutdown()  # type: ignore[attr-defined]
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status if isinstance(status, int) else 1)


def _serve(path: str) -> None:
    import wave_lsp.cli.main  # noqa: F401   what `serve` imports before it reads a message
    import wave_lsp.cli.serve_command  # noqa: F401
    import wave_lsp.framing  # noqa: F401
    import wave_lsp.server.handshake  # noqa: F401
    import wave_lsp.server.server  # noqa: F401

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".part")
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_r, selectors.EVENT_READ, "reap")
    selector.register(0, selectors.EVENT_READ, "parent")
    shims: dict[int, socket.socket | None] = {}      # server pid -> its shim's connection
    pids: dict[socket.socket, int] = {}
    os.rename(path + ".part", path)                   # ready
    while True:
        for key, _events in selector.select():
            if key.data == "accept":
                connection, _ = listener.accept()
                try:
                    request, fds = _receive(connection)
                except (OSError, ValueError):
                    connection.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    _run_server(request, fds, [listener.fileno(), wake_r, wake_w,
                                               connection.fileno(),
                                               *(c.fileno() for c in pids)])
                for fd in fds:
                    os.close(fd)
                shims[pid], pids[connection] = connection, pid
                selector.register(connection, selectors.EVENT_READ, "shim")
            elif key.data == "reap":
                os.read(wake_r, 1024)
                _reap(shims, pids, selector)
            elif key.data == "parent":
                if not os.read(0, 1024):      # the test process is gone: so are its servers
                    for pid in shims:
                        _kill(pid, signal.SIGKILL)
                    return
            else:
                connection = key.fileobj
                data = connection.recv(16)
                pid = pids.get(connection)
                if data:                      # signals the shim was sent
                    for signum in data:
                        _kill(pid, signum)
                else:                         # the shim was killed
                    _kill(pid, signal.SIGKILL)
                    selector.unregister(connection)
                    del pids[connection]
                    shims[pid] = None
                    connection.close()


def _kill(pid: int | None, signum: int) -> None:
    if pid is not None:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def _reap(shims: dict, pids: dict, selector: selectors.BaseSelector) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = shims.pop(pid, None)
        if connection is None:
            continue
        selector.unregister(connection)
        del pids[connection]
        try:
            connection.sendall(struct.pack(">i", os.waitstatus_to_exitcode(status)))
        except OSError:
            pass
        connection.close()


if __name__ == "__main__":
    _serve(sys.argv[1])
