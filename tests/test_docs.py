"""The documentation stays whole: every relative link in the README, `docs/`, the benchmarks'
README and the changelog leads to a file that exists (and, with a `#fragment`, to a heading of
it), and no tracker number ("issue 12", "issue #12") is left in the code, the tests, the editors'
files or the documentation, where a reader cannot follow it: a comment says what a thing is
for, and the history lives in CHANGELOG.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

DOCUMENTS = ["README.md", "CHANGELOG.md", "benchmarks/README.md", "docs"]
# Where a tracker number must not appear: the package, the tests, the editors' files, the
# benchmarks, the CI scripts, the examples and every document.
SCANNED = ["wave_lsp", "tests", "editors", "vscode-extension", "benchmarks", "examples",
           "grammar", ".ci", "docs", "README.md", "CHANGELOG.md", "setup.py", "pyproject.toml"]
TEXT_SUFFIXES = {".py", ".ts", ".mjs", ".js", ".json", ".md", ".lua", ".el", ".vim", ".txt",
                 ".sh", ".c", ".h", ".toml", ".yaml", ".yml", ".peg", ".wave", ""}
SKIPPED_DIRS = {"node_modules", ".venv", "venv", "__pycache__", "out", "dist", "build",
                "test-artifacts", ".vscode-test", ".pytest_cache", ".hypothesis"}
ISSUE_NUMBER = re.compile(r"\bissues?[ \t]*(?:#|no\.?[ \t]*)?[ \t]*\d+", re.IGNORECASE)

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"`+[^`\n]*`+")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def markdown_files() -> list[Path]:
    out = []
    for name in DOCUMENTS:
        path = ROOT / name
        if path.is_dir():
            out += sorted(path.rglob("*.md"))
        elif path.is_file():
            out.append(path)
    return out


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans (their brackets are not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)      # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):          # http:, mailto:, data:
            continue
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{path.relative_to(root)}: {target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            problems.append(f"{path.relative_to(root)}: {target}: no heading #{fragment} there")
    return problems


def scanned_files() -> list[Path]:
    out = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            out.append(path)
            continue
        for file in sorted(path.rglob("*")) if path.is_dir() else []:
            parts = set(file.relative_to(ROOT).parts[:-1])
            if file.is_file() and not parts & SKIPPED_DIRS and file.suffix in TEXT_SUFFIXES:
                out.append(file)
    return out


def issue_numbers(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    return [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for m in ISSUE_NUMBER.finditer(text)]


def test_the_documents_exist():
    names = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert {"README.md", "CHANGELOG.md", "benchmarks/README.md",
            "docs/dev/architecture.md"} <= names
    assert any(n.startswith("docs/user/") for n in names)


def test_every_relative_link_leads_somewhere():
    problems = [p for path in markdown_files() for p in broken_links(path)]
    assert not problems, "\n".join(problems)


def test_the_link_checker_sees_broken_links(tmp_path):
    (tmp_path / "b.md").write_text("# Kernel `arguments` and more\n\n## Twice\n\n## Twice\n")
    doc = tmp_path / "a.md"
    doc.write_text("[ok](b.md#kernel-arguments-and-more) [ok](b.md#twice-1) [web](https://x.invalid/y)\n"
                   "`[not a link](gone.md)`\n```\n[nor this](gone.md)\n```\n"
                   "[missing](c.md) [bad anchor](b.md#nowhere) ![image](img.png)\n")
    assert broken_links(doc, tmp_path) == ["a.md: c.md: no such file",
                                 "a.md: b.md#nowhere: no heading #nowhere there",
                                 "a.md: img.png: no such file"]


def test_the_readme_stays_a_users_document():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 350, "the README is what a new user reads first: keep " \
        "the reference in docs/user/"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci in text, "the README's test command is the one .ci/run runs"
    for heading in ("## Install", "## Commands", "## Editors", "## Settings", "### pre-commit"):
        assert f"\n{heading}\n" in text, heading


def test_no_tracker_numbers_in_code_tests_or_docs():
    found = [hit for path in scanned_files() if path != Path(__file__).resolve()
             for hit in issue_numbers(path)]
    assert not found, ("say what the thing is for instead of naming a tracker number:\n"
                       + "\n".join(found))


@pytest.mark.parametrize("text, hits", [
    ("fixed for iss" + "ue 29 item 4", 1),
    ("(Iss" + "ue #12) and iss" + "ues 23 and 30", 2),
    ("the issue's reproducer; as a GPU issues them; issue slots", 0),
])
def test_the_tracker_number_finder(text, hits):
    assert len(ISSUE_NUMBER.findall(text)) == hits
