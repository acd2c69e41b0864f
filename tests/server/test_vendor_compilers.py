"""The vendors' compilers in the editor, through the real server: the kernel hover and
`wave-lsp.kernelResources` add what ptxas and hipcc report per architecture (the same figures
as running them on `wave-lsp emit`'s output), and Show PTX/HIP (`wave-lsp.emit`) gives their
verdict and each message on its source line. `backends.ptxas: false` turns ptxas off; a path
that is not a program is reported.
"""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from wave_lsp.asm import vendors
from wave_lsp.asm.backends import emit
from wave_lsp.isa.backends import VENDOR_ARCHES

from vendor_batch import compiler
from .conftest import ONE_PRESET, example, open_document
from .test_portability import configure, execute

pytestmark = [pytest.mark.asyncio(loop_scope="module"), ONE_PRESET, pytest.mark.hipcc,
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

HALF = ".kernel halves\n.registers 8\n    mov_imm r1, 0x3C00\n    hadd r2, r1, r1\n" \
       "    iclamp r3, r1, r2, r2\n    halt\n.end\n"


def _expected(source: str, name: str) -> dict[tuple[str, str], dict[str, int]]:
    """What ptxas and hipcc say about the kernel when run here on `wave-lsp emit`'s output."""
    out = {}
    for target in ("ptx", "hip"):
        for check in vendors.check_all(target, emit(source, target).text,
                                       vendors.find_compiler(target)):
            out[(target, check.arch)] = dict(check.usage_of(name).figures)
    return out


async def test_kernel_resources_command_adds_vendor_figures(client):
    compiler("ptx"), compiler("hip")
    source = example("reduction")
    uri = open_document(client, source, "vendor_resources")
    result = await execute(client, "wave-lsp.kernelResources", uri, "reduction")
    got = {(v["target"], v["arch"]): v["figures"] for v in result["vendor"]}
    assert set(got) == {(t, a) for t in ("ptx", "hip") for a in VENDOR_ARCHES[t]}
    assert got == _expected(source, "reduction")
    assert got[("ptx", "sm_75")]["registers"] > 0 and "spill stores" in got[("ptx", "sm_90")]
    assert got[("hip", "gfx90a")]["VGPRs"] > 0 and "occupancy waves/SIMD" in got[("hip", "gfx1030")]
    assert result["kernel"] == "reduction" and result["registersDeclared"] > 0
    # the occupancy rows use the compilers' register counts
    rows = {r["arch"]: r for rs in result["targets"].values() for r in rs}
    assert (rows["sm_75"]["registerSource"], rows["sm_75"]["registers"]) == \
        ("ptxas", got[("ptx", "sm_75")]["registers"])
    assert (rows["gfx90a"]["registerSource"], rows["gfx90a"]["registers"]) == \
        ("hipcc", got[("hip", "gfx90a")]["VGPRs"] + got[("hip", "gfx90a")].get("AGPRs", 0))
    assert rows["xe-hpg"]["registerSource"] == "estimate"
    assert all(not r["exceeds"] and r["residentWorkgroups"] for a, r in rows.items()
               if a != "apple")


async def test_kernel_hover_shows_vendor_figures(client):
    compiler("ptx"), compiler("hip")
    source = example("reduction")
    uri = open_document(client, source, "vendor_hover")
    line = next(i for i, l in enumerate(source.splitlines()) if l.startswith(".kernel"))
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        position=t.Position(line=line, character=len(".kernel ") + 2)))
    text = hover.contents.value
    assert "kernel `reduction`" in text and "vendor compilers" in text
    for arch in ("sm_75", "sm_90", "gfx90a", "gfx1030"):
        assert arch in text
    figures = _expected(source, "reduction")
    assert f"registers {figures[('ptx', 'sm_75')]['registers']}," in text
    assert f"VGPRs {figures[('hip', 'gfx90a')]['VGPRs']}," in text
    sm75 = figures[('ptx', 'sm_75')]['registers']
    assert f"| occupancy sm_75 (ptx: NVIDIA Turing) |" in text
    assert f"{sm75} registers per thread (ptxas)" in text
    lenses = await client.text_document_code_lens_async(t.CodeLensParams(
        text_document=t.TextDocumentIdentifier(uri=uri)))
    assert not [lens for lens in lenses if "sm_75" in (lens.command.title or "")]


async def test_show_ptx_and_hip_carry_the_compilers_messages_on_source_lines(client):
    compiler("ptx"), compiler("hip")
    uri = open_document(client, HALF, "vendor_emit")
    lines = HALF.splitlines()
    for target, bad in (("ptx", "hadd"), ("hip", "iclamp")):
        ours = await execute(client, "wave-lsp.emit", uri, target)
        assert [v["accepted"] for v in ours["vendor"]] == [True, True]
        assert ours["messages"] == [] or all(m["severity"] == "warning" for m in ours["messages"])
        assert ours["text"].rstrip().splitlines()[-1].endswith(": accepted")
        upstream = await execute(client, "wave-lsp.emit", uri, target, "upstream")
        assert [v["accepted"] for v in upstream["vendor"]] == [False, False]
        errors = [m for m in upstream["messages"] if m["severity"] == "error"]
        assert errors and {m["arch"] for m in errors} == set(VENDOR_ARCHES[target])
        assert {lines[m["sourceLine"]].split()[0] for m in errors if m["sourceLine"] is not None} \
            == {bad}
        generated = upstream["text"].splitlines()
        assert all(generated[g] for g, _s in upstream["map"])         # the map is unchanged
        bad_line = next(i for i, line in enumerate(lines) if bad in line)
        assert "REJECTED" in upstream["text"]
        assert f"(source line {bad_line + 1})" in upstream["text"]


async def test_backends_setting_turns_a_compiler_off(client):
    compiler("ptx")
    uri = open_document(client, example("reduction"), "vendor_off")
    try:
        await configure(client, {"backends": {"ptxas": False}})
        result = await execute(client, "wave-lsp.kernelResources", uri, "reduction")
        assert not [v for v in result["vendor"] if v["target"] == "ptx"]
        shown = await execute(client, "wave-lsp.emit", uri, "ptx")
        assert "vendor" not in shown and "ptxas sm_" not in shown["text"]
        assert shown["vendorAbsent"]["reason"] == "off"     # the view says why
        await configure(client, {"backends": {"ptxas": "/nonexistent/ptxas", "nvcc": "x"}})
        shown = [m.message for m in client.messages]
        assert any("backends.ptxas: '/nonexistent/ptxas' is not an executable program" in m
                   and "backends.nvcc: unknown setting" in m for m in shown)
        result = await execute(client, "wave-lsp.kernelResources", uri, "reduction")
        assert not [v for v in result["vendor"] if v["target"] == "ptx"]
        await configure(client, {"backends": {"ptxas": vendors.wheel_ptxas() or "ptxas"}})
        result = await execute(client, "wave-lsp.kernelResources", uri, "reduction")
        assert {v["arch"] for v in result["vendor"] if v["target"] == "ptx"} == {"sm_75", "sm_90"}
    finally:
        await configure(client, {})
