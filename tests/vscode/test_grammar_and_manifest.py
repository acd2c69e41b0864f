"""Files of the extension that restate ISA or server facts stay in step with them (no editor or
npm needed): the generated TextMate grammar is current and classifies every mnemonic, register,
special register, directive and scope; the `wave.*` settings are exactly the server's; the
semantic token types all have a TextMate fallback scope."""

from __future__ import annotations

import json
import re

import pytest

from wave_lsp.isa import (DIRECTIVES, INSTRUCTIONS, LEGACY_MNEMONICS, MAX_REGISTER, SCOPES,
                          SPECIAL_REGISTERS)
from wave_lsp.generate import textmate
from wave_lsp.isa.backends import TARGET_NAMES
from wave_lsp.server.semantic_tokens import TOKEN_TYPES
from wave_lsp.server.settings import DIAGNOSTIC_MODES, parse_settings

from .workbench import EXTENSION

GRAMMAR = EXTENSION / "syntaxes" / "wave.tmLanguage.json"
MANIFEST = json.loads((EXTENSION / "package.json").read_text())
PROPERTIES = MANIFEST["contributes"]["configuration"]["properties"]
CLIENT_ONLY = ("wave.server.", "wave.trace.", "wave.debug.")


def test_checked_in_grammar_is_current():
    assert GRAMMAR.read_text() == textmate.render(), (
        "vscode-extension/syntaxes/wave.tmLanguage.json is stale: run "
        "`python -m wave_lsp.generate.textmate`")


