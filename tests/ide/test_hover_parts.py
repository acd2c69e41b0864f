"""The whole hover with what the jobs add to it, in process (`ide.hover_answer.hover_at`, the
entry the server calls): after real runs and profiles (`jobs.Jobs`), a register's values on an
executed line, the line's profile counters, the run's dumps on its launch line, each part above
the element's own text and separated by rules; on a kernel, the vendors' part below."""

from __future__ import annotations

import pytest

from wave_lsp.ide.hover_answer import hover_at, with_vendor
from wave_lsp.ide.run_hover import run_hover
from wave_lsp.ide.vendor_usage import VendorTools, kernel_figures
from wave_lsp.isa.backends import TARGET_NAMES

from .fixture import check, expect, parse_fixture
from .jobs import STORE, Jobs, render_job_hover



def _at(source: str, marker: str) -> str:
    """`source` with the cursor marker after the first `marker`."""
    return source.replace(marker, marker + "$0", 1)


def test_a_register_after_a_run_and_a_profile():
    check(lambda fx: render_job_hover(Jobs(fx, runs={"k": None}, profiles={"k": None}),
                                      fx.cursor), _at(STORE, "imul r"), expect("""
register 'r2' at 5:9-11
---
**`r2`** on line 6 in this run (k)

| lane | thread | active | before | after | who wrote it |
|---|---|---|---|---|---|
| 0 | 0 | ✓ | 0 | 0 | written by line 6, thread 0, step 2 ← imul r2, r0, r1 |
| 1 | 1 | ✓ | 0 | 4 ← | written by line 6, thread 1, step 2 ← imul r2, r0, r1 |
| 2 | 2 | ✓ | 0 | 8 ← | written by line 6, thread 2, step 2 ← imul r2, r0, r1 |
| 3 | 3 | ✓ | 0 | 12 ← | written by line 6, thread 3, step 2 ← imul r2, r0, r1 |

---
**Profile of `k`**, this line: 17% of the kernel's cost (heat 3/5)

| preset | executions | lanes | bank ways | sectors / ideal per access |
|---|--:|--:|--:|--:|
| `default` | 1 | 100% | — | — |
| `ptx` | 1 | 12% | — | — |
| `hip-cdna` | 1 | 6% | — | — |
| `hip-rdna` | 1 | 12% | — | — |
| `metal` | 1 | 12% | — | — |
| `sycl` | 1 | 25% | — | — |

---
**`r2`** general-purpose register 2 (32 bits)

kernel `k` declares 8 registers (`.registers 8`)
"""))


def test_a_register_after_a_run_only():
    check(lambda fx: render_job_hover(Jobs(fx, runs={"k": None}), fx.cursor),
          _at(STORE, "mov_sr r"), expect("""
register 'r0' at 3:11-13
---
**`r0`** on line 4 in this run (k)

| lane | thread | active | before | after | who wrote it |
|---|---|---|---|---|---|
| 0 | 0 | ✓ | 0 | 0 | written by line 4, thread 0, step 0 ← mov_sr r0, sr_lane_id |
| 1 | 1 | ✓ | 0 | 1 ← | written by line 4, thread 1, step 0 ← mov_sr r0, sr_lane_id |
| 2 | 2 | ✓ | 0 | 2 ← | written by line 4, thread 2, step 0 ← mov_sr r0, sr_lane_id |
| 3 | 3 | ✓ | 0 | 3 ← | written by line 4, thread 3, step 0 ← mov_sr r0, sr_lane_id |

---
**`r0`** general-purpose register 0 (32 bits)

kernel `k` declares 8 registers (`.registers 8`)
"""))


def test_the_launch_line_shows_the_runs_dumps():
    check(lambda fx: render_job_hover(Jobs(fx, runs={"k": None}), fx.cursor),
          _at(STORE, "; wave"), expect("""
the parts only
---
**Run of `k`**: ✓ 1.5 ms · 5 instr · 100% lanes active

4 × u32 at 0x0
```
0
1
2
3
```

Who wrote them:
- `0x0`: written by line 7, thread 0, step 3 ← device_store_u32 r2, r0
- `0x4`: written by line 7, thread 1, step 3 ← device_store_u32 r2, r0
- `0x8`: written by line 7, thread 2, step 3 ← device_store_u32 r2, r0
- `0xc`: written by line 7, thread 3, step 3 ← device_store_u32 r2, r0
"""))


def test_the_launch_line_of_a_failed_run_says_why():
    check(lambda fx: render_job_hover(Jobs(fx, runs={"k": None}), fx.cursor),
          _at(STORE.replace("--dump-u32 0:4", "--device-memory 8"), "; wave"), expect("""
the parts only
---
**Run of `k`**: ✕ out of bounds at line 7 · 1.5 ms
"""))


