"""Who wrote a value in the editor, in process (`ide.who_wrote`, over real inline runs): the
hover of a register read on a later line names its writer and where its inputs came from, the
command's answer has the documented shape, and a bad target is a one-line error."""

from __future__ import annotations

import pytest

from wave_lsp.emu.provenance import TargetError
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.run_session import execute, plan_runs
from wave_lsp.ide.who_wrote import answer, answer_json, parse_target, who_wrote_text

from .fixture import check, expect
from .jobs import Jobs, render_job_hover

SOURCE = """
.kernel k
; wave-lsp run: --grid 2,1,1 --workgroup 4,1,1 --wave-width 4 --set-reg 5:100 --dump-u32 0:2
.registers 8
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    iadd r3, r0, r5
    device_store_u32 r2, r3
    halt
.end
"""


def _run(fx_state, limits=RunLimits()):
    from wave_lsp.ide.run_session import kernel_launch_lines
    return execute(plan_runs(fx_state, {"k": None}, kernel_launch_lines(fx_state, None)),
                   limits)[0]


def test_the_hover_of_a_register_read_names_its_writer():
    check(lambda fx: render_job_hover(Jobs(fx, runs={"k": None}), fx.cursor),
          SOURCE.replace("store_u32 r2, r3", "store_u32 r2, r$03"), expect("""
register 'r3' at 7:25-27
---
**`r3`** on line 8 in this run (k)

| lane | thread | active | before | after | who wrote it |
|---|---|---|---|---|---|
| 0 | 0 | ✓ | 100 | 100 | written by line 7, thread 0, step 3 ← iadd r3, r0, r5 |
| 1 | 1 | ✓ | 101 | 101 | written by line 7, thread 1, step 3 ← iadd r3, r0, r5 |
| 2 | 2 | ✓ | 102 | 102 | written by line 7, thread 2, step 3 ← iadd r3, r0, r5 |
| 3 | 3 | ✓ | 103 | 103 | written by line 7, thread 3, step 3 ← iadd r3, r0, r5 |

---
**`r3`** general-purpose register 3 (32 bits)

kernel `k` declares 8 registers (`.registers 8`)
"""))


def test_dump_values_name_their_writers_and_unrecorded_workgroups():
    check(lambda fx: render_job_hover(Jobs(fx, runs={"k": None}), fx.cursor),
          SOURCE.replace("; wave-lsp", "; $0wave-lsp"), expect("""
the parts only
---
**Run of `k`**: ✓ 1.5 ms · 12 instr · 100% lanes active

2 × u32 at 0x0
```
100
101
```

Who wrote them:
- `0x0`: from line 8, thread 4 (workgroup 1, not recorded)
- `0x4`: from line 8, thread 5 (workgroup 1, not recorded)
"""))


def test_the_command_answer_follows_the_chain_to_the_inputs(tmp_path):
    from .fixture import parse_fixture
    fx = parse_fixture(SOURCE + "$0")
    result = _run(fx.state())
    assert result.provenance is not None
    got = answer_json(answer(result.provenance, parse_target(
        {"register": "r3", "lane": 2, "line": 7})))       # the store reads r3
    assert got == {
        "value": 102, "line": 6, "lane": 2, "wave": 0, "workgroup": 0, "step": 3,
        "iteration": 1, "instruction": "iadd r3, r0, r5",
        "inputs": [
            {"operand": "r0", "value": 2, "writer": {
                "target": "r0", "value": 2, "line": 3, "lane": 2, "wave": 0, "workgroup": 0,
                "step": 0, "iteration": 1, "instruction": "mov_sr r0, sr_thread_id_x"}},
            {"operand": "r5", "value": 100, "writer": {
                "line": None, "input": "--set-reg 5:100", "kind": "set-reg"}}]}
    assert who_wrote_text(result.provenance, ("register", "r5", 1, 7)) == "from --set-reg 5:100"
    assert who_wrote_text(result.provenance, ("register", "r6", 1, 7)) \
        == "from r6 zeroed at launch"
    assert who_wrote_text(result.provenance, ("address", 16)) \
        == "from the launch's zeroed device memory"


def test_a_budget_of_zero_records_nothing():
    from .fixture import parse_fixture
    result = _run(parse_fixture(SOURCE + "$0").state(), RunLimits(record_budget_mib=0))
    assert result.status == "ok" and result.provenance is None


@pytest.mark.parametrize("target, message", [
    ({"address": -4}, "address must be a non-negative integer"),
    ({"register": 4, "lane": 0, "line": 1}, "register must be a name"),
    ({"register": "r4", "lane": "x", "line": 1}, "lane must be a non-negative integer"),
    ([], "the target must be"),
])
def test_bad_targets_are_one_line_errors(target, message):
    with pytest.raises(TargetError, match=message) as err:
        parse_target(target)
    assert "\n" not in str(err.value)
