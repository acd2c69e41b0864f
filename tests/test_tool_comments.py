"""Tool comments (`; wave-lsp run: FLAGS`, `; wave-lsp expect: TEXT`) have one grammar,
`wave_lsp.syntax.tool_comments`: the Python readers use it, Neovim's Lua patterns are generated
from it (the checked-in file is current, the check sees a stale one) and, run in the real Neovim,
agree with Python on every sample line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from wave_lsp.ide import launch_lines, run_limits
from wave_lsp.isa import generated
from wave_lsp.syntax import tool_comment_lua, tool_comments
from wave_lsp.syntax.kernel_arguments import declared_registers, set_registers
from wave_lsp.syntax.tool_comments import expect_text, launch_comment

ROOT = Path(__file__).resolve().parents[1]

SAMPLES = [
    "; wave-lsp run: --grid 4,1,1",
    "  ;; wave-lsp run:   --workgroup 8,1,1  ",
    "# wave-lsp run:",
    ";wave-lsp run:--grid 2",
    "; wave-lsp  run: --grid 4",          # two spaces: not a tool comment
    "; wave-lsp run --grid 4",            # no colon
    "; wave-lsp: ignore[W101]",            # a suppression, another comment
    "    iadd r1, r2, r3 ; wave-lsp run: --grid 4",   # after code: not a launch line
    "; wave-lsp expect: 0 1 2 3",
    "; wave-lsp expect:",
    "; wave-lsp expect: ",
    "; wave-lsp expect:   indented",
    "#;# wave-lsp expect:x",
    "; WAVE-LSP expect: 1",
    "; wave-lsp args: r0 r1",
    "  ;; wave-lsp args:r2,r3  ",
    "; wave-lsp args r0",                 # no colon
    "",
]


def test_launch_and_expect_lines():
    assert launch_comment("; wave-lsp run: --grid 4,1,1") == len("; wave-lsp run:")
    assert launch_comment("  ;; wave-lsp run:x") == len("  ;; wave-lsp run:")
    assert launch_comment("; wave-lsp  run: --grid 4") is None
    assert launch_comment("iadd r1, r2, r3 ; wave-lsp run:") is None
    assert [expect_text(t) for t in ("; wave-lsp expect: 0 1", "; wave-lsp expect:",
                                     "; wave-lsp expect: ", "; wave-lsp expect:   x",
                                     "; wave-lsp run: x")] == ["0 1", "", "", "  x", None]


def test_args_lines_and_set_reg_flags():
    assert declared_registers("  ;; wave-lsp args:r2, r3 x") == ((2, 19, 21), (3, 23, 25),
                                                                  (None, 26, 27))
    assert declared_registers("; wave-lsp run: --set-reg 0:1") is None
    text = "; wave-lsp run: --grid 4,1,1 --set-reg 0:0 --set-reg=r12:4096 --set-reg '2:8'"
    assert [text[s:e] for _r, s, e in set_registers(text)] == ["0", "r12", "2"]
    assert [r for r, _s, _e in set_registers(text)] == [0, 12, 2]


def test_every_reader_uses_the_one_grammar():
    assert launch_lines.launch_comment is tool_comments.launch_comment
    assert run_limits.LAUNCH_MARKER == tool_comments.marker("run") == "wave-lsp run:"
    # no second pattern of the launch-line prefix anywhere in the package or the editors
    for path in [*ROOT.joinpath("wave_lsp").rglob("*.py"), *ROOT.joinpath("editors").rglob("*.lua"),
                 *ROOT.joinpath("vscode-extension", "src").glob("*.ts")]:
        if path.name in ("tool_comments.py", "tool_comments.lua"):
            continue
        text = path.read_text(encoding="utf-8")
        # a string that ends at the prefix, a regex or Lua pattern of it (prose may name it)
        for needle in ('wave-lsp run:"', "wave-lsp run:'", 'wave-lsp expect:"',
                       "wave-lsp expect:'", "wave%-lsp", "wave-lsp\\s", "wave-lsp\\ "):
            assert needle not in text, (path, needle)


def test_the_lua_patterns_are_current():
    assert generated.stale(ROOT, tool_comment_lua.GENERATED) == [], \
        "run: python -m wave_lsp.syntax.tool_comment_lua"


def test_the_check_sees_a_stale_file(tmp_path):
    assert tool_comment_lua.main(["--root", str(tmp_path), "--check"]) == 1
    assert tool_comment_lua.main(["--root", str(tmp_path)]) == 0
    assert generated.stale(tmp_path, tool_comment_lua.GENERATED) == []
    lua = tmp_path / tool_comment_lua.LUA_PATH
    lua.write_text(lua.read_text().replace("[;#]", "[;]", 1))
    assert generated.stale(tmp_path, tool_comment_lua.GENERATED) == [tool_comment_lua.LUA_PATH]


def test_neovim_matches_what_python_matches(tmp_path):
    from tests.editors.nvim import nvim_path
    script = tmp_path / "match.lua"
    out = tmp_path / "out.json"
    script.write_text(
        f"local P = dofile({json.dumps(str(ROOT / tool_comment_lua.LUA_PATH))})\n"
        f"local samples = vim.json.decode({json.dumps(json.dumps(SAMPLES))})\n"
        "local got = {}\n"
        "for i, text in ipairs(samples) do\n"
        "  got[i] = { run = text:match(P.run) or vim.NIL, expect = text:match(P.expect) or vim.NIL,\n"
        "             args = text:match(P.args) or vim.NIL }\n"
        "end\n"
        f"vim.fn.writefile({{ vim.json.encode(got) }}, {json.dumps(str(out))})\n",
        encoding="utf-8")
    subprocess.run(["timeout", "60", nvim_path(), "--headless", "--clean", "-l", str(script)],
                   check=True, capture_output=True)
    got = json.loads(out.read_text())
    for text, answer in zip(SAMPLES, got, strict=True):
        start = launch_comment(text)
        flags = text[start:].strip() if start is not None else None
        args = tool_comments.ARGS_COMMENT.match(text)
        assert (answer["run"], answer["expect"], answer["args"]) == (
            flags, expect_text(text), args.group("text").strip() if args else None), text
