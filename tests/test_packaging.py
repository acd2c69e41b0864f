"""Packaging. The wheel holds every package of the source tree: pyproject.toml lists them by name
(the grammar folder is shipped as `wave_lsp.grammar`), so a new package left out of the list
would install without it, and only a fresh install (the pre-commit hook's, the VS Code
extension's) would fail, with `ModuleNotFoundError`.

The release, dry-run: the sdist and the pure wheel (.ci/release-dist.sh, twine check), a wheel
with the native core built from the sdist as cibuildwheel builds it and tested as it tests it, a
build without a C compiler (a working pure wheel, and one line saying so), the cibuildwheel
configuration's selection, and the release workflow's jobs and the scripts they run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def listed() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(config["tool"]["setuptools"]["packages"])


def in_tree() -> set[str]:
    return {".".join(p.parent.relative_to(ROOT).parts)
            for p in (ROOT / "wave_lsp").rglob("__init__.py")}


def test_every_package_is_in_the_wheel():
    missing = in_tree() - listed()
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_nothing_listed_is_missing_from_the_tree():
    assert listed() - in_tree() == {"wave_lsp.grammar"}


# ---- the release, dry-run: sdist and wheels, the cibuildwheel configuration, the workflow ------
# Built offline (`python -m build --no-isolation`, from a copy of the checkout) with the build,
# twine and cibuildwheel of the `test` extra; under CI their absence fails, elsewhere it skips.

NUMPY_LINE = "wave-lsp: the native core was not built ("
VECTOR_ADD = ["run", str(ROOT / "examples" / "vector_add.wave"), "--grid", "4,1,1", "--set-reg", "0:0",
              "--set-reg", "1:4096", "--set-reg", "2:8192", "--fill-iota", "0:f32:1024:1",
              "--fill-iota", "4096:f32:1024:2", "--dump-f32", "8192:8"]
VECTOR_ADD_OUTPUT = "0.0 3.0 6.0 9.0 12.0 15.0 18.0 21.0".split()


def tools(*distributions: str) -> None:
    """Skips (fails under CI) unless the `test` extra's packaging tools are installed."""
    missing = []
    for name in distributions:
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        message = f"{', '.join(missing)} missing: pip install -e '.[test]'"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def run(*args: str, cwd: Path, env: dict | None = None, ok: bool = True,
        timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))
    if ok:
        assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """.ci/release-dist.sh (the workflow's `dist` job) run on a copy of the checkout's files:
    the sdist and the pure wheel built from it, both passed by `twine check --strict`."""
    tools("build", "twine", "setuptools")
    tree = tmp_path_factory.mktemp("checkout")
    files = run("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z",
                cwd=ROOT).stdout.split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    done = run("bash", ".ci/release-dist.sh", "dist", cwd=tree,
               env={"PYTHON": sys.executable, "WAVE_LSP_BUILD_ARGS": "--no-isolation"})
    assert done.stdout.count("PASSED") == 2, done.stdout
    return tree / "dist"


def sdist(release: Path) -> Path:
    return next(release.glob("wave_lsp-*.tar.gz"))


def installed(wheel: Path, into: Path) -> dict:
    """The environment of a Python that imports wave_lsp from `wheel` alone (its dependencies
    from this test's environment): `pip install --no-deps --target`."""
    run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(into),
        str(wheel), cwd=into.parent)
    return {"PYTHONPATH": str(into), "WAVE_LSP_NATIVE": "1"}


