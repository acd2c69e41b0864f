"""The bytecode written once per test run before the workers start (tests/bytecode.py): the
package's, and the test modules' with their asserts rewritten, which pytest reads from its cache
instead of rewriting every module in every worker."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir

from tests.bytecode import ROOT


def test_the_test_modules_are_cached_rewritten():
    for module in (Path(__file__), ROOT / "tests" / "server" / "conftest.py"):
        pyc = get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)
        assert _read_pyc(module, pyc) is not None, pyc


def test_the_package_is_compiled():
    for module in ("cli/main.py", "server/server.py", "emu/engine.py"):
        source = ROOT / "wave_lsp" / module
        assert Path(importlib.util.cache_from_source(str(source))).is_file(), source
