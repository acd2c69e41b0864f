"""Build of the native emulator core (`wave_lsp.emu.native._wavecore`, C, see
wave_lsp/emu/native/core.h); everything else is in pyproject.toml. Compiled with -O2 and
-ffp-contract=off so that float results stay IEEE-exact (no fused multiply-adds), with
loop vectorisation (the lane loops; it never changes a float result). Needs gcc and the
Python headers (.ci/tools/compiler.sh installs them on Debian)."""

import os

from setuptools import Extension, setup

NATIVE = "wave_lsp/emu/native/"

NATIVE_CORE = Extension(
    "wave_lsp.emu.native._wavecore",
    sources=[NATIVE + name for name in ("_wavecore.c", "names.c", "exec.c", "state.c", "shadow.c",
                                        "alu.c", "floatwide.c", "memory.c", "waveops.c",
                                        "floatfmt.c", "initcheck.c", "profile.c",
                                        "profile_py.c", "memlog.c", "findings.c",
                                        "limits.c", "barrier.c", "findings_py.c",
                                        "memory_py.c", "registers.c", "parallel.c")],
    depends=[NATIVE + "core.h", NATIVE + "exec.h", NATIVE + "ops.h", NATIVE + "profile_py.h",
             NATIVE + "findings_py.h", NATIVE + "memory_py.h"],
    # Without a C compiler the package still installs and runs on the numpy engine alone (the
    # tests then skip the native core's, and fail under CI).
    optional=True,
    extra_compile_args=["-O2", "-ftree-loop-vectorize", "-fvect-cost-model=dynamic",
                        "-ffp-contract=off", "-fno-fast-math", "-std=c11", "-pthread"],
    extra_link_args=["-pthread"],
)

# WAVE_LSP_PURE=1 builds a pure-Python wheel (py3-none-any) without the native core: the one
# the VS Code extension ships, which must install on any platform and Python (its server runs
# kernels on the numpy engine, as the editor always does).
PURE = os.environ.get("WAVE_LSP_PURE") == "1"

setup(ext_modules=[] if PURE else [NATIVE_CORE])
