"""The order of the suite's modules (tests/schedule.py) is one pytest-xdist keeps."""

from __future__ import annotations

import tomllib
from pathlib import Path

from schedule import EDITOR_FOLDERS, LONGEST, module_order

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_module_exists():
    missing = [module for module in LONGEST if not (ROOT / module).is_file()]
    assert not missing, f"tests/schedule.py lists modules that are gone: {missing}"
    assert len(set(LONGEST)) == len(LONGEST)


def test_the_order_is_every_module_once_longest_first():
    modules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))
    order = module_order(modules)
    assert sorted(order) == modules
    assert order[:len(LONGEST)] == list(LONGEST)


def test_editor_modules_are_spread_among_the_others():
    others = [f"tests/test_{i}.py" for i in range(20)]
    editors = [f"tests/vscode/test_{i}.py" for i in range(4)]
    order = module_order(others[:10] + editors + others[10:])
    positions = [order.index(e) for e in editors]
    assert positions == sorted(positions)                 # their own order is kept
    gaps = [b - a for a, b in zip(positions, positions[1:])]
    assert min(gaps) >= 5, order                          # 20 others among 4: one in every 6
    assert all(order.index(e) < len(order) - 1 for e in editors[:-1])


def test_xdist_is_told_to_keep_the_order():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--no-loadscope-reorder" in options["addopts"]


def test_the_editor_folders_exist():
    assert all((ROOT / folder).is_dir() for folder in EDITOR_FOLDERS)
