"""Kernel profiles end to end: the real server as Neovim and as VS Code shows a
Profile lens beside Run, answers `wave-lsp.profile` with the `--profile --json` object plus the
heat, then shows hints on the lines that matter, the counters of every preset in the hover and
information diagnostics that say what to change; it re-profiles after an edit (a newer edit
cancelling the older profile), tells the client's heat view (`wave-lsp/profileChanged`), clears,
refuses bad requests with a message and keeps answering while a long kernel is profiled."""

from __future__ import annotations

import asyncio
import time

import pytest
from lsprotocol import types as t

from profile_kernels import (BANKS, BRANCH, BRANCH_END, KERNEL, LAUNCH, SECTORS, STRIDE_WORDS,
                             STRIDED)

from .lspclient import edits_of
from .conftest import client_position, configure, open_document
from .test_hostile_launches import untrusted_once  # noqa: F401 (a fixture)
from .test_run_results import (INIT, client, current_diagnostics, eventually, hints,  # noqa: F401
                               ident)

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

COUNTERS = ["line", "executions", "active_lanes", "lane_slots", "local_wavefronts",
            "local_ideal_wavefronts", "global_sectors", "global_ideal_sectors",
            "divergent_branches"]
VENDORS = ("ptx", "hip-cdna", "hip-rdna", "metal", "sycl")
SPIN = (".kernel spin\n; wave-lsp run: --grid 65535,1,1 --workgroup 256,1,1\n.registers 4\n"
        "    mov_imm r0, 1\n    loop\n        iadd r0, r0, r0\n    endloop\n    halt\n.end\n")


@pytest.fixture
def heard(client):
    """The `wave-lsp/profileChanged` notifications, in `client.profile_changes`."""
    if not hasattr(client, "profile_changes"):
        client.profile_changes = []
        client.feature("wave-lsp/profileChanged")(
            lambda params: client.profile_changes.append(params))


async def profile(client, uri: str, kernel, line) -> dict:
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.profile", arguments=[uri, kernel, line]))


async def lens_titles(client, uri: str) -> dict[int, list[tuple[str, str, list]]]:
    got = await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))
    out: dict[int, list] = {}
    for lens in got:
        out.setdefault(lens.range.start.line, []).append(
            (lens.command.title, lens.command.command, lens.command.arguments))
    return out


def plain(value):
    """A notification's params as pygls gives them (named tuples) as plain JSON values."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def changes_for(client, uri: str, version: int) -> list[dict]:
    """The `wave-lsp/profileChanged` notifications for the document's `version`."""
    return [p for p in map(plain, client.profile_changes)
            if p["uri"] == uri and p["version"] == version]


async def test_a_profile_lens_beside_each_run_lens(client):
    uri = open_document(client, STRIDED, "profile_lens")
    lenses = await lens_titles(client, uri)
    for line in (KERNEL, LAUNCH):
        titles = [title for title, _, _ in lenses[line]]
        assert titles[:2] == ["▶ Run", "◔ Profile"], titles
        _, command, arguments = lenses[line][1]
        assert command == "wave-lsp.profile"
        assert list(arguments) == [uri, "strided", None if line == KERNEL else LAUNCH]
        assert len(" | ".join(titles)) <= 104


async def test_the_command_answers_the_profile_json_with_heat(client, heard):
    uri = open_document(client, STRIDED, "profile_json")
    result = await profile(client, uri, "strided", LAUNCH)
    assert result["ok"] and result["status"] == "ok", result
    assert result["uri"] == uri and result["kernel"] == "strided" and result["launchLine"] == LAUNCH
    assert result["target"] == "default"
    by_line = {entry["line"]: entry for entry in result["lines"]}      # 1-based
    assert all(list(entry) == COUNTERS for entry in result["lines"])
    banks, sectors = by_line[BANKS + 1], by_line[SECTORS + 1]
    assert (banks["executions"], banks["local_wavefronts"], banks["local_ideal_wavefronts"]) \
        == (8, 16, 8)
    assert (sectors["global_sectors"], sectors["global_ideal_sectors"]) == (256, 32)
    branch = by_line[BRANCH + 1]
    assert branch["active_lanes"] == 32 and branch["lane_slots"] == 32 * branch["executions"]
    # `if p1` (threads 0-7): the first wave of each of the 4 workgroups splits, the second
    # takes no lane (a uniform branch around the body, which it never executes)
    assert by_line[BRANCH]["divergent_branches"] == 4 and branch["executions"] == 4
    assert result["totals"]["divergent_branches"] == 4
    assert result["totals"]["global_sectors"] == sum(e["global_sectors"] for e in result["lines"])
    heat = {h["line"]: h for h in result["heat"]}
    assert set(heat) == set(by_line)
    assert heat[SECTORS + 1]["level"] == 5 and max(h["share"] for h in heat.values()) \
        == heat[SECTORS + 1]["share"]
    assert {h["level"] for h in heat.values()} <= {1, 2, 3, 4, 5}
    assert abs(sum(h["share"] for h in heat.values()) - 1) < 0.01
    assert set(result["presets"]) == {"default", *VENDORS}
    assert result["presets"]["hip-cdna"]["wave_width"] == 64
    # the heat view hears of it: the same object, for the document's version
    change = await eventually(lambda: _async(changes_for(client, uri, 1)))
    assert [p["kernel"] for p in change[-1]["profiles"]] == ["strided"]
    # first the launch's own preset (the heat at once), then with every vendor's preset
    assert [c["profiles"][0]["complete"] for c in change] == [False, True]
    assert list(change[0]["profiles"][0]["presets"]) == ["default"]
    assert change[-1]["profiles"][0]["heat"] == result["heat"]


