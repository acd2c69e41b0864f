"""Start-up imports only what the input needs: `wave-lsp run --help` and the
launch-flag parser load neither numpy nor the emulator, and a `.wbin` never loads the grammar.

The `run` command's paths are checked against lists of modules they do not need (what each
cost is in benchmarks/README.md, "bench_startup.py"), so a cut cannot silently come back; no
timing is asserted. Standard-library modules count only where the modules the command cannot do
without (argparse, pathlib, ...) do not load them themselves on the Python that runs the tests.
"""

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
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""
# what every command needs before it looks at its input (argparse's help needs shutil and
# textwrap); modules these load are not held against the command
NEEDED = "import argparse, gettext, pathlib, re, shutil, textwrap"

# never needed by `run`: other layers' packages, the grammar's parser, package metadata
NOT_FOR_RUN = ("parsimonious", "regex", "lsprotocol", "pygls", "cattrs", "importlib.metadata",
               "importlib.resources", "tomllib", "logging", "wave_lsp.server", "wave_lsp.ide",
               "wave_lsp.debug", "wave_lsp.generate", "wave_lsp.isa.backends",
               "wave_lsp.isa.legacy", "wave_lsp.asm.backends", "wave_lsp.asm.disassembler",
               *(f"wave_lsp.cli.{name}_command" for name in ("lint", "asm", "dis", "test",
                                                             "serve", "emit", "debug")))
# nor by `run --help` (the flag table alone): the emulator, the assembler, the instruction table,
# the flags' parsers, and the standard modules only those need
NOT_FOR_HELP = NOT_FOR_RUN + ("numpy", "dataclasses", "typing", "inspect", "wave_lsp.emu",
                              "wave_lsp.asm", "wave_lsp.analysis", "wave_lsp.syntax.parser",
                              "wave_lsp.isa.instructions", "wave_lsp.isa.registers",
                              "wave_lsp.launch.flags", "wave_lsp.launch.request")
# nor by a run of source whose lines all take the parser's fast path: the checks
NOT_FOR_SOURCE_RUN = NOT_FOR_RUN + ("wave_lsp.analysis.analyzer", "wave_lsp.analysis.incremental",
                                    "wave_lsp.analysis.uniformity", "wave_lsp.analysis.codes",
                                    "wave_lsp.analysis.config", "wave_lsp.analysis.portability",
                                    "wave_lsp.syntax.kernel_arguments")


def loaded(*argv: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                          check=True)
    data = json.loads(done.stdout.splitlines()[-1])
    return data["status"], data["modules"]


def needless(modules: list[str], banned: tuple[str, ...]) -> list[str]:
    """The modules of `modules` that `banned` names (a package bans its submodules), less those
    the standard modules every command needs load on this Python."""
    done = subprocess.run([sys.executable, "-c", f"import json, sys\n{NEEDED}\n"
                           "print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, check=True)
    baseline = set(json.loads(done.stdout))
    return [m for m in modules if m not in baseline
            and any(m == name or m.startswith(name + ".") for name in banned)]


def test_run_help_loads_no_numpy_and_no_emulator():
    status, modules = loaded("run", "--help")
    assert status == 0
    assert not any(m.startswith("numpy") for m in modules)
    assert "wave_lsp.emu.api" not in modules and "wave_lsp.emu.kernel_launch" not in modules


def test_run_help_loads_the_flag_table_alone():
    status, modules = loaded("run", "--help")
    assert status == 0 and "wave_lsp.launch.table" in modules     # the probe sees the table
    assert needless(modules, NOT_FOR_HELP) == []


def test_version_loads_no_subcommand():
    """`--version` prints the engine (the native core's import) and exits before any subcommand
    is looked at, so none is imported."""
    status, modules = loaded("--version")
    assert status == 0 and "wave_lsp.emu.native" in modules
    assert needless(modules, NOT_FOR_RUN + ("numpy", "dataclasses", "typing", "inspect",
                                            "wave_lsp.cli.run_command", "wave_lsp.launch",
                                            "wave_lsp.asm", "wave_lsp.analysis", "wave_lsp.syntax",
                                            "wave_lsp.isa", "wave_lsp.emu.pipeline")) == []


def test_a_source_run_loads_the_assembler_but_not_the_checks(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(".kernel k\n.registers 8\n    mov_sr r0, sr_lane_id\n    mov_imm r1, 4\n"
                    "    imul r2, r0, r1\n    device_store_u32 r2, r0\n    halt\n.end\n")
    status, modules = loaded("run", str(path), "--workgroup", "4,1,1", "--dump-u32", "0:4")
    assert status == 0 and "wave_lsp.asm.assembler" in modules
    assert needless(modules, NOT_FOR_SOURCE_RUN) == []


def test_the_lists_name_modules_that_exist():
    """A renamed module would make its entry check nothing: every `wave_lsp` entry imports."""
    import importlib
    for name in {*NOT_FOR_HELP, *NOT_FOR_SOURCE_RUN}:
        if name.startswith("wave_lsp."):
            importlib.import_module(name)


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
    assert needless(modules, NOT_FOR_RUN + ("wave_lsp.isa.directives",)) == []


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
