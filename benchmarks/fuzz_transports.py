"""Fuzz the language server's TCP and WebSocket transports (`wave-lsp serve --tcp/--ws`) on
127.0.0.1, as fuzz_server does stdio.

    python benchmarks/fuzz_transports.py [--cases 1000] [--seed 1] [--minutes M] [--hang S]

For each transport a real server subprocess gets, per case, a malformed frame (TCP,
fuzz_frames.py) or a bad message (WebSocket: not JSON, binary junk, deep nesting, wrong types,
messages of up to 4 MB), followed by a hover request that must be answered within --hang
seconds; every 50 cases a second connection must be refused (and the first keep its session).
Prints one line per transport: cases, crashes (server deaths or a dropped connection), hangs,
second connections not refused; exit status 1 when any of them is not zero.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from fuzz_frames import malformed_frame  # noqa: E402
from server.netclient import HOVER, NetServer, TcpPeer, ws_connect, ws_send, ws_until  # noqa: E402
from server.rawclient import INIT_PARAMS  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def hover(msg_id) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover", "params": HOVER}


def bad_message(rng: random.Random) -> str | bytes:
    choice = rng.randrange(8)
    if choice == 0:
        return "{not json"
    if choice == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    if choice == 2:
        return "[" * rng.randrange(1000, 100_000)
    if choice == 3:
        return json.dumps({"jsonrpc": "2.0", "id": rng.choice([None, [], 1.5, "x"]),
                           "method": rng.choice([5, None, "textDocument/hover"]),
                           "params": rng.choice([None, "x", 3, [], {}])})
    if choice == 4:
        return json.dumps([1, 2, 3])
    if choice == 5:
        return json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": "file:///tmp/fuzz.wave", "languageId": "wave", "version": 1,
                             "text": "    halt\n" * rng.randrange(1000, 500_000)}}})
    if choice == 6:
        return json.dumps({"jsonrpc": "1.0", "id": 1, "method": "initialize"})
    return ""


def fuzz_tcp(rng, cases, deadline, hang, cache) -> dict:
    counts = {"cases": 0, "crashes": 0, "hangs": 0, "not_refused": 0}
    server = NetServer("tcp", free_port(), cache)
    try:
        server.wait_listening()
        peer = TcpPeer(server.address)
        peer.initialize()
        while counts["cases"] < cases and time.monotonic() < deadline:
            n = counts["cases"] = counts["cases"] + 1
            peer.send(malformed_frame(rng, json.dumps(hover("m")).encode()))
            peer.send(hover(n))
            try:
                peer.response(n, timeout=hang)
            except (AssertionError, Exception):   # closed connection or no answer in time
                counts["crashes" if peer.closed.is_set() or server.proc.poll() is not None
                       else "hangs"] += 1
                break
            if n % 50 == 0:
                other = TcpPeer(server.address)
                first = other.next(timeout=hang)
                if not (first and "already has a client" in json.dumps(first)):
                    counts["not_refused"] += 1
                other.close()
    finally:
        server.close()
    return counts


def fuzz_ws(rng, cases, deadline, hang, cache) -> dict:
    from websockets.exceptions import ConnectionClosed
    counts = {"cases": 0, "crashes": 0, "hangs": 0, "not_refused": 0}
    server = NetServer("ws", free_port(), cache)
    try:
        server.wait_listening()
        with ws_connect(server.address) as client:
            ws_send(client, {"id": 0, "method": "initialize", "params": INIT_PARAMS})
            ws_until(client, lambda m: m.get("id") == 0, hang)
            while counts["cases"] < cases and time.monotonic() < deadline:
                n = counts["cases"] = counts["cases"] + 1
                try:
                    client.send(bad_message(rng))
                    client.send(json.dumps(hover(n)))
                    ws_until(client, lambda m, n=n: m.get("id") == n, hang)
                except ConnectionClosed:
                    counts["crashes"] += 1
                    break
                except TimeoutError:
                    counts["hangs"] += 1
                    break
                if n % 50 == 0:
                    try:
                        with ws_connect(server.address) as other:
                            other.recv(timeout=hang)
                            other.recv(timeout=hang)
                        counts["not_refused"] += 1
                    except ConnectionClosed as closed:
                        if closed.rcvd is None or closed.rcvd.code != 1013:
                            counts["not_refused"] += 1
    finally:
        server.close()
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="cases per transport")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=20.0, help="per transport")
    parser.add_argument("--hang", type=float, default=30.0,
                        help="seconds without an answer that count as a hang")
    args = parser.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory(prefix="wave-fuzz-net-") as tmp:
        for name, fuzz in (("tcp", fuzz_tcp), ("ws", fuzz_ws)):
            start = time.monotonic()
            c = fuzz(random.Random(args.seed), args.cases, start + args.minutes * 60,
                     args.hang, Path(tmp) / name)
            print(f"{name}: {c['cases']} cases in {time.monotonic() - start:.0f} s, crashes "
                  f"{c['crashes']}, hangs {c['hangs']}, second connections not refused "
                  f"{c['not_refused']}")
            bad += c["crashes"] + c["hangs"] + c["not_refused"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
