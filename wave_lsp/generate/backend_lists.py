"""The editor clients' lists of backend targets, generated from `BACKENDS`.

Neovim's `:LspWaveEmit {target}` (`editors/nvim/lua/wave/targets.lua`) and VS Code's "Show
PTX/HIP/Metal/SYCL" views (`vscode-extension/src/targets.ts`) name every backend and how its text
is highlighted; `python -m wave_lsp.generate.backend_lists` rewrites both from this package and
`--check` fails when one is stale (a test runs the check). A backend whose language is an
assembly is shown as assembly (Vim's `asm`; in VS Code the language of that name that the
extension contributes with its own grammar, `ptx`), every other one (HIP, Metal, SYCL: C++
dialects) as C++; its title is the first word of its language.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..isa import generated
from ..isa.backends import BACKENDS, Backend

LUA_PATH = Path("editors/nvim/lua/wave/targets.lua")
TYPESCRIPT_PATH = Path("vscode-extension/src/targets.ts")


def is_assembly(backend: Backend) -> bool:
    return backend.language.endswith("assembly")


def title(backend: Backend) -> str:
    """`PTX`, `HIP`, `Metal`, `SYCL`: the first word of the language."""
    return backend.language.split()[0]


def render_lua() -> str:
    """The Neovim module: target -> filetype of its listing."""
    entries = ", ".join(f"{b.name} = '{'asm' if is_assembly(b) else 'cpp'}'" for b in BACKENDS)
    return "\n".join([
        "-- The backends of :LspWaveEmit and the filetype that highlights each one's text.",
        "-- GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.backend_lists`: "
        "do not edit.",
        f"return {{ {entries} }}",
        "",
    ])


def render_typescript() -> str:
    """The VS Code module: target -> title and language of its view."""
    return "\n".join([
        "// The backends, their titles and the language that highlights their text.",
        "// GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.backend_lists`: "
        "do not edit.",
        "export const TARGETS = {",
        *(f"    {b.name}: {{ title: '{title(b)}', language: "
          f"'{b.name if is_assembly(b) else 'cpp'}' }}," for b in BACKENDS),
        "} as const;",
        "",
    ])


GENERATED = {LUA_PATH: render_lua, TYPESCRIPT_PATH: render_typescript}


def stale(root: Path) -> list[Path]:
    """The generated files under repository `root` that are missing or differ from the table."""
    return generated.stale(root, GENERATED)


def main(argv: list[str] | None = None) -> int:
    return generated.main("wave_lsp.generate.backend_lists", "Write the editor clients' backend "
                          "target lists from the backend table.", GENERATED, argv)


if __name__ == "__main__":
    sys.exit(main())
