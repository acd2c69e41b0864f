"""Start-up imports only what the input needs: `wave-lsp run --help` and the
launch-flag parser load neither numpy nor the emulator, and a `.wbin` never loads the grammar."""

from __future__ import annotations

import json
import subprocess
import sys

from wave_lsp.asm import assemble

PROBE = """
import contextlib, io, json, sys
from wave_lsp.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        status = main(sys.argv[1:])
    except SystemExit as exit_:
        status = exit_.code
print(json.dumps({"status": status, "modules": sorted(m for m in sys.modules
                                                      if m.split(".")[0] in ("numpy", "wave_lsp",
                                                                             "parsimonious"))}))
"""


def loaded(*argv: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                          check=True)
    data = json.loads(done.stdout.splitlines()[-1])
    return data["status"], data["modules"]


def test_run_help_loads_no_numpy_and_no_emulator():
    status, modules = loaded("run", "--help")
    assert status == 0
    assert not any(m.startswith("numpy") for m in modules)
    assert "wave_lsp.emu.api" not in modules and "wave_lsp.emu.kernel_launch" not in modules


def test_a_wbin_never_loads_the_grammar(tmp_path):
    path = tmp_path / "k.wbin"
    path.write_bytes(assemble(".kernel k\n    mov_imm r1, 1\n    halt\n.end\n").wbin())
    status, modules = loaded("run", str(path), "--workgroup", "1,1,1")
    assert status == 0 and ("wave_lsp.emu.api" in modules      # the numpy engine ran it
                            or "wave_lsp.emu.native.runner" in modules)   # or the native core
    assert not any(m.startswith(("parsimonious", "wave_lsp.syntax.grammar",
                                 "wave_lsp.syntax.parser", "wave_lsp.asm.assembler",
                                 "wave_lsp.analysis", "wave_lsp.syntax.program",
                                 "wave_lsp.syntax.ast"))
                   for m in modules), modules


def test_the_server_starts_without_numpy_or_the_emulator():
    """The language server's first answer (a hover) needs neither: they load
    when a run or a portability check first needs them."""
    probe = ("import json, sys\nfrom wave_lsp.server.server import create_server\n"
             "create_server()\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' "
             "or m.startswith('wave_lsp.emu.'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    modules = json.loads(done.stdout.splitlines()[-1])
    assert not any(m.startswith("numpy") for m in modules)
    assert "wave_lsp.emu.engine" not in modules and "wave_lsp.emu.wave_widths" not in modules
