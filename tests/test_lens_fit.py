"""The lens layout's fitting of one line's titles (`ide.lens_layout.fit`), in process."""

from __future__ import annotations

from pathlib import Path

from wave_lsp.ide.lens_layout import LINE_BUDGET, fit
from wave_lsp.ide.lenses import Action, Lens


def test_a_later_lens_gives_up_its_detail_before_a_run_outcome_is_cut():
    """After a run beside the Profile lens: the resource lens drops its " · " parts before the
    outcome loses any, and nothing is cut mid-word (it was "✓ 2.1 ms · 6 in…")."""
    titles = ["▶ Run again", "✓ 2.1 ms · 6 instr", "✕ Clear", "◔ Profile",
              "8 regs · 0 B local · 1 wave/wg (W32)", "Assemble", "Check portability"]
    commands = fit([Lens(0, 0, 0, t, Action.RUN) for t in titles])
    assert [c.title for c in commands] == ["▶ Run again", "✓ 2.1 ms · 6 instr", "✕ Clear",
                                           "◔ Profile", "8 regs", "Assemble",
                                           "Check portability"]
    assert len(" | ".join(c.title for c in commands)) <= LINE_BUDGET
    assert commands[4].tooltip == titles[4] and commands[1].tooltip is None


def test_every_lens_action_runs_a_command_the_server_or_the_client_has():
    """The server maps each `ide` lens action to its command in one place (`code_lens`)."""
    from wave_lsp.ide.moments import DEBUG_COMMAND
    from wave_lsp.server import extensions
    from wave_lsp.server.code_lens import COMMANDS, MANAGE_TRUST
    assert set(COMMANDS) == set(Action)
    ours = {e.name for e in extensions.COMMANDS}
    clients = {MANAGE_TRUST, DEBUG_COMMAND}     # VS Code's own; the extensions' debug command
    assert {c for c in COMMANDS.values() if c not in clients} <= ours
    extension = Path(__file__).resolve().parents[1] / "vscode-extension" / "src"
    assert f"'{DEBUG_COMMAND}'" in (extension / "debugConfig.ts").read_text()
    assert f"'{DEBUG_COMMAND}'" in \
        (Path(__file__).resolve().parents[1] / "editors/nvim/lua/wave/dap.lua").read_text()
    assert len(set(COMMANDS.values())) == len(COMMANDS)
