#!/usr/bin/env bash
# The release's source distribution and pure wheel, checked: the `dist` job of
# .github/workflows/release.yml, and the dry run of tests/test_packaging.py. The sdist is built
# from the repository, the pure wheel (py3-none-any, no native core: the fallback for platforms
# without a wheel of their own) from the sdist, as pip builds it, so that a file missing from
# the sdist fails here; `twine check --strict` then reads both. WAVE_LSP_BUILD_ARGS are passed to
# `python -m build` (the tests give --no-isolation: no download); PYTHON picks the interpreter.
set -euo pipefail
out="$(realpath -m "${1:?usage: .ci/release-dist.sh OUTDIR}")"
python="${PYTHON:-python3}"
cd "$(dirname "$0")/.."
mkdir -p "$out"
# shellcheck disable=SC2086  # the build arguments are words
"$python" -m build --sdist --outdir "$out" ${WAVE_LSP_BUILD_ARGS:-} .
sdist=("$out"/wave_lsp-*.tar.gz)
# shellcheck disable=SC2086
WAVE_LSP_PURE=1 "$python" -m build --wheel --outdir "$out" ${WAVE_LSP_BUILD_ARGS:-} "${sdist[0]}"
"$python" -m twine check --strict "$out"/*
