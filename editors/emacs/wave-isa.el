;;; wave-isa.el --- WAVE facts for wave-mode  -*- lexical-binding: t; -*-
;; GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.vim_files`: do not edit.
;;; Code:
(defconst wave-block-openers '("if" "loop"))
(defconst wave-block-middles '("else"))
(defconst wave-block-closers '("endif" "endloop"))
(provide 'wave-isa)
;;; wave-isa.el ends here
