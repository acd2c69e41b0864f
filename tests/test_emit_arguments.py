"""A kernel's arguments reach the generated code (`asm/backends/arguments.py`): every register
the kernel may read before writing is a kernel parameter after the device-memory pointer, in
ascending register order, in PTX, HIP, Metal and SYCL, and the code reads it; a kernel without
such registers keeps its text; `--compat upstream` keeps upstream's. The vendors' compilers see
the arguments: hipcc no longer folds the shared GEMM away (its VGPRs within 2x of ptxas'
registers)."""

from __future__ import annotations

import re

import pytest

from wave_lsp.asm.backends import TARGETS, EmitError, emit
from wave_lsp.asm.backends.arguments import argument_values, kernel_arguments
from wave_lsp.asm import assemble, vendors
from wave_lsp.isa.kernel_abi import METAL_BUFFER_ARGUMENTS

from conftest import run_wave_lsp, shared_examples_dir
from vendor_batch import SYCL_INCLUDE, compiler

pytestmark = pytest.mark.hipcc      # the vendors' compilers, hipcc among them

ARGUMENTS = """.kernel args
.registers 12
.workgroup_size 32, 1, 1
    mov_sr r1, sr_thread_id_x
    mov_imm r3, 4
    imul r1, r1, r3
    iadd r4, r1, r9
    if p1
        mov_imm r2, 1
    endif
    iadd r6, r0, r2
    dadd r10, r6, r6
    device_store_u32 r4, r10
    halt
.end
"""
EXPECTED = (0, 2, 7, 9)    # r2: written on one side of the if only; r7: the high half of the
                           # f64 pair r6..r7 that dadd reads (iadd wrote r6)

# per backend: the parameter's declaration, and where the code takes its value
DECLARED = {"ptx": "    .param .u32 arg_r{r}", "hip": "uint32_t arg_r{r}",
            "metal": "    constant uint32_t& arg_r{r} [[buffer({i})]]",
            "sycl": "uint32_t arg_r{r},"}
READ = {"ptx": "    ld.param.u32 %r{r}, [arg_r{r}];", "hip": "r{r} = arg_r{r}",
        "metal": "r{r} = arg_r{r}", "sycl": "r{r} = arg_r{r}"}
POINTER = {"ptx": ".param .u64 _device_mem_ptr", "hip": "uint8_t* device_mem",
           "metal": "device uint8_t* device_mem [[buffer(0)]]", "sycl": "uint8_t* device_mem_usm"}


def test_the_arguments_are_the_live_ins():
    kernel = assemble(ARGUMENTS).kernels[0]
    assert kernel_arguments(kernel) == EXPECTED and kernel_arguments(kernel, compat=True) == ()
    assert argument_values(EXPECTED, {9: 5, 0: -1 & 0xFFFFFFFF, 11: 3}) == [0xFFFFFFFF, 0, 0, 5]


@pytest.mark.parametrize("target", TARGETS)
def test_each_argument_is_declared_after_the_pointer_in_order_and_read(target):
    text = emit(ARGUMENTS, target).text
    at = [text.index(DECLARED[target].format(r=r, i=i)) for i, r in enumerate(EXPECTED, 1)]
    assert text.index(POINTER[target]) < at[0] and at == sorted(at)
    for r in EXPECTED:
        assert text.count(READ[target].format(r=r)) == 1
    for r in set(range(12)) - set(EXPECTED):      # the others: no parameter, zero as before
        assert f"arg_r{r}" not in text
        if target != "ptx":
            assert re.search(rf"\br{r} = 0\b", text)
    compat = emit(ARGUMENTS, target, compat=True).text
    assert "arg_r" not in compat


