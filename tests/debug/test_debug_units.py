"""Per-lane expressions, value formatting and hit conditions of the debugger, in process."""

from __future__ import annotations

import pytest

from wave_lsp.debug.breakpoints import Breakpoint, parse_hit_condition
from wave_lsp.debug.expressions import Expression, ExpressionError
from wave_lsp.debug.values import parse_value
from wave_lsp.isa.value_format import lane_list, lanes_summary as summary, mask_text, register_lanes
from wave_lsp.emu import Launch
from wave_lsp.emu.stepping import SteppingRun

KERNEL = """\
.kernel k
.registers 4
    mov_sr  r0, sr_lane_id
    mov_imm r1, 0x3fc00000
    halt
.end
"""


@pytest.fixture
def stepping():
    run = SteppingRun(KERNEL, Launch(workgroup=(8, 1, 1), wave_width=4))
    run.step()
    run.step()
    return run


@pytest.mark.parametrize("text, wave, expected", [
    ("r0", 0, [0, 1, 2, 3]),
    ("r0 * 2 + 1", 1, [1, 3, 5, 7]),
    ("thread", 1, [4, 5, 6, 7]),
    ("r0 > 1 and lane != 3", 0, [False, False, True, False]),
    ("1 < r0 <= 3", 0, [False, False, True, True]),
    ("f32(r1)", 0, [1.5] * 4),
    ("i32(~r0)", 0, [-1, -2, -3, -4]),
    ("sr_wave_id", 1, [1] * 4),
    ("r0 // 0", 0, [0, 1, 2, 3]),
    ("not p0", 0, [True] * 4),
])
def test_expressions_give_one_value_per_lane(stepping, text, wave, expected):
    assert Expression(text).evaluate(stepping, wave).tolist() == expected


@pytest.mark.parametrize("text", ["r0 +", "__import__('os')", "r0.real", "'a'", "x > 1",
                                  "max(r0)", "r0[1]"])
def test_bad_expressions_are_refused_with_a_reason(text):
    with pytest.raises(ExpressionError):
        Expression(text)


def test_registers_beyond_the_kernel_are_an_error(stepping):
    with pytest.raises(ExpressionError, match="beyond"):
        Expression("r9").evaluate(stepping, 0)


def test_registers_read_as_in_the_inline_hints():
    assert register_lanes([0xFFFFFFFF], "int") == ("i32", ["-1"])
    assert register_lanes([0xFFFFFFFF], "uint") == ("u32", ["4294967295"])
    assert register_lanes([0x3FC00000, 0], "f32") == ("f32", ["1.5", "0.0"])
    assert register_lanes([0x3E00], "f16") == ("f16", ["1.5"])
    assert register_lanes([0x3FC0], "bf16") == ("bf16", ["1.5"])
    assert register_lanes([0], "f64lo", [0x3FF80000]) == ("f64", ["1.5"])
    assert register_lanes([0x3FF80000], "f64hi") == ("f64hi", ["0x3ff80000"])
    # a load's bits: a float when they look like one, for every lane, as the hints show them
    assert register_lanes([0x3F800000, 0, 0x40000000], "auto") == ("f32", ["1.0", "0.0", "2.0"])
    assert register_lanes([7, 0x3F800000], "auto") == ("i32", ["7", "1065353216"])
    assert register_lanes([255], "int", hex_format=True) == ("i32", ["0x000000ff"])
    # the debugger's masks read as the inline hints' (one formatter): lanes as `--lanes` takes them
    assert mask_text([True, False, True, True, False]) == "0xd (lanes 0,2-3)"
    assert mask_text([False, True]) == "0x2 (lane 1)" and lane_list([False, False]) == "none"
    assert summary(["7", "7"]) == "7 (all lanes)"
    assert summary([str(i) for i in range(10)]) == "[0, 1, 2, 3, 4, 5, 6, 7, …]"


def test_typed_values(stepping):
    assert parse_value("1.5", "f32") == 0x3FC00000
    assert parse_value("0x10", "u32") == 16
    assert parse_value("-1", "i32") == 0xFFFFFFFF
    assert parse_value("r0 + 10", "u32", stepping, 0, 2) == 12


@pytest.mark.parametrize("condition, hits", [
    ("3", [3]), (">=4", [4, 5, 6]), ("%2", [2, 4, 6]), ("<2", [1]), (None, [1, 2, 3, 4, 5, 6]),
])
def test_hit_conditions(condition, hits):
    bp = Breakpoint(1, 0, hit_condition=parse_hit_condition(condition))
    assert [n for n in range(1, 7) if bp.counts_hit()] == hits


def test_bad_hit_condition():
    with pytest.raises(ExpressionError):
        parse_hit_condition("every other")
