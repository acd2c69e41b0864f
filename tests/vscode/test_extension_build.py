"""The extension's build: the packaged `.vsix` holds what it needs and nothing else; the
TypeScript type-checks and lints clean; the server-finding unit tests and the TextMate grammar
tests (vscode-tmgrammar-test) pass."""

from __future__ import annotations

import json
import re
import zipfile

from .conftest import npm
from .workbench import EXTENSION, ROOT

# Everything the installed extension needs (dist/extension.js bundles vscode-languageclient).
VSIX_FILES = {
    "package.json", "dist/extension.js", "syntaxes/wave.tmLanguage.json",
    "language-configuration.json", "snippets/wave.json", "README.md", "CHANGELOG.md",
    "server/wave_lsp-0.1.0-py3-none-any.whl",
}


def test_vsce_ls_lists_exactly_what_the_extension_needs(vsix):
    listed = npm("exec", "--", "vsce", "ls", "--no-dependencies").stdout.split()
    assert set(listed) == VSIX_FILES


def test_vsix_holds_no_sources_tests_maps_or_node_modules(vsix):
    with zipfile.ZipFile(vsix) as archive:
        names = [n.removeprefix("extension/") for n in archive.namelist()
                 if n.startswith("extension/")]
    # vsce stores README.md and CHANGELOG.md in lower case.
    assert {n.lower() for n in names} == {n.lower() for n in VSIX_FILES}
    assert not [n for n in names if re.search(r"node_modules|\.map$|\.ts$|/test/|^src/", n)]
    manifest = json.loads(zipfile.ZipFile(vsix).read("extension/package.json"))
    assert manifest["main"] == "./dist/extension.js"
    assert vsix.stat().st_size < 2_000_000


def test_bundled_wheel_is_the_project(vsix):
    with zipfile.ZipFile(vsix) as archive:
        wheel_bytes = archive.read("extension/server/wave_lsp-0.1.0-py3-none-any.whl")
    wheel = EXTENSION / "server" / "wave_lsp-0.1.0-py3-none-any.whl"
    assert wheel.read_bytes() == wheel_bytes
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "wave_lsp/grammar/wave.peg" in names
    # pure Python (installs on any platform): the native core is not compiled into it
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    packages = sorted(p.relative_to(ROOT).as_posix()
                      for p in (ROOT / "wave_lsp").rglob("__init__.py"))
    assert [p for p in packages if p not in names] == [], "add them to pyproject's packages"
    metadata = next(n for n in names if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "Requires-Dist: pygls" in text


def test_typescript_type_checks(vscode_tools):
    npm("run", "typecheck")


def test_typescript_lints_clean(vscode_tools):
    npm("run", "lint")


def test_server_finding_unit_tests(vscode_tools):
    out = npm("run", "test:unit").stdout
    passed = int(re.search(r"^# pass (\d+)", out, re.MULTILINE).group(1))
    failed = int(re.search(r"^# fail (\d+)", out, re.MULTILINE).group(1))
    assert failed == 0
    assert passed >= 13


def test_textmate_grammar_tests(vscode_tools):
    out = npm("run", "test:grammar").stdout
    assert "kernel.wave run successfuly" in out
    assert "legacy.wave run successfuly" in out
