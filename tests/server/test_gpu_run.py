"""The editor's GPU offer through the real server: where CuPy finds no CUDA device (here, and in
CI) no kernel gets a "▶ Run on GPU" lens and `wave-lsp.runOnGpu` says why in one message; with a
device, the lens is there and the command compares the GPU's memory with the emulator's."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as t

import test_device_run as device_run
from wave_lsp.ide.gpu import gpu_status

from .conftest import open_document
from .test_portability import execute, lenses

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
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