def test_a_kernel_without_a_launch_line_is_its_runs_anchor():
    check(lambda fx: render_job_hover(Jobs(fx, runs={"k": None}), fx.cursor),
          _at(STORE.replace("; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4\n",
                            ""), ".kernel "), expect("""
kernel 'k' at 0:8-9
---
**Run of `k`**: ✓ 1.5 ms · 5 instr · 100% lanes active

---
**kernel `k`**

| resource | value |
|---|---|
| registers declared | 8 |
| registers used | r0..r2 (3 distinct) |
| local memory | 0 bytes |
| workgroup size | 0, 0, 0 (the launcher chooses) |
| code size | 32 bytes |
| occupancy sm_75 (ptx: NVIDIA Turing) | workgroup size chosen at launch: at most 32 of 32 warps per SM (100%), limited by warps · 8 registers per thread (estimate: the kernel's `.registers`) |
| occupancy sm_90 (ptx: NVIDIA Hopper) | workgroup size chosen at launch: at most 64 of 64 warps per SM (100%), limited by warps · 8 registers per thread (estimate: the kernel's `.registers`) |
| occupancy gfx90a (hip: AMD CDNA2 (MI200), wave64) | workgroup size chosen at launch: at most 32 of 32 waves per CU (100%), limited by waves · 8 registers per thread (estimate: the kernel's `.registers`) |
| occupancy gfx1030 (hip: AMD RDNA2, wave32 in WGP mode) | workgroup size chosen at launch: at most 64 of 64 waves per WGP (100%), limited by waves · 8 registers per thread (estimate: the kernel's `.registers`) |
| occupancy apple (metal: Apple GPUs (M1-M4, A-series)) | Apple publishes no occupancy limits: no occupancy is claimed; within the per-threadgroup limits (1024 threads, 32 KiB threadgroup memory: the Metal Feature Set Tables' figures as commonly cited, an estimate) |
| occupancy xe-hpg (sycl: Intel Xe-HPG (Arc A-series)) | W8: workgroup size chosen at launch: at most 128 of 128 threads per Xe-core (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread); W16: workgroup size chosen at launch: at most 128 of 128 threads per Xe-core (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread); W32: workgroup size chosen at launch: at most 128 of 128 threads per Xe-core (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread) |
| spec §2.4 minimum | W32: 16 waves = floor(16384 / (8 x 32 x 4)); W64: 8 waves = floor(16384 / (8 x 64 x 4)) (the specification's 16 KiB minimum register file, not a GPU's) |
"""))


def test_nothing_ran_no_part():
    check(lambda fx: render_job_hover(Jobs(fx), fx.cursor), _at(STORE, "; wave"), expect("""
no hover
"""))


def test_a_kernels_vendor_part():
    """The kernel's hover names the kernel, for the vendors' figures below it: while the
    compilers still run that is said; when they report nothing, nothing is added."""
    def render(fx) -> str:
        doc = fx.state()
        answer = hover_at(doc, *fx.cursor, False, TARGET_NAMES)
        running = with_vendor(answer, doc, TARGET_NAMES, None, 10)
        none = with_vendor(answer, doc, TARGET_NAMES, [], 10)
        assert none.markdown == answer.markdown and none.range == answer.range
        return (f"kernel {answer.kernel} at {answer.range}\n"
                f"{running.markdown[len(answer.markdown):]}\n")
    check(render, _at(STORE, ".kernel "), expect("""
kernel k at (0, 8, 9)


*vendor compilers still running (more than 10 s): their figures are being computed; hover again for them*
"""))


def test_a_kernels_hover_with_what_ptxas_reports():
    """With ptxas' figures the hover's occupancy rows of the PTX targets count ptxas' registers
    (not the `.registers` estimate) and the vendors' table follows; below a run's part."""
    tools = VendorTools.find()
    if tools.compiler("ptx") is None:
        pytest.skip("ptxas is not installed here")
    fx = parse_fixture(_at(STORE.replace("; wave-lsp run: --workgroup 4,1,1 --wave-width 4 "
                                         "--dump-u32 0:4\n", ""), ".kernel "))
    jobs = Jobs(fx, runs={"k": None})
    doc = jobs.doc
    answer = hover_at(doc, *fx.cursor, False, TARGET_NAMES,
                      [lambda at, target: run_hover(doc, jobs.runs, at, target)])
    figures = kernel_figures(doc.document, "k", tools, ("ptx",))
    text = with_vendor(answer, doc, TARGET_NAMES, figures, 10).markdown
    run_part, rest = text.split("\n\n---\n")
    table, vendor = rest.split("\n\n**vendor compilers**")
    assert run_part == "**Run of `k`**: ✓ 1.5 ms · 5 instr · 100% lanes active"
    rows = {line.split(" | ")[0]: line for line in table.splitlines()}
    for arch in ("sm_75", "sm_90"):
        name = "Turing" if arch == "sm_75" else "Hopper"
        row = rows[f"| occupancy {arch} (ptx: NVIDIA {name})"]
        registers = dict(next(f for f in figures if f.arch == arch).figures)["registers"]
        assert row.endswith(f"· {registers} registers per thread (ptxas) |"), row
        assert f"| ptx {arch} (ptxas) | registers {registers}," in vendor
    assert "8 registers per thread (estimate: the kernel's `.registers`)" in \
        rows["| occupancy gfx90a (hip: AMD CDNA2 (MI200), wave64)"]
