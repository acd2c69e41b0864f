"""In process, the `ide` functions the server's commands and features now go through:
the portability check and where its results live, Show PTX/HIP's translation, the
encoding listing, completion proposals and signatures."""

from __future__ import annotations

import pytest

from wave_lsp.ide import portability
from wave_lsp.ide.arg_files import ArgFiles
from wave_lsp.ide.completion import (directive_choices, hint_choices, mnemonic_choices,
                                     predicate_choices, signature_at)
from wave_lsp.ide.emit import translate
from wave_lsp.ide.encoding import listing
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.state import DocumentState
from wave_lsp.isa import INSTRUCTIONS

import test_wave_widths

WAVE_SUM = "; wave-lsp run: --device-memory 1024\n" + test_wave_widths.WAVE_SUM


def check(text: str, kernel: str):
    doc = DocumentState("file:///tmp/check.wave", text, 1)
    from wave_lsp.ide.run_session import kernel_launch_lines
    lines = kernel_launch_lines(doc, None).get(kernel, [])
    comparison = portability.check_widths(doc.text, kernel, lines, (8, 16, 32, 64), ArgFiles(),
                                          None, lambda: False)
    return doc, comparison


def test_the_check_finds_the_width_dependent_store_and_keeps_it_for_one_revision():
    doc, comparison = check(WAVE_SUM, "wave_sum")
    assert not comparison.portable and list(comparison.by_line) == [8]
    assert portability.summary(comparison) == (
        "kernel wave_sum: 64 word(s) of device memory differ between W8, W16, W32, W64; "
        "at line(s) 9")
    portability.keep(doc, doc.revision - 1, comparison)       # from an older revision: dropped
    assert portability.checks(doc) == {}
    portability.keep(doc, doc.revision, comparison)
    assert portability.differing_lines(doc) == [(8, comparison)]
    doc.apply_edit((0, 0), (0, 0), "; edited\n", 2)
    assert portability.checks(doc) == {} and portability.differing_lines(doc) == []


def test_a_portable_kernel_and_a_bad_launch_line():
    _doc, comparison = check(test_wave_widths.ATOMIC_SUM, "atomic_sum")
    assert comparison.portable
    assert portability.summary(comparison) == \
        "kernel atomic_sum: same device memory at W8, W16, W32, W64"
    with pytest.raises(ValueError, match="launch line 1"):
        check("; wave-lsp run: --grid 0,1,1\n" + test_wave_widths.ATOMIC_SUM, "atomic_sum")
    launch, options = portability.kernel_launch("atomic_sum", [], RunLimits(100, 1000),
                                                ArgFiles(), None)
    assert launch.kernel == "atomic_sum" and launch.metadata_first
    assert options.max_instructions == 100 and options.time_limit == 1.0


def test_widths_of_targets():
    assert portability.widths_of(("ptx", "metal")) == (32,)
    assert len(portability.widths_of(("ptx", "hip", "metal", "sycl"))) >= 2


def test_translation_and_its_failures():
    doc = DocumentState("file:///tmp/t.wave", test_wave_widths.ATOMIC_SUM, 1)
    found = translate(doc, "ptx", False)
    assert found.emitted is not None and found.result["text"] == found.emitted.text
    assert found.result["compat"] == "none" and found.result["map"]
    bad = translate(DocumentState("file:///tmp/b.wave", ".kernel k\n    iadd r1\n.end\n", 1),
                    "hip", True)
    assert bad.emitted is None and bad.result["compat"] == "upstream"
    assert bad.result["error"].startswith("line 2: ") and bad.result["line"] == 1


def test_encoding_listing_follows_the_compat_mode():
    text = ".kernel k\n.registers 4\n    mov_imm r1, 1.5\n    halt\n.end\n"
    doc = DocumentState("file:///tmp/e.wave", text, 1)
    ours, upstream = listing(doc, False), listing(doc, True)
    assert "mov_imm r1, 1.5" in ours and ours != upstream


def test_completion_proposals():
    plain = mnemonic_choices(False, False)
    assert len(plain) == len(INSTRUCTIONS) and all(c.snippet is None for c in plain)
    iadd = next(c for c in mnemonic_choices(True, True) if c.label == "iadd")
    assert iadd.snippet == "iadd ${1:rd}, ${2:rs1}, ${3:rs2}" and "**" in iadd.documentation
    directives = directive_choices(True)
    assert all(c.dotted and c.label.startswith(".") for c in directives)
    assert any(c.snippet and "${1:" in c.snippet for c in directives)
    assert [c.label for c in predicate_choices()][:2] == ["p0", "p1"]
    assert all(c.dotted and c.kind == "hint" for c in hint_choices())


def test_signature_at_an_operand():
    line = "    iadd r1, r2, "
    found = signature_at(line, len(line))
    assert found.label.startswith("iadd") and found.active == 2
    assert [found.label[p.start:p.end] for p in found.parameters] == \
        [p.name for p in found.parameters]
    assert signature_at("    iadd", 8) is None and signature_at("; iadd r1, ", 11) is None
