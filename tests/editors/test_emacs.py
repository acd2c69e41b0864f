"""wave-lsp in a real Emacs (Debian `emacs-nox` + `elpa-eglot`): editors/emacs/wave-mode.el
opens a kernel, eglot starts the server, and the diagnostics arrive in flymake at the right
characters (after astral-plane letters); hover answers in Markdown, formatting goes through
`eglot-format-buffer`, and TAB indents as the formatter does."""

from __future__ import annotations

import json
import subprocess

from wave_lsp.ide.formatting import format_text

from .nvim import ROOT, editor_env, require_tool

ASTRAL = """.kernel k
.registers 8
𝒜𝒜: add.s32 r1, r2, r3   ; 😀 sum
      halt
.end
"""

SCRIPT = """
(add-to-list 'load-path %(load_path)s)
(require 'wave-mode)
(find-file %(file)s)
(call-interactively #'eglot)
(let ((deadline (+ (float-time) 30)))
  (while (and (< (float-time) deadline) (< (length (flymake-diagnostics)) 2))
    (accept-process-output nil 0.1)))
(defvar hover nil)
(let ((diags (mapcar (lambda (d) (list (flymake-diagnostic-beg d) (flymake-diagnostic-end d)
                                       (symbol-name (flymake-diagnostic-type d))
                                       (flymake-diagnostic-text d)))
                     (flymake-diagnostics))))
  (goto-char (point-min))
  (search-forward "halt")
  (backward-char 2)
  (setq hover (jsonrpc-request (eglot--current-server-or-lose) :textDocument/hover
                               (eglot--TextDocumentPositionParams)))
  (eglot-format-buffer)
  (let ((out (json-encode (list (cons 'mode (symbol-name major-mode))
                                (cons 'hover (plist-get (plist-get hover :contents) :value))
                                (cons 'diagnostics (vconcat (mapcar #'vconcat diags)))
                                (cons 'text (buffer-string))))))
    (with-temp-file %(result)s
      (insert out))))
(kill-emacs 0)
"""


def run_emacs(emacs: str, tmp_path, script: str, **values: str):
    """Run the Lisp `script` (with `%(load_path)s`, `%(result)s` and `values` filled in) in
    batch Emacs; what it wrote to the result file, decoded from JSON."""
    result = tmp_path / "result.json"
    path = tmp_path / "test.el"
    path.write_text(script % {"load_path": json.dumps(str(ROOT / "editors" / "emacs")),
                              "result": json.dumps(str(result)), **values}, encoding="utf-8")
    proc = subprocess.run(["timeout", "90", emacs, "--batch", "-q", "-l", str(path)],
                          cwd=tmp_path, env=editor_env(tmp_path), capture_output=True,
                          text=True, timeout=120)
    assert result.is_file(), proc.stdout + proc.stderr
    return json.loads(result.read_text(encoding="utf-8"))


def test_eglot_diagnostics_and_formatting(tmp_path):
    emacs = require_tool("emacs", "bash .ci/tools/editors.sh (Debian emacs-nox, elpa-eglot)")
    path = tmp_path / "astral.wave"
    path.write_text(ASTRAL, encoding="utf-8")
    data = run_emacs(emacs, tmp_path, SCRIPT, file=json.dumps(str(path)))
    assert data["mode"] == "wave-mode"
    line_start = ASTRAL.index("𝒜")  # Emacs counts characters; points start at 1
    diags = {d[3].split("]")[0].split("[")[-1]: d for d in data["diagnostics"]}
    line = ASTRAL.split("\n")[2]
    legacy = diags["L401"]
    assert legacy[:3] == [1 + line_start + line.index("add.s32"),
                          1 + line_start + line.index("add.s32") + len("add.s32"), "eglot-error"]
    assert "the current form is 'iadd'" in legacy[3]
    assert diags["S104"][:2] == [1 + line_start, 1 + line_start + 2]
    assert data["text"] == format_text(ASTRAL)
    assert data["text"] != ASTRAL
    assert "halt" in data["hover"] and "```" in data["hover"]  # Markdown, for markdown-mode


INDENT_SCRIPT = """
(add-to-list 'load-path %(load_path)s)
(require 'wave-mode)
(let ((out nil))
  (dolist (file (list %(files)s))
    (find-file file)
    (let ((before (buffer-string)) (tabbed nil))
      (goto-char (point-min))
      (while (not (eobp))  ; as indent-region, leave empty lines (TAB there is to type code)
        (unless (looking-at "[ \\t]*$") (indent-for-tab-command))
        (forward-line 1))
      (setq tabbed (buffer-string))
      (erase-buffer)
      (insert (replace-regexp-in-string "^[ \\t]+" "" before))
      (indent-region (point-min) (point-max))
      (push (list (cons 'file file) (cons 'mode (symbol-name major-mode))
                  (cons 'tabbed tabbed) (cons 'region (buffer-string)))
            out)
      (set-buffer-modified-p nil)
      (kill-buffer)))
  (with-temp-file %(result)s
    (insert (json-encode (vconcat (nreverse out))))))
(kill-emacs 0)
"""


def test_tab_indents_as_the_formatter_does(tmp_path):
    """TAB on every line of every example (and of the formatted conformance kernels) changes
    nothing, and re-indenting an unindented copy gives the example's indentation back."""
    emacs = require_tool("emacs", "bash .ci/tools/editors.sh (Debian emacs-nox, elpa-eglot)")
    sources = {p.name: p.read_text() for p in sorted((ROOT / "examples").glob("*.wave"))}
    shared = ROOT.parent / "shared" / "wave-examples"
    for path in sorted(shared.glob("*.wave")):  # the conformance kernels, where present
        sources[f"shared_{path.name}"] = format_text(path.read_text())
    files = []
    for name, text in sources.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(json.dumps(str(tmp_path / name)))
    data = run_emacs(emacs, tmp_path, INDENT_SCRIPT, files=" ".join(files))
    assert len(data) == len(sources) >= 4
    for entry in data:
        text = sources[entry["file"].rsplit("/", 1)[-1]]
        assert entry["mode"] == "wave-mode"
        assert entry["tabbed"] == text, entry["file"]
        indents = [len(l) - len(l.lstrip()) for l in entry["region"].split("\n")]
        assert indents == [len(l) - len(l.lstrip()) for l in text.split("\n")], entry["file"]
