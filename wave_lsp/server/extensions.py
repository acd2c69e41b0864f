"""The server's protocol extensions: every custom command (`wave-lsp.*`) and notification
(`wave-lsp/*`), their arguments' and results' dataclasses (JSON by `proto`; kernel tests' in
`test_types`, time travel's in `provenance_types`, verification's in `verify_types`), `Engine` (initialize result). Arguments:
a JSON array (`Arguments.parse`); a result's JSON is `wire(result)` (camelCase, `ABSENT` fields
out); an `Open` result restates an `ide` value (`answer()` checks its fields). `COMMANDS` and
`NOTIFICATIONS` say what each does, how it fails, who uses it; `wave_lsp.generate` writes the
docs and TypeScript from them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ..ide.run_limits import DUMP_COMMAND, WHO_WROTE_COMMAND
from .proto import ABSENT, Arguments, Open, wire
from .provenance_types import WHO_WROTE_TEXT, WhoWrote, WhoWroteArgs
from .test_types import (DiscoveredTest, Discovery, Difference, Position, TestOutcome,
                         TestRun, WireRange, WrittenBy)
from .verify_types import REPLAY_TEXT, VERIFY_TEXT, Replayed, Verification

# ---- arguments -------------------------------------------------------------------------------
@dataclass(frozen=True)
class DocumentArgs(Arguments):
    uri: str


@dataclass(frozen=True)
class KernelArgs(Arguments):
    uri: str
    kernel: str


@dataclass(frozen=True)
class LaunchArgs(Arguments):
    """A kernel and one of its launch lines (0-based; null: its first, or the default launch)."""
    uri: str
    kernel: str | None
    launch_line: int | None = None


@dataclass(frozen=True)
class ClearArgs(Arguments):
    uri: str
    kernel: str | None = None


@dataclass(frozen=True)
class DumpArgs(Arguments):
    uri: str
    kernel: str
    launch_line: int | None
    dump_index: int
    start: int
    count: int
    version: int | None = None


@dataclass(frozen=True)
class EmitArgs(Arguments):
    uri: str
    target: str
    compat: Literal["upstream", "none"] | None = None


@dataclass(frozen=True)
class KernelAtArgs(Arguments):
    uri: str
    line: int

    def problem(self) -> str | None:
        """Why these are not a document URI and a 0-based line (None: they are)."""
        if not isinstance(self.uri, str):
            return f"expected a document URI, not {self.uri!r}"
        if isinstance(self.line, bool) or not isinstance(self.line, int) or self.line < 0:
            return f"expected a 0-based line, not {self.line!r}"
        return None


# ---- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Refusal:
    """A command that could not act: why (also shown as a warning)."""
    uri: object                      # as the client sent it
    kernel: object
    ok: Literal[False] = False
    status: Literal["invalid-request"] = "invalid-request"
    message: str = ""


@dataclass(frozen=True)
class Cleared:
    uri: str
    cleared: list[str]


@dataclass(frozen=True)
class KernelRun(Open):
    """`ide.run_results.KernelRun.to_json` with the document's URI."""
    uri: str
    kernel: str
    version: int | None
    launch_line: int | None
    status: str
    ok: bool
    message: str
    summary: str
    lines: list[dict[str, Any]]


@dataclass(frozen=True)
class DumpWindow(Open):
    uri: str
    version: int | None
    kernel: str
    dump: int
    start: int
    count: int
    values: list[str]
    addresses: list[Any]
    ok: bool


@dataclass(frozen=True)
class HeatLine:
    """A profiled line: `line` 1-based, `level` 1 (cool) .. 5 (hottest), `share` of the cost."""
    line: int
    level: int
    share: float


@dataclass(frozen=True)
class KernelProfile(Open):
    """`ide.profile_session.KernelProfileRun.to_json` with the document's URI."""
    uri: str
    kernel: str
    version: int | None
    status: str
    summary: str
    heat: list[HeatLine]


@dataclass(frozen=True)
class Portability(Open):
    """`emu.wave_widths` comparison's JSON with the document's URI."""
    uri: str
    kernel: str
    widths: list[int]
    portable: bool
    lines: list[dict[str, Any]]


@dataclass(frozen=True)
class GpuRun(Open):
    """`ide.gpu.run_on_gpu`'s outcome (`same`: the device memory is the emulator's)."""
    ok: bool
    message: str
    same: bool = ABSENT


@dataclass(frozen=True)
class KernelResources(Open):
    """`ide.resources` figures of the kernel, with the vendor compilers' (`vendor`)."""
    kernel: str
    registers_used: int
    workgroup_size: list[int]
    vendor: list[dict[str, Any]]


