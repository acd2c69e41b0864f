"""Fuzz the language server through a raw JSON-RPC client, and the `.wbin` reader in process.

    python benchmarks/fuzz_server.py [--cases 3000] [--seed 1] [--wbin 3000] [--minutes M]

Server part: a real `wave-lsp serve` subprocess gets random documents (CR, LF and CRLF mixed),
random incremental edits, every request the server offers with random positions and arguments
(null and wrong-typed ones included), random settings, and malformed frames (bad headers, wrong
lengths, junk, invalid JSON). After every request the client waits for its answer. Every 50
cases the server's view of each open document is checked against the client's: formatting the
edited document and formatting a fresh copy of the client's text must give the same text.

`.wbin` part: assembled programs with random byte mutations go through `read_wbin` and
`disassemble`; anything but a `WbinError` is a crash.

Prints one summary line: cases run, crashes (server deaths or reader exceptions), hangs (no
answer within --hang seconds), tracebacks (server stderr or error log messages), line-model
drifts, and the server's peak resident memory. Exit status 1 when any of them is not zero.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "server"))
from rawclient import read_messages  # noqa: E402  (the tests' raw JSON-RPC reader)
from fuzz_frames import malformed_frame  # noqa: E402  (shared with fuzz_adapter, fuzz_transports)
BREAK = re.compile(r"\r\n|\r|\n")
BITS = [".kernel k", ".kernel main", ".end", ".registers 8", ".registers 300", "iadd r1, r2, r3",
        "@!p1 ", "@p0 ", "if p1", "else", "endif", "loop", "break p1", "continue p0",
        "endloop", "halt", "call f", "f:", "top:", "mov_imm r1, 1.5", "mov_imm r2, 0x10",
        "[r1+4]", "%tid.x", "; c", "# c", ",", "\t", "    ", "\r\n", "\r", "\n", "\n",
        "𝔘", "é", "sr_lane_id", "p9", "r300", "ADD", "add.s32", "atomic_add r1, r2, r3, .device",
        "device_load_u32 r1, [r2]", ".workgroup_size 64, 1, 1", "wave_shuffle r1, r2, r3",
        "barrier", "ret", "\x00", "\ufeff", "\u2028", ";; wave-lsp: ignore[U501]"]
REQUESTS = ["textDocument/hover", "textDocument/completion", "textDocument/signatureHelp",
            "textDocument/definition", "textDocument/references",
            "textDocument/documentHighlight", "textDocument/prepareRename",
            "textDocument/rename", "textDocument/documentSymbol", "textDocument/foldingRange",
            "textDocument/selectionRange", "textDocument/semanticTokens/full",
            "textDocument/formatting", "textDocument/rangeFormatting",
            "textDocument/codeAction", "textDocument/codeLens", "textDocument/inlayHint",
            "textDocument/diagnostic", "workspace/symbol", "workspace/executeCommand",
            "textDocument/noSuchRequest"]


def lines_of(text: str) -> list[str]:
    return BREAK.split(text)


def units(text: str) -> int:
    """Length in UTF-16 code units (the server's default position encoding)."""
    return len(text.encode("utf-16-le")) // 2


def offset(text: str, line: int, col: int) -> int:
    """A position (UTF-16 column, never inside a surrogate pair) as a code-point offset."""
    starts = [0] + [m.end() for m in BREAK.finditer(text)]
    lines = lines_of(text)
    if line >= len(lines):
        return len(text)
    seen = 0
    for index, ch in enumerate(lines[line]):
        if seen >= col:
            return starts[line] + index
        seen += units(ch)
    return starts[line] + len(lines[line])


def apply_text_edits(text: str, edits: list[dict]) -> str:
    located = sorted(((offset(text, e["range"]["start"]["line"], e["range"]["start"]["character"]),
                       offset(text, e["range"]["end"]["line"], e["range"]["end"]["character"]),
                       e["newText"]) for e in edits), reverse=True)
    for a, b, new in located:
        text = text[:a] + new + text[b:]
    return text


class Server:
    """A `wave-lsp serve` subprocess with a reader thread for its messages."""

    def __init__(self, cache: Path, env: dict | None = None, cwd: Path = ROOT) -> None:
        env = dict(os.environ, XDG_CACHE_HOME=str(cache), **(env or {}))
        self.proc = subprocess.Popen([sys.executable, "-m", "wave_lsp", "serve"], cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.inbox: queue.Queue = queue.Queue()
        self.stderr: list[str] = []
        self.error_logs = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()
        self.peak_kb = 0

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def _read(self) -> None:
        for message in read_messages(self.proc.stdout):
            if message.get("method") == "window/logMessage" and \
                    message["params"].get("type") == 1:
                self.error_logs += 1
            if "method" in message and "id" in message:  # a request from the server
                self.send({"jsonrpc": "2.0", "id": message["id"],
                           "result": self.answer(message)})
            self.inbox.put(message)
        self.inbox.put(None)

    def answer(self, request: dict):
        """The result this client gives a request from the server (fuzz_surfaces varies it)."""
        return None

    def send(self, data: bytes | dict) -> None:
        if isinstance(data, dict):
            body = json.dumps(data).encode()
            data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def wait_for(self, msg_id, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if message is None:
                raise BrokenPipeError
            if message.get("id") == msg_id and "method" not in message:
                return message
        return None

    def sample_memory(self) -> None:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_kb = max(self.peak_kb, int(line.split()[1]))
        except OSError:
            pass

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Fuzzer:
    def __init__(self, rng: random.Random, hang: float, workdir: Path) -> None:
        self.rng, self.hang, self.workdir = rng, hang, workdir
        self.counts = dict(cases=0, crashes=0, hangs=0, tracebacks=0, drifts=0)
        self.answers = dict(result=0, error=0)
        self.peak_kb = 0
        self.next_id = 0
        self.docs: dict[str, list] = {}  # uri -> [text, version]
        self.server = self._start()

    def _start(self) -> Server:
        server = Server(self.workdir / "cache")
        self.docs.clear()
        self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {
            "textDocument": {"diagnostic": {}}, "workspace": {"configuration": False}}},
            server=server)
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return server

    def request(self, method: str, params, server: Server | None = None) -> dict | None:
        server = server or self.server
        self.next_id += 1
        msg_id = self.next_id
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        server.send(message)
        answer = server.wait_for(msg_id, self.hang)
        if answer is None:
            self.counts["hangs"] += 1
        else:
            self.answers["error" if "error" in answer else "result"] += 1
        return answer

    def notify(self, method: str, params) -> None:
        self.server.send({"jsonrpc": "2.0", "method": method, "params": params})

    # ---- random material ----------------------------------------------------------------------
    def text(self, pieces: int = 40) -> str:
        return "".join(self.rng.choice(BITS) for _ in range(self.rng.randrange(pieces)))

    def position(self, uri: str | None = None) -> dict:
        lines = lines_of(self.docs[uri][0]) if uri in self.docs else [""]
        line = self.rng.randrange(len(lines) + 2)
        text = lines[line] if line < len(lines) else ""
        column = self.rng.randrange(len(text) + 3)  # a code point, then in UTF-16 units
        return {"line": line, "character": units(text[:column]) + max(0, column - len(text))}

    def uri(self) -> str:
        if self.docs and self.rng.random() < 0.9:
            return self.rng.choice(list(self.docs))
        return f"file://{self.workdir}/doc{self.rng.randrange(6)}.wave"

    def junk_value(self):
        return self.rng.choice([None, 0, -1, 2 ** 40, "", "x" * 300, [], {}, True, 1.5,
                                {"line": -1, "character": None}])

    # ---- one case -----------------------------------------------------------------------------
    def case(self) -> None:
        roll = self.rng.random()
        if roll < 0.12 or not self.docs:
            uri = f"file://{self.workdir}/doc{self.rng.randrange(6)}.wave"
            text = self.text(120)
            Path(uri[7:]).write_text(text, encoding="utf-8", newline="")
            self.docs[uri] = [text, 1]
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "wave", "version": 1, "text": text}})
        elif roll < 0.45:
            self.edit()
        elif roll < 0.48:
            uri = self.rng.choice(list(self.docs))
            del self.docs[uri]
            self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        elif roll < 0.5:
            settings = self.rng.choice([
                {"disable": [self.rng.choice(["U501", "Q1", None, 5]) for _ in range(30)]},
                {"severity": {"U501": self.rng.choice(["error", "nope", None])}},
                {"inlayHints": {"offsets": self.rng.choice([True, "yes"])}},
                {"diagnostics": {"debounceMs": self.rng.choice([0, -5, 10 ** 9, "x"])}},
                {"compat": self.rng.choice(["wave-asm", "none", 3])}, None, [1, 2], "str"])
            self.notify("workspace/didChangeConfiguration", {"settings": settings})
        elif roll < 0.55:
            self.malformed()
        else:
            self.random_request()
        if self.counts["cases"] % 50 == 49:
            self.check_drift()

    def edit(self) -> None:
        uri = self.rng.choice(list(self.docs))
        text, version = self.docs[uri]
        start, end = self.position(uri), self.position(uri)
        a, b = sorted([(start["line"], start["character"]), (end["line"], end["character"])])
        new = self.text(4)
        oa, ob = offset(text, *a), offset(text, *b)
        self.docs[uri] = [text[:oa] + new + text[ob:], version + 1]
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version + 1},
            "contentChanges": [{"range": {"start": {"line": a[0], "character": a[1]},
                                          "end": {"line": b[0], "character": b[1]}},
                                "text": new}]})

    def random_request(self) -> None:
        method = self.rng.choice(REQUESTS)
        uri = self.uri()
        pos = self.position(uri)
        doc = {"uri": uri}
        rng = {"start": pos, "end": self.position(uri)}
        params = {"textDocument": doc, "position": pos}
        if method == "textDocument/rename":
            params["newName"] = self.rng.choice(["fresh", "None", "r1", "a b", "", None, 7])
        elif method == "textDocument/references":
            params["context"] = {"includeDeclaration": self.rng.random() < 0.5}
        elif method in ("textDocument/formatting", "textDocument/rangeFormatting"):
            params = {"textDocument": doc, "options": {"tabSize": 4, "insertSpaces": True}}
            if method == "textDocument/rangeFormatting":
                params["range"] = rng
        elif method in ("textDocument/codeAction",):
            params = {"textDocument": doc, "range": rng, "context": {"diagnostics": []}}
        elif method == "textDocument/inlayHint":
            params = {"textDocument": doc, "range": rng}
        elif method == "textDocument/selectionRange":
            params = {"textDocument": doc, "positions": [pos, self.position(uri)]}
        elif method in ("textDocument/documentSymbol", "textDocument/foldingRange",
                        "textDocument/semanticTokens/full", "textDocument/codeLens",
                        "textDocument/diagnostic"):
            params = {"textDocument": doc}
        elif method == "workspace/symbol":
            params = {"query": self.rng.choice(["", "k", "gemm", "\x00"])}
        elif method == "workspace/executeCommand":
            command = self.rng.choice(["wave-lsp.kernelResources", "wave-lsp.assemble",
                                       "wave-lsp.encoding", "wave-lsp.unknown"])
            arguments = [self.rng.choice([uri, self.junk_value()]),
                         self.rng.choice(["k", "main", self.junk_value()])]
            params = {"command": command, "arguments": arguments[:self.rng.randrange(3)]}
        if self.rng.random() < 0.05:  # a wrong shape somewhere
            params[self.rng.choice(list(params))] = self.junk_value()
        self.request(method, params)

    def malformed(self) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": "m", "method": "textDocument/hover",
                           "params": {"textDocument": {"uri": "file:///x"},
                                      "position": {"line": 0, "character": 0}}}).encode()
        data = malformed_frame(self.rng, body)
        self.server.send(data)
        self.request("textDocument/hover", {"textDocument": {"uri": "file:///x"},
                                            "position": {"line": 0, "character": 0}})

    def check_drift(self) -> None:
        """Formatting the edited document must equal formatting a fresh copy of its text."""
        options = {"tabSize": 4, "insertSpaces": True}
        for uri, (text, _version) in list(self.docs.items()):
            if "\x00" in text:
                continue
            edited = self.request("textDocument/formatting",
                                  {"textDocument": {"uri": uri}, "options": options})
            fresh_uri = f"file://{self.workdir}/fresh.wave"
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": fresh_uri, "languageId": "wave", "version": 1, "text": text}})
            fresh = self.request("textDocument/formatting",
                                 {"textDocument": {"uri": fresh_uri}, "options": options})
            self.notify("textDocument/didClose", {"textDocument": {"uri": fresh_uri}})
            if edited and fresh and "result" in edited and "result" in fresh:
                if apply_text_edits(text, edited["result"] or []) != \
                        apply_text_edits(text, fresh["result"] or []):
                    self.counts["drifts"] += 1
                    if os.environ.get("FUZZ_VERBOSE"):
                        print(f"drift in {uri}: {text!r}\n edited: {edited['result']}\n "
                              f"fresh: {fresh['result']}", file=sys.stderr)

    def run(self, cases: int, deadline: float) -> None:
        while self.counts["cases"] < cases and time.monotonic() < deadline:
            try:
                self.case()
            except (BrokenPipeError, OSError):
                self.counts["crashes"] += 1
                self._collect(self.server)
                self.server = self._start()
            self.counts["cases"] += 1
            if self.counts["cases"] % 100 == 0:
                self.server.sample_memory()
        self.request("shutdown", None)
        self.server.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            status = self.server.proc.wait(30)
        except subprocess.TimeoutExpired:
            status = None
        if status != 0:
            self.counts["crashes"] += 1
        self._collect(self.server)

    def _collect(self, server: Server) -> None:
        server.sample_memory()
        self.peak_kb = max(self.peak_kb, server.peak_kb)
        server.close()
        time.sleep(0.1)
        text = "".join(server.stderr)
        self.counts["tracebacks"] += text.count("Traceback") + server.error_logs
        if text.count("Traceback"):
            sys.stderr.write(text[-4000:])


