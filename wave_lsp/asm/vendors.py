"""The vendors' own compilers: finds NVIDIA's `ptxas` and AMD's `hipcc` and runs them on what
`wave-lsp emit` writes, so the tests and the editor learn whether the text is PTX / HIP at all,
what the compiler says about it (each message on its generated line) and the resources it
gives each kernel per target architecture (`ptxas -v`; clang's kernel-resource-usage remarks).
SYCL has no device compiler on the registries: its text is compiled for the host by a C++
compiler against Intel's SYCL headers (`include`, from the intel-sycl-rt wheel).

Found in this order: an explicit path (the editor's `backends.ptxas` / `backends.hipcc`), the
environment's (`WAVE_LSP_PTXAS` / `WAVE_LSP_HIPCC`: a path, a name on PATH, or `off`), the
program on PATH, and for ptxas the `nvidia-cuda-nvcc-cu12` wheel's `nvidia/cuda_nvcc/bin`.
Each run is bounded (`compiler_runs`: a few at once, stopped when its job is cancelled or after
`timeout` seconds); results are cached by (compiler, architecture, text); nothing here imports a
protocol.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..isa.backends import VENDOR_ARCHES
from ..syntax.memo import register_memo
from . import compiler_runs

COMPILERS = {"ptx": "ptxas", "hip": "hipcc", "sycl": "g++"}
# the environment's choice, below a setting and above PATH: a path, a name on PATH, or "off"
COMPILER_VARIABLES = {"ptx": "WAVE_LSP_PTXAS", "hip": "WAVE_LSP_HIPCC"}
_OFF = ("off", "false", "0", "none")
TIMEOUT_S = 120         # the command line's and the tests' limit per run (the editor's is shorter)


@dataclass(frozen=True)
class VendorMessage:
    """One error or warning; `line` is the 0-based generated line it names (None: none)."""

    severity: str           # "error" or "warning"
    text: str
    line: int | None


@dataclass(frozen=True)
class KernelUsage:
    """What the compiler allotted one kernel: (figure, value) pairs in the compiler's order."""

    kernel: str
    figures: tuple[tuple[str, int], ...]

    def text(self) -> str:
        return ", ".join(f"{name} {value}" for name, value in self.figures)


@dataclass(frozen=True)
class VendorCheck:
    """One compiler run on one text for one architecture."""

    compiler: str           # "ptxas" or "hipcc"
    arch: str
    accepted: bool
    messages: tuple[VendorMessage, ...]
    usage: tuple[KernelUsage, ...]
    timed_out: float | None = None      # stopped after this many seconds: no verdict

    def errors(self) -> list[VendorMessage]:
        return [m for m in self.messages if m.severity == "error"]

    def usage_of(self, kernel: str) -> KernelUsage | None:
        return next((u for u in self.usage if u.kernel == kernel), None)


def wheel_ptxas() -> str | None:
    """ptxas from the `nvidia-cuda-nvcc-cu12` wheel, when it is installed."""
    try:
        spec = importlib.util.find_spec("nvidia.cuda_nvcc")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / "bin" / "ptxas"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def program_setting_ok(configured: str) -> bool:
    """A setting may name an absolute path (`~` allowed) or a bare program name on PATH, never a
    relative path: that would resolve against whatever folder the process started in."""
    path = os.path.expanduser(configured.strip())
    return os.path.isabs(path) or os.sep not in path


def environment_choice(target: str) -> str | None:
    """What the environment names for `target` (`COMPILER_VARIABLES`), stripped; None if unset
    or empty."""
    return os.environ.get(COMPILER_VARIABLES.get(target, ""), "").strip() or None


def chosen_off(value: str) -> bool:
    """Whether an environment variable's value turns its compiler off."""
    return value.strip().lower() in _OFF


def find_compiler(target: str, configured: str | None = None) -> str | None:
    """The compiler for `target` ("ptx" or "hip"): `configured` (an absolute path or a name on
    PATH) when given, else the environment's (`COMPILER_VARIABLES`; `off` for none), else the
    one on PATH, else (ptxas) the nvidia wheel's; None when there is none."""
    name = COMPILERS.get(target)
    if name is None:
        return None
    if not configured:
        configured = environment_choice(target)
        if configured is not None and chosen_off(configured):
            return None
    if configured:
        if not program_setting_ok(configured):
            return None
        return shutil.which(os.path.expanduser(configured.strip()))
    return shutil.which(name) or (wheel_ptxas() if target == "ptx" else None)


