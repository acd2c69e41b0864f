"""Fuzz the language server with multi-change edits and hostile launch lines, as
`fuzz_server.py` fuzzes stdio (its `Fuzzer` and `Server` are reused).

    python benchmarks/fuzz_hostile.py [--cases 400] [--seed 1] [--minutes M]

- Every `didChange` carries 1-6 changes, each relative to the text the ones before it left,
  at random places (a later one above an earlier one, as multi-cursor edits and replace-all
  send them). Every 25 cases the pulled diagnostics of each document are compared with those
  of a fresh copy of the client's text: a difference is a *diagnostic drift*.
- Documents get hostile launch lines: `--arg` files outside the folder (`../`, absolute,
  `/proc/self/environ`, a symbolic link out), a FIFO, the same file many times, huge grids with
  `--max-instructions 0 --time-limit 604800`, dumps of 64 MiB, `.registers 2584243001`, floods
  of 9,000 to 30,000 flags; kernels nested up to 10,000 blocks deep are opened and formatted; then
  `wave-lsp.run`, `wave-lsp.emit` and `wave-lsp.checkPortability` on them, hovers and hints.
  A secret written outside the folder must never come back in any message: a *leak*.

Prints one summary line (cases, crashes, hangs, tracebacks, diagnostic drifts, leaks, peak RSS,
slowest answer). Exit status 1 when any count is not zero.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_server import Fuzzer, offset, units  # noqa: E402

SECRET = "FUZZ-SECRET-7f3a9c"
KERNEL = (".kernel k\n{launch}\n.registers {registers}\n    mov_sr r0, sr_lane_id\n"
          "    mov_imm r1, 4\n    imul r2, r0, r1\n    device_store_u32 r2, r0\n    halt\n.end\n")


class HostileFuzzer(Fuzzer):
    def __init__(self, rng: random.Random, hang: float, workdir: Path) -> None:
        self.extra = dict(diagnostic_drifts=0, leaks=0)
        self.slowest = 0.0
        folder = workdir / "work"
        folder.mkdir()
        (workdir / "secret.txt").write_text(SECRET)
        (folder / "data.bin").write_bytes(bytes(range(256)) * 4)
        os.symlink(workdir / "secret.txt", folder / "link.bin")
        os.mkfifo(folder / "pipe.bin")
        self.folder = folder
        super().__init__(rng, hang, workdir)
        self.server.inbox = _Watched(self.server.inbox, self)

    def _start(self):
        server = super()._start()
        if hasattr(self, "extra"):
            server.inbox = _Watched(server.inbox, self)
        return server

    def request(self, method, params, server=None):
        started = time.monotonic()
        answer = super().request(method, params, server)
        self.slowest = max(self.slowest, time.monotonic() - started)
        return answer

    # ---- multi-change edits --------------------------------------------------------------------
    def edit(self) -> None:
        uri = self.rng.choice(list(self.docs))
        text, version = self.docs[uri]
        changes = []
        for _ in range(self.rng.randrange(1, 7)):
            self.docs[uri][0] = text
            start, end = self.position(uri), self.position(uri)
            a, b = sorted([(start["line"], start["character"]),
                           (end["line"], end["character"])])
            new = self.text(4)
            oa, ob = offset(text, *a), offset(text, *b)
            text = text[:oa] + new + text[ob:]
            changes.append({"range": {"start": {"line": a[0], "character": a[1]},
                                      "end": {"line": b[0], "character": b[1]}}, "text": new})
        self.docs[uri] = [text, version + 1]
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version + 1}, "contentChanges": changes})

    # ---- hostile launch lines ------------------------------------------------------------------
    def launch_line(self) -> str:
        arg = self.rng.choice(["../secret.txt", str(self.folder.parent / "secret.txt"),
                               "/proc/self/environ", "link.bin", "pipe.bin", "missing.bin",
                               "data.bin", "sub/../../secret.txt"])
        flags = self.rng.choice([
            f"--arg 0:{arg} --dump-u32 0:64 --dump-memory 0:64",
            " ".join(["--arg 0:data.bin"] * 10) + " --dump-u32 0:16",
            "--grid 4294967295,1,1 --max-instructions 0 --time-limit 604800",
            "--device-memory 67108864 --dump-u32 0:16777216",
            "--device-memory 268435456 --grid 4,1,1",
            f"--arg 0:{arg} --grid 2,1,1",
            " ".join(f"--set-reg r{i % 8}:{i}" for i in range(self.rng.choice([9_000, 12_000]))),
            " ".join(["--stats"] * 30_000)])
        return f"; wave-lsp run: {flags}"

    def deep_kernel(self) -> str:
        """A kernel nested up to 10,000 blocks deep (formatting and analysis stay linear)."""
        depth = self.rng.choice([40, 129, 1_000, 10_000])
        out = [".kernel k", ".registers 8", "mov_sr r0, sr_lane_id", "icmp_lt p1, r1, r0"]
        closes = []
        for _ in range(depth):
            loop = self.rng.random() < 0.5
            out += ["loop" if loop else "if p1", "iadd r1, r1, r0"]
            closes.append("break p1\nendloop" if loop else "endif")
        return "\n".join(out + ["barrier"] + closes[::-1] + ["halt", ".end", ""])

    def case(self) -> None:
        roll = self.rng.random()
        if roll < 0.1:
            uri = f"file://{self.folder}/hostile{self.rng.randrange(4)}.wave"
            registers = self.rng.choice([8, 8, 300, 2584243001])
            text = KERNEL.format(launch=self.launch_line(), registers=registers)
            self.docs[uri] = [text, 1]
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "wave", "version": 1, "text": text}})
        elif roll < 0.13:
            uri = f"file://{self.folder}/deep{self.rng.randrange(2)}.wave"
            text = self.deep_kernel()
            self.docs[uri] = [text, 1]
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "wave", "version": 1, "text": text}})
            self.request("textDocument/formatting", {
                "textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}})
        elif roll < 0.25 and self.docs:
            uri = self.rng.choice(list(self.docs))
            command, arguments = self.rng.choice([
                ("wave-lsp.run", [uri, "k", None]), ("wave-lsp.emit", [uri, "hip"]),
                ("wave-lsp.emit", [uri, "metal"]), ("wave-lsp.checkPortability", [uri, "k"]),
                ("wave-lsp.clear", [uri])])
            self.request("workspace/executeCommand", {"command": command, "arguments": arguments})
        else:
            super().case()
        if self.counts["cases"] % 25 == 24:
            self.check_diagnostics()

    def check_diagnostics(self) -> None:
        """The pulled diagnostics of each edited document equal a fresh copy's."""
        for uri, (text, _version) in list(self.docs.items()):
            if "\x00" in text or "wave-lsp run" in text:
                continue          # run results depend on timing; binary text is not analysed
            edited = self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            fresh_uri = f"file://{self.workdir}/fresh.wave"
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": fresh_uri, "languageId": "wave", "version": 1, "text": text}})
            fresh = self.request("textDocument/diagnostic", {"textDocument": {"uri": fresh_uri}})
            self.notify("textDocument/didClose", {"textDocument": {"uri": fresh_uri}})
            if edited and fresh and "result" in edited and "result" in fresh:
                if _shape(edited["result"]) != _shape(fresh["result"]):
                    self.extra["diagnostic_drifts"] += 1
                    if os.environ.get("FUZZ_VERBOSE"):
                        print(f"diagnostic drift in {uri}: {text!r}", file=sys.stderr)


