"""Directives, memory scopes and cache hints (reference §2.3, §2.4, §2.6)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ArgKind(enum.Enum):
    """What a directive argument must be."""

    NAME = "name"
    INTEGER = "integer"


@dataclass(frozen=True)
class Directive:
    """A directive: its name (without the dot), its arguments, and what it does."""

    name: str
    args: tuple[tuple[str, ArgKind], ...]
    summary: str
    default: str | None = None
    applies_to_kernel: bool = False  # modifies the most recently opened kernel's metadata

    @property
    def syntax(self) -> str:
        names = ", ".join(n for n, _ in self.args)
        return f".{self.name} {names}".rstrip()


DIRECTIVES: tuple[Directive, ...] = (
    Directive("kernel", (("NAME", ArgKind.NAME),),
              "Open a kernel: its code starts here, and its name goes into the .wbin symbol table."),
    Directive("end", (), "Close the open kernel; its code size is the code emitted since .kernel."),
    Directive("registers", (("N", ArgKind.INTEGER),),
              "Registers per thread the kernel needs (r0 .. rN-1); used for occupancy.",
              default="32", applies_to_kernel=True),
    Directive("local_memory", (("BYTES", ArgKind.INTEGER),),
              "Bytes of local (workgroup-shared) memory the kernel needs.",
              default="0", applies_to_kernel=True),
    Directive("workgroup_size", (("X", ArgKind.INTEGER), ("Y", ArgKind.INTEGER),
                                 ("Z", ArgKind.INTEGER)),
              "Threads per workgroup in x, y and z; 0, 0, 0 lets the launcher choose.",
              default="0, 0, 0", applies_to_kernel=True),
)

DIRECTIVE_BY_NAME: dict[str, Directive] = {d.name: d for d in DIRECTIVES}


@dataclass(frozen=True)
class Scope:
    """A memory scope, written `.name` (or bare `name`), encoded in word1 bits 1:0."""

    name: str
    value: int
    meaning: str


SCOPES: tuple[Scope, ...] = (
    Scope("wave", 0, "visible within the executing wave"),
    Scope("workgroup", 1, "visible to all waves of the workgroup"),
    Scope("device", 2, "visible to all waves on the device"),
    Scope("system", 3, "visible to the device and the host CPU"),
)
SCOPE_BY_NAME: dict[str, Scope] = {s.name: s for s in SCOPES}
SCOPE_BY_VALUE: dict[int, Scope] = {s.value: s for s in SCOPES}

# `.hint` right after a mnemonic: parsed and dropped by the assembler (no bits).
CACHE_HINTS: dict[str, str] = {
    "cached": "hint: keep the data in caches",
    "uncached": "hint: bypass caches",
    "streaming": "hint: data is used once (streaming access)",
}