def check(target: str, text: str, arch: str, compiler: str, verbose: bool = True,
          include: str | None = None, timeout: float = TIMEOUT_S) -> VendorCheck:
    """Compile `text` (PTX, HIP or SYCL C++) for `arch` ("host" for SYCL, with the SYCL headers
    in `include`) with the compiler at `compiler`, stopping it after `timeout` seconds (and
    raising `Cancelled` when the calling job is cancelled meanwhile)."""
    key = (target, text, arch, compiler, verbose, include)
    return _OUTCOMES.get(key, timeout, lambda: _check(*key, timeout))


def check_all(target: str, text: str, compiler: str, verbose: bool = True,
              include: str | None = None, timeout: float = TIMEOUT_S) -> list[VendorCheck]:
    """`check` for every architecture the tests and the editor use for `target`."""
    return [check(target, text, arch, compiler, verbose, include, timeout)
            for arch in VENDOR_ARCHES[target]]


_OUTCOMES = compiler_runs.Outcomes(64)
# emptied with the memos when documents closed: its keys hold whole emitted PTX/HIP texts
register_memo(lambda: len(_OUTCOMES), _OUTCOMES.clear)


def took_too_long(compiler: str, seconds: float) -> str:
    return f"{Path(compiler).name} took longer than {seconds:g} s and was stopped"


def _check(target: str, text: str, arch: str, compiler: str, verbose: bool,
           include: str | None, timeout: float) -> tuple[VendorCheck, float | None]:
    suffix = {"ptx": ".ptx", "hip": ".hip", "sycl": ".cpp"}[target]
    with tempfile.TemporaryDirectory(prefix="wave-lsp-vendor-") as tmp:
        source = Path(tmp) / f"kernel{suffix}"
        source.write_text(text)
        if target == "ptx":
            argv = [compiler, f"-arch={arch}", str(source), "-o", str(Path(tmp) / "k.cubin")]
            argv[1:1] = ["-v"] if verbose else []
        elif target == "sycl":
            argv = [compiler, "-std=c++17", "-fsyntax-only", "-DSYCL_DISABLE_FSYCL_SYCLHPP_WARNING",
                    "-Wno-deprecated-declarations", f"-I{include}", str(source)]
        else:
            argv = [compiler, f"--offload-arch={arch}", "--cuda-device-only", "-ferror-limit=0",
                    "-c", str(source),
                    "-o", str(Path(tmp) / "k.o")]
            argv += ["-Rpass-analysis=kernel-resource-usage"] if verbose else []
        # the compiler's own temporary files go in ours and leave with it: hipcc's clang leaves
        # two empty directories in $TMPDIR per compile
        env = {**os.environ, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp}
        env.update({"HIP_PLATFORM": "amd"} if target == "hip" else {})
        done = compiler_runs.run(argv, timeout, env=env, cwd=tmp)
    name = Path(compiler).name
    if done.timed_out is not None:
        return VendorCheck(name, arch, False, (VendorMessage(
            "error", took_too_long(compiler, done.timed_out), None),), (),
            done.timed_out), done.timed_out
    if done.status is None:
        return VendorCheck(name, arch, False,
                           (VendorMessage("error", f"{compiler}: {done.failure}", None),), ()), None
    output = done.output
    parse = _parse_ptxas if target == "ptx" else _parse_clang
    messages, usage = parse(output, source.name)
    if done.status != 0 and not any(m.severity == "error" for m in messages):
        messages.append(VendorMessage("error", failure_line(output, done.status), None))
    return VendorCheck(name, arch, done.status == 0, tuple(messages), tuple(usage)), None


_FAILURE_WORDS = ("error:", "fatal", "killed", "signal", "segmentation fault", "aborted",
                  "please submit")


def failure_line(output: str, status: int) -> str:
    """Why a compiler failed when no message names a line: the driver's first `error:` line
    (a clang crash ends with a banner of asterisks, not with the cause), else the first line
    naming a failure, else the last line, else the exit status."""
    lines = [line.strip() for line in output.splitlines() if line.strip().strip("*")]
    for words in (_FAILURE_WORDS[:1], _FAILURE_WORDS):
        for line in lines:
            if any(word in line.lower() for word in words):
                return line
    if lines:
        return lines[-1]
    return f"killed by signal {-status}" if status < 0 else f"exit status {status}"


