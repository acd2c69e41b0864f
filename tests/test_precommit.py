"""The `wave-lsp-lint` and `wave-lsp-test` pre-commit hooks, installed by pre-commit itself from
this repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Path, dict]:
    if not PRE_COMMIT.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit (test extra) or git is not installed")
    repo = tmp_path_factory.mktemp("user-project")
    git("init", "-q", cwd=repo)
    (repo / "good.wave").write_text(".kernel k\n    mov_sr r1, sr_lane_id\n    halt\n.end\n")
    (repo / "bad.wave").write_text(".kernel k\n    add.s32 r1, r2, r3\n    halt\n.end\n")
    (repo / "notes.txt").write_text("add.s32 is not checked here\n")
    (repo / "passing.wave").write_text(TESTED.format(expect=7))
    (repo / "failing.wave").write_text(TESTED.format(expect=8))
    git("add", ".", cwd=repo)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    return repo, env


# a kernel test: the kernel stores 7
TESTED = (".kernel k\n; wave-lsp run: --dump-u32 0:1\n; wave-lsp expect: {expect}\n"
          "    mov_imm r0, 0\n    mov_imm r1, 7\n    device_store_u32 r0, r1\n    halt\n.end\n")


def try_repo(project, *args, hook="wave-lsp-lint"):
    repo, env = project
    return subprocess.run([str(PRE_COMMIT), "try-repo", str(ROOT), hook, *args],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_hook_fails_on_the_bad_file(project):
    r = try_repo(project, "--all-files")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bad.wave:2:5: L401 error 'add.s32' is obsolete" in r.stdout
    assert "good.wave" not in r.stdout.split("wave-lsp lint", 1)[-1]


def test_hook_passes_on_the_good_file(project):
    r = try_repo(project, "--files", "good.wave", "passing.wave", "notes.txt")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout


def test_test_hook_fails_on_the_failing_kernel_test(project):
    r = try_repo(project, "--all-files", hook="wave-lsp-test")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "failing.wave:2: FAIL kernel k" in r.stdout
    # all 32 threads of the default workgroup store there; the last one wrote it
    assert "output line 1: expected 8" in r.stdout and "written by line 6, lane 31" in r.stdout
    assert "passing.wave:2: ok kernel k" in r.stdout


def test_test_hook_passes_on_passing_tests(project):
    r = try_repo(project, "--files", "passing.wave", "good.wave", "notes.txt",
                 hook="wave-lsp-test")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout
