#!/usr/bin/env bash
# The C compiler and Python headers that `pip install -e .` needs to build the native emulator
# core (wave_lsp/emu/native, setup.py). Idempotent: installs nothing when both are there.
set -euo pipefail
include="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
if command -v gcc >/dev/null && [ -f "$include/Python.h" ]; then
    echo "gcc and $include/Python.h present"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq gcc python3-dev >/dev/null
echo "installed gcc and python3-dev"
