"""The extension's build: the packaged `.vsix` holds what it needs and nothing else, and a
platform's `.vsix` also the wheel with the native core; the TypeScript type-checks and lints
clean; the server-finding unit tests and the TextMate grammar tests (vscode-tmgrammar-test)
pass."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import subprocess
import sys
import zipfile

from .conftest import extension_lock, npm
from .workbench import EXTENSION, ROOT

# Everything the installed extension needs (dist/extension.js bundles vscode-languageclient).
SCREENSHOTS = {f"media/screenshots/{p.name}"
               for p in (EXTENSION / "media" / "screenshots").glob("*.png")}
VSIX_FILES = {
    "package.json", "dist/extension.js", "syntaxes/wave.tmLanguage.json",
    "syntaxes/ptx.tmLanguage.json", "language-configuration.json", "snippets/wave.json",
    "README.md", "CHANGELOG.md", "LICENSE", "media/icon.png", "examples/vector_add.wave",
    "media/walkthrough/server.md", "media/walkthrough/example.md", "media/walkthrough/run.md",
    "media/walkthrough/debug.md", "server/wave_lsp-0.1.0-py3-none-any.whl",
} | SCREENSHOTS


def test_vsce_ls_lists_exactly_what_the_extension_needs(vsix):
    listed = npm("exec", "--", "vsce", "ls", "--no-dependencies").stdout.split()
    assert set(listed) == VSIX_FILES


def test_vsix_holds_no_sources_tests_maps_or_node_modules(vsix):
    with zipfile.ZipFile(vsix) as archive:
        names = [n.removeprefix("extension/") for n in archive.namelist()
                 if n.startswith("extension/")]
    # vsce stores README.md and CHANGELOG.md in lower case, and LICENSE as LICENSE.txt.
    assert {n.lower() for n in names} == {n.lower().replace("license", "license.txt")
                                          for n in VSIX_FILES}
    assert not [n for n in names if re.search(r"node_modules|\.map$|\.ts$|/test/|^src/", n)]
    manifest = json.loads(zipfile.ZipFile(vsix).read("extension/package.json"))
    assert manifest["main"] == "./dist/extension.js"
    assert vsix.stat().st_size < 4_000_000


def test_manifest_is_release_ready(vsix):
    """Licence, icon, categories, walkthrough, no placeholders; README screenshots shipped."""
    archive = zipfile.ZipFile(vsix)
    manifest = json.loads(archive.read("extension/package.json"))
    assert manifest["license"] == "Apache-2.0"
    assert "Apache-2.0" in (ROOT / "pyproject.toml").read_text()
    licence = archive.read("extension/LICENSE.txt").decode()
    assert "Apache License" in licence and "Version 2.0" in licence
    assert (ROOT / "LICENSE").read_text() == (EXTENSION / "LICENSE").read_text() == licence
    assert "example.invalid" not in json.dumps(manifest)
    assert {"Debuggers", "Linters", "Programming Languages"} <= set(manifest["categories"])
    icon = archive.read("extension/" + manifest["icon"])
    assert icon[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(icon[16:20], "big"), int.from_bytes(icon[20:24], "big")
    assert width >= 128 and height >= 128
    steps = manifest["contributes"]["walkthroughs"][0]["steps"]
    commands = " ".join(step["description"] for step in steps)
    for command in ("wave.restartServer", "wave.openExample", "wave.runKernel", "wave.debugKernel"):
        assert f"command:{command}" in commands
    assert manifest["contributes"]["customEditors"][0]["selector"] == [{"filenamePattern": "*.wbin"}]
    # the screenshots of the README, in the packaged one as data: URLs (VS Code's extension
    # page resolves no relative link, so a relative image would show broken): each the
    # shipped file's bytes
    with extension_lock():      # packaging rewrites it for a moment (scripts/package.mjs)
        source = (EXTENSION / "README.md").read_text()
    shots = re.findall(r"!\[[^\]]*\]\((media/screenshots/[^)]+\.png)\)", source)
    assert len(shots) >= 3 and set(shots) <= SCREENSHOTS
    readme = archive.read("extension/readme.md").decode()
    inlined = re.findall(r"!\[[^\]]*\]\(data:image/png;base64,([^)]+)\)", readme)
    if inlined or "github.com" not in readme:
        # compared with the screenshots packaged beside it (the editor tests retake the files
        # on disk meanwhile), by digest: a failure names two short lists, not megabytes
        def digest(data: bytes) -> str:
            return hashlib.sha256(data).hexdigest()[:16]
        assert [digest(base64.b64decode(data)) for data in inlined] == \
            [digest(archive.read("extension/" + shot)) for shot in shots]
    else:       # a GitHub remote: vsce made them absolute https links
        assert len(re.findall(r"!\[[^\]]*\]\(https://[^)]+\.png\)", readme)) == len(shots)
    changelog = (EXTENSION / "CHANGELOG.md").read_text()
    assert "## 0.1.0" in changelog and "walkthrough" in changelog.lower()


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


def test_platform_vsix_bundles_the_native_core(native_vsix):
    """`npm run package:native`: a .vsix for this platform (its manifest's TargetPlatform), with
    the pure wheel and the wheel with the native core for this Python, as the release workflow
    packages one per platform from cibuildwheel's wheels."""
    archive = zipfile.ZipFile(native_vsix)
    target = native_vsix.name.removeprefix("wave-lsp-").removesuffix("-0.1.0.vsix")
    manifest = archive.read("extension.vsixmanifest").decode()
    assert re.search(rf'<Identity [^>]*TargetPlatform="{target}"', manifest), manifest
    tag = sys.implementation.cache_tag.replace("cpython-", "cp")
    wheels = sorted(n.removeprefix("extension/server/") for n in archive.namelist()
                    if n.startswith("extension/server/"))
    machine = "x86_64" if target == "linux-x64" else "aarch64"
    assert wheels == [f"wave_lsp-0.1.0-{tag}-{tag}-linux_{machine}.whl",
                      "wave_lsp-0.1.0-py3-none-any.whl"]
    with zipfile.ZipFile(io.BytesIO(archive.read(f"extension/server/{wheels[0]}"))) as native:
        assert [n for n in native.namelist() if n.startswith("wave_lsp/emu/native/_wavecore.")]
    with zipfile.ZipFile(io.BytesIO(archive.read(f"extension/server/{wheels[1]}"))) as pure:
        assert not [n for n in pure.namelist() if n.endswith((".so", ".pyd"))]
    # the rest is the universal .vsix's
    others = {n.removeprefix("extension/").lower() for n in archive.namelist()
              if n.startswith("extension/") and not n.startswith("extension/server/")}
    assert others == {n.lower().replace("license", "license.txt") for n in VSIX_FILES
                      if not n.startswith("server/")}


def test_wheels_for_each_target_are_chosen_by_their_platform_tags(vscode_tools):
    """scripts/targets.mjs: which release wheels each platform's .vsix bundles."""
    wheels = ["wave_lsp-0.1.0-py3-none-any.whl",
              "wave_lsp-0.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
              "wave_lsp-0.1.0-cp314-cp314-manylinux_2_17_aarch64.manylinux2014_aarch64.whl",
              "wave_lsp-0.1.0-cp312-cp312-macosx_10_13_x86_64.whl",
              "wave_lsp-0.1.0-cp313-cp313-macosx_11_0_arm64.whl", "wave_lsp-0.1.0.tar.gz"]
    script = ("import('./scripts/targets.mjs').then(m => console.log(JSON.stringify("
              "Object.fromEntries([undefined, ...Object.keys(m.TARGETS)].map(t => "
              f"[t ?? 'universal', m.wheelsFor(t, {json.dumps(wheels)})])))))")
    chosen = json.loads(subprocess.run(["node", "-e", script], cwd=EXTENSION, check=True,
                                       capture_output=True, text=True).stdout)
    pure = wheels[0]
    assert chosen == {"universal": [pure], "linux-x64": [wheels[1], pure],
                      "linux-arm64": [wheels[2], pure], "darwin-x64": [wheels[3], pure],
                      "darwin-arm64": [wheels[4], pure]}


def test_typescript_lints_clean(vscode_tools):
    npm("run", "lint", writes=False)


def test_typescript_type_checks_and_server_finding_unit_tests(vscode_tools):
    """`test:unit` compiles with `tsc -p .`, the tsconfig `typecheck` checks (src/ and the unit
    tests, strict): a type error fails it before the tests run (one compiler pass, not two)."""
    with extension_lock():      # packaging rewrites it for a moment (scripts/package.mjs)
        scripts = json.loads((EXTENSION / "package.json").read_text())["scripts"]
    assert scripts["test:unit"].startswith("tsc -p . && ") and scripts["typecheck"] == \
        "tsc -p . --noEmit"
    out = npm("run", "test:unit").stdout
    passed = int(re.search(r"^# pass (\d+)", out, re.MULTILINE).group(1))
    failed = int(re.search(r"^# fail (\d+)", out, re.MULTILINE).group(1))
    assert failed == 0
    assert passed >= 13


def test_textmate_grammar_tests(vscode_tools):
    out = npm("run", "test:grammar", writes=False).stdout
    assert "kernel.wave run successfuly" in out
    assert "legacy.wave run successfuly" in out
