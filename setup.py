"""Build of the native emulator core (`wave_lsp.emu.native._wavecore`, C, see
wave_lsp/emu/native/core.h); everything else is in pyproject.toml. Compiled with -O2 and
-ffp-contract=off so that float results stay IEEE-exact (no fused multiply-adds), with
loop vectorisation where the compiler has it (the lane loops; it never changes a float result).

The core needs a GCC-compatible C compiler (gcc or clang) and the Python headers
(.ci/tools/compiler.sh installs them on Debian). Without them the build says so in one line and
makes a pure-Python wheel (py3-none-any): the package installs and runs kernels on the numpy
engine (`wave-lsp --version` says which engine it has). Environment:

- `WAVE_LSP_PURE=1`: build no core at all (the pure wheel the VS Code extension falls back to);
- `WAVE_LSP_REQUIRE_NATIVE=1`: a core that does not build fails the build (release wheels,
  pyproject's `[tool.cibuildwheel]`).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.errors import CompileError, LinkError
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext

NATIVE = "wave_lsp/emu/native/"

NATIVE_CORE = Extension(
    "wave_lsp.emu.native._wavecore",
    sources=[NATIVE + name for name in ("_wavecore.c", "names.c", "exec.c", "state.c", "shadow.c",
                                        "alu.c", "floatwide.c", "memory.c", "waveops.c",
                                        "floatfmt.c", "initcheck.c", "profile.c",
                                        "profile_py.c", "memlog.c", "findings.c",
                                        "limits.c", "barrier.c", "findings_py.c",
                                        "memory_py.c", "registers.c", "record.c",
                                        "record_py.c", "parallel.c", "meeting.c",
                                        "writelog.c", "mma.c", "waverace.c", "wavecheck.c",
                                        "values_py.c")],
    depends=[NATIVE + "core.h", NATIVE + "exec.h", NATIVE + "ops.h", NATIVE + "profile_py.h",
             NATIVE + "findings_py.h", NATIVE + "memory_py.h", NATIVE + "record_py.h",
             NATIVE + "waverace.h", NATIVE + "values_py.h"],
    extra_link_args=["-pthread"],       # workgroups on threads (parallel.c)
    # linked, not left to the interpreter's libm: an unversioned sinf/log2f binds to glibc's
    # oldest version, whose answers differ (log2f(-1) a positive NaN) from what upstream calls
    libraries=["m"],
)

# Without these the core's float results would differ from the numpy engine's: never dropped.
EXACT_FLAGS = ["-O2", "-ffp-contract=off", "-fno-fast-math", "-std=c11"]
THREAD_FLAGS = ["-pthread"]          # workgroups on threads (parallel.c)
# Speed only: each kept when the compiler accepts it (clang lacks GCC's vectoriser flags).
SPEED_FLAGS = ["-ftree-loop-vectorize", "-fvect-cost-model=dynamic"]

NUMPY_ENGINE_LINE = ("wave-lsp: the native core was not built ({why}); kernels run on the "
                     "numpy engine (slower). Install gcc or clang and the Python headers, then "
                     "reinstall, for the native core.")

PURE = os.environ.get("WAVE_LSP_PURE") == "1"
REQUIRE_NATIVE = os.environ.get("WAVE_LSP_REQUIRE_NATIVE") == "1"


def _accepts(compiler, flag: str, scratch: str) -> bool:
    """Whether the compiler compiles an empty C file with `flag`, warnings as errors."""
    source = os.path.join(scratch, "flag_probe.c")
    with open(source, "w") as out:
        out.write("int wave_lsp_probe;\n")
    try:
        compiler.compile([source], output_dir=scratch, extra_postargs=[flag, "-Werror"])
    except Exception:
        return False
    return True


class BuildNativeCore(build_ext):
    """Builds the core when a GCC-compatible compiler is there; otherwise says why in one line
    and leaves the package pure (`built` stays False; bdist_wheel then tags it py3-none-any)."""

    built = False
    failed = False          # said once: bdist_wheel's install steps run build_ext again
    flags: list[str] | None = None

    def run(self) -> None:
        if BuildNativeCore.failed:
            self.extensions = []
            return
        try:
            super().run()
        except Exception as err:       # no compiler, no headers, a compile or link error
            if REQUIRE_NATIVE:
                raise
            BuildNativeCore.failed = True
            self.extensions = []
            print(NUMPY_ENGINE_LINE.format(why=self._why(err)), file=sys.stderr, flush=True)
            return
        BuildNativeCore.built = bool(self.extensions)

    def _why(self, err: Exception) -> str:
        """The failure in a few words: which compiler failed, or the error's last line."""
        if isinstance(err, (CompileError, LinkError)) and self.compiler is not None:
            program = (self.compiler.compiler_so if isinstance(err, CompileError)
                       else self.compiler.linker_so)[0]
            return f"the C compiler `{os.path.basename(program)}` failed"
        text = str(err).strip()
        return text.splitlines()[-1] if text else type(err).__name__

    def build_extensions(self) -> None:
        if self.compiler.compiler_type != "unix":
            raise RuntimeError(f"it needs gcc or clang, not the {self.compiler.compiler_type} "
                               "compiler")
        os.makedirs(self.build_temp, exist_ok=True)
        if BuildNativeCore.flags is None:
            BuildNativeCore.flags = EXACT_FLAGS + THREAD_FLAGS + [
                f for f in SPEED_FLAGS if _accepts(self.compiler, f, self.build_temp)]
        for extension in self.extensions:
            extension.extra_compile_args = BuildNativeCore.flags
        super().build_extensions()


class Wheel(bdist_wheel):
    """A wheel without the core is pure Python: tagged py3-none-any, not for this platform."""

    def run(self) -> None:
        self.run_command("build")
        if not BuildNativeCore.built:
            self.root_is_pure = True
        super().run()


setup(ext_modules=[] if PURE else [NATIVE_CORE],
      cmdclass={"build_ext": BuildNativeCore, "bdist_wheel": Wheel})
