"""The one place that knows where ../shared is (the upstream example kernels and binaries).

`examples_dir()` (and the `examples_dir` fixture of conftest.py) gives the folder of upstream
example kernels. When it is missing, a test is skipped with the reason on a developer's
machine, and FAILS under CI (environment variable CI set): a CI run that lost ../shared must
not pass by skipping every conformance test.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
EXAMPLES = SHARED / "wave-examples"


def require(path: Path, what: str) -> Path:
    """`path`, or a skip (a failure under CI) saying that `what` is missing."""
    if path.exists():
        return path
    message = f"{what} not found at {path} (they live in ../shared beside the repository)"
    if os.environ.get("CI"):
        pytest.fail(f"{message}; under CI it must be there", pytrace=False)
    pytest.skip(message)


def examples_dir() -> Path:
    """The upstream conformance corpus (../shared/wave-examples)."""
    require(EXAMPLES / "INDEX.md", "upstream example kernels")
    return EXAMPLES


def example_text(name: str) -> str:
    """The text of example `name` (with or without `.wave`)."""
    file = name if name.endswith(".wave") else f"{name}.wave"
    return (examples_dir() / file).read_text(encoding="utf-8")


def example_names(stem: bool = False) -> list[str]:
    """The example files listed in INDEX.md, for parametrising at collection time; when the
    corpus is absent, one placeholder (its test then skips, or fails under CI)."""
    index = EXAMPLES / "INDEX.md"
    if not index.is_file():
        return ["(corpus absent)"]
    names = sorted(set(re.findall(r"^\| \d+ \| (\S+\.wave) \|", index.read_text(),
                                  re.MULTILINE)))
    return [n[:-5] for n in names] if stem else names
