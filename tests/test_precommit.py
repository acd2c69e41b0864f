"""The `wave-lsp-lint` and `wave-lsp-test` pre-commit hooks, installed by pre-commit itself from
this repository, named in a project's `.pre-commit-config.yaml` as the README shows."""

from __future__ import annotations

import os
import re
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
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t",
               # the hooks' environment without the native core: its C build is most of the
               # install's minute, and the hooks' behaviour is the same on the numpy engine
               WAVE_LSP_PURE="1")
    hooks, rev = hooks_repository(tmp_path_factory.mktemp("hooks-repo"), env)
    # as a user's project names the hooks: a repository and a revision
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hooks}\n  rev: {rev}\n  hooks:\n"
        "  - id: wave-lsp-lint\n  - id: wave-lsp-test\n")
    git("add", ".", cwd=repo)
    return repo, env


def hooks_repository(into: Path, env: dict) -> tuple[Path, str]:
    """This working tree as pre-commit would fetch it (its tracked and untracked files, ignored
    ones left out), committed, and the commit: pre-commit installs the hooks' environment once
    for the module's tests (`try-repo` builds it anew for every call)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    git("init", "-q", cwd=into)
    git("add", ".", cwd=into)
    subprocess.run(["git", "commit", "-q", "-m", "hooks"], cwd=into, env=env, check=True,
                   capture_output=True)
    # the revision the README names: a release tag (a branch draws pre-commit's warning about a
    # mutable reference on every run)
    rev = readme_rev()
    subprocess.run(["git", "tag", "-a", rev, "-m", f"wave-lsp {rev}"], cwd=into, env=env,
                   check=True, capture_output=True)
    return into, rev


def readme_rev() -> str:
    """The `rev:` of the README's pre-commit configuration."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### pre-commit"):]
    return re.search(r"^\s*rev:\s*(\S+)", section, re.M).group(1)


def test_the_readme_names_a_release_tag_of_this_version():
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(),
                        re.M).group(1)
    assert readme_rev() == f"v{version}"


# a kernel test: the kernel stores 7
TESTED = (".kernel k\n; wave-lsp run: --dump-u32 0:1\n; wave-lsp expect: {expect}\n"
          "    mov_imm r0, 0\n    mov_imm r1, 7\n    device_store_u32 r0, r1\n    halt\n.end\n")


def pre_commit(project, *args, hook="wave-lsp-lint"):
    repo, env = project
    return subprocess.run([str(PRE_COMMIT), "run", hook, *args],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_hook_fails_on_the_bad_file(project):
    r = pre_commit(project, "--all-files")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bad.wave:2:5: L401 error 'add.s32' is obsolete" in r.stdout
    assert "good.wave" not in r.stdout.split("wave-lsp lint", 1)[-1]


def test_hook_passes_on_the_good_file(project):
    r = pre_commit(project, "--files", "good.wave", "passing.wave", "notes.txt")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout
    assert "mutable reference" not in r.stdout + r.stderr     # the README's tag: no warning


def test_test_hook_fails_on_the_failing_kernel_test(project):
    r = pre_commit(project, "--all-files", hook="wave-lsp-test")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "failing.wave:2: FAIL kernel k" in r.stdout
    # all 32 threads of the default workgroup store there; the last one wrote it
    assert "output line 1: expected 8" in r.stdout and "written by line 6, lane 31" in r.stdout
    assert "passing.wave:2: ok kernel k" in r.stdout


def test_test_hook_passes_on_passing_tests(project):
    r = pre_commit(project, "--files", "passing.wave", "good.wave", "notes.txt",
                 hook="wave-lsp-test")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout
