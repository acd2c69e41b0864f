"""The vendors' compilers explained and heard, through the real server.

Absent (`backends.ptxas: false`, `backends.hipcc: false`, and a PATH without them: the nvidia
wheel in the venv would otherwise be found): the kernel hover and Show PTX/HIP say what ptxas and
hipcc would add, how to install them and which setting points at them. Present: a compiler's
rejection of the translation is a P824 diagnostic on the kernel's source line, for a planted
ptxas that rejects one instruction's generated line (configured by absolute path in a trusted
workspace) and for the real ptxas rejecting a kernel's shared memory (no line: the `.kernel`
line), gone once the edit fixes it, and never for a target that is not configured.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from wave_lsp.asm.vendors import COMPILER_VARIABLES

from .conftest import PRESETS, SERVER, VS_CODE, configure, open_document, server_config
from .test_portability import execute
from .test_run_results import _watch_refreshes

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

KERNEL = (".kernel k\n.registers 4\n    mov_sr r0, sr_lane_id\n    mov_imm r1, 7\n"
          "    xor r2, r0, r1\n    halt\n.end\n")
XOR_LINE = 4
BIG = ".kernel big\n.registers 8\n.local_memory 200000\n    mov_imm r1, 0\n" \
      "    local_store_u32 r1, r1\n    halt\n.end\n"
FAKE_ERROR = "Arguments mismatch for instruction 'xor'"


def _path_without_compilers() -> str:
    """PATH without the folders that hold ptxas or hipcc (/bin too, where it is /usr/bin)."""
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and not any(shutil.which(name, path=p)
                                            for name in ("ptxas", "hipcc")))


NO_COMPILERS = server_config({**{k: v for k, v in os.environ.items()
                                 if k not in COMPILER_VARIABLES.values()},
                              "PATH": _path_without_compilers()})


async def _initialise(lsp_client: LanguageClient, preset: str, backends: dict) -> None:
    """A trusted session as the editor `preset`, with the vendor compiler settings `backends`."""
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(preset),
        initialization_options={"workspaceTrusted": True, "diagnostics": {"debounceMs": 5},
                                "backends": backends}))


# hipcc turned off by the environment (no setting names one), ptxas by its setting
HIPCC_OFF = server_config({**os.environ, "WAVE_LSP_HIPCC": " Off "})


@pytest_lsp.fixture(config=HIPCC_OFF, scope="module")
async def hipcc_off(lsp_client: LanguageClient):
    await _initialise(lsp_client, PRESETS[1], {"ptxas": False})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=NO_COMPILERS, scope="module")
async def bare(lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    await _initialise(lsp_client, PRESETS[1], {"ptxas": False, "hipcc": False})
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def fake_ptxas(tmp_path_factory) -> Path:
    """A "ptxas" that rejects the generated line of the first `xor.b32`, as ptxas words it."""
    program = tmp_path_factory.mktemp("fake-ptxas") / "ptxas"
    program.write_text(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.ptx) f=\"$a\";; esac; done\n"
        "n=$(grep -n 'xor.b32' \"$f\" | head -1 | cut -d: -f1)\n"
        "if [ -z \"$n\" ]; then exit 0; fi\n"
        f"echo \"ptxas $f, line $n; error   : {FAKE_ERROR}\" >&2\n"
        "echo 'ptxas fatal   : Ptx assembly aborted due to errors' >&2\nexit 1\n")
    program.chmod(0o755)
    return program


@pytest_lsp.fixture(params=VS_CODE, config=SERVER, scope="module")
async def planted(request, lsp_client: LanguageClient, fake_ptxas):
    _watch_refreshes(lsp_client)
    await _initialise(lsp_client, request.param, {"ptxas": str(fake_ptxas), "hipcc": False})
    lsp_client.preset = request.param
    lsp_client.fake_ptxas = fake_ptxas
    yield
    await lsp_client.shutdown_session()


async def _hover(client, uri: str, line: int = 0, character: int = 9) -> str:
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        position=t.Position(line=line, character=character)))
    return hover.contents.value if isinstance(hover.contents, t.MarkupContent) \
        else str(hover.contents)


async def test_the_kernel_hover_explains_the_missing_compilers(bare):
    uri = open_document(bare, KERNEL, "absent_hover")
    text = await _hover(bare, uri)
    assert "kernel `k`" in text and "vendor compilers**" not in text
    assert "**ptxas** turned off (`backends.ptxas: false`)" in text
    assert f"`{sys.executable} -m pip install nvidia-cuda-nvcc-cu12`" in text
    assert "registers, spills, shared memory" in text and "verdict on the PTX" in text
    assert "`wave.backends.ptxas`" in text
    assert "**hipcc** turned off" in text
    assert "`sudo apt-get install hipcc rocm-device-libs libamdhip64-dev`" in text
    assert "VGPRs, SGPRs, spills, LDS, occupancy" in text and "`wave.backends.hipcc`" in text


async def test_a_compiler_not_on_path_is_explained_as_not_found(bare):
    """hipcc unset, and not on the server's PATH: "not found", with the same advice."""
    try:
        await configure(bare, {"backends": {"ptxas": False}})
        uri = open_document(bare, KERNEL, "absent_path")
        text = await _hover(bare, uri)
        assert "**hipcc** not found (not on PATH)" in text, text
        assert "`sudo apt-get install hipcc rocm-device-libs libamdhip64-dev`" in text
        shown = await execute(bare, "wave-lsp.emit", uri, "hip")
        assert shown["vendorAbsent"]["reason"] == "not found"
    finally:
        await configure(bare, {"backends": {"ptxas": False, "hipcc": False}})


