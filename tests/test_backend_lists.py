"""The editor clients' backend target lists (Neovim's targets.lua, VS Code's targets.ts) are
generated from `wave_lsp.isa.backends`: the checked-in files are current and name every
backend, and the check sees a stale file."""

from __future__ import annotations

from pathlib import Path

from wave_lsp.generate import backend_lists
from wave_lsp.isa.backends import TARGET_NAMES

ROOT = Path(__file__).resolve().parents[1]


def test_generated_lists_are_current():
    assert backend_lists.stale(ROOT) == [], "run: python -m wave_lsp.generate.backend_lists"


def test_every_backend_is_listed_with_its_highlighting():
    lua = (ROOT / backend_lists.LUA_PATH).read_text()
    typescript = (ROOT / backend_lists.TYPESCRIPT_PATH).read_text()
    for name in TARGET_NAMES:
        assert f"{name} = '" in lua and f"    {name}: {{ title: '" in typescript
    assert "ptx = 'asm'" in lua and "hip = 'cpp'" in lua
    assert "ptx: { title: 'PTX', language: 'ptx' }" in typescript
    assert "metal: { title: 'Metal', language: 'cpp' }" in typescript


def test_the_check_sees_a_stale_list(tmp_path):
    assert backend_lists.main(["--root", str(tmp_path), "--check"]) == 1      # missing files
    assert backend_lists.main(["--root", str(tmp_path)]) == 0
    assert backend_lists.stale(tmp_path) == []
    lua = tmp_path / backend_lists.LUA_PATH
    lua.write_text(lua.read_text().replace(", sycl = 'cpp'", ""))
    assert backend_lists.stale(tmp_path) == [backend_lists.LUA_PATH]


def test_an_assembly_backend_names_a_language_the_extension_contributes():
    import json
    manifest = json.loads((ROOT / "vscode-extension" / "package.json").read_text())
    contributed = {language["id"] for language in manifest["contributes"]["languages"]}
    grammars = {grammar.get("language") for grammar in manifest["contributes"]["grammars"]}
    for backend in backend_lists.BACKENDS:
        if backend_lists.is_assembly(backend):
            assert backend.name in contributed and backend.name in grammars, backend.name
