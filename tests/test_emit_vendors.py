"""The vendors' own compilers accept what `wave-lsp emit` writes: NVIDIA's ptxas (the
`nvidia-cuda-nvcc-cu12` wheel) for sm_75 and sm_90, AMD's hipcc (Debian's ROCm) for gfx90a and
gfx1030, and for SYCL g++ against Intel's SYCL headers (host code only: no SYCL device compiler
can be installed from the registries; Metal has no compiler outside Apple's toolchain), on
every kernel the tests hold: examples/, the shared kernels, the kernels of the emit tests and
of tests/, one kernel per instruction form, and hypothesis-generated programs. A
rejection is a defect of the emitter. What the PTX computes is checked by the lock-step
interpreter (test_emit_waves.py); whether it is PTX at all, here. Kernels are compiled in
batches (`vendor_batch.py`): one compiler run per target architecture and batch.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from wave_lsp.asm import AssemblyError, assemble
from wave_lsp.asm.backends import EmitError, emit
from wave_lsp.isa import INSTRUCTIONS, SCOPES, SPECIAL_REGISTERS, OperandKind
from wave_lsp.isa.backends import VENDOR_ARCHES
from wave_lsp.isa.launch_defaults import DEFAULT_LOCAL_MEMORY

from conftest import ROOT, run_wave_lsp, shared_example_names, shared_examples_dir
from test_emit import CORRECTIONS, WAVE_GUARDS, _mma_kernel, program
from test_emit_waves import DIVERGENT, HALTED, STRAIGHT, _program
from vendor_batch import describe, rejections

pytestmark = pytest.mark.hipcc      # hipcc is one of the compilers

VENDOR_TARGETS = ("ptx", "hip", "sycl")
CONTROL = {"if", "else", "endif", "loop", "endloop", "break", "continue", "call", "return", "halt"}


def _forms(mnemonic: str) -> list[str]:
    """Every form of one instruction: each optional operand left out or not, each scope, each
    special register; distinct registers, wide operands on aligned pairs and quads."""
    spec = INSTRUCTIONS[mnemonic]
    forms = [[]]
    next_register = 2
    for op in spec.operands:
        if op.kind is OperandKind.REGISTER:
            width = spec.register_width(op)
            choices = [f"r{next_register * width if width > 1 else next_register}"]
            next_register += 1
        elif op.kind is OperandKind.PREDICATE:
            choices = [f"p{1 + len(forms[0]) % 3}"]
        elif op.kind is OperandKind.SPECIAL:
            choices = [r.name for r in SPECIAL_REGISTERS]
        elif op.kind is OperandKind.IMMEDIATE:
            choices = ["4294967295", "7"]
        else:
            choices = ["." + s.name for s in SCOPES]
        forms = [f + [c] for f in forms for c in choices] + (forms if op.optional else [])
    return [mnemonic + (" " + ", ".join(f) if f else "") for f in forms]


def instruction_kernels() -> dict[str, str]:
    """One kernel per instruction form, plain and guarded; local-memory forms both with and
    without `.local_memory`."""
    out = {}
    for m in sorted(INSTRUCTIONS):
        if m in CONTROL:
            continue
        local = m.startswith(("local_", "mma_"))
        for i, form in enumerate(_forms(m)):
            for guard in ("", "@!p2 "):
                for declared in ((64, 0) if local else (0,)):
                    extra = f".local_memory {declared}\n" if declared else ""
                    out[f"{m}#{i}{guard.strip()}/{declared}"] = (
                        f".kernel k\n.registers 32\n{extra}    mov_imm r1, 3\n"
                        f"    {guard}{form}\n    halt\n.end\n")
    return out


def held_kernels() -> dict[str, str]:
    """Every kernel source the tests hold, by a readable name."""
    out = {f"examples/{p.name}": p.read_text() for p in sorted((ROOT / "examples").glob("*.wave"))}
    out.update({f"shared/{n}": (shared_examples_dir() / n).read_text()
                for n in shared_example_names()})
    for path in sorted((ROOT / "tests").rglob("*.wave")):
        out[str(path.relative_to(ROOT))] = path.read_text()
    out.update({f"CORRECTIONS[{i}]": c[1] for i, c in enumerate(CORRECTIONS)})
    out.update({"WAVE_GUARDS": WAVE_GUARDS, "mma": _mma_kernel(), "STRAIGHT": STRAIGHT,
                "DIVERGENT": DIVERGENT, "HALTED": HALTED})
    return out


def _translatable(sources: dict[str, str], target: str) -> tuple[list[str], list[str]]:
    """(names, texts) of the sources that assemble and that the backend translates (a refusal,
    such as `call`, is a clear error, not code handed to a compiler)."""
    names, texts = [], []
    for name, source in sources.items():
        try:
            texts.append(emit(source, target).text)
        except (AssemblyError, EmitError):
            continue
        names.append(name)
    return names, texts


BATCHES = settings(max_examples=int(os.environ.get("VENDOR_BATCHES", "3")), deadline=None,
                   database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_GENERATED: list[str] = []


def generated_programs() -> list[str]:
    """The emit tests' own generators (every mnemonic, guards, nested if/loop, wave operations
    in divergent code): VENDOR_BATCHES draws of 40 programs, made once for every target."""
    if not _GENERATED:
        @BATCHES
        @given(sources=st.lists(program(), min_size=25, max_size=25),
               wave_sources=st.lists(_program(), min_size=15, max_size=15))
        def draw(sources, wave_sources):
            _GENERATED.extend(sources + wave_sources)
        draw()
    return _GENERATED


PARTS = {"held": held_kernels, "forms": instruction_kernels,
         "generated": lambda: {f"program {i}:\n{s}": s for i, s in enumerate(generated_programs())}}
_COMPILED: dict[str, tuple[list, list[str], dict[str, range]]] = {}


def _accepted(target: str, part: str, warnings: bool = False) -> tuple[int, int]:
    """How many sources of `part` were compiled, of how many; fails on any error of theirs (and, unless
    `warnings`, on any warning: a random program may compare a register with itself, which
    clang warns about). Every part is compiled in one compiler run per architecture, the first
    time a test asks for a target (the compilers' start-up, hipcc's device libraries and the
    SYCL headers cost more than the programs); a message the compiler ties to no program fails
    every part."""
    if target not in _COMPILED:
        names, texts, spans = [], [], {}
        for key, made in PARTS.items():
            sources = made()
            more, translated = _translatable(sources, target)
            spans[key] = (range(len(names), len(names) + len(more)), len(sources))
            names += more
            texts += translated
        _COMPILED[target] = (rejections(target, texts), names, spans)
    found, names, spans = _COMPILED[target]
    compiled, given = spans[part]
    found = [r for r in found if (r.program in compiled or r.program < 0)
             and (warnings is False or r.text.startswith("error"))]
    assert not found, describe(found, names)
    return len(compiled), given


@pytest.mark.parametrize("target", VENDOR_TARGETS)
def test_every_held_kernel_is_accepted(target):
    compiled, given = _accepted(target, "held")
    assert compiled >= given - 8                        # a few test kernels use `call`


@pytest.mark.parametrize("target", VENDOR_TARGETS)
def test_every_instruction_form_is_accepted(target):
    compiled, given = _accepted(target, "forms")
    assert compiled == given


@pytest.mark.parametrize("target", VENDOR_TARGETS)
def test_generated_programs_are_accepted(target):
    """All the generated programs, with the other parts in one compiler run per architecture."""
    assert _accepted(target, "generated", warnings=True)[1] >= 40


def test_a_rejection_is_reported_on_its_line():
    """The gate can fail: broken PTX and HIP are rejected, each error on the line it names."""
    source = Path(ROOT / "examples" / "vector_add.wave").read_text()
    for target, broken, at in (("ptx", "    frob.u32 %r1;", "\n}"),
                               ("hip", "    frob(r1);", "\n}"),
                               ("sycl", "frob(r1);", "\n            }")):
        text = emit(source, target).text.replace(at, f"\n{broken}{at}", 1)
        found = rejections(target, [text])
        assert found and all(r.program == 0 and r.text.startswith("error") for r in found)
        assert {r.generated for r in found} == {broken.strip()}
        assert {r.arch for r in found} == set(VENDOR_ARCHES[target])
    assert assemble(source).kernels


def test_local_memory_without_the_directive_is_declared(tmp_path):
    """Through the real `wave-lsp emit`: a kernel that uses local memory without `.local_memory`
    (the shared `barrier_in_loop`) gets the emulator's default size declared in every backend,
    and the compilers accept it; upstream's text uses an undeclared buffer and is rejected."""
    source = tmp_path / "k.wave"
    source.write_text(K_LOCAL)
    expected = {"ptx": f".shared .align 4 .b8 _shared_mem[{DEFAULT_LOCAL_MEMORY}];",
                "hip": "extern __shared__ uint8_t local_mem[];",
                "metal": f"threadgroup uint8_t local_mem[{DEFAULT_LOCAL_MEMORY}];",
                "sycl": f"local_accessor<uint8_t, 1> local_acc(range<1>({DEFAULT_LOCAL_MEMORY}), h);"}
    texts = {}
    for target, declaration in expected.items():
        for compat in ((), ("--compat", "upstream")):
            out = run_wave_lsp("emit", "-t", target, *compat, str(source))
            assert out.returncode == 0, out.stderr
            texts[target, bool(compat)] = out.stdout.decode()
        assert declaration in texts[target, False] and declaration not in texts[target, True]
    for target in VENDOR_TARGETS:
        assert not rejections(target, [texts[target, False]])
        assert [r for r in rejections(target, [texts[target, True]]) if "error" in r.text]
    from wave_lsp.emu.kernel_launch import DEFAULT_LOCAL_MEMORY as emulator_default
    assert emulator_default == DEFAULT_LOCAL_MEMORY


K_LOCAL = """.kernel k
.registers 8
    mov_sr r1, sr_lane_id
    mov_imm r2, 4
    imul r1, r1, r2
    local_store_u32 r1, r1
    barrier
    local_atomic_add r3, r1, r2
    local_load_u32 r4, r1
    mma_load_a r1, r1, r2
    halt
.end
"""
