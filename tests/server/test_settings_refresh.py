"""A settings change makes the client re-request what settings shape: inlay hints (offsets and
encodings) and code lenses, through `workspace/inlayHint/refresh` and `workspace/codeLens/refresh`
where the client supports them (the VS Code extension relies on this: a change applies without a
restart)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as t

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]


async def test_settings_change_asks_for_fresh_hints_and_lenses(client):
    caps = client.capabilities.workspace
    hints = bool(caps.inlay_hint and caps.inlay_hint.refresh_support)
    lenses = bool(caps.code_lens and caps.code_lens.refresh_support)
    assert hints or lenses, "both presets announce at least one refresh"
    before = len(client.inlay_hint_refreshes), len(client.lens_refreshes)
    client.set_configuration({"inlayHints": {"encoding": False}}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    # The change may queue behind the server's start-up work (seconds on a loaded machine).
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        now = len(client.inlay_hint_refreshes), len(client.lens_refreshes)
        if (not hints or now[0] > before[0]) and (not lenses or now[1] > before[1]):
            break
        if asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.05)
    assert (now[0] > before[0]) == hints
    assert (now[1] > before[1]) == lenses
    client.set_configuration({}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.2)