async def test_a_compiler_the_environment_turns_off_is_explained_so(hipcc_off):
    uri = open_document(hipcc_off, KERNEL, "env_off")
    text = await _hover(hipcc_off, uri)
    assert "**hipcc** turned off (`WAVE_LSP_HIPCC=Off`)" in text, text
    assert "`wave.backends.hipcc`" in text        # the setting still points at another one
    shown = await execute(hipcc_off, "wave-lsp.emit", uri, "hip")
    assert shown["vendorAbsent"]["reason"] == "off"
    assert "hipcc turned off (`WAVE_LSP_HIPCC=Off`)" in " ".join(
        line.lstrip("/ ") for line in shown["text"].splitlines() if line.startswith("//"))


async def test_show_ptx_and_hip_explain_the_missing_compiler(bare):
    uri = open_document(bare, KERNEL, "absent_emit")
    for target, compiler, install in (
            ("ptx", "ptxas", "-m pip install nvidia-cuda-nvcc-cu12"),
            ("hip", "hipcc", "sudo apt-get install hipcc rocm-device-libs libamdhip64-dev")):
        shown = await execute(bare, "wave-lsp.emit", uri, target)
        assert "vendor" not in shown and shown["vendorAbsent"]["compiler"] == compiler
        assert shown["vendorAbsent"]["reason"] == "off"
        assert shown["vendorAbsent"]["install"].endswith(install)
        assert shown["vendorAbsent"]["setting"] == f"backends.{compiler}"
        tail = " ".join(line.lstrip("/ ") for line in shown["text"].splitlines()
                        if line.startswith("//") and compiler in shown["text"])
        assert f"{compiler} turned off" in tail and install in tail
        assert f"wave.backends.{compiler}" in tail
        generated = shown["text"].splitlines()
        assert all(generated[g] for g, _s in shown["map"])          # the map is unchanged
    # Metal has no vendor compiler in the editor: nothing to explain
    assert "vendorAbsent" not in await execute(bare, "wave-lsp.emit", uri, "metal")


async def test_a_rejected_translation_is_a_diagnostic_on_its_source_line(planted):
    uri = open_document(planted, KERNEL, "rejected")
    params = await planted.protocol.publication(
        uri, lambda p: any(d.code == "P824" for d in p.diagnostics))
    found = [d for d in params.diagnostics if d.code == "P824"]
    assert len(found) == 1, found
    d = found[0]
    assert d.range.start.line == XOR_LINE and d.severity == t.DiagnosticSeverity.Warning
    assert d.range.start.character == 4
    assert FAKE_ERROR in d.message and "ptxas (sm_75, sm_90)" in d.message
    assert "PTX translation (generated line " in d.message
    # the view says the same
    shown = await execute(planted, "wave-lsp.emit", uri, "ptx")
    assert [m["sourceLine"] for m in shown["messages"]] == [XOR_LINE, XOR_LINE]
    # an edit that removes the instruction removes the diagnostic
    fixed = KERNEL.replace("    xor r2, r0, r1\n", "    iadd r2, r0, r1\n")
    planted.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=fixed)]))
    params = await planted.protocol.publication(
        uri, lambda p: p.version == 2 and not any(d.code == "P824" for d in p.diagnostics))
    assert not [d for d in params.diagnostics if d.code == "P824"]


async def test_only_configured_targets_are_checked(planted):
    backends = {"ptxas": str(planted.fake_ptxas), "hipcc": False}
    try:
        await configure(planted, {"targets": ["hip", "metal"], "backends": backends})
        uri = open_document(planted, KERNEL, "not_configured")
        await planted.protocol.publication(uri)
        # Show PTX runs the planted ptxas after any job the open queued (one reader worker)
        shown = await execute(planted, "wave-lsp.emit", uri, "ptx")
        assert shown["vendor"] and not any(v["accepted"] for v in shown["vendor"])
        await asyncio.sleep(0.5)
        assert not [d for p in planted.protocol.publications if p.uri == uri
                    for d in p.diagnostics if d.code == "P824"]
    finally:
        await configure(planted, {"backends": backends})


async def test_the_real_ptxas_rejection_lands_on_the_kernel_line(client_real):
    uri = open_document(client_real, BIG, "too_big")
    params = await client_real.protocol.publication(
        uri, lambda p: any(d.code == "P824" for d in p.diagnostics))
    found = [d for d in params.diagnostics if d.code == "P824"]
    assert [d.range.start.line for d in found] == [0]
    assert "uses too much shared data" in found[0].message
    assert "ptxas (sm_75, sm_90)" in found[0].message


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client_real(lsp_client: LanguageClient):
    from wave_lsp.asm import vendors
    if vendors.find_compiler("ptx") is None:
        pytest.skip("ptxas is not installed (pip install nvidia-cuda-nvcc-cu12)")
    _watch_refreshes(lsp_client)
    await _initialise(lsp_client, PRESETS[0], {"hipcc": False})
    yield
    await lsp_client.shutdown_session()
