"""The code lenses of every line through the real server (as Neovim and as VS Code): the run
lens comes first, the resource lens is short with the full table in its tooltip, and every
line's titles, joined as an editor shows them, fit in 120 characters — before a run, after a
run of a kernel without a launch line, after a run that failed with a long message, and with
portability results shown."""

from __future__ import annotations

from collections import defaultdict

import pytest
from lsprotocol import types as t

from .conftest import example, example_names, open_document
from .test_run_results import (OUT_OF_BOUNDS, PROJECT_EXAMPLES, client, ident, line_of,  # noqa: F401
                               run, with_launch_line)

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

RUN = ("wave-lsp.run", "wave-lsp.clear")


columns: dict[int, list[int]] = {}


async def lines_of_lenses(client, uri: str) -> dict[int, list[t.Command]]:
    got = await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))
    by_line: dict[int, list[t.Command]] = defaultdict(list)
    columns.clear()
    for lens in got:
        by_line[lens.range.start.line].append(lens.command)
        columns.setdefault(lens.range.start.line, []).append(lens.range.start.character)
    return by_line


def check_layout(text: str, by_line: dict[int, list[t.Command]]) -> None:
    kernels = [i for i, line in enumerate(text.split("\n")) if line.lstrip().startswith(".kernel")]
    assert kernels and set(kernels) <= set(by_line)
    for line, commands in by_line.items():
        joined = " | ".join(c.title for c in commands)
        assert len(joined) <= 120, f"line {line}: {len(joined)} characters: {joined}"
        kinds = [c.command in RUN for c in commands]
        # in the order of their start columns too (Neovim sorts a line's lenses by column)
        assert columns[line] == sorted(columns[line]), f"line {line}: {columns[line]}"
        assert kinds == sorted(kinds, reverse=True), f"line {line}: run lenses not first: {joined}"
    for line in kernels:
        titles = [c.title for c in by_line[line]]
        assert titles[0].startswith("▶ Run"), titles
        assert len(set(columns[line])) == len(titles), columns[line]   # strictly increasing
        assert "Assemble" in titles and "Check portability" in titles


@pytest.mark.parametrize("name", example_names())
async def test_conformance_kernels_lenses_fit_with_run_first(client, name):
    text = example(name)
    uri = open_document(client, text, f"layout_{name}")
    by_line = await lines_of_lenses(client, uri)
    check_layout(text, by_line)
    kernel = line_of(text, ".kernel")
    resource = next(c for c in by_line[kernel] if c.command == "wave-lsp.kernelResources")
    assert len(resource.title) <= 45 and resource.title.split(" · ")[0].endswith(" regs")
    assert "local" in resource.title
    # The full table: registers, occupancy per target architecture, in the tooltip.
    assert "registers declared" in resource.tooltip and "occupancy gfx90a" in resource.tooltip
    assert "ptx" in resource.tooltip and "hip" in resource.tooltip


async def test_short_resource_lens_reads_as_the_issue_asks(client):
    text = (".kernel k\n.registers 16\n.local_memory 1024\n.workgroup_size 256, 1, 1\n"
            "    halt\n.end\n")
    uri = open_document(client, text, "layout_short")
    titles = [c.title for c in (await lines_of_lenses(client, uri))[0]]
    assert titles == ["▶ Run", "◔ Profile", "16 regs · 1 KiB local · 8 waves/wg (W32)",
                      "Assemble", "Check portability", "Verify"]


@pytest.mark.parametrize("name", sorted(p.stem for p in PROJECT_EXAMPLES.glob("*.wave")))
async def test_lenses_fit_after_runs_and_portability_checks(client, name):
    # the example without its kernel test: the run's results then sit on the kernel line
    plain = "".join(line for line in (PROJECT_EXAMPLES / f"{name}.wave").read_text()
                    .splitlines(keepends=True) if "; wave-lsp " not in line)
    uri = open_document(client, plain, f"layout_run_{name}")
    result = await run(client, uri, name, None)         # the kernel line: no launch line
    kernel = line_of(plain, ".kernel")
    by_line = await lines_of_lenses(client, uri)
    check_layout(plain, by_line)
    titles = [c.title for c in by_line[kernel]]
    assert titles[0] == "▶ Run again" and titles[2] == "✕ Clear", titles
    assert titles[1].startswith("✓" if result["ok"] else "✕")
    full = by_line[kernel][1].tooltip or titles[1]
    assert full == result["summary"]

    text, _ = with_launch_line(PROJECT_EXAMPLES / f"{name}.wave")
    uri = open_document(client, text, f"layout_launch_{name}")
    await run(client, uri, name, line_of(text, "wave-lsp run:"))
    await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.checkPortability", arguments=[uri, name]))
    check_layout(text, await lines_of_lenses(client, uri))


async def test_a_long_run_error_is_cut_with_its_full_text_in_the_tooltip(client):
    text = OUT_OF_BOUNDS.replace("device_store_u32 r2, r0", "device_store_u32 [r2 + 4], r0")
    uri = open_document(client, text, "layout_error")
    result = await run(client, uri, "oob", None)
    assert not result["ok"]
    by_line = await lines_of_lenses(client, uri)
    check_layout(text, by_line)
    outcome = by_line[0][1]
    assert outcome.title.startswith("✕ ") and outcome.command == "wave-lsp.run"
    assert "cannot run: line 7" in result["summary"] and len(result["summary"]) > 50
    assert outcome.title.endswith("…") and outcome.tooltip == result["summary"]
    assert len(outcome.title) >= 20   # still says what happened