async def _async(value):
    return value


async def test_hints_hover_and_diagnostics_after_a_profile(client):
    uri = open_document(client, STRIDED, "profile_views")
    await profile(client, uri, "strided", None)
    shown = await eventually(lambda: hints(client, uri))
    assert shown[BANKS] == "2-way bank conflict"
    assert shown[SECTORS] == "8 wave-instrs · 32 sectors (ideal 4)"
    assert shown[BRANCH] == "4 wave-instrs · 25% lanes"
    assert shown[BRANCH - 1] == "4 of 8 divergent"                           # the `if p1`
    assert not any(line in shown for line in range(BRANCH + 1, BRANCH_END + 1))  # one per block

    position = client_position(client, STRIDED, BANKS, 6)
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=position))
    text = hover.contents.value
    assert "Profile of `strided`" in text
    for preset in ("default", *VENDORS):
        assert f"| `{preset}` |" in text
    assert "2-way" in text and "Divergent branches" not in text
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=client_position(client, STRIDED, BRANCH - 1, 5)))
    assert "Divergent branches" in hover.contents.value
    assert "`default` 4 of 8; `ptx` 4 of 8; `hip-cdna` 4 of 4" in hover.contents.value

    diagnostics = await eventually(lambda: _advised(client, uri))
    by_code = {d.code: d for d in diagnostics}
    assert set(by_code) == {"R021", "R022", "R023"}
    assert all(d.severity == t.DiagnosticSeverity.Information for d in diagnostics)
    assert by_code["R021"].range.start.line == BANKS
    assert "2-way on default, ptx, hip-cdna, hip-rdna, metal, sycl" in by_code["R021"].message
    assert "padding the 2-word rows by 1 word (stride 8 → 12 bytes) removes it: 2 → 1-way on " \
        "every preset" in by_code["R021"].message
    assert by_code["R022"].range.start.line == SECTORS and "ideal 4" in by_code["R022"].message
    assert by_code["R023"].range.start.line == BRANCH
    assert f"lines {BRANCH + 1}-{BRANCH_END + 1}" in by_code["R023"].message
    lenses = await lens_titles(client, uri)     # the figures where it ran: its launch line
    titles = [title for title, _, _ in lenses[LAUNCH]]
    assert titles[1].startswith("◔ Profile: ") and "2-way banks" in titles[1], titles
    assert titles[2] == "✕ Clear profile"
    assert [title for title, _, _ in lenses[KERNEL]][1] == "◔ Profile"


async def _profile_diagnostics(client, uri: str) -> list[t.Diagnostic]:
    return [d for d in await current_diagnostics(client, uri) if str(d.code).startswith("R02")]


async def _advised(client, uri: str) -> list[t.Diagnostic]:
    """The profile's diagnostics once every preset is in (a bank conflict's advice is checked
    then), else none."""
    found = await _profile_diagnostics(client, uri)
    return [] if any("being checked" in d.message for d in found) else found


