"""docs/lsp-extensions.md, generated from `wave_lsp.server.extensions` (as rust-analyzer documents
its `lsp/ext.rs` in `lsp-extensions.md`): each command and notification the server adds to LSP,
with its direction, arguments or parameters, result, errors and the clients that use it, then
the shapes they name, written as the TypeScript the VS Code extension gets (`ts_types`).

`python -m wave_lsp.generate.lsp_docs` rewrites the page; `--check` fails when it is stale (a
test runs the check), so the page cannot drift from the server.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..isa import generated
from ..server import extensions
from ..server.extensions import Extension
from .ts_types import arguments_tuple, render_shape, shapes, ts_type

DOCS_PATH = Path("docs/lsp-extensions.md")

INTRO = """\
# LSP extensions

<!-- GENERATED from wave_lsp/server/extensions.py by `python -m wave_lsp.generate.lsp_docs`:
do not edit. -->

What the wave-lsp server adds to the Language Server Protocol: commands run through
`workspace/executeCommand` (named `wave-lsp.*`, arguments positional, as a JSON array) and
notifications (named `wave-lsp/*`). The server answers a command it cannot act on with the result
each section names (a refusal, null or an `error` field), never with a JSON-RPC error; a request
cancelled with `$/cancelRequest` stops its work and answers `RequestCancelled`. Lines are
0-based unless a field says otherwise; ranges use the position encoding negotiated at
`initialize`.

The shapes (last section) are written as TypeScript: `vscode-extension/src/generated/extensions.ts`
holds the same types, generated from the same module. A shape ending in `[field: string]:
unknown` restates a larger value of the server (a run, a profile, a translation): the named fields
are always there, the others may change.

Initialization option: `initializationOptions.workspaceTrusted` (anything but JSON `true`: the
workspace is untrusted and no kernel runs until `wave-lsp/workspaceTrusted`).

Initialize result: `capabilities.experimental.{key}` is an `Engine`: which emulator engine runs
the server's kernels (`native core`, or `numpy engine` where the core is not installed or is
turned off) and why. The VS Code extension shows it in its status bar item's tooltip.
"""


def arguments_text(ext: Extension) -> str:
    if ext.params is None:
        return "none"
    return f"`{arguments_tuple(ext.params)}` (`{ext.params.__name__}`)"


def section(ext: Extension) -> list[str]:
    command = ext in extensions.COMMANDS
    lines = [f"### `{ext.name}`", "",
             f"**Direction:** {ext.direction}  ",
             f"**{'Arguments' if command else 'Parameters'}:** " + (
                 arguments_text(ext) if command or ext.params is None
                 else f"`{ext.params.__name__}`") + "  "]
    if command:
        lines.append(f"**Result:** `{' | '.join(ts_type(r) for r in ext.result)}`  ")
        lines.append(f"**Errors:** {ext.errors}  ")
    lines += [f"**Clients:** {', '.join(ext.clients)}", "", ext.does, ""]
    return lines


def render_docs() -> str:
    out = [INTRO.format(key=extensions.Engine.CAPABILITY), "## Commands", ""]
    for ext in extensions.COMMANDS:
        out += section(ext)
    out += ["## Notifications", ""]
    for ext in extensions.NOTIFICATIONS:
        out += section(ext)
    out += ["## Shapes", "", "```ts"]
    for cls in shapes():
        out += render_shape(cls) + [""]
    out[-1] = "```"
    return "\n".join(out) + "\n"


GENERATED = {DOCS_PATH: render_docs}


def stale(root: Path) -> list[Path]:
    return generated.stale(root, GENERATED)


def main(argv: list[str] | None = None) -> int:
    return generated.main("wave_lsp.generate.lsp_docs", "Write docs/lsp-extensions.md from the "
                          "server's protocol extensions.", GENERATED, argv)


if __name__ == "__main__":
    sys.exit(main())
