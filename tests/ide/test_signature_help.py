"""Signature help as a whole answer, in process (`ide.completion.signature_at`)."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_signature


def test_the_second_operand_is_active():
    check(render_signature, """
.kernel k
    iadd r1, r$0
.end
""", expect("""
iadd rd, rs1, rs2
  rd [5:7] register → rd
> rs1 [9:12] register → rs1
  rs2 [14:17] register → rs2
---
**Integer add**

`rd = (rs1 + rs2) mod 2^32`
"""))


def test_a_memory_instruction_with_an_optional_operand():
    check(render_signature, """
.kernel k
    atomic_add r1, r2, r3, $0
.end
""", expect("""
atomic_add [rd,] raddr, rvalue, scope
  rd [12:14] register → rd (optional)
  raddr [17:22] register → rs1
  rvalue [24:30] register → rs2
> scope [32:37] scope → scope
---
**Atomic add on device memory**

`old = device.u32[raddr]; device.u32[raddr] = old + rvalue; rd = old`
"""))


def test_no_signature_on_the_mnemonic_or_an_unknown_one():
    check(render_signature, """
.kernel k
    ia$0dd r1, r2, r3
.end
""", expect("""
no signature
"""))
    check(render_signature, """
.kernel k
    frobnicate r1, $0
.end
""", expect("""
no signature
"""))
