"""Fuzz the surfaces that run programs or write files: settings that name programs, workspace commands, and
`wave-lsp test --update` (`fuzz_server.py`'s `Fuzzer` and `Server` and `fuzz_hostile.py`'s secret
watch are reused; the update part is `fuzz_update.py`).

    python benchmarks/fuzz_surfaces.py [--cases 300] [--seed 1] [--minutes M] [--hang 30]
                                       [--only settings|commands|update]

- settings: servers start with random `initializationOptions` (`workspaceTrusted` true,
  "false", 0, null, "no", [], "true", 1 or absent) and get random settings, from
  `workspace/didChangeConfiguration` or, for a client that declares `workspace.configuration`,
  as the answer to the server's `workspace/configuration` request: every key of
  `wave_lsp/server/settings.py` with right values, wrong types, huge and negative numbers, NUL
  bytes, long strings and nested junk. Each server has its own *canary* (a shell script that
  appends to a marker file), named by `backends.ptxas` / `backends.hipcc` as an absolute path,
  `./canary.sh`, `canary.sh` (its folder on the server's PATH and its working folder), a path
  through `..`, or relative to the working folder; the working folder also holds `cupy/` and
  `nvidia/` packages whose import is an escape in any server. Between changes: hovers on the kernel
  name, `wave-lsp.kernelResources`, `wave-lsp.emit` ptx/hip and runs. While a server is untrusted
  (trust not JSON `true`, no `wave-lsp/workspaceTrusted` yet) each marker line is an *escape*.
  A change that is invalid by construction must bring a `window/showMessage` or a
  `window/logMessage` naming a setting within 3 s, else it is a *silent setting*.
- commands: every command the initialize answer advertises (read from it), with right
  arguments (open documents' URIs, existing kernels), junk (null, numbers, 2**64, nested lists
  and objects, NUL bytes, `file:` URIs with NUL, `..` or nothing behind them, http: URIs, long
  strings), too many or too few; `$/cancelRequest` for random ids (the request just sent
  among them) and `wave-lsp/workspaceTrusted` with junk params. Every request must be answered
  (a *hang* otherwise) with a result or an error that is not an internal error (a *traceback*
  otherwise, as is one on stderr), the server must stay alive (a *crash*), and a secret written
  outside the workspace folder must never come back in any message (a *leak*).
- update: see `fuzz_update.py` (lost data, unstable updates).

Prints one summary line per part: cases, crashes, hangs, tracebacks, escapes, silent settings,
leaks, lost data, unstable updates, peak RSS, slowest answer. Exit status 1 when any finding is
not zero.
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
from fuzz_hostile import SECRET, _Watched  # noqa: E402
from fuzz_server import ROOT, Fuzzer, Server  # noqa: E402
from fuzz_update import UpdateFuzzer  # noqa: E402

TRUST_VALUES = [True, "false", 0, None, "no", [], "true", 1, False, {"a": True}]
KERNEL = (".kernel k\n; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4\n"
          "; wave-lsp expect: 0\n; wave-lsp expect: 9\n.registers 8\n    mov_sr r0, sr_lane_id\n"
          "    mov_imm r1, 4\n    imul r2, r0, r1\n    device_store_u32 r2, r0\n    halt\n.end\n"
          ".kernel main\n.registers 4\n    halt\n.end\n")
CANARY = "#!/bin/sh\necho \"$0 $*\" >> '{marker}'\nexit 1\n"
PLANTED = "open({marker!r}, 'a').write('imported {name}\\n')\n"
JUNK = [None, 0, -1, 2 ** 64, -(2 ** 64), 1.5, float("1e308"), True, "", "x" * 100_000,
        "a\x00b", [], {}, [[[[]]]], {"a": {"b": [None, {"c": "\x00"}]}}, "\ud7ff" * 10]


class PartServer(Server):
    """A server whose `workspace/configuration` answer the fuzzer chooses."""

    def __init__(self, cache: Path, env: dict, cwd: Path) -> None:
        self.config_answer = None
        super().__init__(cache, env, cwd)

    def answer(self, request: dict):
        if request.get("method") == "workspace/configuration":
            items = (request.get("params") or {}).get("items") or [None]
            return [self.config_answer for _ in items]
        return None


class SurfaceFuzzer(Fuzzer):
    """Shared by the settings and commands parts: a fresh server per phase, in its own folder
    (with a canary, planted packages and an open kernel), every message watched for the secret
    and for messages naming a setting."""

    def __init__(self, rng: random.Random, hang: float, workdir: Path) -> None:
        self.extra = dict(escapes=0, silent_settings=0, leaks=0)
        self.slowest, self.phase, self.phase_cases, self.setting_messages = 0.0, 0, 0, 0
        self.commands: list[str] = []
        (workdir / "secret.txt").write_text(SECRET)
        (workdir / "secret.wave").write_text(f"; {SECRET}\n; wave-lsp run: --arg 0:{SECRET}\n"
                                             f"; wave-lsp expect: {SECRET}\n")
        super().__init__(rng, hang, workdir)

    # ---- a server per phase -------------------------------------------------------------------
    def init_options(self):
        return None

    def _start(self) -> Server:
        self.phase += 1
        self.phase_cases = 0
        folder = self.folder = self.workdir / f"phase{self.phase}"
        folder.mkdir()
        self.marker = folder / "marker.txt"
        self.canary = folder / "canary.sh"
        self.canary.write_text(CANARY.format(marker=self.marker))
        self.canary.chmod(0o755)
        for name in ("cupy", "nvidia"):
            (folder / name).mkdir()
            (folder / name / "__init__.py").write_text(PLANTED.format(
                marker=str(folder / "planted.txt"), name=name))
        self.config_client = self.rng.random() < 0.5
        options = self.init_options()
        env = {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}",
               "PYTHONPATH": str(ROOT)}
        server = PartServer(self.workdir / "cache", env, folder)
        server.config_answer, self.answer_invalid = \
            self.random_settings() if self.config_client else (None, False)
        server.inbox = _Inbox(server.inbox, self)
        self.docs.clear()
        answer = self.request("initialize", {
            "processId": None, "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": "w"}],
            "initializationOptions": options,
            "capabilities": {"textDocument": {"diagnostic": {}, "hover": {}},
                             "workspace": {"configuration": self.config_client}}},
            server=server)
        result = (answer or {}).get("result") or {}
        self.commands = result.get("capabilities", {}).get(
            "executeCommandProvider", {}).get("commands", [])
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        uri = (folder / "kernel.wave").as_uri()
        (folder / "kernel.wave").write_text(KERNEL)
        (folder / "data.bin").write_bytes(bytes(range(64)))
        self.docs[uri] = [KERNEL, 1]
        server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "wave", "version": 1, "text": KERNEL}}})
        return server

    def request(self, method, params, server=None):
        started = time.monotonic()
        answer = super().request(method, params, server)
        self.slowest = max(self.slowest, time.monotonic() - started)
        if answer and answer.get("error", {}).get("code") == -32603:
            self.counts["tracebacks"] += 1
            self.note(f"internal error for {method}: {str(params)[:300]}: "
                      f"{str(answer['error'])[:300]}")
        return answer

    def pump(self, seconds: float, until=lambda: False) -> None:
        """Read the server's messages for `seconds` or until `until()` holds."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not until():
            try:
                message = self.server.inbox.get(timeout=0.05)
            except Exception:  # noqa: BLE001 - queue.Empty
                continue
            if message is None:
                raise BrokenPipeError

    def note(self, what: str) -> None:
        if os.environ.get("FUZZ_VERBOSE"):
            print(what, file=sys.stderr)

    def uri(self) -> str:
        return next(iter(self.docs)) if self.docs else (self.folder / "kernel.wave").as_uri()

    def run(self, cases: int, deadline: float) -> None:
        super().run(cases, deadline)
        self.finish_phase()

    def next_phase(self) -> bool:
        """Now and then (after 12 cases of this one) a fresh server: other trust, other client."""
        self.phase_cases += 1
        if self.phase_cases <= 12 or self.rng.random() >= 0.1:
            return False
        self.finish_phase()
        self.request("shutdown", None)
        self._collect(self.server)
        self.server = self._start()
        return True

    def finish_phase(self) -> None:
        pass

    def random_settings(self) -> tuple[object, bool]:
        return None, False


