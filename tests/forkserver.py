"""A fork server for the `wave-lsp` processes the tests start: servers and commands.

A `wave-lsp serve` spends about 0.45 CPU-s before it reads its first message: the interpreter
starts, re-runs itself on the C allocator, and imports pygls, lsprotocol (569 attrs classes,
their methods compiled) and the server. A command (`run`, `lint`, `debug`, ...) spends 0.05 to
0.1 CPU-s importing what it needs. The tests start some 150 servers outside the editors, 500
commands, and the editors they drive start 70 more servers.

With the fork server on (the default; `WAVE_TESTS_FORK=0` turns it off), each test process
starts, when first asked, one process per kind that imports what that kind imports, and nothing
else: `serve` on the allocator `serve` re-runs itself on (`PYTHONMALLOC=malloc`), `command` on
the interpreter's own. `serve_command` and `wave_lsp_argv` then give the command of a small shim
(`forkserver_shim.py`) that stands where the `wave-lsp` process would stand: it hands its
stdin, stdout, stderr, working directory, environment and arguments to the fork server, whose
fork runs `wave-lsp ARGS` on them, exactly as `python -m wave_lsp ARGS` would from there on
(the standard streams made again as the interpreter makes them from that environment). The
shim exits as the process does (its status, or the signal that killed it), passes SIGTERM,
SIGINT and SIGHUP on, and if it is killed, the process is killed. `bin_folder` gives a folder
whose `wave-lsp` runs the shim of the right kind: first on an editor's PATH, the editor starts
its server and commands by name as it would from a virtual environment.

What differs is only how the process started. Where that matters the process starts as an
editor or a shell starts it (`python -m wave_lsp ARGS`):
- in a module marked `pytestmark = pytest.mark.real_server` (tests/conftest.py): it reads the
  server's /proc entries, stops it with SIGSTOP, or tests how it starts and talks;
- with an environment that changes how an interpreter starts (`PYTHON*` but the two that only
  choose how the standard streams are made, `MALLOC_*`, `LD_*`, `LC_*`, `LANG`) from the fork
  server's, or that chooses an allocator (`PYTHONMALLOC`);
- for whatever sets limits, a session or a process group on the process it starts (a fork has
  the fork server's): callers that do keep the real command;
- when the fork server cannot start (its log says why).
"""

from __future__ import annotations

import array
import atexit
import io
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

from wave_lsp.cli.main import SUBCOMMANDS

SWITCH = "WAVE_TESTS_FORK"          # "0": every process starts as an editor starts it
SHIM = Path(__file__).with_name("forkserver_shim.py")
_STARTUP = ("PYTHON", "MALLOC_", "LD_", "LC_", "LANG")
_STREAMS = ("PYTHONIOENCODING", "PYTHONUNBUFFERED")     # made again in the fork (`_streams`)
# what each kind imports before it forks: what `serve` imports before it reads a message; the
# modules of every subcommand but `serve`, and what they import when they run
IMPORTS = {
    "serve": ("wave_lsp.cli.main", "wave_lsp.cli.serve_command", "wave_lsp.framing",
              "wave_lsp.server.handshake", "wave_lsp.server.server"),
    "command": ("wave_lsp.cli.main", *(f"wave_lsp.cli.{name}_command" for name in SUBCOMMANDS
                                       if name != "serve"),
                "wave_lsp.debug.adapter", "wave_lsp.debug.listener", "wave_lsp.emu.engine",
                "wave_lsp.emu.native.runner", "wave_lsp.analysis.analyzer",
                "wave_lsp.asm.disassembler", "wave_lsp.asm.backends.ptx",
                "wave_lsp.asm.backends.hip", "wave_lsp.asm.backends.sycl",
                "wave_lsp.asm.backends.metal", "wave_lsp.ide.kernel_tests"),
}


def real_command(*args: str) -> list[str]:
    """`wave-lsp serve ARGS` as an editor starts it."""
    return [sys.executable, "-m", "wave_lsp", "serve", *args]


def serve_command(*args: str, env: dict[str, str] | None = None) -> list[str]:
    """The command that starts `wave-lsp serve ARGS` for a test whose process will have `env`
    (this process's environment when None): the shim of this process's fork server, or the
    real command (see the module's docstring for when)."""
    return _through("serve", ["serve", *args], env) or real_command(*args)


def wave_lsp_argv(*args: str, env: dict[str, str] | None = None) -> list[str]:
    """The command that runs `wave-lsp ARGS` (not `serve`) for a test whose process will have
    `env`: the shim of this process's command fork server, or `python -m wave_lsp ARGS`."""
    return _through("command", list(args), env) or [sys.executable, "-m", "wave_lsp", *args]