@dataclass(frozen=True)
class Assembled(Open):
    """`ide.assemble.assemble_report`: `path` written, or why not, or `error` at 0-based `line`."""
    uri: str = ABSENT
    size: int = ABSENT
    sha256: str = ABSENT
    path: str | None = ABSENT
    not_written: str = field(default=ABSENT, metadata={"wire": "not_written"})
    error: str = ABSENT
    line: int = ABSENT


@dataclass(frozen=True)
class Emitted(Open):
    uri: str
    target: str
    map: list[tuple[int, int]] = ABSENT    # [generated line, source line], 0-based
    text: str = ABSENT                     # absent with `error`
    error: str = ABSENT


@dataclass(frozen=True)
class Encoding:
    uri: str
    text: str


@dataclass(frozen=True)
class KernelPlace:
    """A kernel's `.kernel` line and last line (its `.end`, else its last statement), 0-based."""
    kernel: str
    line: int
    end_line: int


@dataclass(frozen=True)
class Engine:
    """The engine that runs kernels, and why: the initialize result's `experimental[CAPABILITY]`."""
    CAPABILITY: ClassVar[str] = "waveLspEngine"
    engine: Literal["native core", "numpy engine"]
    reason: str


# ---- notifications' parameters -------------------------------------------------------------
@dataclass(frozen=True)
class RunsChanged:
    uri: str


@dataclass(frozen=True)
class ProfileChanged:
    uri: str
    version: int | None
    profiles: list[KernelProfile]


# ---- the extensions --------------------------------------------------------------------------
VSCODE, NVIM, EMACS, LENS = "VS Code", "Neovim", "Emacs", "its code lens (any client)"


@dataclass(frozen=True)
class Extension:
    """A command (`params`: its `Arguments`; answers: `result`) or notification (no `result`)."""
    name: str
    params: type | None
    result: tuple[type, ...]
    does: str
    errors: str
    clients: tuple[str, ...]
    direction: str = "client → server (`workspace/executeCommand`)"


NOT_OPEN = "null, with a warning, when `uri` is not an open WAVE document"
REFUSED = "a `Refusal` (and a warning) when the arguments name no open document's kernel or " \
          "launch line, or the workspace is untrusted"

RUN = Extension("wave-lsp.run", LaunchArgs, (KernelRun, Refusal),
              "Runs the kernel with the launch line off the event loop; the kernel then stays "
              "live: every settled edit re-runs it until it is cleared or the document closes.",
              REFUSED + "; cancelling the request stops the run", (VSCODE, NVIM, EMACS, LENS))
CLEAR = Extension("wave-lsp.clear", ClearArgs, (Cleared,),
                "Forgets one kernel's run results (kernel null: all of the document's) and "
                "stops re-running it.", "none: an unknown document clears nothing",
                (VSCODE, NVIM, EMACS, LENS))
DUMP = Extension(DUMP_COMMAND, DumpArgs, (DumpWindow, Refusal),
               "Lines `start .. start+count-1` (count ≤ 4,096) of the launch line's `--dump-*` "
               "region `dumpIndex` of the kernel's latest run, shown in the next hover (the "
               "dump hover's links).",
               REFUSED + "; also for another `version` than the document's, a dump that does "
               "not exist, or a window superseded by a newer one", (VSCODE, NVIM))
PROFILE = Extension("wave-lsp.profile", LaunchArgs, (KernelProfile, Refusal),
                  "Profiles the kernel with the launch line (`--profile --json` of its preset, "
                  "plus `heat`, `presets`, `complete`); the kernel then stays live, re-profiled "
                  "after every settled edit until `wave-lsp.clearProfile`.", REFUSED,
                  (VSCODE, NVIM, EMACS, LENS))
CLEAR_PROFILE = Extension("wave-lsp.clearProfile", ClearArgs, (Cleared,),
                        "Forgets one kernel's profile (kernel null: all of the document's).",
                        "none: an unknown document clears nothing", (VSCODE, NVIM, EMACS, LENS))
TEST = Extension("wave-lsp.test", LaunchArgs, (TestRun,),
               "Runs the kernel test on the launch line (null: every test of the kernel; "
               "kernel null: every test of the document); an open document's tests then run "
               "again after every edit. `uri` may be a `.wave` file that is not open.",
               "a `TestRun` with `error` (and a warning) when the document cannot be read, the "
               "line is no test of the kernel, or the workspace is untrusted",
               (VSCODE, NVIM, EMACS, LENS))
