"""The `publishDiagnostics` a real server subprocess sends after edits of a file with thousands
of diagnostics (its JSON assembled from each diagnostic's kept JSON, the analysis started while
the edit's debounce waited) is, as JSON, exactly the one a fresh open of the same text gets."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from .rawclient import RawClient

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from corpus_kernels import GENERATORS  # noqa: E402

PUBLISH = "textDocument/publishDiagnostics"


def published(client: RawClient, uri: str, version: int, timeout: float = 60.0) -> dict:
    """The params of the publication of `uri` at `version` (earlier ones are skipped; none of
    a later version may come first)."""
    deadline = time.monotonic() + timeout
    while True:
        message = client.next(max(0.1, deadline - time.monotonic()))
        assert message is not None, f"the server closed its output; stderr:\n{client.stderr}"
        if message.get("method") == PUBLISH and message["params"]["uri"] == uri:
            found = message["params"].get("version")
            assert found is None or found <= version, (found, version)
            if found == version:
                return message["params"]


def blanked(params: dict, uri: str) -> list[dict]:
    """The diagnostics' JSON with the document's URI blanked (their related locations)."""
    items = params["diagnostics"]
    for d in items:
        for r in d.get("relatedInformation", ()):
            assert r["location"]["uri"] == uri
            r["location"]["uri"] = ""
    return items


def register_edit(lines: list[str], row: int) -> tuple[int, int, str]:
    """(start, end, new text) that changes the last register operand of instruction `row`."""
    line = lines[row]
    col = line.rindex(", r") + 3
    end = col
    while end < len(line) and line[end].isdigit():
        end += 1
    return col, end, str((int(line[col:end]) + 1) % 40 + 8)


class Editor:
    """One open document of the server, edited as an editor does (incremental changes)."""

    def __init__(self, client: RawClient, uri: str, text: str) -> None:
        self.client, self.uri, self.lines, self.version = client, uri, text.split("\n"), 1
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": text}})

    def change(self, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        self.version += 1
        self.client.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [{"range": {"start": {"line": start[0], "character": start[1]},
                                          "end": {"line": end[0], "character": end[1]}},
                                "text": text}]})
        whole = "\n".join(self.lines)
        offset = [0]
        for line in self.lines:
            offset.append(offset[-1] + len(line) + 1)
        a, b = offset[start[0]] + start[1], offset[end[0]] + end[1]
        self.lines = (whole[:a] + text + whole[b:]).split("\n")

    def retype(self, row: int) -> None:
        col, end, new = register_edit(self.lines, row)
        self.change((row, col), (row, end), new)

    def rows(self) -> list[int]:
        return [i for i, line in enumerate(self.lines)
                if line.startswith("    ") and ", r" in line and not line.lstrip().startswith(";")]


@pytest.mark.parametrize("generator", ["mixed-many", "calls"])
def test_publication_after_edits_is_the_json_of_a_fresh_open(tmp_path, generator):
    client = RawClient(tmp_path)
    try:
        client.initialize()
        doc = Editor(client, "file:///edited.wave", GENERATORS[generator](6_000, 34))
        first = published(client, doc.uri, 1)
        assert len(first["diagnostics"]) > 1_000
        rows = doc.rows()
        checks = []
        for row in rows[10::len(rows) // 4][:3]:     # one register changed: what is measured
            doc.retype(row)
            checks.append(published(client, doc.uri, doc.version))
        for row in rows[200:204]:       # a burst: each edit stops the analysis of the last
            doc.retype(row)
        doc.change((3, 0), (3, 0), "    iadd r1, r2, r3\n")     # every later line moves
        published(client, doc.uri, doc.version)
        doc.change((40, 0), (41, 0), "")                        # a line removed
        doc.retype(doc.rows()[-5])
        edited = published(client, doc.uri, doc.version)
        assert any(a["diagnostics"] != first["diagnostics"] for a in checks)   # edits show

        fresh = Editor(client, "file:///fresh.wave", "\n".join(doc.lines))
        again = published(client, fresh.uri, 1)
        assert edited["version"] == doc.version
        assert blanked(edited, doc.uri) == blanked(again, fresh.uri)
        assert len(again["diagnostics"]) > 1_000
    finally:
        client.close()


PULL = {"textDocument": {"diagnostic": {"dynamicRegistration": False},
                         "publishDiagnostics": {"relatedInformation": True}},
        "workspace": {"diagnostics": {"refreshSupport": True}}}


def pulled(client: RawClient, msg_id: int, uri: str) -> dict:
    client.request(msg_id, "textDocument/diagnostic", {"textDocument": {"uri": uri}})
    answer = client.response(msg_id, timeout=60)
    assert "result" in answer, answer
    return answer["result"]


def test_pulled_diagnostics_after_edits_are_the_json_of_a_fresh_open(tmp_path):
    """The pull model's answer (JSON written from the same kept JSON) after edits is the one
    a fresh open of the same text gets."""
    client = RawClient(tmp_path)
    try:
        client.seen = []
        client.request(0, "initialize", {"processId": None, "rootUri": None,
                                         "capabilities": PULL})
        client.response(0)
        client.notify("initialized", {})
        doc = Editor(client, "file:///pulled.wave", GENERATORS["mixed-many"](4_000, 35))
        first = pulled(client, 1, doc.uri)
        assert first["kind"] == "full" and len(first["items"]) > 500
        rows = doc.rows()
        doc.retype(rows[len(rows) // 2])
        doc.change((5, 0), (5, 0), "    iadd r1, r2, r3\n")
        edited = pulled(client, 2, doc.uri)
        fresh = Editor(client, "file:///fresh.wave", "\n".join(doc.lines))
        again = pulled(client, 3, fresh.uri)
        assert edited["items"] != first["items"]
        assert blanked({"diagnostics": edited["items"]}, doc.uri) == \
            blanked({"diagnostics": again["items"]}, fresh.uri)
        assert not [m for m in client.seen if m.get("method") == PUBLISH and
                    m["params"]["diagnostics"]]         # pulled, not pushed
    finally:
        client.close()