def test_sdist_and_pure_wheel_pass_twine_check(release):
    names = tarfile.open(sdist(release)).getnames()
    top = names[0].split("/")[0]
    for needed in ("setup.py", "pyproject.toml", "LICENSE", "README.md", "grammar/wave.peg",
                   "wave_lsp/emu/native/_wavecore.c", "wave_lsp/emu/native/core.h"):
        assert f"{top}/{needed}" in names, needed
    assert not [n for n in names if n.endswith((".so", ".pyd", ".whl"))]
    pure = next(release.glob("wave_lsp-*-py3-none-any.whl"))
    wheel_names = zipfile.ZipFile(pure).namelist()
    assert not [n for n in wheel_names if n.endswith((".so", ".pyd"))]
    metadata = zipfile.ZipFile(pure).read(next(n for n in wheel_names
                                               if n.endswith("METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert "Description-Content-Type: text/markdown" in metadata


def test_wheel_from_the_sdist_has_the_native_core_and_runs_on_it(release, tmp_path):
    """As cibuildwheel builds a release wheel (`build`, WAVE_LSP_REQUIRE_NATIVE=1) and tests it
    (.ci/check-native-wheel.py, its test-command)."""
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    assert shutil.which("gcc") or shutil.which("cc"), "no C compiler: bash .ci/tools/compiler.sh"
    assert include.is_file(), "no Python headers: bash .ci/tools/compiler.sh"
    out = tmp_path / "wheelhouse"
    run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out),
        str(sdist(release)), cwd=tmp_path, env={"WAVE_LSP_REQUIRE_NATIVE": "1"})
    (wheel,) = out.glob("*.whl")
    tag = sys.implementation.cache_tag.replace("cpython-", "cp")
    assert re.fullmatch(rf"wave_lsp-0\.1\.0-{tag}-{tag}-linux_x86_64\.whl", wheel.name) or \
        sys.platform != "linux", wheel.name
    assert [n for n in zipfile.ZipFile(wheel).namelist()
            if re.fullmatch(r"wave_lsp/emu/native/_wavecore\..*(so|pyd)", n)]
    run(sys.executable, "-m", "twine", "check", "--strict", str(wheel), cwd=tmp_path)
    env = installed(wheel, tmp_path / "site")
    where = run(sys.executable, "-c", "import wave_lsp; print(wave_lsp.__file__)",
                cwd=tmp_path, env=env).stdout
    assert where.startswith(str(tmp_path / "site"))
    checked = run(sys.executable, str(ROOT / ".ci" / "check-native-wheel.py"), cwd=tmp_path,
                  env=env)
    assert "vector_add ran on it" in checked.stdout
    version = run(sys.executable, "-m", "wave_lsp", "--version", cwd=tmp_path, env=env).stdout
    assert version.strip() == "wave-lsp 0.1.0 (native core)"


def test_without_a_compiler_pip_makes_a_working_pure_wheel_and_says_so_once(release, tmp_path):
    """`pip install` where there is no C compiler (CC=false): the install does not fail, its
    output (pip -v) says once that the numpy engine is used, `wave-lsp --version` says why, and
    kernels run; a release build (WAVE_LSP_REQUIRE_NATIVE=1) fails instead."""
    out = tmp_path / "wheels"
    done = run(sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
               "--wheel-dir", str(out), str(sdist(release)), cwd=tmp_path, env={"CC": "false"})
    said = [line for line in (done.stdout + done.stderr).splitlines() if NUMPY_LINE in line]
    assert len(said) == 1, said
    assert "kernels run on the numpy engine" in said[0] and "`false` failed" in said[0]
    (wheel,) = out.glob("*.whl")
    assert wheel.name == "wave_lsp-0.1.0-py3-none-any.whl"
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith((".so", ".pyd"))]
    env = installed(wheel, tmp_path / "site")
    version = run(sys.executable, "-m", "wave_lsp", "--version", cwd=tmp_path, env=env).stdout
    assert version.strip() == ("wave-lsp 0.1.0 (numpy engine: the native core is not installed: "
                               "this wave-lsp was built without a C compiler, or is the pure "
                               "wheel)")
    ran = run(sys.executable, "-m", "wave_lsp", *VECTOR_ADD, cwd=tmp_path, env=env)
    assert ran.stdout.split() == VECTOR_ADD_OUTPUT
    failed = run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                 str(tmp_path / "release"), str(sdist(release)), cwd=tmp_path, ok=False,
                 env={"CC": "false", "WAVE_LSP_REQUIRE_NATIVE": "1"})
    assert failed.returncode != 0 and not list((tmp_path / "release").glob("*.whl"))


def build_identifiers(platform: str) -> list[str]:
    return run(sys.executable, "-m", "cibuildwheel", "--print-build-identifiers", "--platform",
               platform, cwd=ROOT).stdout.split()


def test_cibuildwheel_builds_cpython_3_11_to_3_14_for_linux_and_macos():
    tools("cibuildwheel")
    versions = ["cp311", "cp312", "cp313", "cp314"]
    assert sorted(build_identifiers("linux")) == sorted(
        f"{v}-manylinux_{arch}" for v in versions for arch in ("x86_64", "aarch64"))
    assert sorted(build_identifiers("macos")) == sorted(
        f"{v}-macosx_{arch}" for v in versions for arch in ("x86_64", "arm64"))
    # Windows installs the pure wheel: the core needs POSIX mmap and GCC/Clang (pyproject says)
    assert build_identifiers("windows") == []
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]
    assert config["environment"] == {"WAVE_LSP_REQUIRE_NATIVE": "1"}
    script = config["test-command"].split()[-1].replace("{project}/", "")
    assert (ROOT / script).is_file()


def workflow() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())


def test_release_workflow_runs_the_repository_scripts():
    flow = workflow()
    triggers = flow.get("on", flow.get(True))          # YAML 1.1 reads `on` as true
    assert triggers["push"]["tags"] == ["v*"] and "workflow_dispatch" in triggers
    jobs = flow["jobs"]
    assert set(jobs) == {"dist", "wheels", "vsix", "publish"}
    runs = {name: " ".join(step.get("run", "") for step in job["steps"])
            for name, job in jobs.items()}
    assert "bash .ci/release-dist.sh dist" in runs["dist"]           # the one the tests run
    assert "python -m cibuildwheel" in runs["wheels"]
    assert "node scripts/package.mjs --wheels ../wheelhouse" in runs["vsix"]
    for name, text in runs.items():
        for path in re.findall(r"(?:\.ci|scripts)/[\w.-]+", text):
            base = ROOT / "vscode-extension" if path.startswith("scripts/") else ROOT
            assert (base / path).is_file(), f"job {name} runs {path}, which does not exist"
    targets = run("node", "-e", "import('./scripts/targets.mjs').then(m => "
                  "console.log(Object.keys(m.TARGETS).join(' ')))",
                  cwd=ROOT / "vscode-extension").stdout.split()
    assert jobs["vsix"]["strategy"]["matrix"]["target"] == ["", *targets]
    assert set(jobs["vsix"]["needs"]) == {"dist", "wheels"}
    publish = jobs["publish"]
    assert set(publish["needs"]) == {"dist", "wheels", "vsix"}
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v') || inputs.publish"
    # the wheel runners: Linux and macOS, each arch of [tool.cibuildwheel] on its own runner
    assert set(jobs["wheels"]["strategy"]["matrix"]["os"]) == {
        "ubuntu-latest", "ubuntu-24.04-arm", "macos-13", "macos-14"}