def _shape(report) -> list:
    items = (report or {}).get("items", [])
    return sorted((d.get("code"), d["range"]["start"]["line"], d["range"]["start"]["character"],
                   d.get("message")) for d in items)


class _Watched:
    """The server's inbox, counting every message that carries the secret."""

    def __init__(self, inbox, fuzzer: HostileFuzzer) -> None:
        self.inbox, self.fuzzer = inbox, fuzzer

    def get(self, *args, **kwargs):
        message = self.inbox.get(*args, **kwargs)
        if message is not None and SECRET in str(message):
            self.fuzzer.extra["leaks"] += 1
        return message

    def put(self, item) -> None:
        self.inbox.put(item)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--hang", type=float, default=30.0)
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wave-hostile-") as tmp:
        fuzzer = HostileFuzzer(random.Random(args.seed), args.hang, Path(tmp))
        fuzzer.run(args.cases, start + args.minutes * 60)
    c, e = fuzzer.counts, fuzzer.extra
    print(f"hostile: {c['cases']} cases in {time.monotonic() - start:.0f} s, crashes "
          f"{c['crashes']}, hangs {c['hangs']}, tracebacks {c['tracebacks']}, diagnostic drifts "
          f"{e['diagnostic_drifts']}, leaks {e['leaks']}, line-model drifts {c['drifts']}, "
          f"peak RSS {fuzzer.peak_kb / 1024:.0f} MB, slowest answer {fuzzer.slowest:.1f} s")
    bad = c["crashes"] + c["hangs"] + c["tracebacks"] + c["drifts"] + sum(e.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
