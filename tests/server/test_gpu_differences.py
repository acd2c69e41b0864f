"""What a real GPU does differently, in the editor, through the real server: where CuPy finds no
CUDA device (here, and in CI) no kernel gets a "▶ Run on GPU" lens and `wave-lsp.runOnGpu` says
why in one message; with a device, the lens is there and the command compares the GPU's memory
with the emulator's. A read of a register nothing wrote is an R003 warning at its line."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as t

import test_device_run as device_run
from wave_lsp.ide.gpu import gpu_status

from .conftest import ONE_PRESET, open_document
from .test_portability import execute, lenses

pytestmark = [pytest.mark.asyncio(loop_scope="module"), ONE_PRESET,
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

KERNEL = "; wave-lsp run: --fill-iota 0:f32:64:1 --device-memory 1024\n" + device_run.KERNEL


@pytest.mark.skipif(gpu_status() is None, reason="CuPy finds a CUDA device here")
async def test_without_a_gpu_there_is_no_lens_and_the_command_says_why(client):
    uri = open_document(client, KERNEL, "gpu_none")
    titles = [lens.command.title for lens in await lenses(client, uri)]
    assert "Check portability" in titles and "▶ Run on GPU" not in titles
    result = await execute(client, "wave-lsp.runOnGpu", uri, "scale")
    assert result == {"ok": False, "message": f"cannot run on a GPU: {gpu_status()}"}
    await asyncio.sleep(0.1)
    assert f"wave-lsp: cannot run on a GPU: {gpu_status()}" in [m.message for m in
                                                               client.messages]


async def test_an_unknown_kernel_is_a_message_not_a_failure(client):
    uri = open_document(client, KERNEL, "gpu_unknown")
    result = await execute(client, "wave-lsp.runOnGpu", uri, "nope")
    assert result == {"ok": False, "message": f"no kernel 'nope' in {uri!r}"}


@pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU run possible: {gpu_status()}")
async def test_with_a_gpu_the_lens_runs_and_compares(client):
    uri = open_document(client, KERNEL, "gpu_run")
    runs = [lens for lens in await lenses(client, uri) if lens.command.title == "▶ Run on GPU"]
    assert len(runs) == 1 and runs[0].range.start.line == 1
    result = await execute(client, "wave-lsp.runOnGpu", *runs[0].command.arguments)
    assert result["ok"] and result["same"], result
    assert t.MessageType.Info in [m.type for m in client.messages]


UNINITIALISED = """; wave-lsp run: --workgroup 4,1,1 --wave-width 4
.kernel uninit
.registers 8
    mov_sr  r0, sr_lane_id
    iadd    r1, r0, r5
    halt
.end
"""


async def test_an_uninitialised_read_is_an_r003_at_its_line(client):
    """Not the GPU itself but what it does differently: the run warning reaches the editor."""
    from .test_run_results import current_diagnostics, eventually, run
    uri = open_document(client, UNINITIALISED, "uninit")
    result = await run(client, uri, "uninit", None)
    assert [w["kind"] for w in result["warnings"]] == ["uninitialised_register"]

    async def found():
        return [d for d in await current_diagnostics(client, uri) if d.code == "R003"]
    (warning,) = await eventually(found)
    assert warning.range.start.line == 4 and warning.severity == t.DiagnosticSeverity.Warning
    assert warning.message.startswith("r5 is read before anything wrote it (thread 0: "
                                      "workgroup (0, 0, 0), wave 0, lane 0)")
