"""The order in which pytest-xdist hands test modules to its workers (`--dist loadfile`).

Two kinds of module share the suite's two cores:
- modules that drive a real editor (VS Code through a browser, Neovim, Emacs) spend most of their
  time waiting for it (a third of a core for each second they run), and the first of them waits
  for the extension to be packaged;
- the rest keep a core busy.

xdist's own order (the modules with the most tests first) left every editor module to the end,
where four workers waiting on editors kept one core idle for the last minute and a half; all of
them first is worse (the packaging and the workbenches' starts wait on each other). Here the
longest CPU-bound modules go first, the rest follow with the most tests first, and the editor
modules, longest first, are spread evenly through the first three quarters of them, so that
there is CPU-bound work beside every editor's waits and the last modules to start are short.
"""

from __future__ import annotations

# Measured on a 2-core machine (the suite's wall-clock seconds per module, four workers), longest
# first; tests/test_schedule.py checks that each one still exists.
LONGEST_BUSY = (
    "tests/test_fuzz_surfaces.py",
    "tests/server/test_editor_jobs.py",
    "tests/test_ide_host.py",
    "tests/test_emit_vendors.py",
    "tests/test_packaging.py",
    "tests/server/test_memory.py",
    "tests/test_incremental_diagnostics.py",
    "tests/test_precommit.py",
    "tests/server/test_debug_witness.py",
    "tests/server/test_vendor_limits.py",
    "tests/test_deep_nesting.py",
)
LONGEST_EDITORS = (
    "tests/vscode/test_server_setup.py",
    "tests/vscode/test_workbench.py",
    "tests/vscode/test_first_hour.py",
    "tests/vscode/test_extension_build.py",
    "tests/vscode/test_restricted_mode.py",
)
LONGEST = LONGEST_BUSY + LONGEST_EDITORS

EDITOR_FOLDERS = ("tests/vscode/", "tests/editors/")
EDITORS_WITHIN = 0.75       # the share of the other modules the editor modules are spread over


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def module_order(modules: list[str], tests: dict[str, int] | None = None) -> list[str]:
    """`modules` (in collection order, no repeats; `tests`: how many tests each has) in the
    order to hand them out."""
    tests = tests or {}
    first = [m for m in LONGEST_BUSY if m in modules]
    # then the other VS Code modules (each half a minute), then Neovim's and Emacs's
    editors = [m for m in LONGEST_EDITORS if m in modules] + sorted(
        (m for m in modules if m.startswith(EDITOR_FOLDERS) and m not in LONGEST_EDITORS),
        key=lambda m: not m.startswith(EDITOR_FOLDERS[0]))
    others = sorted((m for m in modules if m not in first and m not in editors),
                    key=lambda m: -tests.get(m, 0))
    if not editors:
        return first + others
    # editor module j goes before the other module at position j * step
    step = len(others) * EDITORS_WITHIN / len(editors)
    order: list[str] = []
    placed = 0
    for index, module in enumerate(others):
        while placed < len(editors) and placed * step <= index:
            order.append(editors[placed])
            placed += 1
        order.append(module)
    return first + order + editors[placed:]


def schedule(items: list) -> None:
    """Sort pytest's `items` in place by `module_order`, keeping each module's own order."""
    tests: dict[str, int] = {}
    for item in items:
        module = module_of(item.nodeid)
        tests[module] = tests.get(module, 0) + 1
    rank = {module: index for index, module in enumerate(module_order(list(tests), tests))}
    items.sort(key=lambda item: rank[module_of(item.nodeid)])
