"""`benchmarks/fuzz_surfaces.py`: a short fixed-seed run of each part finds nothing,
and each part's checker does count what it is there to count (a trusted server's canary run
counted as untrusted, a secret a document hands the server, a save the update clobbers, a
changed line ending), so a clean run means something."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

import fuzz_surfaces as fs
from fuzz_hostile import SECRET
from fuzz_update import UpdateFuzzer, append_marker

SMALL = {"settings": 40, "commands": 60, "update": 4}


@pytest.mark.parametrize("part", list(SMALL))
def test_a_short_run_finds_nothing(part):
    # limits a loaded machine does not reach (a case of `update` runs up to three commands)
    counts = fs.run_part(part, SMALL[part], seed=3, minutes=6, hang=90)
    assert counts["cases"] == SMALL[part]
    assert counts["findings"] == 0, fs.summary(part, counts)


def test_the_summary_names_every_finding():
    counts = dict(cases=1, crashes=2, hangs=3, tracebacks=4, escapes=5, silent_settings=6,
                  leaks=7, lost_data=8, unstable_updates=9, seconds=1, peak_mb=10, slowest=1.5)
    line = fs.summary("settings", counts)
    for words in ("crashes 2", "hangs 3", "tracebacks 4", "escapes 5", "silent settings 6",
                  "leaks 7", "lost data 8", "unstable updates 9", "peak RSS 10 MB",
                  "slowest answer 1.5 s"):
        assert words in line, line


class _Canary(fs.SettingsFuzzer):
    """One server naming its canary as ptxas and hipcc, with the trust value given."""

    trust: object = True

    def init_options(self):
        self.config_client = False
        options = {"workspaceTrusted": self.trust,
                   "backends": {"ptxas": str(self.canary), "hipcc": str(self.canary)}}
        self.untrusted = options["workspaceTrusted"] is not True
        self.init_invalid = False
        return options


def _hover_kernel(fuzzer) -> None:
    fuzzer.request("textDocument/hover", {"textDocument": {"uri": fuzzer.uri()},
                                          "position": {"line": 0, "character": 9}})
    fuzzer.request("workspace/executeCommand", {"command": "wave-lsp.kernelResources",
                                                "arguments": [fuzzer.uri(), "k"]})


def _finish(fuzzer) -> None:
    fuzzer.run(0, time.monotonic() + 30)


@pytest.mark.parametrize("trust", ["true", None])
def test_an_untrusted_server_runs_no_canary(tmp_path, trust):
    _Canary.trust = trust
    fuzzer = _Canary(random.Random(1), 30, tmp_path)
    _hover_kernel(fuzzer)
    _finish(fuzzer)
    assert fuzzer.extra["escapes"] == 0


def test_the_escape_count_sees_a_canary_run(tmp_path):
    """A trusted server runs the canary; counted as untrusted, that is an escape."""
    _Canary.trust = True
    fuzzer = _Canary(random.Random(1), 30, tmp_path, count_trusted=True)
    _hover_kernel(fuzzer)
    _finish(fuzzer)
    assert fuzzer.extra["escapes"] >= 1


def test_a_silent_invalid_setting_is_counted(tmp_path):
    """The silent-setting check waits for a message; a valid change brings none, so treating it
    as invalid counts it."""
    fuzzer = _Canary(random.Random(1), 30, tmp_path)
    fuzzer.notify("workspace/didChangeConfiguration", {"settings": {"compat": "none"}})
    fuzzer.expect_message(fuzzer.server, "a valid change, taken for an invalid one", wait=1)
    fuzzer.notify("workspace/didChangeConfiguration", {"settings": {"compat": 3}})
    fuzzer.expect_message(fuzzer.server, "an invalid change")
    _finish(fuzzer)
    assert fuzzer.extra["silent_settings"] == 1


class _Told(fs.CommandFuzzer):
    def init_options(self):
        self.config_client = False
        return {"workspaceTrusted": True}


def test_the_leak_watch_sees_a_secret_the_server_sends(tmp_path):
    fuzzer = _Told(random.Random(1), 30, tmp_path)
    uri = (fuzzer.folder / "told.wave").as_uri()
    text = fs.KERNEL.replace("; wave-lsp expect: 9", f"; wave-lsp expect: {SECRET}")
    fuzzer.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "wave", "version": 1, "text": text}})
    fuzzer.request("workspace/executeCommand", {"command": "wave-lsp.test", "arguments": [uri]})
    _finish(fuzzer)
    assert fuzzer.extra["leaks"] >= 1
    assert "wave-lsp.test" in fuzzer.commands      # read from the initialize answer


def test_the_command_part_counts_internal_errors(tmp_path):
    fuzzer = _Told(random.Random(1), 30, tmp_path)
    fuzzer.server.inbox.put({"jsonrpc": "2.0", "id": fuzzer.next_id + 1,
                             "error": {"code": -32603, "message": "boom"}})
    fuzzer.request("workspace/executeCommand", {"command": "wave-lsp.clear", "arguments": []})
    _finish(fuzzer)
    assert fuzzer.counts["tracebacks"] == 1


def _clobber(path: Path, marker: str) -> None:
    """A save the update then overwrites: the marker is appended, then cut off again."""
    size = path.stat().st_size
    append_marker(path, marker)
    os.truncate(path, size)


def test_the_update_part_reports_lost_data(tmp_path):
    fuzzer = UpdateFuzzer(random.Random(2), 60, tmp_path, writer=_clobber)
    fuzzer.modify_chance = 1.0
    fuzzer.run(2, time.monotonic() + 120)
    assert fuzzer.counts["lost_data"] == 2


def test_the_update_part_sees_changed_lines_and_line_endings(tmp_path):
    fuzzer = UpdateFuzzer(random.Random(1), 60, tmp_path)
    old = b"; a\r\n; wave-lsp expect: 1\r\n.end\r\n"
    fuzzer.check_kept(Path("same"), old, b"; a\r\n; wave-lsp expect: 2\r\n"
                                         b"; wave-lsp expect: 3\r\n.end\r\n")
    assert fuzzer.counts["lost_data"] == 0
    for new in (b"; a\r\n; wave-lsp expect: 2\n.end\r\n", b"; b\r\n.end\r\n",
                b"\xef\xbb\xbf" + old, b"; a\r\n; wave-lsp expect: 1\r\n.end"):
        fuzzer.check_kept(Path("changed"), old, new)
    assert fuzzer.counts["lost_data"] == 4
