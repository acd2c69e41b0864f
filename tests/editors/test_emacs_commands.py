"""Run, test and profile a kernel from a real Emacs 28 + eglot 1.9 (Debian `emacs-nox`,
`elpa-eglot`) through editors/emacs/wave-lsp-commands.el: the commands go to the
server's `workspace/executeCommand`, the results come back as the overlays the package draws
(the server's inlay hints: register values, profile figures; a summary per command on the
launch line) and as eglot diagnostics in flymake (R011 for an expectation the run did not
print). A live kernel re-runs after an edit and the overlays follow."""

from __future__ import annotations

import json

from .nvim import ROOT, require_tool
from .test_emacs import run_emacs

EXAMPLE = ROOT / "examples" / "vector_add.wave"

SCRIPT = r"""
(add-to-list 'load-path %(load_path)s)
(require 'wave-mode)
(find-file %(file)s)
(call-interactively #'eglot)
(defun shown-hints ()
  (mapcar (lambda (o) (list (1- (line-number-at-pos (overlay-start o) t))
                            (substring-no-properties (overlay-get o 'before-string))))
          wave-lsp--hints))
(defun shown-summaries ()
  (mapcar (lambda (o) (list (overlay-get o 'wave-lsp-line) (symbol-name (overlay-get o 'wave-lsp-kind))
                            (overlay-get o 'wave-lsp-text)
                            (symbol-name (get-text-property 2 'face (overlay-get o 'after-string)))))
          wave-lsp--summaries))
(defun wait-for (what test)
  (let ((deadline (+ (float-time) 60)))
    (while (and (< (float-time) deadline) (not (funcall test)))
      (accept-process-output nil 0.1))
    (unless (funcall test) (error "timed out waiting for %%s" what))))
(wait-for "eglot" (lambda () (eglot-current-server)))
(goto-char (point-min))
(search-forward "; wave-lsp run:")
(let* ((run (wave-lsp-run-kernel))
       (run-hints (shown-hints))
       (test (wave-lsp-test-kernel))
       (_ (wait-for "R011" (lambda () (seq-find (lambda (d) (string-match-p "R011" (flymake-diagnostic-text d)))
                                                (flymake-diagnostics)))))
       (diags (mapcar (lambda (d) (list (1- (line-number-at-pos (flymake-diagnostic-beg d) t))
                                        (symbol-name (flymake-diagnostic-type d))
                                        (flymake-diagnostic-text d)))
                      (flymake-diagnostics)))
       (profile (wave-lsp-profile-kernel))
       (profile-hints (shown-hints))
       (summaries (shown-summaries)))
  ;; an edit: the live run re-runs (wave-lsp/runsChanged) and the value overlays follow
  (goto-char (point-min))
  (search-forward "mov_imm r7, 4")
  (replace-match "mov_imm r7, 8")
  (eglot--signal-textDocument/didChange)  ; batch Emacs is never idle: send the change now
  (wait-for "the re-run's values"
            (lambda () (seq-find (lambda (h) (equal (cadr h) " r7 = 8 (all lanes)")) (shown-hints))))
  (let ((out (json-encode
              (list (cons 'run (plist-get run :summary)) (cons 'runOk (plist-get run :ok))
                    (cons 'runHints (vconcat (mapcar #'vconcat run-hints)))
                    (cons 'passed (plist-get test :passed)) (cons 'failed (plist-get test :failed))
                    (cons 'diagnostics (vconcat (mapcar #'vconcat diags)))
                    (cons 'profile (plist-get profile :summary))
                    (cons 'profileHints (vconcat (mapcar #'vconcat profile-hints)))
                    (cons 'summaries (vconcat (mapcar #'vconcat summaries)))
                    (cons 'editedHints (vconcat (mapcar #'vconcat (shown-hints))))))))
    (with-temp-file %(result)s (insert out))))
(kill-emacs 0)
"""


def test_run_test_and_profile_a_kernel_from_emacs(tmp_path):
    emacs = require_tool("emacs", "bash .ci/tools/editors.sh (Debian emacs-nox, elpa-eglot)")
    text = EXAMPLE.read_text(encoding="utf-8")
    lines = text.splitlines()
    wrong = lines.index("    ; wave-lsp expect: 9.0")          # the fourth value is 9.0
    text = text.replace("    ; wave-lsp expect: 9.0", "    ; wave-lsp expect: 10.0")
    path = tmp_path / "vector_add.wave"
    path.write_text(text, encoding="utf-8")
    launch = next(i for i, line in enumerate(lines) if "; wave-lsp run:" in line
                  and line.startswith("    "))
    line_of = {s.split(";")[0].strip(): i for i, s in enumerate(lines) if s.strip()}

    data = run_emacs(emacs, tmp_path, SCRIPT, file=json.dumps(str(path)))

    # the run: its summary on the launch line, and each line's values after it
    assert data["runOk"] is True and data["run"].startswith("✓") and "100% lanes" in data["run"]
    hints = {line: label for line, label in data["runHints"]}
    assert hints[line_of["mov_imm r7, 4"]] == " r7 = 4 (all lanes)"
    assert hints[line_of["mov_sr  r4, sr_workgroup_size_x"]] == " r4 = 256 (all lanes)"
    # c[i] = a[i] + b[i] with a = 0, 1, 2, ... and b = 0, 2, 4, ...: the store writes 3i
    assert hints[line_of["device_store_u32 r8, r11"]].startswith(" [r8] ← 0.0, 3.0, 6.0")
    # the test: one expectation is wrong; it fails, and flymake shows R011 on that line
    assert (data["passed"], data["failed"]) == (0, 1)
    r011 = [d for d in data["diagnostics"] if "R011" in d[2]]
    assert [d[0] for d in r011] == [wrong] and "9.0" in r011[0][2], data["diagnostics"]
    assert r011[0][1] == "eglot-error"
    # the profile: 4 workgroups of 256 threads in 32-lane waves run each line 32 times
    assert data["profile"].startswith("◔") and "100%" in data["profile"]
    run_hints = [tuple(h) for h in data["runHints"]]
    figures = [(line, label) for line, label in map(tuple, data["profileHints"])
               if (line, label) not in run_hints]
    assert figures and all("32" in label for _l, label in figures), figures
    assert {line for line, _ in figures} <= set(line_of.values())
    # the summaries, on the launch line, one per command, coloured by outcome
    kinds = {kind: (line, text, face) for line, kind, text, face in data["summaries"]}
    assert kinds["run"] == (launch, data["run"], "wave-lsp-passed-face")
    assert kinds["test"][0] == launch and kinds["test"][1].startswith("✕")
    assert kinds["test"][2] == "wave-lsp-failed-face"
    assert kinds["profile"] == (launch, data["profile"], "wave-lsp-passed-face")
    # after the edit, the re-run's values replaced the old ones
    edited = {line: label for line, label in data["editedHints"]}
    assert edited[line_of["mov_imm r7, 4"]] == " r7 = 8 (all lanes)"
    assert edited[line_of["imul    r6, r6, r7"]] == " r6 = 0, 8, 16 … 248"
