"""The process a test starts in place of `python -m wave_lsp serve ...` when the fork server is
on (`tests/forkserver.py`): it hands its stdin, stdout and stderr, its working directory, its
environment and its arguments to the fork server, whose fork of a process that has imported the
server already runs `wave-lsp ARGS` on them. It then waits, passes on SIGTERM, SIGINT and SIGHUP,
and exits as the server did (with its status, or killed by the same signal). If it is killed
itself, the fork server kills the server.

Run as `python -I -S forkserver_shim.py SOCKET ARGS...`: the standard library only, no site.
"""

import array
import json
import os
import signal
import socket
import struct
import sys


def main() -> None:
    path, args = sys.argv[1], sys.argv[2:]
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    request = json.dumps({"argv": args, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    connection.sendmsg([struct.pack(">I", len(request)) + request],
                       [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
    # the server holds the streams now: the client sees their end when the server closes them
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)

    def forward(signum, _frame) -> None:
        connection.send(bytes([signum]))

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    answer = b""
    while len(answer) < 4:
        more = connection.recv(4 - len(answer))
        if not more:
            os._exit(1)         # the fork server went away
        answer += more
    status = struct.unpack(">i", answer)[0]
    if status < 0:              # killed by a signal: so is this process
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status)


main()