DISCOVER_TESTS = Extension("wave-lsp.discoverTests", DocumentArgs, (Discovery,),
                         "Every kernel test of the document (or `.wave` file) with its place, "
                         "for a client's test tree.",
                         "a `Discovery` with `error` when the document cannot be read",
                         (VSCODE,))
CHECK_PORTABILITY = Extension("wave-lsp.checkPortability", KernelArgs, (Portability, Refusal),
                            "Runs the kernel's launch once per wave width of the configured "
                            "targets and compares the device memory they leave; differing store "
                            "lines get a lens until the next edit.",
                            REFUSED + "; also when the targets use one wave width",
                            (VSCODE, NVIM, LENS))
RUN_ON_GPU = Extension("wave-lsp.runOnGpu", KernelArgs, (GpuRun,),
                     "Runs the kernel's launch on a CUDA GPU and in the emulator and compares "
                     "the device memory (lens only where CuPy finds a device); `debugAtMoment`.",
                     "`ok: false` with `message` when it cannot run", (LENS,))
KERNEL_RESOURCES = Extension("wave-lsp.kernelResources", KernelArgs, (KernelResources, type(None)),
                           "The kernel's registers, memory and occupancy per target, with the "
                           "vendor compilers' figures where they are found.",
                           "null, with a warning, when there is no such kernel", (LENS,))
ASSEMBLE = Extension("wave-lsp.assemble", DocumentArgs, (Assembled, type(None)),
                   "Assembles the document and writes its `.wbin` where the configuration says.",
                   NOT_OPEN + "; `error` and `line` when it does not assemble",
                   (VSCODE, NVIM, LENS))
EMIT = Extension("wave-lsp.emit", EmitArgs, (Emitted, type(None)),
               "What a vendor backend (`target`: ptx, hip, metal, sycl) makes of the document, "
               "with the generated-to-source line `map` and the vendor compiler's verdict where "
               "it is found (`vendor`, `messages`; else `vendorAbsent`).",
               NOT_OPEN + " or the target or mode is unknown; `error` (and `line`) instead of "
               "`text` when it cannot be translated", (VSCODE, NVIM))
ENCODING = Extension("wave-lsp.encoding", DocumentArgs, (Encoding, type(None)),
                   "The document's encoded words beside its source, as text.", NOT_OPEN,
                   (VSCODE, NVIM))
KERNEL_AT = Extension("wave-lsp.kernelAt", KernelAtArgs, (KernelPlace, type(None)),
                    "The kernel whose `.kernel` … `.end` contains 0-based `line` (the "
                    "directives' own lines included); null between kernels.",
                    "null when `uri` is not an open WAVE document or `line` is not a "
                    "non-negative integer", (VSCODE, NVIM, EMACS))
WHO_WROTE = Extension(WHO_WROTE_COMMAND, WhoWroteArgs, (WhoWrote, Refusal), *WHO_WROTE_TEXT)
VERIFY = Extension("wave-lsp.verify", KernelArgs, (Verification, Refusal), VERIFY_TEXT,
                   REFUSED, (VSCODE, NVIM, LENS))
REPLAY_WITNESS = Extension("wave-lsp.replayWitness", KernelArgs, (Replayed, Refusal), REPLAY_TEXT,
                           REFUSED + "; also without a witness", (VSCODE, NVIM, LENS))

COMMANDS = (RUN, CLEAR, DUMP, PROFILE, CLEAR_PROFILE, TEST, DISCOVER_TESTS, CHECK_PORTABILITY,
            RUN_ON_GPU, KERNEL_RESOURCES, ASSEMBLE, EMIT, ENCODING, KERNEL_AT, WHO_WROTE, VERIFY,
            REPLAY_WITNESS)

RUNS_CHANGED = Extension(
    "wave-lsp/runsChanged", RunsChanged, (),
    "A run ended or its results changed, sent instead of `workspace/codeLens/refresh` to a "
    "client that cannot be asked to refresh code lenses: ask for them again.", "", (NVIM, EMACS),
    "server → client")
PROFILE_CHANGED = Extension(
    "wave-lsp/profileChanged", ProfileChanged, (),
    "After each profile step and each clear: the document's profiles now (empty: cleared), "
    "for the clients' heat views.", "", (VSCODE, NVIM, EMACS), "server → client")
WORKSPACE_TRUSTED = Extension(
    "wave-lsp/workspaceTrusted", None, (),
    "The user has trusted the workspace since the server started untrusted "
    "(`initializationOptions.workspaceTrusted` not `true`): kernels run from now on.", "",
    (VSCODE,), "client → server")

NOTIFICATIONS = (RUNS_CHANGED, PROFILE_CHANGED, WORKSPACE_TRUSTED)