def bin_folder(env: dict[str, str] | None = None) -> Path | None:
    """A folder whose `wave-lsp` runs `wave-lsp ARGS` through the fork servers (`serve` on the
    server's, anything else on the command's), for a process that will have `env`; None where
    they step aside (`wave-lsp` is then the virtual environment's own)."""
    serve, other = _usable("serve", env), _usable("command", env)
    if serve is None or other is None:
        return None
    folder = serve.folder / "bin"
    script = folder / "wave-lsp"
    if not script.exists():     # a Python script, as a console script is (`:checkhealth wave`)
        folder.mkdir(exist_ok=True)
        script.write_text(
            f"#!{sys.executable} -IS\n"
            f'"""`wave-lsp ARGS` through the fork servers of tests/forkserver.py."""\n'
            f"import sys\n"
            f"sys.argv[1:1] = [{serve.path!r} if sys.argv[1:2] == ['serve'] else {other.path!r}]\n"
            f"exec(compile(open({str(SHIM)!r}).read(), {str(SHIM)!r}, 'exec'))\n")
        script.chmod(0o755)
    return folder


def _through(kind: str, argv: list[str], env: dict[str, str] | None) -> list[str] | None:
    server = _usable(kind, env)
    return None if server is None else [sys.executable, "-I", "-S", str(SHIM), server.path, *argv]


def _usable(kind: str, env: dict[str, str] | None) -> _ForkServer | None:
    """This process's fork server of `kind` for a process that will have `env`, or None where
    it steps aside (the module's docstring)."""
    if os.environ.get(SWITCH) == "0":
        return None
    env = dict(os.environ) if env is None else env
    server = _fork_server(kind)
    if "PYTHONMALLOC" in env or server is None or _startup(env) != _startup(server.env):
        return None
    return server


def _startup(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_STARTUP) and k not in _STREAMS}


class _ForkServer:
    """One of this process's fork servers (stopped when this process exits)."""

    def __init__(self, kind: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=f"wave-lsp-fork-{kind}-"))
        self.path = str(self.folder / "socket")
        self.env = dict(os.environ)
        self.log = self.folder / "log"
        allocator = {"PYTHONMALLOC": "malloc"} if kind == "serve" else {}
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-P", __file__, kind, self.path], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=log, cwd=self.folder,
                env={**{k: v for k, v in self.env.items() if k not in _STREAMS}, **allocator})
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


_servers: dict[str, _ForkServer] = {}
_failed: set[str] = set()
_starting = threading.Lock()


def _fork_server(kind: str) -> _ForkServer | None:
    with _starting:
        if kind not in _servers and kind not in _failed:
            try:
                _servers[kind] = _ForkServer(kind)
            except (OSError, RuntimeError) as error:
                _failed.add(kind)
                print(f"tests/forkserver.py: `wave-lsp {kind}` processes start as a shell "
                      f"starts them ({error})", file=sys.stderr)
                return None
            atexit.register(_servers[kind].stop)
        return _servers.get(kind)


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


def _run_server(kind: str, request: dict, fds: list[int], inherited: list[int]) -> None:
    """In the fork: become the process the shim stands for; never returns."""
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
        if kind == "serve":
            os.environ.setdefault("PYTHONMALLOC", "malloc")   # as `serve` re-runs itself
        _streams(os.environ)
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


def _streams(env: dict[str, str]) -> None:
    """sys.stdin, sys.stdout and sys.stderr made again on descriptors 0, 1 and 2 as the
    interpreter makes them at start from `env` (PYTHONIOENCODING, PYTHONUNBUFFERED)."""
    encoding, _, errors = env.get("PYTHONIOENCODING", "").partition(":")
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    made = []
    for fd, old in enumerate((sys.__stdin__, sys.__stdout__, sys.__stderr__)):
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        binary = raw if unbuffered and fd else (io.BufferedReader(raw) if fd == 0
                                                else io.BufferedWriter(raw))
        made.append(io.TextIOWrapper(      # the zygote's own were made without PYTHONIOENCODING
            binary, encoding=encoding or old.encoding,
            errors=(errors or old.errors) if fd < 2 else "backslashreplace",
            line_buffering=not unbuffered and (fd == 2 or os.isatty(fd)),
            write_through=unbuffered and fd > 0))
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made


def _serve(kind: str, path: str) -> None:
    import importlib

    for name in IMPORTS[kind]:
        importlib.import_module(name)

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
                    _run_server(kind, request, fds, [listener.fileno(), wake_r, wake_w,
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
    _serve(sys.argv[1], sys.argv[2])