@pytest.mark.parametrize("target", TARGETS)
def test_a_kernel_without_arguments_keeps_its_text(target):
    """The shared vector_add reads nothing before writing it: its text is upstream's, except
    (SYCL) the work-item order."""
    path = shared_examples_dir() / "vector_add.wave"
    if not path.is_file():
        pytest.skip(f"{path} not found (../shared/wave-examples)")
    source = path.read_text()
    assert kernel_arguments(assemble(source).kernels[0]) == ()
    ours, upstream = emit(source, target).text, emit(source, target, compat=True).text
    if target != "sycl":
        assert ours == upstream
    else:
        changed = [(a, b) for a, b in zip(ours.splitlines(), upstream.splitlines()) if a != b]
        assert len(ours.splitlines()) == len(upstream.splitlines())
        assert all("range<3>" in a or "it.get_" in a for a, _ in changed) and changed


def test_the_command_line_shows_the_parameters(tmp_path):
    path = tmp_path / "args.wave"
    path.write_text(ARGUMENTS)
    done = run_wave_lsp("emit", "-t", "hip", str(path))
    assert done.returncode == 0, done.stderr
    assert ("__global__ void args(uint8_t* device_mem, uint32_t arg_r0, uint32_t arg_r2, "
            "uint32_t arg_r7, uint32_t arg_r9) {") in done.stdout.decode()


def test_metal_refuses_more_arguments_than_it_binds():
    body = "\n".join(f"    iadd r40, r40, r{r}" for r in range(METAL_BUFFER_ARGUMENTS))
    source = f".kernel many\n.registers 48\n    mov_imm r40, 0\n{body}\n    halt\n.end\n"
    assert len(kernel_arguments(assemble(source).kernels[0])) == METAL_BUFFER_ARGUMENTS
    with pytest.raises(EmitError, match="Metal binds at most 30"):
        emit(source, "metal")
    assert emit(source, "hip").text.count("uint32_t arg_r") == METAL_BUFFER_ARGUMENTS


# ---- the vendors' compilers ----------------------------------------------------------------
def _figure(check, name: str) -> int:
    assert check.accepted, [m.text for m in check.errors()]
    (usage,) = check.usage
    return dict(usage.figures)[name]


@pytest.mark.parametrize("target", ("ptx", "hip", "sycl"))
def test_the_compilers_accept_a_kernel_with_arguments(target):
    found = compiler(target)
    include = str(SYCL_INCLUDE) if target == "sycl" else None
    for check in vendors.check_all(target, emit(ARGUMENTS, target).text, found, include=include):
        assert check.accepted, [m.text for m in check.errors()]


def test_hipcc_keeps_the_shared_gemm_within_2x_of_ptxas_registers():
    """gemm_blocked reads its sizes and offsets from r0-r5: with them as parameters hipcc can
    no longer fold the kernel away (it gave 13 VGPRs on gfx90a, ptxas 96-109 registers)."""
    path = shared_examples_dir() / "gemm_blocked.wave"
    if not path.is_file():
        pytest.skip(f"{path} not found (../shared/wave-examples)")
    source = path.read_text()
    ptxas, hipcc = compiler("ptx"), compiler("hip")
    registers = [_figure(c, "registers") for c in vendors.check_all("ptx", emit(source, "ptx").text,
                                                                   ptxas)]
    vgprs = [_figure(c, "VGPRs") for c in vendors.check_all("hip", emit(source, "hip").text, hipcc)]
    for v in vgprs:
        assert all(r / 2 <= v <= 2 * r for r in registers), (vgprs, registers)


def test_the_resource_figures_find_a_kernel_with_parameters():
    """The hover's and kernelResources' figures (ide.vendor_usage) name the kernel by its entry
    (PTX) and its mangled name (HIP: `_Z4argsPhjjjj` with four u32 parameters): both still
    found with parameters after the pointer."""
    from wave_lsp.ide.vendor_usage import VendorTools, kernel_figures
    from wave_lsp.isa.backends import VENDOR_ARCHES
    compiler("ptx"), compiler("hip")
    figures = kernel_figures(ARGUMENTS, "args", VendorTools.find())
    assert {(f.target, f.arch) for f in figures} == {
        (t, a) for t in ("ptx", "hip") for a in VENDOR_ARCHES[t]}
    for f in figures:
        assert f.problem is None and dict(f.figures)["VGPRs" if f.target == "hip"
                                                     else "registers"] > 0, f
