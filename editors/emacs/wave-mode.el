;;; wave-mode.el --- WAVE GPU assembly, with wave-lsp through eglot  -*- lexical-binding: t; -*-

;; A major mode for `.wave' files (comments, a little font-lock, indentation by 4) that registers
;; `wave-lsp serve' with eglot.  Load it and turn eglot on for WAVE buffers:
;;
;;   (add-to-list 'load-path "/path/to/wave-lsp/editors/emacs")
;;   (require 'wave-mode)
;;   (add-hook 'wave-mode-hook #'eglot-ensure)
;;
;; Colours for mnemonics come from the server's semantic tokens where the client supports them;
;; the patterns here are generic (no instruction lists), so they never go stale.

;;; Code:

(require 'eglot)

(defgroup wave nil
  "WAVE GPU assembly."
  :group 'languages)

(defcustom wave-lsp-command '("wave-lsp" "serve")
  "The command that starts wave-lsp, as a list: program, then arguments."
  :type '(repeat string))

(defvar wave-mode-syntax-table
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?\; "<" table)
    (modify-syntax-entry ?# "<" table)
    (modify-syntax-entry ?\n ">" table)
    (modify-syntax-entry ?_ "w" table)
    (modify-syntax-entry ?. "_" table)
    (modify-syntax-entry ?% "_" table)
    table)
  "Syntax table for `wave-mode'.")

(defconst wave-font-lock-keywords
  `(("^[ \t]*\\(\\.[a-z_]+\\)" 1 font-lock-preprocessor-face)
    ("^[ \t]*\\.kernel[ \t]+\\([A-Za-z_][A-Za-z0-9_]*\\)" 1 font-lock-function-name-face)
    ("^[ \t]*\\([A-Za-z_][A-Za-z0-9_]*\\)[ \t]*:" 1 font-lock-constant-face)
    ("@!?p[0-9]+" . font-lock-builtin-face)
    ("\\_<sr_[a-z_]+\\_>" . font-lock-builtin-face)
    ("\\_<[rp][0-9]+\\_>" . font-lock-variable-name-face)
    ("^[ \t]*\\(?:[A-Za-z_][A-Za-z0-9_]*[ \t]*:[ \t]*\\)?\\(?:@!?p[0-9]+[ \t]+\\)?\\([a-z][a-z0-9_]*\\)"
     1 font-lock-keyword-face))
  "Generic highlighting for `wave-mode': directives, labels, registers, mnemonic position.")

;;;###autoload
(define-derived-mode wave-mode prog-mode "WAVE"
  "Major mode for WAVE GPU assembly; `eglot' talks to wave-lsp for everything else."
  (setq-local comment-start "; ")
  (setq-local comment-start-skip "[;#]+[ \t]*")
  (setq-local indent-tabs-mode nil)
  (setq-local tab-width 4)
  (setq-local font-lock-defaults '(wave-font-lock-keywords)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.wave\\'" . wave-mode))

(add-to-list 'eglot-server-programs `(wave-mode . ,(lambda (&rest _) wave-lsp-command)))

(provide 'wave-mode)
;;; wave-mode.el ends here