def _scopes(text: str) -> list[tuple[str, str]]:
    """(matched text, scope) of every pattern of the generated grammar that matches in `text`
    (Python's re agrees with Oniguruma on these patterns)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "match" in node:
                for m in re.finditer(node["match"], text):
                    if "name" in node:
                        found.append((m.group(0), node["name"]))
                    for group, capture in node.get("captures", {}).items():
                        if m.group(int(group)):
                            found.append((m.group(int(group)), capture["name"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(textmate.grammar()["repository"])
    return found


@pytest.mark.parametrize("mnemonic", sorted(INSTRUCTIONS))
def test_every_mnemonic_has_exactly_its_class_scope(mnemonic):
    line = f"    {mnemonic} r1, r2"
    hits = [scope for text, scope in _scopes(line) if text == mnemonic]
    iclass = INSTRUCTIONS[mnemonic].iclass
    assert hits == [textmate._class_scope(iclass)]


def test_registers_special_registers_directives_and_scopes():
    def scopes_of(text: str, line: str) -> set[str]:
        return {scope for t, scope in _scopes(line) if t == text}

    assert scopes_of(f"r{MAX_REGISTER}", f"iadd r{MAX_REGISTER}, r0, r1") == {
        "variable.other.register.wave"}
    assert scopes_of(f"r{MAX_REGISTER + 1}", f"iadd r{MAX_REGISTER + 1}, r0, r1") == set()
    for special in SPECIAL_REGISTERS:
        assert scopes_of(special.name, f"mov_sr r0, {special.name}") == {
            "variable.language.special.wave"}
    for directive in DIRECTIVES:
        assert "keyword.other.directive.wave" in scopes_of(f".{directive.name}",
                                                           f".{directive.name} 1")
    for scope in SCOPES:
        assert scopes_of(f".{scope.name}", f"atomic_add r1, r2, r3, .{scope.name}") == {
            "constant.language.scope.wave"}
    for legacy in list(LEGACY_MNEMONICS)[:10]:
        assert scopes_of(legacy, f"    {legacy} r1, r2") == {"invalid.deprecated.mnemonic.wave"}


def test_every_semantic_token_type_has_a_textmate_scope():
    mapped = {key.split(".")[0] for entry in MANIFEST["contributes"]["semanticTokenScopes"]
              for key in entry["scopes"]}
    assert set(TOKEN_TYPES) <= mapped


def _server_settings_from_manifest(values: dict[str, object]) -> dict:
    nested: dict = {}
    for key, value in values.items():
        node = nested
        *parents, last = key.removeprefix("wave.").split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def _server_keys() -> list[str]:
    return [k for k in PROPERTIES if not k.startswith(CLIENT_ONLY)]


def test_every_setting_default_is_accepted_by_the_server():
    defaults = {key: PROPERTIES[key]["default"] for key in _server_keys()}
    settings, problems = parse_settings(_server_settings_from_manifest(defaults))
    assert problems == []
    assert settings.diagnostics_mode == PROPERTIES["wave.diagnostics.mode"]["default"]
    assert settings.debounce_ms == PROPERTIES["wave.diagnostics.debounceMs"]["default"]


def test_every_enum_value_is_accepted_and_matches_the_server():
    assert PROPERTIES["wave.diagnostics.mode"]["enum"] == list(DIAGNOSTIC_MODES)
    for key in _server_keys():
        for value in PROPERTIES[key].get("enum", []):
            _, problems = parse_settings(_server_settings_from_manifest({key: value}))
            assert problems == [], (key, value)
    assert PROPERTIES["wave.targets"]["items"]["enum"] == list(TARGET_NAMES)
    assert PROPERTIES["wave.targets"]["default"] == list(TARGET_NAMES)
    for severity in PROPERTIES["wave.severity"]["additionalProperties"]["enum"]:
        _, problems = parse_settings({"severity": {"U501": severity}})
        assert problems == []


def test_the_server_knows_no_setting_the_manifest_lacks():
    """Each top-level server setting is declared in package.json (one-to-one)."""
    from wave_lsp.analysis.config import KEYS
    from wave_lsp.server.settings import SERVER_KEYS

    declared = {k.removeprefix("wave.").split(".")[0] for k in _server_keys()}
    server = set(KEYS) | set(SERVER_KEYS)
    assert declared == server


def test_backend_views_cover_exactly_the_targets():
    """"WAVE: Show PTX/HIP/Metal/SYCL": one command per backend, in the palette for WAVE files and
    in the editor title's submenu, and the view's table of targets is the ISA's (generated into
    targets.ts, which the view imports)."""
    view = (EXTENSION / "src" / "backendView.ts").read_text()
    assert "import { TARGETS } from './targets';" in view
    targets = (EXTENSION / "src" / "targets.ts").read_text()
    table = targets[targets.index("export const TARGETS"):targets.index("} as const")]
    assert re.findall(r"^\s+(\w+): \{ title", table, re.MULTILINE) == list(TARGET_NAMES)
    titles = dict(re.findall(r"^\s+(\w+): \{ title: '(\w+)'", table, re.MULTILINE))
    commands = {c["command"]: c for c in MANIFEST["contributes"]["commands"]}
    menus = MANIFEST["contributes"]["menus"]
    palette = {m["command"]: m.get("when") for m in menus["commandPalette"]}
    submenu = [m["command"] for m in menus["wave.backends"]]
    expected = [f"wave.show{titles[t]}" for t in TARGET_NAMES]
    assert submenu == expected
    for name, target in zip(expected, TARGET_NAMES):
        assert commands[name]["title"] == f"Show {titles[target]}"
        assert target == titles[target].lower()   # the view's URI ends in .TARGET
        assert palette[name] == "editorLangId == wave"
    assert {"submenu": "wave.backends", "when": "editorLangId == wave",
            "group": "navigation@4"} in menus["editor/title"]
    assert palette["wave.checkPortability"] == "editorLangId == wave"
    source = (EXTENSION / "src" / "extension.ts").read_text()
    assert "'wave.checkPortability', (uri, kernel) => serverCommand(client, CHECK_PORTABILITY, " \
        "[uri, kernel])" in source     # the command name from the generated extension types
    generated = (EXTENSION / "src" / "generated" / "extensions.ts").read_text()
    assert "export const CHECK_PORTABILITY = 'wave-lsp.checkPortability';" in generated


def test_the_grammar_generator_checks_and_writes_as_the_others_do(tmp_path):
    """`--check` writes nothing (it once wrote a file named `--check`) and reports a stale
    copy with exit status 1; without it the file under `--root` is rewritten."""
    assert textmate.main(["--check"]) == 0
    assert not (tmp_path / "--check").exists()
    assert textmate.main(["--root", str(tmp_path), "--check"]) == 1
    assert textmate.main(["--root", str(tmp_path)]) == 0
    assert (tmp_path / textmate.DEFAULT_PATH).read_text() == textmate.render()
    assert textmate.main(["--root", str(tmp_path), "--check"]) == 0
