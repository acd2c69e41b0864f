"""The Helix configuration (no Helix on Debian to drive): it names the real server command, the
same file types and project roots as the Neovim configuration, and the server it starts answers
`initialize` with Helix's `config` as its initialization options."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib

from wave_lsp.cli.main import SUBCOMMANDS

from .nvim import ROOT, editor_env

HELIX = ROOT / "editors" / "helix" / "languages.toml"
NVIM_LSP = ROOT / "editors" / "nvim" / "lsp" / "wave.lua"


def lua_list(field: str) -> list[str]:
    match = re.search(rf"^\s*{field}\s*=\s*{{([^}}]*)}}", NVIM_LSP.read_text(), re.MULTILINE)
    assert match, field
    return re.findall(r"'([^']*)'", match.group(1))


def test_helix_matches_the_neovim_configuration():
    config = tomllib.loads(HELIX.read_text())
    server = config["language-server"]["wave-lsp"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert server["command"] in scripts
    assert server["args"][0] in SUBCOMMANDS
    assert [server["command"], *server["args"]] == lua_list("cmd")
    (language,) = config["language"]
    assert language["file-types"] == lua_list("filetypes") == ["wave"]
    assert language["roots"] == lua_list("root_markers")
    assert language["language-servers"] == ["wave-lsp"]


def test_helix_server_command_answers_initialize(tmp_path):
    config = tomllib.loads(HELIX.read_text())["language-server"]["wave-lsp"]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
        "initializationOptions": config.get("config", {})}}).encode()
    exit_ = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    message = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(m), m) for m in (body, exit_))
    proc = subprocess.run([config["command"], *config["args"]], input=message,
                          capture_output=True, env=editor_env(tmp_path), timeout=60)
    header, _, payload = proc.stdout.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", header).group(1))
    answer = json.loads(payload[:length])
    assert answer["id"] == 1
    assert answer["result"]["serverInfo"]["name"] == "wave-lsp"
    assert "hoverProvider" in answer["result"]["capabilities"]
