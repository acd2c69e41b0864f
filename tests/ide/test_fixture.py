"""The `check(fixture, expect)` helper itself: markers, literals that read back, a mismatch
fails, and UPDATE_EXPECT=1 rewrites exactly the expectations that differ (a real pytest run on
a test file written here)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .fixture import Expect, literal, parse_fixture

ROOT = Path(__file__).resolve().parents[2]
Q = '"' * 3


def test_markers_are_stripped_and_located():
    fx = parse_fixture("\n.kernel k\n    ia$0dd r1, r2, r3$0\n.end\n")
    assert fx.text == ".kernel k\n    iadd r1, r2, r3\n.end\n"
    assert (fx.cursor, fx.end) == ((1, 6), (1, 19))
    assert parse_fixture("halt$0").cursor == parse_fixture("halt$0").end == (0, 4)
    with pytest.raises(ValueError):
        parse_fixture("$0$0$0")


@pytest.mark.parametrize("text", ["plain\n", 'ends in a quote"', 'three """ quotes\n',
                                  "back\\slash \\n\n", "", "\n\nblank lines\n\n"])
def test_literals_read_back(text):
    assert Expect(ast.literal_eval(literal(text)), Path("x"), 1).text == text


def test_a_different_answer_fails():
    with pytest.raises(AssertionError):
        Expect("\nno folds\n", Path("x"), 1).assert_eq("0..2 region\n")


def test_update_expect_rewrites_the_differing_expectations(tmp_path):
    sample = tmp_path / "test_sample.py"
    kernel = f"{Q}\n.kernel k\n    halt\n.end\n{Q}"
    sample.write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.ide.fixture import check, expect\n"
        "from tests.ide.render import render_folding\n\n\n"
        f"def test_stale():\n    check(render_folding, {kernel}, expect({Q}\nwrong\n{Q}))\n\n\n"
        f"def test_current():\n    check(render_folding, '', expect({Q}\nno folds\n{Q}))\n\n\n"
        f"def test_empty():\n    check(render_folding, {kernel}, expect(''))\n",
        encoding="utf-8")
    before = sample.read_text()

    def pytest_run(**env):
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               str(sample)], cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, **env})
    failed = pytest_run(UPDATE_EXPECT="0")
    assert failed.returncode == 1 and "2 failed, 1 passed" in failed.stdout, failed.stdout
    assert sample.read_text() == before
    updated = pytest_run(UPDATE_EXPECT="1")
    assert updated.returncode == 0, updated.stdout
    after = sample.read_text()
    assert after.count("0..1 region: '.kernel k' .. 'halt'") == 2 and "wrong" not in after
    assert f"expect({Q}\nno folds\n{Q})" in after           # the current one untouched
    assert pytest_run().returncode == 0