# ---- ptxas ------------------------------------------------------------------------------------
_PTXAS_MESSAGE = re.compile(r"^ptxas (?:.*?, line (\d+); )?(error|warning|fatal)\s*: (.*)$")
_PTXAS_ENTRY = re.compile(r"^ptxas info\s*: (?:Compiling entry function|Function properties "
                          r"for) '?([\w$]+)'?")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                          r"(\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"^ptxas info\s*: Used (\d+) registers(.*)$")
_SMEM = re.compile(r"(\d+) bytes smem")


def _parse_ptxas(output: str, _name: str) -> tuple[list[VendorMessage], list[KernelUsage]]:
    messages: list[VendorMessage] = []
    figures: dict[str, dict[str, int]] = {}
    kernel = None
    for raw in output.splitlines():
        line = raw.strip()
        found = _PTXAS_MESSAGE.match(line)
        if found:
            number, kind, text = found.groups()
            if kind == "fatal" and "aborted due to errors" in text:
                continue
            messages.append(VendorMessage("warning" if kind == "warning" else "error", text,
                                          int(number) - 1 if number else None))
            continue
        entry = _PTXAS_ENTRY.match(line)
        if entry:
            kernel = entry.group(1)
            figures.setdefault(kernel, {})
            continue
        frame = _PTXAS_FRAME.search(line)
        if frame and kernel is not None:
            stack, stores, loads = map(int, frame.groups())
            figures[kernel].update({"stack": stack, "spill stores": stores,
                                    "spill loads": loads})
            continue
        used = _PTXAS_USED.match(line)
        if used and kernel is not None:
            smem = _SMEM.search(used.group(2))
            figures[kernel] = {"registers": int(used.group(1)),
                               "shared memory": int(smem.group(1)) if smem else 0,
                               **figures[kernel]}
    return messages, [KernelUsage(k, tuple(f.items())) for k, f in figures.items() if f]


# ---- hipcc (clang), and g++ / clang++ for SYCL --------------------------------------------
_CLANG_MESSAGE = re.compile(r"^(.*?):(\d+):\d+: (error|warning|remark|fatal error): (.*?)"
                            r"(?: \[-Rpass-analysis=kernel-resource-usage\])?$")
_FUNCTION = re.compile(r"Function Name: _Z(\d+)(\w+)")
_FIGURE = re.compile(r"^\s*([A-Za-z ]+?)(?: \[[^\]]*\])?: (\d+)$")
_FIGURE_NAMES = {"SGPRs": "SGPRs", "VGPRs": "VGPRs", "AGPRs": "AGPRs",
                 "ScratchSize": "scratch bytes/lane", "Occupancy": "occupancy waves/SIMD",
                 "SGPRs Spill": "SGPR spills", "VGPRs Spill": "VGPR spills",
                 "LDS Size": "LDS bytes"}


def _parse_clang(output: str, name: str) -> tuple[list[VendorMessage], list[KernelUsage]]:
    messages: list[VendorMessage] = []
    usage: list[KernelUsage] = []
    kernel, figures = None, []
    for raw in output.splitlines():
        found = _CLANG_MESSAGE.match(raw)
        if not found:
            continue
        path, number, kind, text = found.groups()
        kind = "error" if kind == "fatal error" else kind
        if kind != "remark":
            ours = Path(path).name == name
            messages.append(VendorMessage(kind, text if ours else f"{path}: {text}",
                                          int(number) - 1 if ours else None))
            continue
        function = _FUNCTION.search(text)
        if function:
            if kernel is not None:
                usage.append(KernelUsage(kernel, tuple(figures)))
            length, rest = int(function.group(1)), function.group(2)
            kernel, figures = rest[:length], []
            continue
        figure = _FIGURE.match(text)
        if figure and kernel is not None and figure.group(1) in _FIGURE_NAMES:
            figures.append((_FIGURE_NAMES[figure.group(1)], int(figure.group(2))))
    if kernel is not None:
        usage.append(KernelUsage(kernel, tuple(figures)))
    return messages, usage
