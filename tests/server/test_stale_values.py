"""Stale inline values: an edit that leaves a line unassemblable keeps the last
run's values on screen, marked stale and moved with their lines, until the next run's arrive;
in both client presets (VS Code and Neovim)."""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from wave_lsp.ide.stale_values import STALE_MARK, carried_lines

from .test_run_results import change, client, eventually, hints, line_of, run  # noqa: F401
from .conftest import open_document

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

KERNEL = (".kernel k\n; wave-lsp run: --workgroup 4,1,1\n.registers 8\n"
          "    mov_sr  r0, sr_lane_id\n    mov_imm r1, 3\n    iadd    r2, r0, r1\n"
          "    halt\n.end\n")


async def test_lines_are_carried_only_when_unchanged_and_in_order():
    old = ["a", "b", "c", "d"]
    assert carried_lines(old, ["x", "a", "b", "c", "d"]) == {0: 1, 1: 2, 2: 3, 3: 4}
    assert carried_lines(old, ["a", "B", "c", "d"]) == {0: 0, 2: 2, 3: 3}
    assert carried_lines(old, ["a", "d"]) == {0: 0, 3: 1}


async def test_values_stay_stale_while_the_source_does_not_assemble(client):  # noqa: F811
    uri = open_document(client, KERNEL, "stale")
    await run(client, uri, "k", 1)
    iadd = line_of(KERNEL, "iadd")
    fresh = await eventually(lambda: hints(client, uri))
    assert fresh[iadd] == "r2 = 3, 4, 5, 6", fresh

    # `mov_imm r1,` does not assemble: the other lines keep their values, marked stale
    broken = change(client, uri, 2, line_of(KERNEL, "mov_imm"), "3", "", KERNEL)

    async def stale():
        got = await hints(client, uri)
        return got if got.get(iadd, "").startswith(STALE_MARK) else None
    got = await eventually(stale)
    assert got[iadd] == STALE_MARK + "r2 = 3, 4, 5, 6", got
    assert got[line_of(broken, "mov_sr")] == STALE_MARK + "r0 = 0, 1, 2, 3", got
    assert line_of(broken, "mov_imm") not in got, got    # its own line changed: no value

    # a line inserted above: the stale values move with their lines
    fixed = broken.replace(".registers 8\n", ".registers 8\n    ; note\n")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=fixed)]))

    async def moved():
        got = await hints(client, uri)
        return got if got.get(iadd + 1, "").startswith(STALE_MARK) else None
    got = await eventually(moved)
    assert got[iadd + 1] == STALE_MARK + "r2 = 3, 4, 5, 6" and iadd not in got, got

    # fixed: the new run's values replace the stale ones
    change(client, uri, 4, line_of(fixed, "mov_imm"), "r1, ", "r1, 5", fixed)

    async def replaced():
        got = await hints(client, uri)
        return got if got.get(iadd + 1) == "r2 = 5, 6, 7, 8" else None
    got = await eventually(replaced)
    assert not any(label.startswith(STALE_MARK) for label in got.values()), got
