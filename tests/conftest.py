"""Shared fixtures: where the upstream example kernels are, and running the real command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from tests.forkserver import SWITCH as FORK_SWITCH
from wave_lsp.asm.vendors import COMPILER_VARIABLES

# CI runs the property tests on a fixed sequence of examples (the same as `CI=true pytest` here),
# so that its verdict is reproducible; a developer's run explores new examples each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# A failing analysis pass is raised, not only logged (wave_lsp/analysis/failures.py); servers
# and commands started by the tests inherit it.
os.environ["WAVE_LSP_STRICT"] = "1"

# hipcc (Debian's ROCm, installed for the tests) takes a third of a second of CPU per
# architecture, and every server that keeps a document open a second checks it with the
# vendors' compilers (P824): the servers of tests about anything else ran it some 200 times.
# Servers and commands started by the tests find no hipcc, except in the modules marked
# `pytest.mark.hipcc`; ptxas (a hundredth of a second) stays.
HIPCC_VARIABLE = COMPILER_VARIABLES["hip"]       # WAVE_LSP_HIPCC
os.environ[HIPCC_VARIABLE] = "off"

# What a module's mark changes in the environment while it runs (None: unset), set before its
# module-scoped servers start (a mark on a single test changes nothing):
# - `hipcc`: its servers and commands find PATH's hipcc, as on a machine with ROCm;
# - `real_server`: each `wave-lsp serve` starts as an editor starts it, not from the fork
#   server (tests/forkserver.py): the module looks at the server's process itself.
MARKED_ENVIRONMENT = {"hipcc": {HIPCC_VARIABLE: None}, "real_server": {FORK_SWITCH: "0"}}


@pytest.fixture(scope="module", autouse=True)
def _environment_where_marked(request):
    with pytest.MonkeyPatch.context() as patch:
        for marker, changes in MARKED_ENVIRONMENT.items():
            if request.node.get_closest_marker(marker) is None:
                continue
            for name, value in changes.items():
                if value is None:
                    patch.delenv(name, raising=False)
                else:
                    patch.setenv(name, value)
        yield


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from corpus import distinct_source, repeated_source  # noqa: E402,F401  (inputs of distinct lines)
from shared import EXAMPLES as SHARED_EXAMPLES  # noqa: E402  (the one definition)
from shared import example_names, examples_dir as shared_examples_dir  # noqa: E402
from tests.forkserver import wave_lsp_argv


def pytest_configure(config) -> None:
    """The markers; once per session (not in each xdist worker), before the workers start, the
    bytecode they and the processes they start would compile again and again (bytecode.py)."""
    config.addinivalue_line("markers", "hipcc: the module's servers and commands find hipcc "
                            "(elsewhere WAVE_LSP_HIPCC=off hides it)")
    config.addinivalue_line("markers", "real_server: the module's servers start as an editor "
                            "starts them, not from the fork server (tests/forkserver.py)")
    if hasattr(config, "workerinput"):
        return
    from tests import bytecode
    bytecode.write(config)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile` with the longest files first (scheduling.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.scheduling import LongestFirst
    return LongestFirst(config, log)


def shared_example_names() -> list[str]:
    """File names listed in INDEX.md (a placeholder when the corpus is absent: tests then skip,
    or fail under CI)."""
    return example_names()


@pytest.fixture
def examples_dir() -> Path:
    return shared_examples_dir()


def run_wave_lsp(*args: str, cwd: Path | None = None, input: bytes | None = None,
                 timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the real `wave-lsp` command in a subprocess."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(wave_lsp_argv(*args, env=env), cwd=cwd, input=input,
                          capture_output=True, timeout=timeout, env=env)
