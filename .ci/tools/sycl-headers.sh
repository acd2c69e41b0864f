#!/usr/bin/env bash
# Intel's SYCL headers (oneAPI DPC++'s <sycl/sycl.hpp>, from the intel-sycl-rt wheel on PyPI) for
# the SYCL check of tests/test_emit_vendors.py: the SYCL that `wave-lsp emit` writes is compiled
# for the host by g++ against them. Only the headers are kept (the wheel's libraries are 600 MB):
# once per user and version in ~/.cache/wave-lsp-ci (XDG_CACHE_HOME), under a lock, linked at
# .tools/intel-sycl in each clone. Idempotent: does nothing when the headers are there.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=2026.2.0
target=.tools/intel-sycl
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wave-lsp-ci"
headers="$cache/intel-sycl-$version"
ready() { [ -f "$1/include/sycl/sycl.hpp" ] && [ "$(cat "$1/VERSION" 2>/dev/null)" = "$version" ]; }
if ready "$target"; then
    echo "SYCL headers present in $target"
    exit 0
fi
mkdir -p "$cache" .tools
if ! ready "$headers"; then
    exec 9>"$cache/.intel-sycl.lock"
    flock 9
    if ! ready "$headers"; then
        tmp="$(mktemp -d)"
        trap 'rm -rf "$tmp"' EXIT
        python3 -m venv "$tmp/venv"        # its pip: the system Python may have none
        "$tmp/venv/bin/pip" download --quiet --no-deps --only-binary=:all: "intel-sycl-rt==$version" -d "$tmp"
        python3 - "$tmp" "$headers" <<'PY'
import pathlib, shutil, sys, zipfile
tmp, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(tmp.glob("intel_sycl_rt-*.whl"))
shutil.rmtree(target, ignore_errors=True)
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        head, sep, rest = name.partition(".data/data/include/")
        if sep and rest and not name.endswith("/"):
            out = target / "include" / rest
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(archive.read(name))
PY
        echo "$version" > "$headers/VERSION"
    fi
    flock -u 9
fi
[ -L "$target" ] || rm -rf "$target"        # an older clone's own copy
ln -sfn "$headers" "$target"
echo "installed the SYCL headers of intel-sycl-rt $version in $target"
