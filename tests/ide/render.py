"""Whole answers of the `ide` features as text, for the `check(fixture, expect)` tests: each
renderer calls the feature's `ide` functions as the server does (same arguments, default
settings) and writes every field of the answer, one item per line."""

from __future__ import annotations

from wave_lsp.ide.actions import fixable, legacy_edits
from wave_lsp.ide.completion import context_at, proposals, signature_at
from wave_lsp.ide.folding import folds
from wave_lsp.ide.highlight import TOKEN_MODIFIERS, TOKEN_TYPES, encode_document
from wave_lsp.ide.hover_answer import hover_at
from wave_lsp.ide.inlay import hints
from wave_lsp.ide.launch_lines import flag_help, flag_word_at
from wave_lsp.ide.locate import target_at
from wave_lsp.ide.navigation import definitions, highlights, references, rename, symbol_at
from wave_lsp.ide.symbols import outline, search
from wave_lsp.isa.backends import TARGET_NAMES

from .fixture import Fixture

MAX_SHOWN = 8        # mnemonics shown of the ranked list (the ISA has over a hundred)


def _range(r) -> str:
    return f"{r.start_line}:{r.start_col}-{r.end_line}:{r.end_col}"


def render_hover(fx: Fixture) -> str:
    """The hover at the cursor, as the server asks for it (`hover_at`; settings: all targets,
    no compatibility mode; no job has run): the word it covers, then the markdown."""
    state = fx.state()
    line, col = fx.cursor
    answer = hover_at(state, line, col, False, TARGET_NAMES)
    if answer is None:
        return "no hover\n"
    target = target_at(state, line, col)
    _line, start, end = answer.range
    return (f"{target.kind.name.lower()} {target.text!r} at {target.line}:{start}-"
            f"{end}\n---\n{answer.markdown}\n")


def _choices(choices) -> list[str]:
    """One line per choice; a run of registers r0..rN whose details agree and whose sort texts
    are their numbers is one line."""
    out: list[str] = []
    run: list = []

    def flush():
        if len(run) > 1:
            out.append(f"{run[0].label}..{run[-1].label} | register | {run[0].detail} | "
                       "sorted by number")
        elif run:
            out.append(_choice(run[0]))
        run.clear()
    for c in choices:
        numbered = c.kind == "register" and c.sort_text == f"{int(c.label[1:]):03d}" \
            and not c.documentation and not c.dotted
        if numbered and (not run or (int(run[-1].label[1:]) + 1 == int(c.label[1:])
                                     and run[-1].detail == c.detail)):
            run.append(c)
            continue
        flush()
        if numbered:
            run.append(c)
        else:
            out.append(_choice(c))
    flush()
    return out


def _choice(c) -> str:
    extra = "".join(f" | {name}={value!r}" for name, value in (
        ("documentation", c.documentation), ("sort_text", c.sort_text)) if value)
    return f"{c.label} | {c.kind} | {c.detail}{' | dotted' if c.dotted else ''}{extra}"


def render_completion(fx: Fixture) -> str:
    """What completion knows at the cursor: a launch line's flags, else the syntactic context
    and, in an operand, the operand's choices."""
    state = fx.state()
    line, col = fx.cursor
    text = state.lines[line]
    flag_start = flag_word_at(text, col)
    if flag_start is not None:
        typed = text[flag_start:col]
        return "".join(f"{flag} | {help}\n" for flag, help in flag_help()
                       if flag.startswith(typed)) or "no flags\n"
    ctx = context_at(text, col)
    head = f"context {ctx.kind}, word from column {ctx.word_start}"
    if ctx.spec is not None:
        head += f", {ctx.spec.mnemonic} operand {ctx.operand_index}"
    found = proposals(state, line, col, snippets=True, markdown=False)
    if found.incomplete:
        head += " (incomplete: asked again as the word grows)"
    ranked = found.ranked()
    # a mnemonic's documentation is its hover's (tests/ide/test_hover.py)
    shown = [c._replace(documentation=None) for c in ranked[:MAX_SHOWN]] \
        if found.kind == "mnemonic" else ranked
    lines = [head] + (_choices(shown) or ["no choices"])
    if len(ranked) > len(shown):
        lines.append(f"… {len(ranked) - len(shown)} more")
    return "\n".join(lines) + "\n"


def render_folding(fx: Fixture) -> str:
    """Every fold, with the text of its first and last line."""
    state = fx.state()
    out = [f"{f.first}..{f.last} {f.kind}: {state.lines[f.first].strip()!r} .. "
           f"{state.lines[f.last].strip()!r}" for f in folds(state)]
    return "\n".join(out or ["no folds"]) + "\n"


