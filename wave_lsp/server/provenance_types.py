"""The types of the time-travel extensions (`extensions` declares the commands): who wrote a
value (`wave-lsp.whoWrote`: its arguments, its result and what it does)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .proto import Arguments, Open


@dataclass(frozen=True)
class WhoWroteArgs(Arguments):
    """A kernel, its launch line (null: the first, or the default launch) and the value:
    `{"address": A}` (a device word after the run) or `{"register": "r4", "lane": T, "line": L}`
    (thread T's r4 at 0-based line L)."""
    uri: str
    kernel: str | None
    launch_line: int | None
    target: dict[str, Any]


@dataclass(frozen=True)
class WhoWrote(Open):
    """`ide.who_wrote.answer_json` (value, line, lane, wave, workgroup, step, iteration,
    instruction, inputs; `input` instead of a line for a value from outside the run) with the
    document's URI and version."""
    uri: str
    version: int | None
    value: int | None
    line: int | None
    inputs: list[dict[str, Any]]


# what `wave-lsp.whoWrote` does, how it fails, who uses it (`extensions.Extension`'s fields)
WHO_WROTE_TEXT = (
    "Who wrote a value of the kernel's run: the writing instruction (0-based line, lane = the "
    "writing thread's global id, wave, workgroup, step, iteration) and, for each source operand, "
    "its value and who wrote it; from the inline run's recording when it holds the target, else "
    "the launch recorded again off the event loop.",
    "a `Refusal` (and a warning) when the arguments name no open document's kernel or launch "
    "line, the workspace is untrusted, the target is bad, the thread did not run the line, or "
    "the recording passes `run.recordBudgetMiB`",
    ("VS Code", "Neovim"))
