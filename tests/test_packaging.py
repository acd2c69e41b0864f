"""The wheel holds every package of the source tree: pyproject.toml lists them by name (the
grammar folder is shipped as `wave_lsp.grammar`), so a new package left out of the list would
install without it, and only a fresh install (the pre-commit hook's, the VS Code extension's)
would fail, with `ModuleNotFoundError`."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def listed() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(config["tool"]["setuptools"]["packages"])


def in_tree() -> set[str]:
    return {".".join(p.parent.relative_to(ROOT).parts)
            for p in (ROOT / "wave_lsp").rglob("__init__.py")}


def test_every_package_is_in_the_wheel():
    missing = in_tree() - listed()
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_nothing_listed_is_missing_from_the_tree():
    assert listed() - in_tree() == {"wave_lsp.grammar"}
