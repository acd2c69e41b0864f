"""Neovim as a person sees it: the real `nvim` (not headless) in a tmux terminal, opening a
kernel; the screen is captured with `tmux capture-pane` and saved under test-artifacts/."""

from __future__ import annotations

import shlex
import subprocess
import time
import uuid

import pytest

from kernel_test_cases import store
from wave_lsp.asm.encoding_view import instruction_views
from wave_lsp.syntax.document import Document

from .nvim import INIT, ROOT, editor_env, nvim_path, require_tool, server_commands

ARTIFACTS = ROOT / "test-artifacts"


class Terminal:
    """A detached tmux session of fixed size running one command, on its own tmux server."""

    def __init__(self, tmux: str, command: str, cwd, env, width: int = 120, height: int = 32):
        self.tmux = [tmux, "-L", f"wave-test-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
        subprocess.run(self.tmux + ["new-session", "-d", "-s", "t", "-x", str(width),
                                    "-y", str(height), command],
                       cwd=cwd, env=env, check=True, timeout=30)

    def screen(self, escapes: bool = False) -> str:
        """The visible text; with `escapes`, with its colour and attribute sequences."""
        return subprocess.run(self.tmux + ["capture-pane", "-p", *(["-e"] if escapes else []),
                                           "-t", "t"], capture_output=True,
                              text=True, timeout=30).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(self.tmux + ["send-keys", "-t", "t", *keys], check=True, timeout=30)

    def wait_for(self, *texts: str, timeout: float = 30) -> str:
        """The screen once it shows every one of `texts`; a timeout fails the test with the
        last screen (a wait for text that never comes must not pass quietly, nor cost the
        whole timeout in every run)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            if time.monotonic() > deadline:
                missing = [text for text in texts if text not in screen]
                raise AssertionError(f"not on the screen after {timeout:g} s: {missing}\n{screen}")
            time.sleep(0.2)

    def screen_when(self, ready, escapes: bool = False, timeout: float = 30) -> str:
        """The screen once `ready(screen)` is true (an AssertionError in it counts as false),
        or the last screen after `timeout`: the caller's assertions then say what is wrong."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen(escapes)
            try:
                if ready(screen):
                    return screen
            except AssertionError:
                pass
            if time.monotonic() > deadline:
                return screen
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run(self.tmux + ["kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def terminal(tmp_path):
    tmux = require_tool("tmux", "bash .ci/tools/editors.sh (Debian package tmux)")
    started: list[Terminal] = []

    def start(path, width: int = 120, height: int = 32, **env: str) -> Terminal:
        command = (f"timeout 120 {shlex.quote(nvim_path())} --clean -n -u {shlex.quote(str(INIT))}"
                   f" {shlex.quote(path.name)}")
        term = Terminal(tmux, command, path.parent,
                        editor_env(tmp_path, TERM="xterm-256color", **env), width, height)
        started.append(term)
        return term

    yield start
    for term in started:
        term.close()


def save(name: str, screen: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / name).write_text(screen, encoding="utf-8")


KERNEL = """; lane ids, doubled
.kernel twice
.registers 4
    mov_sr  r0, sr_lane_id
    add.s32 r1, r0, r0
    halt
.end
"""


def test_terminal_shows_the_error_and_no_encodings_by_default(tmp_path, terminal):
    path = tmp_path / "twice.wave"
    path.write_text(KERNEL, encoding="utf-8")
    words = instruction_views(Document(KERNEL), 3, False)[0].hex
    term = terminal(path)
    screen = term.wait_for("is obsolete")
    time.sleep(1)                                          # the inlay hints have come too
    screen = term.screen()
    save("nvim-tmux-error.txt", screen)
    lines = screen.split("\n")
    error_row = next((l for l in lines if "add.s32" in l), "")
    assert "'add.s32' is obsolete" in error_row, screen   # the diagnostic beside its line
    assert "current form is 'iadd'" in screen
    mov_row = next((l for l in lines if "mov_sr" in l), "")
    # byte offsets and encoded words are opt-in: no hint looks like code
    assert words not in mov_row and "0000" not in mov_row, screen
    assert "twice.wave" in screen                          # the status line names the file


def test_terminal_shows_the_run_values(tmp_path, terminal):
    assert "wave-lsp.run" in server_commands(tmp_path)
    source = (ROOT / "examples" / "divergent_break.wave").read_text(encoding="utf-8").replace(
        ".kernel divergent_break",
        "; wave-lsp run: --workgroup 8,1,1 --wave-width 8 --dump-u32 0:8\n.kernel divergent_break")
    path = tmp_path / "divergent_break.wave"
    path.write_text(source, encoding="utf-8")
    term = terminal(path)
    term.wait_for("mov_sr", "▶ Run")                        # attached: the lenses are drawn
    term.keys(":/mov_sr", "Enter", ":LspWaveRun", "Enter")
    screen = term.wait_for("r0 = 0, 1, 2", "✓")
    save("nvim-tmux-run.txt", screen)
    rows = screen.split("\n")
    row = lambda text: next((line for line in rows if text in line), "")  # noqa: E731
    assert "r0 = 0, 1, 2 … 7" in row("mov_sr"), screen       # lane values after the line
    assert "×8" in row("iadd r1"), screen                     # ran eight times in the loop
    launch = next(i for i, line in enumerate(rows) if "; wave-lsp run:" in line)
    # the lens reports the run: after the launch line, or below it where it does not fit
    assert "✓" in rows[launch] or "✓" in rows[launch + 1], screen


WARNED = """; lane sums, with two warnings
; wave-lsp run: --workgroup 8,1,1 --wave-width 8 --dump-u32 0:8
.kernel sums
.registers 8
    mov_sr  r0, sr_lane_id
    mov_imm r1, 3
    @p0 iadd r2, r0, r1
    mov_imm r4, 1.5
    iadd    r2, r0, r1
    imul    r3, r2, r1
    shl     r5, r0, r1
    mov_imm r6, 0
    shl     r7, r0, r1
    iadd    r3, r3, r7
    device_store_u32 r5, r3
    halt
.end
"""


def test_terminal_values_stay_on_screen_after_ten_edits(tmp_path, terminal):
    """In a kernel with warnings, the diagnostics published after each re-run
    must not leave Neovim showing no values (its inlay hints drawn before the refreshed ones
    came)."""
    path = tmp_path / "sums.wave"
    path.write_text(WARNED, encoding="utf-8")
    term = terminal(path)
    term.wait_for("mov_sr", "▶ Run")                        # attached: the lenses are drawn
    term.keys(":/mov_sr", "Enter", ":LspWaveRun", "Enter")
    term.wait_for("r1 = 3", "r0 = 0, 1, 2")
    for value in range(4, 14):                              # ten edits, each re-runs
        term.keys(f":6s/r1, [0-9]*/r1, {value}/", "Enter")
        screen = term.wait_for(f"mov_imm r1, {value}", timeout=10)
        try:
            screen = term.wait_for(f"r1 = {value}", "r0 = 0, 1, 2", timeout=15)
        except AssertionError:
            save("nvim-tmux-edits.txt", term.screen())
            raise
        assert "wave-asm encodes '@p0'" in screen, screen      # the warnings stay
    save("nvim-tmux-edits.txt", screen)
    rows = screen.split("\n")
    assert "r1 = 13" in next(row for row in rows if "mov_imm r1" in row), screen
    assert "r3 =" in next(row for row in rows if "imul" in row), screen


def test_terminal_start_without_a_server_warns_on_one_line(tmp_path, terminal):
    """No `wave-lsp` on PATH: one warning line naming :checkhealth wave, the
    file in view, no "Press ENTER" prompt; :checkhealth wave names a command that installs it
    today (pip install of this checkout, not of an unpublished package)."""
    path = tmp_path / "twice.wave"
    path.write_text(KERNEL, encoding="utf-8")
    term = terminal(path, width=80, height=24, PATH="/usr/bin:/bin")
    screen = term.wait_for("not found", "mov_sr")
    time.sleep(1)
    screen = term.screen()
    save("nvim-tmux-no-server.txt", screen)
    assert "Press ENTER" not in screen, screen
    assert "; lane ids, doubled" in screen.split("\n")[0], screen    # nothing blanked
    assert "wave-lsp: wave-lsp not found; see :checkhealth wave" in screen, screen
    assert "pip install wave-lsp" not in screen
    term.keys(":checkhealth wave", "Enter")
    screen = term.wait_for("not found (cmd")
    screen = term.wait_for("install it from this checkout")
    save("nvim-tmux-no-server-health.txt", screen)
    advice = "".join(line.strip() for line in screen.split("\n"))   # lines wrap at 80
    assert f"bin/pip install '{ROOT}'" in advice, screen


def test_terminal_every_lens_result_fits_at_120_columns(tmp_path, terminal):
    """At 120 columns a launch line with a run, a kernel test and a profile:
    every lens title is on the screen whole (Neovim cuts end-of-line lenses at the window's
    edge; the plugin moves a line's lenses that do not fit to virtual lines below it)."""
    path = tmp_path / "store.wave"
    path.write_text(store("0", "10"), encoding="utf-8")
    term = terminal(path, width=120, height=40)
    term.wait_for("▶ Test", timeout=60)
    term.keys(":/wave-lsp run:", "Enter", ":LspWaveRun", "Enter")
    term.wait_for("lanes active")
    term.keys(":LspWaveProfile", "Enter")
    term.wait_for("◔ Profile:")                          # the profile has run
    term.keys(":LspWaveTest", "Enter")
    term.wait_for("failed")
    term.keys(":cclose", "Enter")
    titles_file = tmp_path / "lenses.txt"
    # every lens's whole title: the server shortens titles into their tooltips. The lenses
    # are asked for again after each result (a refresh): between the answers the list is
    # empty, so the titles are read until the run's and the test's are both there.
    deadline = time.monotonic() + 60
    titles: list[str] = []
    while time.monotonic() < deadline:
        titles_file.unlink(missing_ok=True)
        term.keys(":lua vim.fn.writefile(vim.tbl_map(require('wave.codelens').title, "
                  f"vim.lsp.codelens.get(0)), '{titles_file}')", "Enter")
        written = time.monotonic() + 10
        while not titles_file.exists() and time.monotonic() < written:
            time.sleep(0.2)
        if titles_file.exists():
            titles = [t for t in titles_file.read_text(encoding="utf-8").splitlines() if t]
        if any(t.startswith("✓") for t in titles) and any("failed" in t for t in titles):
            break
        time.sleep(1)

    def drawn(screen: str) -> bool:   # the virtual lines drawn for the list just read
        flat = screen.replace("\n", " ")
        return all(" ".join(t.split()) in flat for t in titles)
    screen = term.screen_when(drawn, timeout=15)
    save("nvim-tmux-lenses-120.txt", screen)
    assert any(t.startswith("✓") for t in titles) and any("failed" in t for t in titles), titles
    assert not any(t.endswith("…") for t in titles), titles
    assert any("Profile" in t for t in titles), titles
    flat = screen.replace("\n", " ")
    missing = [t for t in titles if " ".join(t.split()) not in flat]
    assert not missing, f"cut or missing: {missing}\n{screen}"
    assert all(len(row) <= 120 for row in screen.split("\n"))


def test_terminal_assemble_and_portability_report_on_one_line(tmp_path, terminal):
    """The messages of :LspWaveAssemble and :LspWavePortability fit the
    command line of an 80-column terminal: no "Press ENTER" prompt."""
    path = tmp_path / "twice.wave"
    path.write_text(KERNEL.replace("add.s32", "iadd"), encoding="utf-8")
    term = terminal(path, width=80, height=24)
    term.wait_for("regs ·", timeout=60)
    term.keys(":LspWaveAssemble", "Enter")
    screen = term.wait_for("wave-lsp")
    time.sleep(0.5)
    screen = term.screen()
    save("nvim-tmux-assemble.txt", screen)
    assert "Press ENTER" not in screen and (tmp_path / "twice.wbin").is_file(), screen
    assert screen.rstrip("\n").split("\n")[-1].startswith("wave-lsp"), screen
    assert "wave-lsp: wrote twice.wbin: assembled 90 bytes" in screen, screen  # a relative path
    term.keys(":LspWavePortability", "Enter")
    deadline = time.monotonic() + 30
    while "ortab" not in (screen := term.screen()).split("\n")[-2] and \
            time.monotonic() < deadline:
        time.sleep(0.3)
    time.sleep(0.5)
    screen = term.screen()
    save("nvim-tmux-portability.txt", screen)
    assert "Press ENTER" not in screen, screen
    assert "; lane ids, doubled" in screen.split("\n")[0], screen
