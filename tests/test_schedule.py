"""The order of the suite's modules (tests/schedule.py) is one pytest-xdist keeps."""

from __future__ import annotations

import tomllib
from pathlib import Path

from schedule import EDITOR_FOLDERS, LONGEST, LONGEST_BUSY, LONGEST_EDITORS, module_order

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_module_exists():
    missing = [module for module in LONGEST if not (ROOT / module).is_file()]
    assert not missing, f"tests/schedule.py lists modules that are gone: {missing}"
    assert len(set(LONGEST)) == len(LONGEST)


def test_the_order_is_every_module_once_longest_first():
    modules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))
    order = module_order(modules)
    assert sorted(order) == modules
    assert order[:len(LONGEST_BUSY)] == list(LONGEST_BUSY)
    editors = [m for m in order if m.startswith(EDITOR_FOLDERS)]
    assert editors[:len(LONGEST_EDITORS)] == list(LONGEST_EDITORS)


def test_editor_modules_are_spread_among_the_others_with_the_most_tests_first():
    others = [f"tests/test_{i}.py" for i in range(20)]
    editors = [f"tests/vscode/test_{i}.py" for i in range(4)]
    tests = {m: i for i, m in enumerate(others)}          # the last has the most tests
    order = module_order(others[:10] + editors + others[10:], tests)
    assert [m for m in order if m in others] == others[::-1]
    positions = [order.index(e) for e in editors]
    assert positions == sorted(positions)                 # their own order is kept
    gaps = [b - a for a, b in zip(positions, positions[1:])]
    assert min(gaps) >= 4, order                          # 15 of the others among 4
    assert positions[-1] < len(order) - 4                 # the last to start are not editors


def test_xdist_is_told_to_keep_the_order():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--no-loadscope-reorder" in options["addopts"]


def test_the_editor_folders_exist():
    assert all((ROOT / folder).is_dir() for folder in EDITOR_FOLDERS)
