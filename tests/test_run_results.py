"""The protocol-free side of inline runs (wave_lsp.ide): launch lines, value formatting, and
what a run shows per line, data-driven on source text."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_lsp.analysis import CODES
from wave_lsp.ide.launch_lines import launch_lines, parse_lanes
from wave_lsp.ide.run_hover import register_table
from wave_lsp.ide.run_results import MAX_DUMP_LINES
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.arg_files import ArgFiles
from wave_lsp.ide.run_session import execute, kernel_launch_lines, plan_runs
from wave_lsp.isa.value_format import compact, display_kind, format_value, mask_text
from wave_lsp.launch.flags import LaunchFlagError
from wave_lsp.syntax.document import Document
from run_kernels import THIRDS


def run_kernel(source: str, kernel: str = "k", ordinal: int | None = None,
               limits: RunLimits = RunLimits(), base: Path | None = None,
               files: ArgFiles | None = None):
    doc = Document(source)
    snapshot = plan_runs(doc, {kernel: ordinal}, kernel_launch_lines(doc, base), base)
    return execute(snapshot, limits, files=files)[0]


@pytest.mark.parametrize("bits, kind, text", [
    (0xFFFFFFFF, "int", "-1"), (0xFFFFFFFF, "hex", "0xffffffff"), (0x3FC00000, "f32", "1.5"),
    (0x3C00, "f16", "1.0"), (0x3FC0, "bf16", "1.5"), (0x3FF8000000000000, "f64", "1.5"),
    (0x3F800000, "auto", "1.0"), (12, "auto", "12"), (0x7FC00000, "f32", "NaN"),
    (0x3C003C00, "f16", "1.0|1.0"), (0xFFFFFFFF, "uint", "4294967295"),
])
def test_values_read_by_kind(bits, kind, text):
    assert format_value(bits, kind) == text


@pytest.mark.parametrize("mnemonic, record_kind, kind", [
    ("iadd", "u32", "int"), ("xor", "u32", "hex"), ("fadd", "f32", "f32"),
    ("icmp_lt", "pred", "pred"), ("device_load_u32", "u32", "auto"), ("wave_ballot", "u32", "hex"),
    ("cvt_i32_f32", "i32", "int"), ("dadd", "f64lo", "f64"), ("mov_sr", "u32", "int"),
])
def test_display_kind_follows_the_instruction_class(mnemonic, record_kind, kind):
    assert display_kind(mnemonic, record_kind) == kind


def test_compact_lists():
    assert compact([str(i) for i in range(64)]) == "0, 1, 2 … 63"
    assert compact(["7"] * 32) == "7"
    assert compact(["1", "5", "2"]) == "1, 5, 2"
    assert compact(["1", "5", "2", "9", "4", "8"]) == "1, 5, 2, 9 … 8"
    assert mask_text([True, False, True, True]) == "0xd (lanes 0,2-3)"
    assert mask_text([False] * 4) == "0x0 (no lanes)"


KERNELS = """; wave-lsp run: --grid 2,1,1 --lanes 0-3,64
; another comment
.kernel first
.registers 4
    ; wave-lsp run: --workgroup 8,1,1 --dump-u32 0:2
    halt
.end
; wave-lsp run: --bogus
.kernel second
    halt
.end
"""


def test_launch_lines_belong_to_the_kernel_below_or_around_them():
    found = launch_lines(Document(KERNELS))
    assert [(ll.line, ll.kernel, ll.ordinal) for ll in found] == \
        [(0, "first", 0), (4, "first", 1), (7, "second", 0)]
    first, inside, bad = found
    assert first.lanes == (0, 1, 2, 3, 64) and first.launch.grid == (2, 1, 1)
    assert inside.launch.workgroup == (8, 1, 1) and inside.dumps[0].count == 2
    assert bad.launch is None and "--bogus" in bad.problem.message
    assert (bad.problem.start, bad.problem.end) == (16, 23)


def test_lanes_flag():
    assert parse_lanes("0-2,7") == (0, 1, 2, 7)
    with pytest.raises(LaunchFlagError) as err:
        parse_lanes("0-100")
    assert err.value.flag == "--lanes"


def test_arg_files_are_read_relative_to_the_document(tmp_path):
    (tmp_path / "in.bin").write_bytes((5).to_bytes(4, "little"))
    source = """; wave-lsp run: --workgroup 1,1,1 --arg 0:in.bin --dump-u32 4:1
.kernel k
.registers 4
    mov_imm r0, 0
    device_load_u32 r1, r0
    mov_imm r2, 4
    device_store_u32 r2, r1
    halt
