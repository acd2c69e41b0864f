#!/usr/bin/env bash
# AMD's HIP compiler (Debian's ROCm: hipcc, the device libraries and the HIP headers), the gate
# for the HIP that `wave-lsp emit` writes (tests/test_emit_vendors.py; ptxas comes from the
# nvidia-cuda-nvcc-cu12 wheel in pyproject's `test` extra). Idempotent: installs nothing when
# hipcc compiles a kernel for gfx90a already.
set -euo pipefail
probe() {
    local dir
    dir="$(mktemp -d)"
    printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\n' \
        > "$dir/k.hip"
    HIP_PLATFORM=amd hipcc --offload-arch=gfx90a --cuda-device-only -c "$dir/k.hip" \
        -o "$dir/k.o" >/dev/null 2>&1
    local rc=$?
    rm -rf "$dir"
    return $rc
}
if command -v hipcc >/dev/null && probe; then
    echo "hipcc present: $(command -v hipcc)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq hipcc rocm-device-libs libamdhip64-dev >/dev/null
probe
echo "installed hipcc, rocm-device-libs and libamdhip64-dev"