class _Inbox(_Watched):
    """fuzz_hostile's secret watch, also counting the messages that name a setting."""

    def get(self, *args, **kwargs):
        message = super().get(*args, **kwargs)
        if message and message.get("method") in ("window/showMessage", "window/logMessage") \
                and "setting" in str(message.get("params", {}).get("message", "")):
            self.fuzzer.setting_messages += 1
        return message


class SettingsFuzzer(SurfaceFuzzer):
    """Part 1. `count_trusted`: count canary runs of trusted servers too (the test that proves
    the escape count can fail)."""

    def __init__(self, rng: random.Random, hang: float, workdir: Path,
                 count_trusted: bool = False) -> None:
        self.count_trusted = count_trusted
        self.info = dict(untrusted_servers=0, trusted_canary_runs=0)
        super().__init__(rng, hang, workdir)

    def init_options(self):
        if self.rng.random() < 0.05:
            options = self.rng.choice(JUNK[:10])
            self.untrusted, self.init_invalid = False, options is not None
            return options
        options, invalid = self.random_settings()
        if not isinstance(options, dict) or "wave" in options:
            options, invalid = {}, False
        if self.rng.random() < 0.85:
            options["workspaceTrusted"] = self.rng.choice(TRUST_VALUES)
        self.untrusted = "workspaceTrusted" in options and options["workspaceTrusted"] is not True
        self.init_invalid = invalid
        return options

    def _start(self) -> Server:
        before = self.setting_messages
        server = super()._start()
        self.info["untrusted_servers"] += self.untrusted
        if self.init_invalid and self.setting_messages == before:
            self.silent("initializationOptions")
        if self.config_client and self.answer_invalid:
            self.expect_message(server, "the first workspace/configuration answer")
        return server

    # ---- random settings ----------------------------------------------------------------------
    def program(self) -> tuple[object, bool]:
        """A name for the canary (valid: absolute, through `..`, a bare name on PATH), or not."""
        (self.folder / "sub").mkdir(exist_ok=True)
        choices = [(str(self.canary), False), (f"{self.folder}/sub/../canary.sh", False),
                   ("canary.sh", False), ("./canary.sh", True), ("sub/../canary.sh", True),
                   (os.path.relpath(self.canary, ROOT), True),
                   (f"../{self.folder.name}/canary.sh", True), (False, False), (None, False),
                   (f"{self.folder}/missing", True), ("no-such-program-x", True), ("", True),
                   ("a\x00b", True), (5, True), ([str(self.canary)], True), ("x" * 5000, True)]
        if self.rng.random() < 0.4:     # most often a name that does reach the canary
            return self.rng.choice(choices[:3])
        return self.rng.choice(choices)

    def random_settings(self) -> tuple[object, bool]:
        """A settings object, and whether it is invalid by construction."""
        roll = self.rng.random()
        if roll < 0.04:
            return self.rng.choice([[1, 2], "str", 5, 2 ** 64, "\x00"]), True
        if roll < 0.06:
            return None, False
        r = self.rng
        table = {
            "disable": ([["U501"], [], ["u505"]], [["NOPE999"], "U501", [5], None, [["U501"]]]),
            "severity": ([{"U505": "error"}, {}, {"U501": "hint"}],
                         [{"U505": "nope"}, {"ZZ1": "error"}, [], "error", {"U505": None}]),
            "compat": (["wave-asm", "none"], [3, "x\x00", None, "x" * 50_000, ["none"]]),
            "targets": ([["ptx"], ["ptx", "hip", "metal", "sycl"], ["HIP"]],
                        ["ptx", ["cuda"], [1], None, [["ptx"]]]),
            "inlayHints": ([{"offsets": True}, {"encoding": False}, {}],
                           [{"offsets": "yes"}, {"bogus": True}, [], "x", {"offsets": None}]),
            "diagnostics": ([{"mode": r.choice(["auto", "push", "pull"])},
                             {"debounceMs": r.choice([0, 30, 5000])}],
                            [{"mode": "x"}, {"debounceMs": r.choice([-5, 10 ** 9, "30", True,
                                                                     1.5, 2 ** 64])}, 7]),
            "run": ([{"maxInstructions": r.choice([1, 1000, 1 << 40])},
                     {"timeLimitMs": r.choice([1, 2000, 600_000])}, {"live": r.random() < 0.5}],
                    [{"maxInstructions": r.choice([-1, 2 ** 64, "1000", True, 1.5, None])},
                     {"timeLimitMs": r.choice([-1, 600_001, "2", None, [2000]])},
                     {"live": r.choice(["yes", 1, None])}, {"nope": 1}, "run"]),
        }
        settings, invalid = {}, False
        for key in r.sample(list(table), r.randrange(0, 4)):
            good, bad = table[key]
            wrong = r.random() < 0.4
            settings[key] = r.choice(bad if wrong else good)
            invalid |= wrong
        if r.random() < 0.7:
            backends = {}
            for key in r.sample(["ptxas", "hipcc", "timeoutSeconds", "bogus"], r.randrange(1, 4)):
                if key == "timeoutSeconds":
                    value = r.choice([1, 30, 600, 0, -1, 601, "30", True, 2 ** 64])
                    wrong = not (type(value) is int and 1 <= value <= 600)
                elif key == "bogus":
                    value, wrong = 1, True
                else:
                    value, wrong = self.program()
                backends[key] = value
                invalid |= wrong
            settings["backends"] = backends if r.random() < 0.95 else "backends"
            invalid |= not isinstance(settings["backends"], dict)
        if r.random() < 0.05:
            settings[r.choice(["bogus", "workspaceTrusted", "\x00"])] = r.choice(JUNK[:12])
            invalid = True
        if r.random() < 0.1:
            settings = {"wave": settings}
        return settings, invalid

    # ---- one case -----------------------------------------------------------------------------
    def case(self) -> None:
        if self.next_phase():
            return
        roll = self.rng.random()
        if roll < 0.3:
            self.change_settings()
        elif roll < 0.34 and self.untrusted:
            self.count_escapes()
            self.notify("wave-lsp/workspaceTrusted", self.rng.choice([None, {}, [1], "x"]))
            self.untrusted = False
            self.canary.write_text(CANARY.format(marker=self.folder / "trusted-marker.txt"))
        else:
            self.exercise()

    def change_settings(self) -> None:
        value, invalid = self.random_settings()
        if self.config_client:
            self.server.config_answer = value
            self.answer_invalid = invalid
            junk = self.rng.choice([None, {}, self.random_settings()[0]])
            self.notify("workspace/didChangeConfiguration", {"settings": junk})
        else:
            self.notify("workspace/didChangeConfiguration", {"settings": value})
        if invalid:
            self.expect_message(self.server, f"settings {str(value)[:200]!r}")

    def expect_message(self, server: Server, what: str, wait: float = 3.0) -> None:
        """Wait (3 s at most) for a message naming a setting; none is a silent setting."""
        before = self.setting_messages
        saved, self.server = getattr(self, "server", server), server
        try:
            self.pump(wait, lambda: self.setting_messages > before)
        finally:
            self.server = saved
        if self.setting_messages == before:
            self.silent(what)

    def silent(self, what: str) -> None:
        self.extra["silent_settings"] += 1
        self.note(f"silent setting: {what}")

    def exercise(self) -> None:
        uri = self.uri()
        kernel = self.rng.choice(["k", "main"])
        method, params = self.rng.choice([
            ("textDocument/hover", {"textDocument": {"uri": uri},
                                    "position": {"line": 0 if kernel == "k" else 10,
                                                 "character": 9}}),
            ("workspace/executeCommand", {"command": "wave-lsp.kernelResources",
                                          "arguments": [uri, kernel]}),
            ("workspace/executeCommand", {"command": "wave-lsp.emit",
                                          "arguments": [uri, self.rng.choice(["ptx", "hip"])]}),
            ("workspace/executeCommand", {"command": "wave-lsp.run", "arguments": [uri, "k"]}),
            ("textDocument/codeLens", {"textDocument": {"uri": uri}}),
            ("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {
                "start": {"line": 0, "character": 0}, "end": {"line": 14, "character": 0}}})])
        self.request(method, params)

    def count_escapes(self) -> None:
        """Marker lines written while this phase's server is untrusted are escapes."""
        time.sleep(0.2)      # a program started just now has written its line
        if not (self.untrusted or self.count_trusted):
            for name in ("marker.txt", "trusted-marker.txt"):   # the canary does run here
                if (self.folder / name).exists():
                    self.info["trusted_canary_runs"] += len(
                        (self.folder / name).read_text().splitlines())
                    (self.folder / name).unlink()
            return
        if self.marker.exists():
            lines = self.marker.read_text().splitlines()
            self.extra["escapes"] += len(lines)
            self.note(f"escape in phase {self.phase}: {lines[:3]}")
            self.marker.unlink()

    def finish_phase(self) -> None:
        self.count_escapes()
        planted = self.folder / "planted.txt"      # imported from the working folder: always
        if planted.exists():
            self.extra["escapes"] += len(planted.read_text().splitlines())
            self.note(f"planted package imported in phase {self.phase}")