def render_inlay(fx: Fixture) -> str:
    """Every inlay hint of the document (offsets and encodings on, as by default): the source
    line with the hint's label inserted at its column, then its tooltip."""
    state = fx.state()
    out = []
    for h in hints(state, 0, len(state.lines) - 1):
        text = state.lines[h.line]
        shown = f"{text[:h.column]}⟨{h.label}⟩{text[h.column:]}".rstrip()
        out.append(f"{h.line} {h.kind}: {shown}\n    tooltip: {h.tooltip!r}")
    return "\n".join(out or ["no hints"]) + "\n"


def _edits(edits) -> list[str]:
    return [f"    {_range(e.range)} -> {e.new_text!r}" for e in edits]


def render_actions(fx: Fixture) -> str:
    """The code actions of the range between the markers: each quick fix with the diagnostic it
    fixes and its edits (the first one preferred), then "convert all legacy syntax"."""
    state = fx.state()
    diagnostics = state.diagnostics()
    out = []
    for diag in fixable(diagnostics, fx.cursor, fx.end):
        for i, fix in enumerate(diag.fixes):
            out.append(f"quickfix{' (preferred)' if i == 0 else ''}: {fix.title}\n"
                       f"  for {diag.code} at {_range(diag.range)}: {diag.message}")
            out += _edits(fix.edits)
    edits = legacy_edits(diagnostics)
    if edits:
        out.append(f"source.convertLegacySyntax: Convert all legacy syntax in this file "
                   f"({len(edits)} edits)")
        out += _edits(edits)
    return "\n".join(out or ["no actions"]) + "\n"


def render_semantic_tokens(fx: Fixture) -> str:
    """The document's semantic tokens as the server sends them (`encode_document`, UTF-16),
    decoded: one line per token with its text, type and modifiers."""
    data = encode_document(fx.state().lines, "utf-16")
    lines = fx.text.split("\n")
    out, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, bits = data[i:i + 5]
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        modifiers = [m for b, m in enumerate(TOKEN_MODIFIERS) if bits & (1 << b)]
        text = lines[line].encode("utf-16-le")[2 * start:2 * (start + length)].decode("utf-16-le")
        out.append(f"{line}:{start} {text!r} {TOKEN_TYPES[kind]}"
                   + (f" [{', '.join(modifiers)}]" if modifiers else ""))
    return "\n".join(out or ["no tokens"]) + "\n"


def _spans(state, spans) -> list[str]:
    return [f"{line}:{start}-{end} {state.lines[line][start:end]!r} in "
            f"{state.lines[line].strip()!r}" + (f" {'write' if rest[0] else 'read'}" if rest else "")
            for line, start, end, *rest in spans]


def render_navigation(fx: Fixture) -> str:
    """The symbol at the cursor, its definitions, references (with the declaration) and
    highlights, as go-to-definition, find-references and document highlight answer."""
    state = fx.state()
    symbol = symbol_at(state, *fx.cursor)
    if symbol is None:
        return "no symbol\n"
    out = [f"{symbol.kind} {symbol.name} at {symbol.line}:{symbol.start}-{symbol.end}",
           "definitions:", *_spans(state, definitions(state, symbol)),
           "references:", *_spans(state, references(state, symbol, True)),
           "highlights:", *_spans(state, highlights(state, symbol))]
    return "\n".join(out) + "\n"


def render_rename(fx: Fixture, new: str) -> str:
    """Renaming the symbol at the cursor to `new`: the refusal, or the edited document."""
    state = fx.state()
    symbol = symbol_at(state, *fx.cursor)
    if symbol is None:
        return "no symbol\n"
    problem, edits = rename(state, symbol, new)
    if problem:
        return f"refused: {problem}\n"
    lines = list(state.lines)
    for line, start, end, text in sorted(edits, reverse=True):
        lines[line] = lines[line][:start] + text + lines[line][end:]
    return "\n".join(lines)


def _outline_items(items, depth: int = 0) -> list[str]:
    out = []
    for item in items:
        out.append(f"{'  ' * depth}{item.kind} {item.name} ({item.detail}) "
                   f"{_range(item.range)} name {_range(item.selection)}"
                   + (f" in {item.container}" if item.container else ""))
        out += _outline_items(item.children, depth + 1)
    return out


def render_symbols(fx: Fixture, query: str | None = None) -> str:
    """The outline (document symbols), or the workspace-symbol matches of `query`."""
    state = fx.state()
    items = outline(state) if query is None else search(state, query)
    return "\n".join(_outline_items(items) or ["no symbols"]) + "\n"


def render_signature(fx: Fixture) -> str:
    """Signature help at the cursor: the signature, each parameter (the active one marked)
    and the documentation."""
    line, col = fx.cursor
    found = signature_at(fx.state().lines[line], col)
    if found is None:
        return "no signature\n"
    params = [f"{'>' if i == found.active else ' '} {p.name} [{p.start}:{p.end}] {p.documentation}"
              for i, p in enumerate(found.parameters)]
    return "\n".join([found.label, *params, "---", found.documentation]) + "\n"
