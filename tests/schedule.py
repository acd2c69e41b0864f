"""The order in which pytest-xdist hands test modules to its workers (`--dist loadfile`).

Two kinds of module share the suite's two cores:
- modules that drive a real editor (VS Code through a browser, Neovim, Emacs) spend most of their
  time waiting for it: about a third of a core for each second they run;
- the rest keep a core busy.

xdist's default order (the modules with the most tests first) put every editor module at the end,
where four workers waiting on editors left a core idle for the last minute and a half. Here the
longest modules go first, and the editor modules are spread evenly through the others, so that
there is always CPU-bound work beside an editor's waits and nothing long starts last.
"""

from __future__ import annotations

# Measured on a 2-core machine (the suite's wall-clock seconds per module, four workers), longest
# first. A module not listed here goes after these, in collection order; tests/test_schedule.py
# checks that each one still exists.
LONGEST = (
    "tests/vscode/test_server_setup.py",
    "tests/test_fuzz_surfaces.py",
    "tests/server/test_editor_jobs.py",
    "tests/vscode/test_first_hour.py",
    "tests/test_ide_host.py",
    "tests/vscode/test_workbench.py",
    "tests/test_emit_vendors.py",
    "tests/vscode/test_extension_build.py",
    "tests/test_packaging.py",
    "tests/server/test_memory.py",
    "tests/test_incremental_diagnostics.py",
    "tests/test_precommit.py",
    "tests/server/test_debug_witness.py",
    "tests/server/test_vendor_limits.py",
    "tests/test_deep_nesting.py",
    "tests/vscode/test_restricted_mode.py",
)

EDITOR_FOLDERS = ("tests/vscode/", "tests/editors/")


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def module_order(modules: list[str]) -> list[str]:
    """`modules` (in collection order, no repeats) in the order to hand them out."""
    first = [m for m in LONGEST if m in modules]
    rest = [m for m in modules if m not in first]
    editors = [m for m in rest if m.startswith(EDITOR_FOLDERS)]
    others = [m for m in rest if not m.startswith(EDITOR_FOLDERS)]
    if not editors:
        return first + others
    # editor module j goes before the other module at position j * step
    step = len(others) / len(editors)
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
    modules = list(dict.fromkeys(module_of(item.nodeid) for item in items))
    rank = {module: index for index, module in enumerate(module_order(modules))}
    items.sort(key=lambda item: rank[module_of(item.nodeid)])
