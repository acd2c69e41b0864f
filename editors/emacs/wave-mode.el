;;; wave-mode.el --- WAVE GPU assembly, with wave-lsp through eglot  -*- lexical-binding: t; -*-

;; A major mode for `.wave' files (comments, a little font-lock, indentation as the formatter
;; lays code out: directives and labels at column 0, instructions 4 in, 4 more inside each
;; if/else/loop block, comments with the code inside a kernel) that registers
;; `wave-lsp serve' with eglot.  Load it and turn eglot on for WAVE buffers:
;;
;;   (add-to-list 'load-path "/path/to/wave-lsp/editors/emacs")
;;   (require 'wave-mode)
;;   (add-hook 'wave-mode-hook #'eglot-ensure)
;;
;; C-c C-r, C-c C-t, C-c C-p run, test and profile the kernel at point (wave-lsp-commands.el).
;;
;; Colours for mnemonics come from the server's semantic tokens where the client supports them;
;; the patterns here are generic (no instruction lists), so they never go stale.

;;; Code:

(require 'eglot)
(require 'wave-isa)

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

(defcustom wave-indent-offset 4
  "Columns per level: the kernel body is one level in, each if/else/loop block one more."
  :type 'integer)

(defun wave--line-code ()
  "The current line's code without comment, label and guard, trimmed."
  (let ((text (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
    (setq text (replace-regexp-in-string "[;#].*\\'" "" text))
    (setq text (replace-regexp-in-string "\\`[ \t]*[[:alpha:]_][[:alnum:]_]*[ \t]*:" "" text))
    (setq text (replace-regexp-in-string "\\`[ \t]*@[ \t]*!?[ \t]*[[:alnum:]_%.]+" "" text))
    (string-trim text)))

(defun wave--role (code)
  "The block role of CODE's mnemonic: `open', `middle', `close' or nil."
  (let ((mnemonic (and (string-match "\\`\\([[:alnum:]_]+\\)\\_>" code)
                       (match-string 1 code))))
    (cond ((member mnemonic wave-block-openers) 'open)
          ((member mnemonic wave-block-middles) 'middle)
          ((member mnemonic wave-block-closers) 'close))))

(defun wave--depth-after (depth)
  "The block depth after the line at point, DEPTH before it (nil outside any kernel)."
  (cond ((looking-at "[ \t]*\\.kernel\\_>") 0)
        ((looking-at "[ \t]*\\.end\\_>") nil)
        (t (pcase (wave--role (wave--line-code))
             ('open (1+ (or depth 0)))
             ('close (max (1- (or depth 0)) 0))
             (_ depth)))))

(defun wave--depth ()
  "Blocks open before the current line, or nil outside any kernel."
  (save-excursion
    (let ((end (line-beginning-position)) (depth nil))
      (beginning-of-line)
      (when (re-search-backward "^[ \t]*\\.\\(kernel\\|end\\)\\_>" nil t)
        (while (< (point) end)
          (setq depth (wave--depth-after depth))
          (forward-line 1)))
      depth)))

(defun wave--column (depth)
  "The column of the line at point, with DEPTH blocks open before it."
  (cond ((looking-at "[ \t]*\\(\\.\\|[[:alpha:]_][[:alnum:]_]*[ \t]*:\\)") 0)
        ((looking-at "[ \t]*\\([;#]\\|$\\)") (if depth (* wave-indent-offset (1+ depth)) 0))
        (t (let ((depth (or depth 0)))
             (when (memq (wave--role (wave--line-code)) '(middle close))
               (setq depth (max (1- depth) 0)))
             (* wave-indent-offset (1+ depth))))))

(defun wave-indent-column ()
  "The column the current line's code starts at, as `wave-lsp' formats it."
  (save-excursion
    (beginning-of-line)
    (wave--column (wave--depth))))

(defun wave-indent-region (start end)
  "Indent the non-empty lines from START to END in one pass (`indent-region')."
  (save-excursion
    (let ((end (copy-marker end)) (depth nil))
      (goto-char start)
      (beginning-of-line)
      (setq depth (wave--depth))
      (while (< (point) end)
        (unless (looking-at "[ \t]*$")
          (indent-line-to (wave--column depth))
          (beginning-of-line))
        (setq depth (wave--depth-after depth))
        (forward-line 1))
      (set-marker end nil))))

(defun wave-indent-line ()
  "Indent the current line as the formatter does; TAB on a formatted line changes nothing."
  (interactive)
  (let ((column (wave-indent-column)))
    (if (<= (current-column) (current-indentation))
        (indent-line-to column)
      (save-excursion (indent-line-to column)))))

;;;###autoload
(define-derived-mode wave-mode prog-mode "WAVE"
  "Major mode for WAVE GPU assembly; `eglot' talks to wave-lsp for everything else."
  (setq-local comment-start "; ")
  (setq-local comment-start-skip "[;#]+[ \t]*")
  (setq-local indent-tabs-mode nil)
  (setq-local indent-line-function #'wave-indent-line)
  (setq-local indent-region-function #'wave-indent-region)
  ;; re-indent when a label's `:' or the last letter of else/endif/endloop is typed
  (setq-local electric-indent-chars (append '(?: ?e ?f ?p) electric-indent-chars))
  (setq-local tab-width 4)
  (setq-local font-lock-defaults '(wave-font-lock-keywords)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.wave\\'" . wave-mode))

(add-to-list 'eglot-server-programs `(wave-mode . ,(lambda (&rest _) wave-lsp-command)))

;; Run, test and profile the kernel at point (wave-lsp-commands.el)
(require 'wave-lsp-commands)
(define-key wave-mode-map (kbd "C-c C-r") #'wave-lsp-run-kernel)
(define-key wave-mode-map (kbd "C-c C-t") #'wave-lsp-test-kernel)
(define-key wave-mode-map (kbd "C-c C-p") #'wave-lsp-profile-kernel)
(define-key wave-mode-map (kbd "C-c C-k") #'wave-lsp-clear-results)

(provide 'wave-mode)
;;; wave-mode.el ends here
