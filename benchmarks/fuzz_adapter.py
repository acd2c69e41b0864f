"""Fuzz the debug adapter (`wave-lsp debug`) through its stdio, as fuzz_server does the language
server.

    python benchmarks/fuzz_adapter.py [--cases 2000] [--seed 1] [--minutes M] [--hang S]

A real adapter subprocess is launched on examples/divergent_break.wave and stopped at a
breakpoint; then each case is either a malformed frame (fuzz_frames.py) or a request whose
command, arguments and every field are random (right and wrong types, huge and negative
numbers, frame ids and variable references mixed up, costly expressions). After each case a
`threads` request must be answered within --hang seconds. Prints one line: cases, crashes
(adapter deaths), hangs, "internal error" answers, tracebacks on stderr; exit status 1 when any
of them is not zero.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "debug"))
from dap_client import DapClient  # noqa: E402  (the tests' DAP client)
from fuzz_frames import malformed_frame  # noqa: E402

PROGRAM = ROOT / "examples" / "divergent_break.wave"
ARGS = ["--workgroup", "8,1,1", "--wave-width", "4", "--dump-u32", "0:8"]
COMMANDS = ["stackTrace", "scopes", "variables", "setVariable", "evaluate", "readMemory",
            "writeMemory", "disassemble", "setBreakpoints", "setInstructionBreakpoints",
            "setExceptionBreakpoints", "exceptionInfo", "threads", "initialize", "source",
            "noSuchCommand", 5, None, ["x"]]
FIELDS = ["threadId", "frameId", "variablesReference", "name", "value", "expression",
          "memoryReference", "offset", "count", "data", "instructionOffset", "instructionCount",
          "startFrame", "levels", "start", "format", "source", "breakpoints", "lines", "filters",
          "linesStartAt1"]
EXPRESSIONS = ["r0", "r0 + 1", "1 << 100000000", "(1 << 62) * 99", "9" * 40, "-" * 3000 + "1",
               "lane == 2 and active", "f32(r1) / 0", "r999", "p9", "", "((", "x" * 5000,
               "i32(~r0) >> 70"]


class AdapterFuzzer:
    def __init__(self, rng: random.Random, hang: float) -> None:
        self.rng, self.hang = rng, hang
        self.counts = {"cases": 0, "crashes": 0, "hangs": 0, "internal": 0, "tracebacks": 0,
                       "errors": 0, "successes": 0}
        self.client: DapClient | None = None

    def start(self) -> None:
        self.client = DapClient(cwd=ROOT)
        self.client.start(PROGRAM, breakpoints=[16], args=ARGS)
        stop = self.client.stopped(timeout=60)
        self.thread = stop["threadId"]
        self.frame = self.client.top_frame(self.thread)["id"]

    def value(self):
        rng = self.rng
        return rng.choice([None, 0, 1, -1, 2 ** 70, -2 ** 63, 1.5, "", "x", "lane -1",
                           "lane 4", "r0", "0x0", "device", "local", "AAAA", "!!", True, [],
                           {}, [1], {"hex": "yes"}, {"path": 5}, [{"line": "x"}],
                           [{"line": 16, "condition": rng.choice(EXPRESSIONS)}],
                           self.thread, self.frame, rng.randrange(1, 200),
                           rng.choice(EXPRESSIONS), rng.randrange(-10, 3_000_000)])

    def request(self) -> None:
        rng = self.rng
        command = rng.choice(COMMANDS)
        arguments = {rng.choice(FIELDS): self.value() for _ in range(rng.randrange(6))}
        message = {"type": "request", "command": command}
        if rng.random() < 0.9:
            message["arguments"] = arguments if rng.random() < 0.95 else self.value()
        seq = self.client.send_message(message)
        self.answer(seq)

    def answer(self, seq: int) -> None:
        try:
            answer = self.client.response(seq, timeout=self.hang)
        except TimeoutError:
            self.counts["hangs" if self.client.proc.poll() is None else "crashes"] += 1
            self.restart()
            return
        if "internal error" in answer.get("message", ""):
            self.counts["internal"] += 1
            print(f"internal error: {answer['message']}", file=sys.stderr)
        self.counts["successes" if answer["success"] else "errors"] += 1

    def restart(self) -> None:
        self.close()
        self.start()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            stderr = self.client.proc.stderr.read().decode("utf-8", "replace")
            if "Traceback" in stderr:
                self.counts["tracebacks"] += 1
                print(stderr[-2000:], file=sys.stderr)

    def run(self, cases: int, deadline: float) -> None:
        self.start()
        while self.counts["cases"] < cases and time.monotonic() < deadline:
            self.counts["cases"] += 1
            if self.rng.random() < 0.3:
                body = json.dumps({"seq": 0, "type": "request", "command": "threads"}).encode()
                self.client.send_raw(malformed_frame(self.rng, body))
            else:
                self.request()
            self.answer(self.client.send_message({"type": "request", "command": "threads"}))
        self.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=30.0, help="stop after this long")
    parser.add_argument("--hang", type=float, default=30.0,
                        help="seconds without an answer that count as a hang")
    args = parser.parse_args()
    start = time.monotonic()
    fuzzer = AdapterFuzzer(random.Random(args.seed), args.hang)
    fuzzer.run(args.cases, start + args.minutes * 60)
    c = fuzzer.counts
    print(f"adapter: {c['cases']} cases in {time.monotonic() - start:.0f} s, crashes "
          f"{c['crashes']}, hangs {c['hangs']}, internal errors {c['internal']}, tracebacks "
          f"{c['tracebacks']}; answers: {c['successes']} successes, {c['errors']} error "
          "responses")
    return 1 if c["crashes"] + c["hangs"] + c["internal"] + c["tracebacks"] else 0


if __name__ == "__main__":
    sys.exit(main())
