"""Malformed base-protocol frames for the fuzzers (fuzz_server, fuzz_adapter, fuzz_transports):
wrong, negative, huge or missing lengths, header spellings, junk bytes, bodies that are not JSON
or not objects, deep nesting and long header lines."""

from __future__ import annotations

import random


def malformed_frame(rng: random.Random, body: bytes) -> bytes:
    """One broken (or unusually spelt) frame around `body`, or junk."""
    choice = rng.randrange(12)
    if choice == 0:
        return b"content-length:%d\r\n\r\n" % len(body) + body      # valid: any case, no space
    if choice == 1:
        return b"Content-Length: %d\r\n\r\n" % (len(body) - rng.randrange(1, 20)) + body
    if choice == 2:
        return b"Content-Length: %d\r\n\r\n" % -rng.randrange(1, 9) + body
    if choice == 3:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    if choice == 4:
        return b"Content-Length: 9\r\n\r\n{not json"
    if choice == 5:
        return b"Content-Length: 3\r\n\r\n[1]"
    if choice == 6:
        return b"Content-Length: %d\r\n\r\n" % (len(body) + rng.randrange(1, 40)) + body
    if choice == 7:
        return b"Content-Length: " + rng.choice([b"ten", b"", b"0x10", b"1e3", b"99999999999999"]) \
            + b"\r\n\r\n" + body
    if choice == 8:
        return b"Content-Type: application/json\r\n\r\n" + body          # no length at all
    if choice == 9:
        deep = b"[" * rng.randrange(1000, 100_000)
        return b"Content-Length: %d\r\n\r\n" % len(deep) + deep
    if choice == 10:
        return b"X-Junk: " + b"a" * rng.randrange(70_000, 300_000) + b"\r\n\r\n"
    return b"Content-Length: 4\r\n\r\n\xff\xfe\x00\x01"
