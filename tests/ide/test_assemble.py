"""Where an open document's `.wbin` may be written (`ide.assemble.wbin_target`), and assembling
to that place (`assemble_to_file`), on real files: beside a `NAME.wave` file on disk named by an
absolute `file:` URI, and otherwise nowhere, with the reason."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import quote

import pytest

from wave_lsp.ide.assemble import assemble_to_file, local_path, wbin_target
from wave_lsp.ide.state import DocumentState

SOURCE = ".kernel k\n    halt\n.end\n"


def _uri(path: Path) -> str:
    return "file://" + quote(str(path))


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "a b€.wave"
    path.write_text(SOURCE)
    return path


def test_beside_a_wave_file(source: Path):
    assert wbin_target(_uri(source)) == (source.with_suffix(".wbin"), "")
    # a `file:` URI with the local host names the same file (RFC 8089)
    localhost = "file://localhost" + quote(str(source))
    assert wbin_target(localhost) == (source.with_suffix(".wbin"), "")


@pytest.mark.parametrize("uri, reason", [
    ("untitled:Untitled-1", "the document is not a file on disk"),
    ("file://server/share/a.wave", "the file is on another host (server)"),
    ("file:///tmp/a%00.wave", "the file URI's path is invalid (it holds a NUL byte)"),
    ("file:a.wave", "the file URI has no absolute path"),
    ("file:///tmp/x/../a.wave", "the file URI has '.' or '..' segments"),
    ("file:///tmp/./a.wave", "the file URI has '.' or '..' segments"),
    ("file:///tmp/a.wbin", "only a .wave file is assembled to a file (a.wbin is not one)"),
    ("file:///nonexistent-wave-lsp/a.wave",
     "/nonexistent-wave-lsp/a.wave is not a file on disk (save it first)"),
])
def test_nowhere_and_why(uri: str, reason: str):
    assert wbin_target(uri) == (None, reason)


def test_never_through_a_link_nor_over_a_folder(source: Path, tmp_path: Path):
    target = source.with_suffix(".wbin")
    os.symlink(tmp_path / "elsewhere.wbin", target)
    assert wbin_target(_uri(source)) == (None, f"{target} is a symbolic link; not written "
                                               "through it")
    target.unlink()
    target.mkdir()
    assert wbin_target(_uri(source)) == (None, f"{target} exists and is not a regular file")


def test_a_source_folder_is_not_a_file(tmp_path: Path):
    folder = tmp_path / "dir.wave"
    folder.mkdir()
    assert wbin_target(_uri(folder)) == (None, f"{folder} is not a file on disk (save it first)")


def test_local_path_decodes_and_keeps_drive_letters():
    assert local_path("file:///tmp/a%20b%23c.wave") == "/tmp/a b#c.wave"
    assert local_path("file:///C:/work/a.wave") == "c:/work/a.wave"
    assert local_path("file:///tmp/a.wave#fragment") == "/tmp/a.wave"


def test_assembling_writes_the_wbin_or_says_why_not(source: Path):
    report = assemble_to_file(DocumentState(_uri(source), SOURCE, 1), False)
    written = source.with_suffix(".wbin").read_bytes()
    assert report["path"] == str(source.with_suffix(".wbin"))
    assert report["sha256"] == hashlib.sha256(written).hexdigest()
    assert report["size"] == len(written) and "not_written" not in report
    elsewhere = assemble_to_file(DocumentState("untitled:x", SOURCE, 1), False)
    assert elsewhere["path"] is None and elsewhere["sha256"] == report["sha256"]
    assert elsewhere["not_written"] == "the document is not a file on disk"
    broken = assemble_to_file(DocumentState(_uri(source), ".kernel k\n    bogus\n.end\n", 1),
                              False)
    assert broken["line"] == 1 and "error" in broken and "not_written" not in broken