class CommandFuzzer(SurfaceFuzzer):
    """Part 2: the advertised commands with random arguments, cancellations, trust notices."""

    def init_options(self):
        self.config_client = False
        return {"workspaceTrusted": self.rng.random() < 0.7}

    def argument(self):
        r, folder = self.rng, self.folder
        return r.choice([
            self.uri(), self.uri(), "k", "main", "nokernel", "ptx", "hip", "metal", "all",
            r.choice(JUNK), folder.as_uri() + "/kernel.wave\x00x",
            folder.as_uri() + "/../secret.txt", folder.as_uri() + "/../secret.wave",
            folder.as_uri() + "/../../../../etc/passwd", folder.as_uri() + "/none.wave",
            (self.workdir / "secret.wave").as_uri(), "file:///proc/self/environ",
            "http://example.com/k.wave", "file://", "file:" + "/a" * 3000, folder.as_uri(),
            {"uri": self.uri()}, [self.uri(), "k"], r.randrange(-3, 30),
            {"textDocument": {"uri": self.uri()}, "kernel": "k"}])

    def case(self) -> None:
        if self.server.proc.poll() is not None:
            raise BrokenPipeError
        if self.next_phase():
            return
        roll = self.rng.random()
        if roll < 0.08:
            self.notify("$/cancelRequest", {"id": self.rng.choice(
                [self.next_id, self.next_id + 1, -1, "x", None, 2 ** 64])})
        elif roll < 0.11:
            self.notify("wave-lsp/workspaceTrusted", self.rng.choice(JUNK[:14]))
        elif roll < 0.14:
            self.cancelled_request()
        else:
            command = self.rng.choice(self.commands or ["wave-lsp.none"])
            if self.rng.random() < 0.5:     # the right shape, mostly
                arguments = [self.uri(), self.rng.choice(["k", "main", "ptx", "hip"])]
            else:
                arguments = [self.argument() for _ in range(self.rng.choice([0, 1, 2, 3, 6]))]
            params = {"command": command, "arguments": arguments}
            if self.rng.random() < 0.05:
                params["arguments"] = self.rng.choice(JUNK)
            self.request("workspace/executeCommand", params)

    def cancelled_request(self) -> None:
        """A run or a profile, cancelled at once: answered all the same."""
        self.next_id += 1
        msg_id = self.next_id
        command = self.rng.choice([c for c in self.commands if c.endswith(("run", "profile"))]
                                  or ["wave-lsp.run"])
        self.server.send({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand",
                          "params": {"command": command, "arguments": [self.uri(), "k"]}})
        self.notify("$/cancelRequest", {"id": msg_id})
        started = time.monotonic()
        answer = self.server.wait_for(msg_id, self.hang)
        self.slowest = max(self.slowest, time.monotonic() - started)
        if answer is None:
            self.counts["hangs"] += 1