async def test_an_edit_reprofiles_and_a_clear_removes_everything(client, heard):
    from .test_run_results import change
    uri = open_document(client, STRIDED, "profile_edit")
    await profile(client, uri, "strided", None)
    await eventually(lambda: _async(changes_for(client, uri, 1)))
    # two quick edits: the first one's profile is cancelled, the second's is shown
    line = STRIDED.split("\n").index(f"    {STRIDE_WORDS}")
    text = change(client, uri, 2, line, "8", "16", STRIDED)
    text = change(client, uri, 3, line, "16", "4", text)
    latest = await eventually(lambda: _async(changes_for(client, uri, 3)))
    assert not changes_for(client, uri, 2)
    profiled = latest[-1]["profiles"][0]
    by_line = {entry["line"]: entry for entry in profiled["lines"]}
    assert by_line[BANKS + 1]["local_wavefronts"] == by_line[BANKS + 1]["local_ideal_wavefronts"]
    shown = await eventually(lambda: hints(client, uri))
    assert BANKS not in shown and shown[SECTORS] == "8 wave-instrs · 32 sectors (ideal 4)"
    await eventually(lambda: _no_code(client, uri, "R021"))

    cleared = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.clearProfile", arguments=[uri, None]))
    assert cleared == {"uri": uri, "cleared": ["strided"]}
    last = plain(client.profile_changes[-1])
    assert last["uri"] == uri and last["profiles"] == []
    assert not await hints(client, uri)
    await eventually(lambda: _no_code(client, uri, "R022"))
    titles = [title for title, _, _ in (await lens_titles(client, uri))[LAUNCH]]
    assert titles[:2] == ["▶ Run", "◔ Profile"]


async def _no_code(client, uri: str, code: str) -> bool:
    return not any(d.code == code for d in await _profile_diagnostics(client, uri))


async def test_bad_requests_are_refused_with_a_message(client):
    uri = open_document(client, STRIDED, "profile_bad")
    for arguments, says in (([uri, "nope", None], "no kernel 'nope'"),
                            ([uri, "strided", BANKS], "is not a launch line"),
                            (["file:///nowhere.wave", "strided", None], "not an open WAVE"),
                            ([42], "not an open WAVE")):
        result = await client.workspace_execute_command_async(t.ExecuteCommandParams(
            command="wave-lsp.profile", arguments=arguments))
        assert result["ok"] is False and says in result["message"], (arguments, result)
    broken = open_document(client, STRIDED.replace("halt", "hlt"), "profile_broken")
    result = await profile(client, broken, "strided", None)
    assert result["status"] == "failed" and "cannot profile" in result["message"]
    assert result["heat"] == [] and result["lines"] == []


async def test_other_requests_are_answered_while_a_long_kernel_is_profiled(client):
    from .test_run_results import change
    # no instruction limit: only an edit stops it
    await configure(client, {**INIT, "run": {"timeLimitMs": 60_000, "maxInstructions": 0}})
    uri = open_document(client, SPIN, "profile_spin")
    other = open_document(client, STRIDED, "profile_other")
    # warm (a first hover loads its modules, which a busy worker thread slows for runs alike)
    await client.text_document_hover_async(t.HoverParams(
        text_document=ident(other), position=t.Position(line=BANKS, character=6)))
    pending = asyncio.ensure_future(profile(client, uri, "spin", None))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(other), position=t.Position(line=BANKS, character=6)))
    assert hover is not None and time.monotonic() - started < 2.0
    assert not pending.done()
    change(client, uri, 2, 3, "1", "2", SPIN)          # a newer revision cancels the profile
    result = await asyncio.wait_for(pending, 10)
    await configure(client, INIT)
    assert result["status"] == "cancelled", result


async def test_an_untrusted_workspace_never_profiles(untrusted_once):
    untrusted = untrusted_once
    uri = open_document(untrusted, STRIDED, "profile_untrusted")
    result = await profile(untrusted, uri, "strided", None)
    assert result["status"] == "invalid-request" and "untrusted workspace" in result["message"]
    assert "trust the workspace to profile them" in result["message"]


async def test_a_checked_padding_is_a_quick_fix_that_sizes_local_memory(client):
    """The bank conflict's padding comes as a quick fix changing the stride constant and
    `.local_memory` together; applied, the kernel profiles without the conflict."""
    from test_profile_advice import TRANSPOSE_32
    from .test_kernel_tests import apply
    uri = open_document(client, TRANSPOSE_32, "profile_fix")
    await profile(client, uri, "transpose_32", 0)
    diagnostics = await eventually(lambda: _advised(client, uri))
    (conflict,) = [d for d in diagnostics if d.code == "R021"]
    assert "it needs .local_memory 4220 (declared 4096)" in conflict.message
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=ident(uri), range=conflict.range,
        context=t.CodeActionContext(diagnostics=[conflict])))
    fix = next(a for a in actions
               if a.title == "Pad the row by 1 word: stride 128 → 132 bytes, .local_memory 4220")
    assert fix.kind == t.CodeActionKind.QuickFix and fix.is_preferred
    fixed = apply(TRANSPOSE_32, edits_of(fix.edit, uri))
    assert fixed == TRANSPOSE_32.replace("mov_imm r2, 128", "mov_imm r2, 132").replace(
        ".local_memory 4096", ".local_memory 4220")