.end
"""
    result = run_kernel(source, base=tmp_path)
    assert result.status == "ok" and result.dumps[0].values == ("5",)
    missing = run_kernel(source.replace("in.bin", "nope.bin"), base=tmp_path)
    assert missing.status == "failed" and "nope.bin" in missing.message


def test_arg_files_are_read_once_per_run_and_kept_while_unchanged(tmp_path):
    data = tmp_path / "in.bin"
    data.write_bytes((5).to_bytes(4, "little"))
    source = ("; wave-lsp run: --workgroup 1,1,1 " + "--arg 0:in.bin " * 10 +
              "--dump-u32 0:1\n.kernel k\n.registers 4\n    halt\n.end\n")
    files = ArgFiles()
    for _ in range(3):                         # three revisions, one read
        assert run_kernel(source, base=tmp_path, files=files).dumps[0].values == ("5",)
    assert files.reads == 1
    data.write_bytes((6).to_bytes(4, "little") * 2)   # changed: read again
    assert run_kernel(source, base=tmp_path, files=files).dumps[0].values == ("6",)
    assert files.reads == 2


def test_arg_files_of_one_run_are_bounded_in_total(tmp_path):
    (tmp_path / "a.bin").write_bytes(bytes(3000))
    (tmp_path / "b.bin").write_bytes(bytes(3000))
    source = ("; wave-lsp run: --workgroup 1,1,1 --arg 0:a.bin --arg 0:b.bin\n"
              ".kernel k\n.registers 4\n    halt\n.end\n")
    result = run_kernel(source, base=tmp_path, files=ArgFiles(limit=5000))
    assert result.status == "failed" and "at most" in result.message


def test_default_launch_uses_the_workgroup_size_and_one_workgroup():
    source = ".kernel k\n.registers 4\n.workgroup_size 8, 1, 1\n    mov_sr r1, sr_thread_id_x\n" \
             "    halt\n.end\n"
    result = run_kernel(source)
    assert result.launch_line is None and result.threads == tuple(range(8))
    assert result.lines[3].label == "r1 = 0, 1, 2 … 7"
    assert result.instructions == 2


WARNS = """.kernel k
.registers 8
.workgroup_size 4, 1, 1
    mov_sr  r0, sr_lane_id
    mov_imm r1, 2
    icmp_lt p1, r0, r1
    mov_imm r3, 1
    mov_imm r4, 0
    if p1
        wave_shuffle r2, r0, r3
    endif
    mov_imm r5, 2
    device_load_u32 r6, r5
    halt
.end
"""


def test_every_emulator_warning_becomes_an_r003_on_its_line():
    result = run_kernel(WARNS.replace("wave_shuffle r2, r0, r3", "wave_shuffle r2, r0, r1"))
    found = {d.range.start_line: d for d in result.diagnostics if d.code == "R003"}
    assert set(found) == {9, 12}
    assert "inactive" in found[9].message and "unaligned" in found[12].message
    assert all(d.severity == CODES["R003"].severity for d in found.values())
    assert found[12].related[0].message == "launched here"


def test_limits_come_from_the_settings():
    source = ".kernel k\n.registers 4\n    mov_imm r1, 1\n    loop\n        iadd r2, r2, r1\n" \
             "    endloop\n    halt\n.end\n"
    result = run_kernel(source, limits=RunLimits(max_instructions=1000, time_limit_ms=0))
    assert result.status == "error" and result.message.startswith("instruction limit")
    (limit,) = [d for d in result.diagnostics if d.code == "R002"]
    assert limit.range.start_line in (3, 4, 5)
    table = register_table(result, 4, "r2")
    assert "| lane | thread | active | before | after |" in table


def test_a_source_that_does_not_assemble_fails_the_launch():
    result = run_kernel(".kernel k\n    iadd r1\n    halt\n.end\n")
    assert result.status == "failed" and "cannot run" in result.summary()


def test_compact_levels_list_fewer_values():
    texts = [str(i * i) for i in range(64)]
    assert [compact(texts, level) for level in range(4)] == [
        "0, 1, 4, 9 … 3969", "0, 1, 4 … 3969", "0 … 3969", "64 values"]
    steps = [str(i) for i in range(64)]
    assert [compact(steps, level) for level in range(3)] == ["0, 1, 2 … 63", "0, 1 … 63",
                                                             "0 … 63"]




def test_run_value_labels_are_short_by_design_and_the_hover_has_every_lane():
    result = run_kernel(THIRDS)
    labels = {line: r.label for line, r in result.lines.items()}
    assert labels[3] == "r0 = 0, 1, 2 … 63"
    # 64 thirds: "r3 = 0.0, 0.33333334, 0.6666667, 1.0 … 21.0" would be cut by VS Code (43)
    assert labels[6] == "r3 = 0.0, 0.33333334, 0.6666667 … 21.0"
    assert labels[7] == "r4 = 0.0, 0.11111112, 0.44444448 … 441.0"
    assert all(len(label) <= 40 for label in labels.values())
    table = register_table(result, 6, "r3")
    assert "| 1 | 1 | ✓ | 0.0 | 0.33333334 ←" in table and "| 63 | 63 | ✓" in table

def test_dumps_keep_what_a_hover_shows():
    source = ("; wave-lsp run: --workgroup 1,1,1 --device-memory 1048576 --fill-iota 0:f32:4 "
              "--dump-memory 0:40 --dump-u32 0:262144 --dump-f32 0:3\n"
              ".kernel k\n.registers 4\n    halt\n.end\n")
    memory, u32, f32 = run_kernel(source).dumps
    assert memory.values == (
        "00000000: 00 00 00 00 00 00 80 3f  00 00 00 40 00 00 40 40  |.......?...@..@@|",
        "00000010: 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|",
        "00000020: 00 00 00 00 00 00 00 00                           |........|")
    assert memory.omitted == 0
    assert len(u32.values) == MAX_DUMP_LINES and u32.values[:2] == ("0", "1065353216")
    assert u32.omitted == 262144 - MAX_DUMP_LINES
    assert f32.values == ("0.0", "1.0", "2.0") and f32.omitted == 0