def fuzz_wbin(rng: random.Random, cases: int) -> dict:
    """Mutated `.wbin` files through the reader and the disassembler."""
    sys.path.insert(0, str(ROOT))
    from wave_lsp.asm import WbinError, assemble, read_wbin
    from wave_lsp.asm.disassembler import disassemble

    examples = sorted((ROOT.parent / "shared" / "wave-examples").glob("*.wave"))
    seeds = [assemble(p.read_text()).wbin() for p in examples] or \
        [assemble(".kernel k\n    mov_imm r1, 5\n    halt\n.end\n").wbin()]
    counts = dict(cases=0, rejected=0, crashes=0)
    for _ in range(cases):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randrange(1, 8)):
            kind = rng.randrange(4)
            at = rng.randrange(len(data))
            if kind == 0:
                data[at] = rng.randrange(256)
            elif kind == 1:
                data[at:at + 4] = rng.randrange(2 ** 32).to_bytes(4, "little")
            elif kind == 2:
                del data[at:at + rng.randrange(1, 16)]
            else:
                data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
        counts["cases"] += 1
        try:
            listing = disassemble(read_wbin(bytes(data)))
            if any(ch in listing for ch in "\x1b\x7f\x00"):
                counts["crashes"] += 1
        except WbinError:
            counts["rejected"] += 1
        except Exception as exc:  # noqa: BLE001 - the point is to count them
            counts["crashes"] += 1
            print(f"wbin reader crash: {exc!r}", file=sys.stderr)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--wbin", type=int, default=3000, help="mutated .wbin files")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=60.0, help="stop after this long")
    parser.add_argument("--hang", type=float, default=30.0,
                        help="seconds without an answer that count as a hang")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wave-fuzz-") as tmp:
        fuzzer = Fuzzer(rng, args.hang, Path(tmp))
        fuzzer.run(args.cases, start + args.minutes * 60)
    server_s = time.monotonic() - start
    wbin = fuzz_wbin(rng, args.wbin)
    c = fuzzer.counts
    print(f"server: {c['cases']} cases in {server_s:.0f} s, crashes {c['crashes']}, hangs "
          f"{c['hangs']}, tracebacks {c['tracebacks']}, line-model drifts {c['drifts']}, "
          f"peak RSS {fuzzer.peak_kb / 1024:.0f} MB; answers: {fuzzer.answers['result']} "
          f"results, {fuzzer.answers['error']} error responses")
    print(f"wbin: {wbin['cases']} mutated files, {wbin['rejected']} rejected with a reason, "
          f"crashes {wbin['crashes']}")
    bad = c["crashes"] + c["hangs"] + c["tracebacks"] + c["drifts"] + wbin["crashes"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
