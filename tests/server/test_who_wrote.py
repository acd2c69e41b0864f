"""`wave-lsp.whoWrote` through the real server: a register lane and a memory word of a
multi-workgroup run answered with the writer and its inputs (from the inline run's recording or
a recording made for the target), agreeing with `wave-lsp why`; bad targets refused with a
one-line message."""

from __future__ import annotations

import subprocess

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient

from .conftest import SERVER, VS_CODE
from .test_hostile_launches import open_file
from .test_run_results import _watch_refreshes
from tests.time_travel_kernels import WRITERS_BODY, WRITERS_FLAGS, kernel
from tests.forkserver import wave_lsp_argv

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

FLAGS = WRITERS_FLAGS
KERNEL = kernel("k", WRITERS_BODY, FLAGS, "after_kernel")


@pytest_lsp.fixture(params=VS_CODE, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=pytest_lsp.client_capabilities(request.param),
        initialization_options={"diagnostics": {"debounceMs": 5}}))
    yield
    await lsp_client.shutdown_session()


async def who_wrote(client, *args):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.whoWrote", arguments=list(args)))


async def test_a_register_lane_and_a_memory_word(client, tmp_path):
    uri = open_file(client, tmp_path / "k.wave", KERNEL)
    run = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.run", arguments=[uri, "k", None]))
    assert run["ok"], run
    # thread 19 (workgroup 2): r5 at the store (0-based line 11) -- not a shown workgroup
    got = await who_wrote(client, uri, "k", 1, {"register": "r5", "lane": 19, "line": 11})
    assert {k: got[k] for k in ("value", "line", "lane", "wave", "workgroup", "step",
                                "iteration", "instruction")} == {
        "value": 1019, "line": 8, "lane": 19, "wave": 0, "workgroup": 2, "step": 5,
        "iteration": 1, "instruction": "iadd r5, r4, r6"}
    assert [(i["operand"], i["value"], i["writer"]["line"]) for i in got["inputs"]] == [
        ("r4", 19, 7), ("r6", 1000, None)]
    assert got["inputs"][1]["writer"]["input"] == "--set-reg 6:1000"
    word = await who_wrote(client, uri, "k", None, {"address": 4 * 13})
    assert (word["value"], word["line"], word["lane"], word["workgroup"]) == (1013, 11, 13, 1)
    assert word["instruction"] == "device_store_u32 r7, r5"
    path = tmp_path / "k.wave"
    cli = subprocess.run(wave_lsp_argv("why", str(path), *FLAGS.split(), "--address",
                                       str(4 * 13), "--depth", "1"), capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.splitlines()[:2] == [
        "device[0x34] = 0x3f5",
        "  ← line 12, lane 13: device_store_u32 r7, r5 (workgroup 1, wave 1, step 8, "
        "iteration 1)"]


@pytest.mark.parametrize("target, message", [
    ({"register": "r5", "lane": 99, "line": 11}, "thread 99 is not in the launch"),
    ({"register": "r5", "lane": 1, "line": 2}, "line 3 did not run in thread 1"),
    ({"address": 1 << 30}, "outside device memory"),
    ({"lane": 1}, "the target must be"),
])
async def test_bad_targets_are_refused_with_one_line(client, tmp_path, target, message):
    uri = open_file(client, tmp_path / "k.wave", KERNEL)
    got = await who_wrote(client, uri, "k", None, target)
    assert got["ok"] is False and message in got["message"] and "\n" not in got["message"]
