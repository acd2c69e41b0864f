"""Fixtures of the VS Code tests: the tools (installed by .ci/tools/vscode.sh), the built
`.vsix`, and code-server workbenches on temporary workspaces of kernels."""

from __future__ import annotations

import fcntl
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.forkserver import bin_folder

from .workbench import ARTIFACTS, EXTENSION, ROOT, Workbench, missing_tools

KERNELS = Path(__file__).with_name("kernels")


@pytest.fixture(scope="session")
def vscode_tools() -> None:
    """Fails under CI and skips elsewhere when the tools are not installed."""
    missing = missing_tools()
    if missing:
        message = f"VS Code test tools missing: {', '.join(missing)}; run bash .ci/tools/vscode.sh"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


# The npm scripts write into vscode-extension/ (out/, the wheel, the .vsix): under pytest-xdist
# the workers take turns (one lock per checkout), and the .vsix is built once per test run.
_LOCKS = Path(tempfile.gettempdir()) / \
    f"wave-lsp-npm-{hashlib.sha256(str(EXTENSION).encode()).hexdigest()[:12]}"


@contextmanager
def extension_lock() -> Iterator[None]:
    """Exclusive use of vscode-extension/'s build outputs among the test processes."""
    with open(f"{_LOCKS}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _npm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run(["npm", "--silent", *args], cwd=EXTENSION, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"npm {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def npm(*args: str, timeout: float = 300, writes: bool = True) -> subprocess.CompletedProcess:
    """`npm ARGS` in vscode-extension/, failing the test with its output. A script that only
    reads the sources (`writes=False`: the lint, the grammar tests) runs beside the builds
    instead of waiting its turn."""
    if not writes:
        return _npm(*args, timeout=timeout)
    with extension_lock():
        return _npm(*args, timeout=timeout)


@pytest.fixture(scope="session")
def vsix(vscode_tools) -> Path:
    """The extension packaged by `npm run package` (wheel, compile, vsce package); under
    pytest-xdist, by the first worker that needs it."""
    path = EXTENSION / "wave-lsp-0.1.0.vsix"
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    built = Path(f"{_LOCKS}-{run}.built") if run else None
    with extension_lock():
        if built is None or not built.exists():
            _npm("run", "package")
            if built is not None:
                built.touch()
    assert path.is_file()
    return path


@pytest.fixture(scope="session")
def native_vsix(vscode_tools, tmp_path_factory) -> Path:
    """The .vsix of this platform (`npm run package:native`: `vsce package --target`, with the
    wheel with the native core for this Python beside the pure one), moved out of the way;
    server/ is left as it was (the universal .vsix's tests read it). Under pytest-xdist it is
    built once per test run, by the first worker that needs it, into the run's temporary
    folder (the workers' folders are inside it)."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("the platform .vsix test is written for Linux")
    target = "linux-x64" if platform.machine() == "x86_64" else "linux-arm64"
    name = f"wave-lsp-{target}-0.1.0.vsix"
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    folder = (tmp_path_factory.getbasetemp().parent / "native-vsix" if run
              else tmp_path_factory.mktemp("native-vsix"))
    copy = folder / name
    server = EXTENSION / "server"
    with extension_lock():
        if copy.is_file():
            return copy
        kept = {p.name: p.read_bytes() for p in server.glob("*")} if server.is_dir() else {}
        try:
            _npm("run", "package:native", timeout=600)
        finally:
            shutil.rmtree(server, ignore_errors=True)
            server.mkdir()
            for wheel, data in kept.items():
                (server / wheel).write_bytes(data)
        folder.mkdir(exist_ok=True)
        shutil.move(EXTENSION / name, copy)
    return copy


def kernel_workspace(folder: Path, with_venv: bool = True) -> Path:
    """A workspace of the test kernels with a `.venv` where the extension finds `wave-lsp` as it
    would in a user's project: its `bin/wave-lsp` goes through the fork servers where they
    serve (tests/forkserver.py), else `.venv` links to the repository's environment."""
    folder.mkdir(parents=True, exist_ok=True)
    for kernel in KERNELS.glob("*.wave"):
        shutil.copy(kernel, folder / kernel.name)
    if with_venv:
        forked = bin_folder()
        if forked is None:
            (folder / ".venv").symlink_to(ROOT / ".venv")
        else:
            (folder / ".venv" / "bin").mkdir(parents=True)
            shutil.copy(forked / "wave-lsp", folder / ".venv" / "bin" / "wave-lsp")
            (folder / ".venv" / "bin" / "python").symlink_to(sys.executable)
    return folder


def artifacts(name: str) -> Path:
    folder = ARTIFACTS / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


@contextmanager
def workbench(tmp_path_factory, vsix: Path, name: str, settings: dict,
              prepare=None) -> Iterator[Workbench]:
    """code-server with the extension (and `settings`) and a workbench on a fresh workspace of
    kernels (given to `prepare` first, when given), its screenshots under
    test-artifacts/vscode/NAME/; stopped on leaving."""
    home = tmp_path_factory.mktemp(f"code-server-{name}")
    workspace = kernel_workspace(home / "kernels")
    if prepare is not None:
        prepare(workspace)
    wb = Workbench.start(home, vsix, settings, workspace, artifacts(name))
    wb.workspace = workspace
    try:
        yield wb
    finally:
        wb.stop()


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    """code-server with the extension and a workbench on a workspace of kernels (shared by the
    tests of one module, which run in order as one user session)."""
    with workbench(tmp_path_factory, vsix, "workbench", {}) as wb:
        yield wb
