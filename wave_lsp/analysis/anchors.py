"""Kernel-anchored results (rust-analyzer's span anchors): what the analysis finds in a kernel is
stored relative to the kernel's first line, and made absolute only when it is read.

An edit that adds or removes lines above a kernel changes nothing of what is stored for it: the
kernel's `line` (its anchor) moves, and the next read renders the same stored results at the new
place. Messages never hold a line number as text: a line they quote is a `LineMention` inside a
`Text`, rendered ("line 12", 1-based) for the position of the moment it is read.

- `Text`: message text made of plain strings and `LineMention`s;
- `KernelDiagnostic`: a diagnostic with every line relative to its kernel (ranges, fixes,
  related locations, quoted lines); `KernelDiagnostic.at(base)` is the `Diagnostic` a client sees;
- `anchored(diagnostics, base)`: diagnostics computed at absolute lines, stored relative to `base`;
- `AnchoredView`: the absolute diagnostics of anchored ones, kept while the anchor stays put.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Union

from .diagnostic import Diagnostic, Fix, Range, Related, Severity, TextEdit


@dataclass(frozen=True, slots=True)
class LineMention:
    """A source line quoted in a message (0-based; rendered as `line N`, 1-based)."""

    line: int


Part = Union[str, LineMention]


class Text:
    """Message text whose quoted lines are data, not digits: `Text("under the `loop` at ",
    LineMention(11))` renders as "under the `loop` at line 12" and, relative to a kernel, as
    whatever line the kernel puts it on."""

    __slots__ = ("parts",)

    def __init__(self, *parts: "Part | Text") -> None:
        out: list[Part] = []
        for part in parts:
            for p in (part.parts if type(part) is Text else (part,)):
                if type(p) is str:
                    if not p:
                        continue
                    if out and type(out[-1]) is str:
                        out[-1] += p
                        continue
                out.append(p)
        self.parts: tuple[Part, ...] = tuple(out)

    @classmethod
    def _of(cls, parts: tuple[Part, ...]) -> "Text":
        """A text of parts that are already joined."""
        text = cls.__new__(cls)
        text.parts = parts
        return text

    def render(self, base: int = 0) -> str:
        """The text with each quoted line `base` lines further down."""
        return "".join(p if type(p) is str else f"line {p.line + base + 1}" for p in self.parts)

    def relative_to(self, base: int) -> "Text":
        """The same text, its quoted lines counted from `base`."""
        if not base:
            return self
        return Text._of(tuple(p if type(p) is str else LineMention(p.line - base)
                              for p in self.parts))

    def replace(self, old: str, new: "Text | str") -> "Text":
        """`old` replaced by `new` in the plain parts (`new` may quote lines)."""
        out: list[Part | Text] = []
        for p in self.parts:
            if type(p) is str and old in p:
                pieces = p.split(old)
                for i, piece in enumerate(pieces):
                    out.append(piece)
                    if i < len(pieces) - 1:
                        out.append(new)
            else:
                out.append(p)
        return Text(*out)

    def __add__(self, other: "Text | str") -> "Text":
        return Text(self, other)

    def __radd__(self, other: str) -> "Text":
        return Text(other, self)

    def __eq__(self, other: object) -> bool:
        return type(other) is Text and self.parts == other.parts

    def __hash__(self) -> int:
        return hash(self.parts)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Text{self.parts!r}"


Message = Union[str, Text]


@dataclass(frozen=True, slots=True)
class KernelRelated:
    """A related location of a kernel diagnostic, relative to the kernel."""

    range: Range
    message: Message


@dataclass(frozen=True, slots=True)
class KernelDiagnostic:
    """A diagnostic of one kernel: every line (range, fixes, related locations, lines quoted in
    messages) counted from the kernel's first line, or from line 0 before it is anchored."""

    code: str
    severity: Severity
    range: Range
    message: Message
    fixes: tuple[Fix, ...] = ()
    related: tuple[KernelRelated, ...] = ()

    def at(self, base: int, memo: dict | None = None) -> Diagnostic:
        """The diagnostic for a client, with the kernel's first line at `base`. `memo` (shared
        by the calls of one rendering) renders the locations diagnostics share only once."""
        memo = {} if memo is None else memo

        def rng(r: Range) -> Range:
            out = memo.get(id(r))      # the stored objects outlive the rendering
            return out if out is not None else memo.setdefault(id(r), _moved(r, base))

        def text(message: Message) -> str:
            if type(message) is str:
                return message
            out = memo.get(id(message))
            if out is None:
                out = memo[id(message)] = message.render(base)
            return out

        def related(r: KernelRelated) -> Related:
            out = memo.get(id(r))
            if out is None:
                out = memo[id(r)] = Related(rng(r.range), text(r.message))
            return out

        return Diagnostic(
            self.code, self.severity, rng(self.range), text(self.message),
            tuple(Fix(f.title, tuple(TextEdit(rng(e.range), e.new_text) for e in f.edits))
                  for f in self.fixes) if self.fixes else (),
            tuple(map(related, self.related)))


