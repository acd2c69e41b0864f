"""The semantic tokens' fast encoding (`encode_document`: each line's tokens written straight
into the LSP integers, unsorted when the statements give them in order, memoised by text; an
ASCII line's chunk shared by every position encoding) against a plain reference written here:
classify every token into a sorted list, convert each column to the client's units, encode the
document. Equal on every benchmark generator's output, on lines mutated at random (characters
that matter to the grammar inserted, deleted, replaced; non-ASCII ones included) and on the
project's examples, in all three position encodings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT  # noqa: F401  (puts benchmarks/ on the path)
from corpus_kernels import GENERATORS

from tests.test_line_fast_path import CHARS, mutated
from wave_lsp.ide import highlight
from wave_lsp.ide.highlight import (_COMMENT, _DECLARATION, _FORM_TOKENS, _LABEL, _MACRO,
                                    _MNEMONIC_TOKENS, _MODIFIER, _NAMESPACE, _NUMBER,
                                    _OPERAND_TOKENS, _OPERATOR, _PARAMETER, _UNKNOWN_MNEMONIC,
                                    encode_document, line_tokens)
from wave_lsp.ide.locate import operand_kind
from wave_lsp.syntax.ast import Directive, Instruction, Label, OperandSyntax
from wave_lsp.syntax.parser import parse_line

ENCODINGS = ("utf-16", "utf-8", "utf-32")
PROJECT = Path(__file__).resolve().parents[2]


def reference_tokens(text: str) -> list[tuple[int, int, int, int]]:
    """Every token of a line as (start, end, type, modifiers), sorted (code points)."""
    out = []
    for stmt in parse_line(text).statements:
        if isinstance(stmt, Instruction):
            if stmt.guard is not None:
                g = stmt.guard
                out.append((g.start, g.register.start, _OPERATOR, 0))
                out.append((g.register.start, g.register.end, _PARAMETER, 0))
            out.append((stmt.mnemonic.start, stmt.head_end,
                        *_MNEMONIC_TOKENS.get(stmt.mnemonic.text, _UNKNOWN_MNEMONIC)))
            if stmt.hint is not None:
                out.append((stmt.hint.start, stmt.hint.end, _MODIFIER, 0))
            for i, op in enumerate(stmt.operands):
                token = _FORM_TOKENS.get(op.syntax) or \
                    _OPERAND_TOKENS.get(operand_kind(stmt, i, op))
                if token is not None:
                    out.append((op.start, op.end, *token))
        elif isinstance(stmt, Label):
            out.append((stmt.name.start, stmt.name.end, _LABEL, _DECLARATION))
        else:
            assert isinstance(stmt, Directive)
            out.append((stmt.start, stmt.name.end, _MACRO, 0))
            for i, arg in enumerate(stmt.args):
                if stmt.name.text == "kernel" and i == 0:
                    out.append((arg.start, arg.end, _NAMESPACE, _DECLARATION))
                elif arg.syntax in (OperandSyntax.INTEGER, OperandSyntax.FLOAT):
                    out.append((arg.start, arg.end, _NUMBER, 0))
    comment = parse_line(text).comment
    if comment is not None:
        out.append((comment.start, comment.end, _COMMENT, 0))
    return sorted(out)


def client_column(text: str, column: int, encoding: str) -> int:
    if encoding == "utf-32":
        return column
    if encoding == "utf-8":
        return len(text[:column].encode("utf-8"))
    return len(text[:column].encode("utf-16-le")) // 2


def reference_document(lines: list[str], encoding: str) -> list[int]:
    data: list[int] = []
    prev_line = prev_start = 0
    for number, text in enumerate(lines):
        for start, end, kind, mods in reference_tokens(text):
            start, end = (client_column(text, c, encoding) for c in (start, end))
            if number != prev_line:
                prev_start = 0
            data += [number - prev_line, start - prev_start, end - start, kind, mods]
            prev_line, prev_start = number, start
    return data


def assert_same(lines: list[str]) -> None:
    for encoding in ENCODINGS:
        assert encode_document(lines, encoding) == reference_document(lines, encoding), encoding
        highlight.line_chunk.cache_clear()      # again, from cold memos
        assert encode_document(lines, encoding) == reference_document(lines, encoding), encoding


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_generator_is_encoded_as_the_reference_does(name):
    assert_same(GENERATORS[name](3_000, 7).splitlines())


def test_mutated_lines_are_encoded_as_the_reference_does():
    lines = GENERATORS["mixed-many"](2_000, 8).splitlines()
    lines += GENERATORS["math"](2_000, 9).splitlines()
    for path in PROJECT.glob("examples/**/*.wave"):
        lines += path.read_text(encoding="utf-8").splitlines()
    changed = sorted(mutated(lines, 6_000, seed=12))
    assert_same(changed)
    for line in changed:
        assert line_tokens(line) == reference_tokens(line), line


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=CHARS + "\U0001d518é€", max_size=40), min_size=1,
                max_size=8))
def test_random_text_is_encoded_as_the_reference_does(lines):
    assert_same(lines)


def test_the_servers_answer_is_the_json_of_the_integers():
    import json

    from wave_lsp.server.semantic_tokens import _full_answer, _json_integers
    data = encode_document(GENERATORS["math"](400, 3).splitlines(), "utf-16")
    assert _json_integers(data) == json.dumps(data)
    assert json.loads(_full_answer("7", data)) == {"resultId": "7", "data": data}
