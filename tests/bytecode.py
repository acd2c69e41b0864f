"""Bytecode the test processes would otherwise compile again and again, written once per test run
by the controlling pytest process before its workers start (tests/conftest.py).

Where bytecode is not written (`PYTHONDONTWRITEBYTECODE`, as on this project's machines):
- every subprocess the tests start (servers, commands, adapters: well over a thousand) compiled
  each module of the package it imports again: 0.04 s of CPU per command, 0.15 s per server
  start. The package is compiled here (`compileall`).
- every pytest worker rewrote the asserts of all 220 test modules and compiled them again as it
  collected them: 3.5 s of CPU per worker, a third of its collection. pytest reads the rewritten
  modules it finds cached (`__pycache__/*-pytest-*.pyc`) even where it may not write them, so
  they are rewritten here with pytest's own rewriter, on two processes. That rewriter is not
  public API: where pytest no longer has it, nothing is written and the workers rewrite as
  before.
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROCESSES = 2


def write(config) -> None:
    """The package's bytecode and the test modules' rewritten bytecode, where missing or stale."""
    compileall.compile_dir(ROOT / "wave_lsp", quiet=2)
    try:
        from _pytest.assertion.rewrite import (PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc,
                                               assertstate_key, get_cache_dir)
        state = config.stash[assertstate_key]
    except (ImportError, KeyError):
        return
    modules = [path for path in sorted((ROOT / "tests").rglob("*.py"))
               if path.name == "conftest.py" or path.name.startswith("test_")]
    stale = [(path, get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)) for path in modules]
    stale = [(path, pyc) for path, pyc in stale if _read_pyc(path, pyc) is None]
    children = []
    for part in range(PROCESSES):
        pid = os.fork()
        if pid == 0:                      # a child: rewrites its share, and nothing else
            status = 0
            try:
                for path, pyc in stale[part::PROCESSES]:
                    pyc.parent.mkdir(exist_ok=True)
                    source_hash, code = _rewrite_test(path, config)
                    _write_pyc(state, code, source_hash, pyc)
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