def anchored(diagnostics: Iterable[Diagnostic | KernelDiagnostic], base: int,
             memo: dict | None = None) -> tuple[KernelDiagnostic, ...]:
    """Diagnostics computed at absolute lines (plain, or kernel diagnostics whose messages
    quote absolute lines), stored relative to a kernel whose first line is `base`. Equal
    locations and related entries become one object (chains of causes repeat from diagnostic to
    diagnostic), so a rendering does each of them once."""
    memo = {} if memo is None else memo

    def rng(r: Range) -> Range:
        key = (r.start_line, r.start_col, r.end_line, r.end_col)
        out = memo.get(key)
        return out if out is not None else memo.setdefault(key, _moved(r, -base))

    def text(message: Message) -> Message:
        if type(message) is str:
            return message
        out = memo.get(id(message))
        if out is None or out[0] is not message:
            relative = message.relative_to(base)
            plain = all(type(p) is str for p in relative.parts)
            out = (message, relative.render() if plain else relative)   # plain: nothing to render
            memo[id(message)] = out
        return out[1]

    def related(r) -> KernelRelated:
        found = KernelRelated(rng(r.range), text(r.message))
        key = (id(found.range), found.message if type(found.message) is str
               else id(found.message))
        return memo.setdefault(key, found)

    return tuple(
        KernelDiagnostic(d.code, d.severity, rng(d.range), text(d.message),
                         tuple(Fix(f.title, tuple(TextEdit(rng(e.range), e.new_text)
                                                  for e in f.edits)) for f in d.fixes),
                         tuple(map(related, d.related)))
        for d in diagnostics)


def _moved(r: Range, delta: int) -> Range:
    if not delta:
        return r
    return Range(r.start_line + delta, r.start_col, r.end_line + delta, r.end_col)


class AnchoredView:
    """Stored kernel diagnostics and their absolute form at the anchor's last position: reading
    them again at the same place gives the very same `Diagnostic` objects (the server reuses
    their conversions by identity); at another place they are rendered anew, the stored ones
    untouched."""

    __slots__ = ("stored", "_base", "_view")

    def __init__(self, stored: tuple[KernelDiagnostic, ...], base: int | None = None,
                 view: list[Diagnostic] | None = None) -> None:
        """`view`, when given, is what `stored` reads as at `base` (the diagnostics they were
        anchored from)."""
        self.stored = stored
        self._base = base if view is not None else None
        self._view: list[Diagnostic] = view if view is not None else []

    @classmethod
    def of(cls, diagnostics: list, base: int) -> "AnchoredView":
        """Diagnostics computed at absolute lines (see `anchored`), for a kernel whose first
        line is `base`; read there, they are those diagnostics (rendered where needed)."""
        memo: dict = {}
        view = [d if type(d) is Diagnostic else d.at(0, memo) for d in diagnostics]
        return cls(anchored(diagnostics, base), base, view)

    def at(self, base: int) -> list[Diagnostic]:
        if base != self._base:
            memo: dict = {}
            self._view = [d.at(base, memo) for d in self.stored]
            self._base = base
        return self._view

    def rendered_at(self, base: int) -> bool:
        """Whether the last read was for an anchor at `base`."""
        return self._base == base