PARTS = {"settings": SettingsFuzzer, "commands": CommandFuzzer, "update": UpdateFuzzer}


def run_part(name: str, cases: int, seed: int, minutes: float, hang: float, **kwargs) -> dict:
    """One part's counts (`findings`: their sum)."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"wave-surfaces-{name}-") as tmp:
        fuzzer = PARTS[name](random.Random(seed), hang, Path(tmp), **kwargs)
        fuzzer.run(cases, start + minutes * 60)
    c, e = dict(fuzzer.counts), getattr(fuzzer, "extra", {})
    counts = dict(cases=c["cases"], crashes=c["crashes"], hangs=c["hangs"],
                  tracebacks=c["tracebacks"], escapes=e.get("escapes", 0),
                  silent_settings=e.get("silent_settings", 0), leaks=e.get("leaks", 0),
                  lost_data=c.get("lost_data", 0), unstable_updates=c.get("unstable_updates", 0),
                  drifts=c.get("drifts", 0))
    counts["findings"] = sum(v for k, v in counts.items() if k != "cases")
    counts.update(seconds=time.monotonic() - start, peak_mb=fuzzer.peak_kb / 1024,
                  slowest=fuzzer.slowest, info="")
    if name == "settings":      # how much there was to find
        counts["info"] = (f" ({fuzzer.phase} servers, {fuzzer.info['untrusted_servers']} "
                          f"untrusted; trusted ones ran the canary "
                          f"{fuzzer.info['trusted_canary_runs']} times)")
    elif name == "update":
        counts["info"] = (" (exit statuses: " + ", ".join(
            f"{k}: {v}" for k, v in sorted(fuzzer.exits.items())) + ")")
    return counts


def summary(name: str, c: dict) -> str:
    return (f"{name}: {c['cases']} cases in {c['seconds']:.0f} s, crashes {c['crashes']}, hangs "
            f"{c['hangs']}, tracebacks {c['tracebacks']}, escapes {c['escapes']}, silent "
            f"settings {c['silent_settings']}, leaks {c['leaks']}, lost data {c['lost_data']}, "
            f"unstable updates {c['unstable_updates']}, peak RSS {c['peak_mb']:.0f} MB, "
            f"slowest answer {c['slowest']:.1f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300, help="cases per part")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=10.0, help="per part")
    parser.add_argument("--hang", type=float, default=30.0,
                        help="seconds without an answer that count as a hang")
    parser.add_argument("--only", choices=list(PARTS), action="append",
                        help="run only this part (repeatable)")
    args = parser.parse_args(argv)
    bad = 0
    for name in args.only or list(PARTS):
        counts = run_part(name, args.cases, args.seed, args.minutes, args.hang)
        print(summary(name, counts) + counts["info"], flush=True)
        bad += counts["findings"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
