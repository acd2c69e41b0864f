"""What a missing vendor compiler would add and how to get it, for the editor: the kernel hover
and Show PTX/HIP (`wave-lsp.emit`) say, for each configured target whose compiler is not here
(ptxas for PTX, hipcc for HIP), why (not found, turned off, a setting that names no program, an
untrusted workspace), what it adds (the vendor's own register, spill and occupancy figures; its
verdict on the generated code, with errors as diagnostics on the kernel), how to install it
(`isa.backends.VENDOR_COMPILER_PACKAGES`) and which setting points at it.

Protocol-free; the server decides the reason (it knows the settings and the trust).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..asm.vendors import COMPILER_VARIABLES, chosen_off, environment_choice
from ..isa.backends import VENDOR_COMPILER_PACKAGES

COMPILER = {"ptx": "ptxas", "hip": "hipcc"}
_ADDS = {
    "ptx": "NVIDIA's own figures for this kernel (registers, spills, shared memory, stack per "
           "architecture, which replace the occupancy estimate) and its verdict on the PTX "
           "(errors as diagnostics on the kernel)",
    "hip": "AMD's own figures for this kernel (VGPRs, SGPRs, spills, LDS, occupancy per "
           "architecture, which replace the occupancy estimate) and its verdict on the HIP code "
           "(errors as diagnostics on the kernel)",
}
_WHERE = {"ptx": "not on PATH nor in wave-lsp's environment", "hip": "not on PATH"}

NOT_FOUND, OFF, NOT_A_PROGRAM, UNTRUSTED = "not found", "off", "not a program", "untrusted"


@dataclass(frozen=True)
class Absent:
    """A configured vendor target whose compiler does not run, and why."""

    target: str
    reason: str                 # NOT_FOUND, OFF, NOT_A_PROGRAM or UNTRUSTED
    named: str | None = None    # what the setting names (NOT_A_PROGRAM)
    variable: str | None = None  # the environment variable that chose it, where no setting did

    @property
    def compiler(self) -> str:
        return COMPILER[self.target]

    @property
    def setting(self) -> str:
        return f"backends.{self.compiler}"

    def why(self) -> str:
        if self.reason == OFF:
            return (f"turned off (`{self.variable}={self.named}`)" if self.variable
                    else f"turned off (`{self.setting}: false`)")
        if self.reason == NOT_A_PROGRAM:
            return f"`{self.variable or self.setting}` names {self.named!r}, which is not a " \
                "program here"
        if self.reason == UNTRUSTED:
            return (f"an untrusted workspace does not run the program `{self.setting}` names, "
                    "and none is on PATH")
        return f"not found ({_WHERE[self.target]})"

    def install(self) -> str:
        """The command that installs it, as a user would type it here."""
        tool, packages = VENDOR_COMPILER_PACKAGES[self.target]
        if tool == "pip":
            return f"{sys.executable} -m pip install {packages}"
        return f"sudo apt-get install {packages}"

    def where_to_install(self) -> str:
        return "into wave-lsp's environment" if self.target == "ptx" else "on Debian/Ubuntu"

    def text(self) -> str:
        """One paragraph, no markup."""
        return (f"{self.compiler} {self.why()}: it would add {_ADDS[self.target]}. Install it "
                f"{self.where_to_install()}: {self.install()} - or point the setting "
                f"{self.setting} (VS Code: wave.{self.setting}) at it.")

    def markdown(self) -> str:
        return (f"**{self.compiler}** {self.why()}: it would add {_ADDS[self.target]}. "
                f"Install it {self.where_to_install()}: `{self.install()}`, or point "
                f"`{self.setting}` (VS Code: `wave.{self.setting}`) at it.")

    def as_dict(self) -> dict:
        return {"compiler": self.compiler, "reason": self.reason, "why": self.why(),
                "adds": _ADDS[self.target], "install": self.install(), "setting": self.setting}


def chosen_by_environment(target: str) -> Absent | None:
    """Why `target`'s compiler does not run when no setting names one but the environment does
    (`WAVE_LSP_PTXAS` / `WAVE_LSP_HIPCC`: turned off, or naming no program); None if unset."""
    chosen = environment_choice(target)
    if chosen is None:
        return None
    variable = COMPILER_VARIABLES[target]
    return (Absent(target, OFF, chosen, variable) if chosen_off(chosen)
            else Absent(target, NOT_A_PROGRAM, chosen, variable))


def absent_markdown(absent: list[Absent]) -> str:
    """The hover's paragraph per missing compiler ("" when none is missing)."""
    return "\n\n".join(a.markdown() for a in absent)


def absent_comments(absent: Absent, width: int = 96) -> list[str]:
    """Comment lines for the end of the Show PTX/HIP view, wrapped at `width`."""
    words, lines, line = absent.text().split(), [], "//"
    for word in words:
        if len(line) + 1 + len(word) > width and line != "//":
            lines.append(line)
            line = "//"
        line += " " + word
    return ["", *lines, line]
