"""How the suite is spread over pytest-xdist's workers (`-n 4 --dist loadfile`, the README's test
command): a test file is one unit of work, as `loadfile` makes it, but the units that take
longest start first.

`loadfile` hands out files with the most tests first. The files that take longest have few tests
(a VS Code file holds 3 to 13, each a user session of a minute in a real workbench), so they
started in the last third of the run, and the run ended with one of them: the other workers had
nothing left to do meanwhile. `FIRST` names those files, longest first (their wall time in a
whole run on the 2-core machine, benchmarks/README.md); each worker that asks for work gets the
first of them not handed out yet, and after them the files in `loadfile`'s order. A file not
listed, or listed but gone, changes nothing but the order (tests/test_scheduling.py checks that
each one listed exists).
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

FIRST = (
    "tests/vscode/test_server_setup.py",              # 69 s: two servers installed by pip
    "tests/test_incremental_diagnostics.py",          # 58 s
    "tests/test_emit_vendors.py",                     # 52 s: ptxas, hipcc and g++ batches
    "tests/test_fuzz_surfaces.py",                    # 46 s
    "tests/vscode/test_first_hour.py",                # 45 s
    "tests/vscode/test_workbench.py",                 # 45 s
    "tests/vscode/test_extension_build.py",           # 43 s: npm builds
    "tests/test_ide_host.py",                         # 43 s
    "tests/server/test_editor_jobs.py",               # 37 s
    "tests/editors/test_emacs.py",                    # 32 s
    "tests/test_precommit.py",                        # 31 s
    "tests/vscode/test_reverse_debugger.py",          # 30 s
    "tests/vscode/test_restricted_mode.py",           # 28 s
    "tests/server/test_memory.py",                    # 26 s
    "tests/vscode/test_debugger.py",                  # 26 s
    "tests/server/test_vendor_limits.py",             # 26 s
    "tests/test_packaging.py",                        # 25 s
    "tests/vscode/test_testing_view.py",              # 24 s
    "tests/vscode/test_editor_views.py",              # 23 s
    "tests/vscode/test_profile_heat.py",              # 22 s
)


class LongestFirst(LoadFileScheduling):
    """`loadfile`, handing out the files of `FIRST` first, in its order."""

    def _assign_work_unit(self, node) -> None:
        for scope in FIRST:
            if scope in self.workqueue:
                self.workqueue.move_to_end(scope, last=False)
                break
        super()._assign_work_unit(node)
