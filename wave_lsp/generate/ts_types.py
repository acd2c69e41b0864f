"""The TypeScript types of the server's protocol extensions, generated from
`wave_lsp.server.extensions` for the VS Code extension (`vscode-extension/src/generated/
extensions.ts`).

Each dataclass there becomes an interface (camelCase fields; a field that may be left out is
optional; an `Open` result also admits the other fields of its `ide` value), each command's
arguments a labelled tuple, and `Commands` / `Notifications` map every name to its types, so that
the extension's `execute('wave-lsp.run', [uri, kernel, null])` is checked against the server.
`python -m wave_lsp.generate.ts_types` rewrites the file; `--check` fails when it is stale (a
test runs the check).
"""

from __future__ import annotations

import sys
import types
import typing
from dataclasses import MISSING, fields, is_dataclass
from pathlib import Path
from typing import Any, Literal

from ..isa import generated
from ..server import extensions, provenance_types, test_types, verify_types
from ..server.extensions import ABSENT, Extension
from ..server.proto import Arguments, Open, camel, wire_name

TYPESCRIPT_PATH = Path("vscode-extension/src/generated/extensions.ts")


def shapes() -> list[type]:
    """The module's argument and result dataclasses (its own and those of the
    `*_types` modules it imports), in the order they are named."""
    owners = (extensions.__name__, provenance_types.__name__, test_types.__name__,
              verify_types.__name__)
    return [v for v in vars(extensions).values() if isinstance(v, type) and is_dataclass(v)
            and v.__module__ in owners and v is not Extension]


def named_extensions() -> list[tuple[str, Extension]]:
    """(Python name, extension) for every command, then every notification."""
    return [(name, v) for name, v in vars(extensions).items() if isinstance(v, Extension)]


def ts_type(hint: Any) -> str:
    """The TypeScript of a type hint of `extensions`."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return "unknown"
    if hint is type(None) or hint is None:
        return "null"
    if hint in (str, int, float, bool):
        return {str: "string", int: "number", float: "number", bool: "boolean"}[hint]
    if isinstance(hint, type) and is_dataclass(hint):
        return hint.__name__
    if origin is Literal:
        return " | ".join("false" if a is False else "true" if a is True else f"'{a}'"
                          for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(ts_type(a) for a in args)
    if origin is list:
        inner = ts_type(args[0])
        return f"({inner})[]" if "|" in inner else f"{inner}[]"
    if origin is tuple:
        return "[" + ", ".join(ts_type(a) for a in args) + "]"
    if origin is dict:
        return f"{{ [key: string]: {ts_type(args[1])} }}"
    raise TypeError(f"no TypeScript for {hint!r}")


def _doc(cls: type, indent: str = "") -> list[str]:
    doc = " ".join((cls.__doc__ or "").split())
    return [f"{indent}/** {doc} */"] if doc and not doc.startswith(cls.__name__ + "(") else []


def arguments_tuple(cls: type) -> str:
    """A command's arguments as a labelled tuple (a field with a default may be left out)."""
    hints = typing.get_type_hints(cls)
    return "[" + ", ".join(f"{camel(f.name)}{'' if f.default is MISSING else '?'}: "
                           f"{ts_type(hints[f.name])}" for f in fields(cls)) + "]"


def render_shape(cls: type) -> list[str]:
    if issubclass(cls, Arguments):
        return [*_doc(cls), f"export type {cls.__name__} = {arguments_tuple(cls)};"]
    hints = typing.get_type_hints(cls)
    lines = [*_doc(cls), f"export interface {cls.__name__} {{"]
    for f in fields(cls):
        optional = "?" if f.default is ABSENT else ""
        lines.append(f"    {wire_name(f)}{optional}: {ts_type(hints[f.name])};")
    if issubclass(cls, Open):
        lines.append("    [field: string]: unknown;")
    return lines + ["}"]


def render_typescript() -> str:
    out = ["// The server's protocol extensions: commands, notifications, their arguments and "
           "results.",
           "// GENERATED from wave_lsp/server/extensions.py by `python -m "
           "wave_lsp.generate.ts_types`: do not edit.",
           ""]
    for cls in shapes():
        out += render_shape(cls) + [""]
    commands = [(n, e) for n, e in named_extensions() if e in extensions.COMMANDS]
    notifications = [(n, e) for n, e in named_extensions() if e in extensions.NOTIFICATIONS]
    for name, ext in commands + notifications:
        out.append(f"export const {name} = '{ext.name}';")
    out.append("/** The initialize result's `capabilities.experimental` key of its `Engine`. */")
    out.append(f"export const ENGINE_CAPABILITY = '{extensions.Engine.CAPABILITY}';")
    out += ["", "/** Each command's arguments and the answers it may give. */",
            "export interface Commands {"]
    for _name, ext in commands:
        result = " | ".join(ts_type(r) for r in ext.result)
        out.append(f"    '{ext.name}': {{ arguments: {ext.params.__name__}; result: {result} }};")
    out += ["}", "", "/** Each notification's parameters (null: none). */",
            "export interface Notifications {"]
    for _name, ext in notifications:
        out.append(f"    '{ext.name}': {ts_type(ext.params)};")
    out += ["}", "", "export type CommandName = keyof Commands;",
            "export type CommandArguments<C extends CommandName> = Commands[C]['arguments'];",
            "export type CommandResult<C extends CommandName> = Commands[C]['result'];", ""]
    return "\n".join(out)


GENERATED = {TYPESCRIPT_PATH: render_typescript}


def stale(root: Path) -> list[Path]:
    return generated.stale(root, GENERATED)


def main(argv: list[str] | None = None) -> int:
    return generated.main("wave_lsp.generate.ts_types", "Write the VS Code extension's types "
                          "of the server's protocol extensions.", GENERATED, argv)


if __name__ == "__main__":
    sys.exit(main())
