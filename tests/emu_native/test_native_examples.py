"""The 16 shared kernels with their documented launches (tests/test_emu_differential.py's
flags): the native core runs every one (mma_simple's matrix instructions too) with the numpy
engine's exact report (warnings, errors, memory, statistics), and the whole command, with the
native core or with the numpy engine alone, prints exactly what upstream wave-emu prints."""

from __future__ import annotations

import os
import subprocess

import pytest

import test_emu_differential as diff
from .native_support import assert_native_equal, launch_of, need_core

from wave_lsp.emu import RunOptions
from tests.forkserver import wave_lsp_argv

# The kernels that read memory nothing initialised (tests/test_initcheck.py shows where): the
# core reports it as the numpy engine does.
READS_UNINITIALISED = {"histogram", "barrier_in_loop", "sample"}
NAMES = diff.EXAMPLE_NAMES + ["sample"]


def flags_of(name: str, work) -> list[str]:
    return ["--workgroup", "4,1,1", "--wave-width", "4", "--stats"] if name == "sample" \
        else diff.example_flags(name, work)


@pytest.mark.parametrize("name", NAMES)
def test_native_equals_numpy_engine(name, work):
    source = (diff.EXAMPLES / f"{name}.wave").read_text()
    launch = launch_of(flags_of(name, work), work)
    native = assert_native_equal(source, launch)
    if name in READS_UNINITIALISED:
        assert {w.kind for w in native.warnings} & {"uninitialised_local",
                                                     "uninitialised_device"}
    assert_native_equal(source, launch, RunOptions(initcheck=False))


def ours(wbin, flags, cwd, native: bool):
    env = dict(os.environ, WAVE_LSP_SHOW_ENGINE="1", WAVE_LSP_NATIVE="1" if native else "0")
    return subprocess.run(wave_lsp_argv("run", str(wbin), *flags, env=env),
                          capture_output=True, text=True, cwd=cwd, timeout=120, env=env)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "sample"])
def test_command_prints_what_upstream_prints(name, work):
    need_core()
    wbin = diff.upstream_wbin(work, name)
    flags = flags_of(name, work)
    up = subprocess.run([str(diff.UPSTREAM / "wave-emu"), str(wbin), *flags],
                        capture_output=True, text=True, cwd=work, timeout=120)
    assert up.returncode == 0, up.stderr
    fast, slow = ours(wbin, flags, work, True), ours(wbin, flags, work, False)
    assert fast.returncode == slow.returncode == 0
    assert fast.stdout == slow.stdout == up.stdout
    assert fast.stderr.startswith("engine: native"), fast.stderr
    assert slow.stderr.startswith("engine: numpy"), slow.stderr


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    diff._need_upstream()
    return tmp_path_factory.mktemp("native_examples")
