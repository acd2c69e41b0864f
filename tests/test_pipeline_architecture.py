"""The launch pipeline is the one way to run a kernel (wave_lsp/emu/pipeline.py): the command
line imports neither engine, and nothing outside `emu` calls the native core's runner."""

from __future__ import annotations

import ast

import test_architecture

ENGINE_MODULES = ("wave_lsp.emu.api", "wave_lsp.emu.engine", "wave_lsp.emu.native")


def _is_engine(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in ENGINE_MODULES)


def engine_imports(prefix: str) -> list[str]:
    """`module:line -> engine module` for every import of an engine by modules under `prefix`
    (`from ..emu import api` included: each imported name is tried as a module too)."""
    out = []
    for name, path in test_architecture.modules():
        if not name.startswith(prefix):
            continue
        found = test_architecture.imports(name, path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = next(t for t, line in found if line == node.lineno)
                found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
        lines: dict[int, str] = {}
        for target, line in sorted(found, key=lambda item: len(item[0])):
            if _is_engine(target):
                lines.setdefault(line, target)        # the module itself, not its names
        out += [f"{name}:{line} -> {target}" for line, target in sorted(lines.items())]
    return out


def test_the_command_line_imports_no_engine():
    assert engine_imports("cli.") == []


def test_the_checker_sees_an_engine_import(tmp_path, monkeypatch):
    fake = tmp_path / "wave_lsp"
    (fake / "cli").mkdir(parents=True)
    (fake / "cli" / "bad.py").write_text('"""x"""\nfrom ..emu.native.runner import run_native\n'
                                         'from ..emu import api\n')
    monkeypatch.setattr(test_architecture, "PACKAGE", fake)
    assert engine_imports("cli.") == ["cli.bad:2 -> wave_lsp.emu.native.runner",
                                        "cli.bad:3 -> wave_lsp.emu.api"]
    assert callers_of("run_native") == ["cli.bad:2"]


def callers_of(function: str) -> list[str]:
    """`module:line` of every call or import of `function` outside `wave_lsp.emu`."""
    out = []
    package = test_architecture.PACKAGE
    for path in sorted(package.rglob("*.py")):
        module = ".".join(path.relative_to(package).with_suffix("").parts)
        if module.startswith("emu."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (isinstance(node, ast.Name) and node.id == function) or \
                (isinstance(node, ast.Attribute) and node.attr == function) or \
                (isinstance(node, ast.alias) and node.name == function)
            if named:
                out.append(f"{module}:{getattr(node, 'lineno', '?')}")
    return out


def test_nothing_outside_emu_runs_the_native_core_itself():
    assert callers_of("run_native") == []
    assert callers_of("run_prepared") == []      # the numpy engine's own entry
    assert callers_of("run") != []               # the checker does see calls
