"""The types of the kernel-test extensions (`extensions` declares the commands `wave-lsp.test`
and `wave-lsp.discoverTests`): outcomes, differences, discovered tests, and the wire range they
share with other results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .proto import ABSENT


@dataclass(frozen=True)
class Position:
    line: int
    character: int


@dataclass(frozen=True)
class WireRange:
    """An LSP range in the client's position encoding."""
    start: Position
    end: Position


@dataclass(frozen=True)
class Difference:
    line: int
    expected: str
    got: str
    what: str


@dataclass(frozen=True)
class WrittenBy:
    line: int
    lane: int | None


@dataclass(frozen=True)
class TestOutcome:
    kernel: str
    launch_line: int
    passed: bool
    status: Literal["passed", "failed", "error", "cancelled"]
    message: str
    expected: list[str]
    actual: list[str]
    actual_lines: int
    exit_status: int | None
    stderr: str
    difference: Difference | None
    written_by: WrittenBy | None
    range: WireRange
    debug_at_moment: dict[str, Any] = ABSENT      # a failure's moment's launch (ide.moments)


@dataclass(frozen=True)
class TestRun:
    uri: object                      # as the client sent it
    version: int | None = ABSENT     # absent when the command could not act (`error`)
    tests: list[TestOutcome] = field(default_factory=list)
    passed: int = 0
    failed: int = 0
    error: str = ABSENT


@dataclass(frozen=True)
class DiscoveredTest:
    kernel: str
    launch_line: int
    ordinal: int
    flags: str
    args: list[str]
    range: WireRange
    kernel_range: WireRange | None


@dataclass(frozen=True)
class Discovery:
    uri: object                      # as the client sent it
    version: int | None = ABSENT     # absent with `error`
    tests: list[DiscoveredTest] = field(default_factory=list)
    error: str = ABSENT
