;;; wave-lsp-commands.el --- Run, test and profile WAVE kernels through eglot  -*- lexical-binding: t; -*-

;; The server's kernel commands from Emacs 28 + eglot 1.9 (Debian's elpa-eglot), on the kernel
;; at point (or the launch line `; wave-lsp run: FLAGS' at point):
;;
;;   C-c C-r  `wave-lsp-run-kernel'      wave-lsp.run      [uri, kernel, launchLine]
;;   C-c C-t  `wave-lsp-test-kernel'     wave-lsp.test     [uri, kernel, launchLine]
;;   C-c C-p  `wave-lsp-profile-kernel'  wave-lsp.profile  [uri, kernel, launchLine]
;;   C-c C-k  `wave-lsp-clear-results'   wave-lsp.clear and wave-lsp.clearProfile
;;
;; What the server finds arrives as eglot diagnostics in flymake (R001-R006 run errors and
;; warnings, R011/R012 failed expectations, R021-R023 profile findings).  eglot 1.9 shows no
;; inlay hints (eglot 1.14 does) and no code lenses, so this file draws them as overlays: the
;; server's own inlay hints (register values after each line of a run, each line's profile
;; figures) and, at the end of the launch line (or the `.kernel' line), the command's
;; summary (`✓ 0.4 ms · 28 instr · 100% lanes active', `✓ passed', `◔ 100% lanes ...').
;; The kernel stays live: after every edit the server runs it again and sends
;; `wave-lsp/runsChanged' or `wave-lsp/profileChanged', and the values are redrawn.

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'eglot)
(require 'jsonrpc)

(defgroup wave-lsp nil
  "Running WAVE kernels through wave-lsp."
  :group 'wave)

(defcustom wave-lsp-command-timeout 120
  "Seconds to wait for a run, test or profile to finish."
  :type 'number)

(defface wave-lsp-value-face '((t :inherit shadow :slant italic))
  "Run values and profile figures drawn after the code.")

(defface wave-lsp-passed-face '((t :inherit success))
  "A summary that went well (a run, a passed test, a profile).")

(defface wave-lsp-failed-face '((t :inherit error))
  "A failed run or test.")

(defvar-local wave-lsp--hints nil
  "Overlays of the server's inlay hints in this buffer.")

(defvar-local wave-lsp--summaries nil
  "Overlays of the last commands' summaries in this buffer.")

(defun wave-lsp--uri ()
  (plist-get (eglot--TextDocumentIdentifier) :uri))

(defun wave-lsp--line ()
  "The 0-based line of point."
  (1- (line-number-at-pos nil t)))

(defun wave-lsp-kernel-at-point ()
  "(KERNEL . LAUNCH-LINE): the kernel around point (the server's `wave-lsp.kernelAt'), else the
next one; LAUNCH-LINE is the 0-based line of the `; wave-lsp run:' comment at point, or nil (the
kernel's first one)."
  (save-excursion
    (let* ((launch (progn (beginning-of-line)
                          (and (looking-at "[ \t]*;[ \t]*wave-lsp run:") (wave-lsp--line))))
           (start (point))
           (here (wave-lsp--execute "wave-lsp.kernelAt" (wave-lsp--uri) (wave-lsp--line)))
           (kernel (and (listp here) (plist-get here :kernel))))
      (unless kernel
        (goto-char start)
        (when (re-search-forward "^[ \t]*\\.kernel[ \t]+\\([^ \t\n;]+\\)" nil t)
          (setq kernel (match-string-no-properties 1))))
      (unless kernel
        (user-error "No .kernel here"))
      (cons kernel launch))))

(defun wave-lsp--execute (command &rest arguments)
  "The answer of the server's COMMAND with ARGUMENTS (nil is JSON null)."
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   (list :command command :arguments (vconcat arguments))
                   :timeout wave-lsp-command-timeout))

(defun wave-lsp--point-of-line (line)
  "The end of 0-based LINE."
  (save-excursion
    (goto-char (point-min))
    (forward-line line)
    (line-end-position)))

(defun wave-lsp--kernel-line (kernel)
  "The 0-based line of `.kernel KERNEL'."
  (save-excursion
    (goto-char (point-min))
    (when (re-search-forward (concat "^[ \t]*\\.kernel[ \t]+" (regexp-quote kernel) "\\_>")
                             nil t)
      (wave-lsp--line))))

(defun wave-lsp--summary (kind kernel line text ok)
  "Show TEXT at the end of 0-based LINE (nil: KERNEL's line) for KIND (run, test, profile),
replacing that kind's previous summary on the line."
  (let* ((line (or line (wave-lsp--kernel-line kernel) 0))
         (pos (wave-lsp--point-of-line line)))
    (setq wave-lsp--summaries
          (seq-remove (lambda (ov)
                        (when (and (eq (overlay-get ov 'wave-lsp-kind) kind)
                                   (equal (overlay-get ov 'wave-lsp-line) line))
                          (delete-overlay ov)
                          t))
                      wave-lsp--summaries))
    (let ((ov (make-overlay pos pos nil t nil)))
      (overlay-put ov 'wave-lsp-kind kind)
      (overlay-put ov 'wave-lsp-line line)
      (overlay-put ov 'wave-lsp-text text)
      (overlay-put ov 'after-string
                   (concat "  " (propertize text 'face (if ok 'wave-lsp-passed-face
                                                         'wave-lsp-failed-face))))
      (push ov wave-lsp--summaries)
      ov)))

(defun wave-lsp--label (hint)
  (let ((label (plist-get hint :label)))
    (concat (if (eq (plist-get hint :paddingLeft) t) " " "")
            (if (stringp label) label
              (mapconcat (lambda (part) (plist-get part :value)) label ""))
            (if (eq (plist-get hint :paddingRight) t) " " ""))))

(defun wave-lsp--draw-hints (hints)
  "Replace this buffer's hint overlays with HINTS (the server's `InlayHint's)."
  (mapc #'delete-overlay wave-lsp--hints)
  (setq wave-lsp--hints nil)
  (save-excursion
    (seq-doseq (hint hints)
      (let* ((pos (eglot--lsp-position-to-point (plist-get hint :position)))
             (ov (make-overlay pos pos nil t nil)))
        (overlay-put ov 'wave-lsp-hint t)
        (overlay-put ov 'before-string
                     (propertize (wave-lsp--label hint) 'face 'wave-lsp-value-face))
        (push ov wave-lsp--hints)))))

(defun wave-lsp--hint-params ()
  (list :textDocument (eglot--TextDocumentIdentifier)
        :range (list :start (list :line 0 :character 0)
                     :end (eglot--pos-to-lsp-position (point-max)))))

(defun wave-lsp-refresh-hints ()
  "Ask the server for this buffer's inlay hints now and draw them."
  (interactive)
  (wave-lsp--draw-hints (jsonrpc-request (eglot--current-server-or-lose) :textDocument/inlayHint
                                         (wave-lsp--hint-params))))

(defun wave-lsp--refresh-later (uri)
  "Redraw the hints of the buffer of URI when the server's answer comes."
  (let ((buffer (find-buffer-visiting (eglot--uri-to-path uri))))
    (when (and buffer (buffer-live-p buffer))
      (with-current-buffer buffer
        (when-let ((server (eglot-current-server)))
          (jsonrpc-async-request
           server :textDocument/inlayHint (wave-lsp--hint-params)
           :success-fn (lambda (hints)
                         (when (buffer-live-p buffer)
                           (with-current-buffer buffer (wave-lsp--draw-hints hints))))
           :error-fn #'ignore :timeout-fn #'ignore))))))

(cl-defmethod eglot-handle-notification
  (_server (_method (eql wave-lsp/runsChanged)) &key uri &allow-other-keys)
  "A kernel ran again (after an edit) or its results were cleared."
  (wave-lsp--refresh-later uri))

(cl-defmethod eglot-handle-notification
  (_server (_method (eql wave-lsp/profileChanged)) &key uri profiles &allow-other-keys)
  "A profile step finished, or profiles were cleared: redraw the figures and summaries."
  (let ((buffer (find-buffer-visiting (eglot--uri-to-path uri))))
    (when buffer
      (with-current-buffer buffer
        (seq-doseq (profile profiles)
          (wave-lsp--summary 'profile (plist-get profile :kernel)
                             (plist-get profile :launchLine) (plist-get profile :summary)
                             (eq (plist-get profile :ok) t))))))
  (wave-lsp--refresh-later uri))

(defun wave-lsp--launch-command (command kind)
  "Send COMMAND for the kernel and launch line at point, show its summary as KIND.
Returns the server's answer."
  (pcase-let ((`(,kernel . ,launch) (wave-lsp-kernel-at-point)))
    (let ((result (wave-lsp--execute command (wave-lsp--uri) kernel launch)))
      (when result
        (let ((summary (plist-get result :summary)))
          (wave-lsp--summary kind kernel (plist-get result :launchLine) summary
                             (eq (plist-get result :ok) t))
          (message "%s: %s" kernel summary))
        (wave-lsp-refresh-hints))
      result)))

(defun wave-lsp-run-kernel ()
  "Run the kernel at point (with the launch line at point) in the server's emulator.
Returns the server's answer (`wave-lsp.run')."
  (interactive)
  (wave-lsp--launch-command "wave-lsp.run" 'run))

(defun wave-lsp-test-kernel ()
  "Run the kernel test at point (on a launch line), else every test of the kernel at point.
Returns the server's answer (`wave-lsp.test')."
  (interactive)
  (pcase-let ((`(,kernel . ,launch) (wave-lsp-kernel-at-point)))
    (let ((result (wave-lsp--execute "wave-lsp.test" (wave-lsp--uri) kernel launch)))
      (when result
        (seq-doseq (test (plist-get result :tests))
          (let ((passed (eq (plist-get test :passed) t)))
            (wave-lsp--summary 'test (plist-get test :kernel) (plist-get test :launchLine)
                               (if passed "✓ passed"
                                 (concat "✕ " (or (plist-get test :message) "failed")))
                               passed)))
        (message "%s: %d passed, %d failed" kernel (plist-get result :passed)
                 (plist-get result :failed)))
      result)))

(defun wave-lsp-profile-kernel ()
  "Profile the kernel at point (with the launch line at point): each line's figures as
overlays, the worst findings as diagnostics.  Returns the server's answer (`wave-lsp.profile')."
  (interactive)
  (wave-lsp--launch-command "wave-lsp.profile" 'profile))

(defun wave-lsp-clear-results ()
  "Forget the runs and profiles of this buffer's kernels, and their overlays."
  (interactive)
  (wave-lsp--execute "wave-lsp.clear" (wave-lsp--uri) nil)
  (wave-lsp--execute "wave-lsp.clearProfile" (wave-lsp--uri) nil)
  (mapc #'delete-overlay wave-lsp--summaries)
  (setq wave-lsp--summaries nil)
  (wave-lsp-refresh-hints))

(provide 'wave-lsp-commands)
;;; wave-lsp-commands.el ends here
