"""The server's protocol extensions live in one module (`wave_lsp.server.extensions`): every command
the server registers and every `wave-lsp.*` / `wave-lsp/*` name in its code is declared there;
docs/lsp-extensions.md and the VS Code extension's TypeScript types are generated from it and a
stale checked-in copy fails; the wire helpers keep the JSON clients have always seen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wave_lsp.generate import lsp_docs, ts_types
from wave_lsp.server import extensions
from wave_lsp.server.extensions import (ABSENT, COMMANDS, NOTIFICATIONS, Cleared, DumpArgs,
                                        KernelAtArgs, KernelRun, LaunchArgs, Refusal, wire)

ROOT = Path(__file__).resolve().parents[1]
NAMES = {e.name for e in COMMANDS + NOTIFICATIONS}


def test_every_registered_command_is_declared():
    from wave_lsp.server.server import create_server
    registered = set(create_server().protocol.fm.commands)
    assert registered == {c.name for c in COMMANDS}


def test_every_extension_name_in_the_code_and_clients_is_declared():
    """A `wave-lsp.x` or `wave-lsp/x` string literal anywhere in the server, ide or the clients
    names a declared extension (a new one cannot skip the module and the docs)."""
    literal = re.compile(r"""["'`](wave-lsp[./][A-Za-z]+)["'`]""")
    found: dict[str, set[str]] = {}
    sources = [*(ROOT / "wave_lsp" / "server").glob("*.py"),
               *(ROOT / "wave_lsp" / "ide").glob("*.py"),
               *(ROOT / "vscode-extension" / "src").rglob("*.ts"),
               *(ROOT / "editors").rglob("*.lua"), *(ROOT / "editors").rglob("*.el")]
    for path in sources:
        for name in literal.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    assert found, "the scan found no extension names"
    # a registration id and a file name, not extensions
    registration = {"wave-lsp/project-configuration", "wave-lsp.toml"}
    undeclared = {n: sorted(p) for n, p in found.items() if n not in NAMES | registration}
    assert undeclared == {}


def test_the_docs_page_documents_exactly_the_declared_extensions():
    assert lsp_docs.stale(ROOT) == [], "run: python -m wave_lsp.generate.lsp_docs"
    text = (ROOT / lsp_docs.DOCS_PATH).read_text(encoding="utf-8")
    documented = set(re.findall(r"^### `([^`]+)`$", text, re.M))
    assert documented == NAMES
    for ext in COMMANDS + NOTIFICATIONS:
        assert ext.does and ext.clients and (ext.errors or ext in NOTIFICATIONS), ext.name


def test_the_typescript_types_are_current():
    assert ts_types.stale(ROOT) == [], "run: python -m wave_lsp.generate.ts_types"
    text = (ROOT / ts_types.TYPESCRIPT_PATH).read_text(encoding="utf-8")
    assert "export type LaunchArgs = [uri: string, kernel: string | null, launchLine?: " \
           "number | null];" in text
    assert "    'wave-lsp.kernelAt': { arguments: KernelAtArgs; result: KernelPlace | null };" \
        in text
    for ext in COMMANDS + NOTIFICATIONS:
        assert f"'{ext.name}'" in text


@pytest.mark.parametrize("generator", [ts_types, lsp_docs])
def test_a_stale_copy_is_reported_and_rewritten(generator, tmp_path):
    assert generator.main(["--root", str(tmp_path), "--check"]) == 1        # missing
    assert generator.main(["--root", str(tmp_path)]) == 0
    assert generator.stale(tmp_path) == []
    (path,) = generator.GENERATED
    (tmp_path / path).write_text((tmp_path / path).read_text() + "// edited\n")
    assert generator.stale(tmp_path) == [path]
    assert generator.main(["--root", str(tmp_path), "--check"]) == 1


def test_arguments_are_named_by_position():
    assert LaunchArgs.parse(["u"]) == LaunchArgs("u", None, None)
    assert LaunchArgs.parse(("u", "k", 3, "extra")) == LaunchArgs("u", "k", 3)
    dump = DumpArgs.parse(["u", "k", None, 0, 10, 20])
    assert (dump.dump_index, dump.start, dump.count, dump.version) == (0, 10, 20, None)
    assert KernelAtArgs.parse(["u", 3]).problem() is None
    for junk in ([], ["u"], ["u", -1], ["u", True], ["u", "3"], [3, 3]):
        assert KernelAtArgs.parse(junk).problem() is not None, junk


def test_results_are_the_json_clients_have_seen():
    assert wire(Refusal("u", "k", message="why")) == {
        "uri": "u", "kernel": "k", "ok": False, "status": "invalid-request", "message": "why"}
    assert list(wire(Refusal("u", None, message="m"))) == ["uri", "kernel", "ok", "status",
                                                            "message"]
    assert wire(Cleared("u", ["a"])) == {"uri": "u", "cleared": ["a"]}
    assert wire(extensions.TestRun("u", error="no")) == {"uri": "u", "tests": [], "passed": 0,
                                              "failed": 0, "error": "no"}
    assert wire(extensions.TestRun("u", None)) == {"uri": "u", "version": None, "tests": [],
                                                   "passed": 0, "failed": 0}
    assert ABSENT not in wire(extensions.TestRun("u")).values()


def test_an_open_result_must_have_its_named_fields():
    body = {"kernel": "k", "version": 1, "launchLine": None, "status": "ok", "ok": True,
            "message": "", "summary": "✓", "lines": [], "elapsedMs": 1.0}
    assert KernelRun.answer(uri="u", body=body) == {"uri": "u", **body}
    with pytest.raises(ValueError, match="summary"):
        KernelRun.answer(uri="u", body={k: v for k, v in body.items() if k != "summary"})


def test_each_extension_is_exported_once_by_name():
    named = [v for v in vars(extensions).values() if isinstance(v, extensions.Extension)]
    assert sorted(e.name for e in named) == sorted(NAMES) and len(named) == len(NAMES)
