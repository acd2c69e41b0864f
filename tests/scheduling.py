"""How the suite is spread over pytest-xdist's workers (`-n 4 --dist loadfile`, the README's test
command): a test file is one unit of work, as `loadfile` makes it, but

- the VS Code files run in two lanes, each lane one unit of work: at most two real workbenches
  (code-server, Chromium, an extension host, a server) run at once. Three at once on the
  2-core machine made steps wait past their time limits;
- the units that take longest start first. `loadfile` hands out the files with the most tests
  first; the files that take longest have few tests (a VS Code file holds 3 to 13, each a user
  session of a minute in a real workbench), so they started in the last third of the run, and
  the run ended with one of them while the other workers had nothing left to do.

`FIRST` names the longest units, longest first (their wall time in a whole run on the 2-core
machine, benchmarks/README.md); each worker that asks for work gets the first of them not handed
out yet, and after them the files in `loadfile`'s order. A file not listed, or listed but gone,
changes nothing but the order (tests/test_scheduling.py checks that each one listed exists).
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

# the VS Code files by lane, about 190 s of wall time each
LANES = {
    "tests/vscode/[lane 1]": ("tests/vscode/test_server_setup.py",     # 69 s: pip installs
                              "tests/vscode/test_first_hour.py",       # 45 s
                              "tests/vscode/test_reverse_debugger.py",  # 30 s
                              "tests/vscode/test_debugger.py",         # 26 s
                              "tests/vscode/test_testing_view.py"),    # 24 s
    "tests/vscode/[lane 2]": ("tests/vscode/test_workbench.py",        # 45 s
                              "tests/vscode/test_extension_build.py",  # 43 s: npm builds
                              "tests/vscode/test_restricted_mode.py",  # 28 s
                              "tests/vscode/test_editor_views.py",     # 23 s
                              "tests/vscode/test_profile_heat.py",     # 22 s
                              "tests/vscode/test_grammar_and_manifest.py"),
}
LANE_OF = {name: lane for lane, names in LANES.items() for name in names}

FIRST = (
    *LANES,
    "tests/test_incremental_diagnostics.py",          # 58 s
    "tests/test_emit_vendors.py",                     # 52 s: ptxas, hipcc and g++ batches
    "tests/test_fuzz_surfaces.py",                    # 46 s
    "tests/test_ide_host.py",                         # 43 s
    "tests/server/test_editor_jobs.py",               # 37 s
    "tests/editors/test_emacs.py",                    # 32 s
    "tests/test_precommit.py",                        # 31 s
    "tests/server/test_memory.py",                    # 26 s
    "tests/server/test_vendor_limits.py",             # 26 s
    "tests/test_packaging.py",                        # 25 s
    "tests/test_incremental_lines.py",                # 24 s
    "tests/test_deep_nesting.py",                     # 21 s
)


class LongestFirst(LoadFileScheduling):
    """`loadfile` with the VS Code files in `LANES`, handing out the units of `FIRST` first."""

    def _split_scope(self, nodeid: str) -> str:
        name = super()._split_scope(nodeid)
        return LANE_OF.get(name, name)

    def _assign_work_unit(self, node) -> None:
        for scope in FIRST:
            if scope in self.workqueue:
                self.workqueue.move_to_end(scope, last=False)
                break
        super()._assign_work_unit(node)
