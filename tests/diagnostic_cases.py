"""Data for the diagnostic tests: for each code, sources where it must be reported (the expected
range marked with «»; the fix, when there is one, must give `fixed`) and sources where it must not.

`K("...")` wraps instruction lines in a kernel with 16 registers and a final halt.
"""

from __future__ import annotations

from dataclasses import dataclass


def K(body: str, registers: int = 16) -> str:
    return f".kernel k\n.registers {registers}\n{body}\n    halt\n.end\n"


@dataclass(frozen=True)
class Positive:
    code: str
    source: str                  # with «» around the expected range
    fixed: str | None = None     # text after applying the diagnostic's (first) fix
    message: str | None = None   # a substring the message must contain


@dataclass(frozen=True)
class Negative:
    code: str
    source: str


POSITIVE = [
    # ---- syntax ----------------------------------------------------------------------------
    Positive("S101", K("    iadd r1, r2, r3«)»"), message="unexpected character ')'"),
    Positive("S101", K("    iadd r1, r2«,»"), message="expected an operand after ','"),
    Positive("S101", K("    mov r1, r2 «+» 4")),
    Positive("S101", K("    nop «\x00»")),
    Positive("S102", K("    mov_imm r1, «-0x10»"), K("    mov_imm r1, -16"), "negative hexadecimal"),
    Positive("S102", K("    mov_imm r1, «0X10»"), K("    mov_imm r1, 0x10")),
    Positive("S102", K("    mov_imm r1, «+5»"), K("    mov_imm r1, 5")),
    Positive("S102", K("    mov_imm r1, «.5»"), K("    mov_imm r1, 0.5")),
    Positive("S103", K("    «@ p1» nop"), K("    @p1 nop"), "no spaces"),
    Positive("S103", K("    «@r1» nop"), message="a guard is @pN"),
    Positive("S104", K("«src_loop»:\n    nop"), message="starts with 'sr'"),
    Positive("S104", K("«r2d2»:\n    nop"), message="starts like a register"),
    Positive("S104", K("«éx»:\n    nop"), message="non-ASCII"),
    Positive("S104", ".kernel «p1k»\n    halt\n.end\n"),
    # ---- operands --------------------------------------------------------------------------
    Positive("O201", K("    «iaddd» r1, r2, r3"), K("    iadd r1, r2, r3"), "did you mean 'iadd'"),
    Positive("O201", K("    «frobnicate» r1"), message="unknown instruction 'frobnicate'"),
    Positive("O202", K("    iadd «r1, r2»"), message="expected 3, got 2"),
    Positive("O202", K("    halt «nop»"), message="on its own line"),
    Positive("O202", K("    atomic_add «r1, r2, r3»"),
             K("    atomic_add r1, r2, r3, .device"), "needs a scope"),
    Positive("O203", K("    iadd r1, r2, «p1»"), message="expected register operand"),
    Positive("O204", K("    icmp_eq «r1», r2, r3"), message="expected predicate register"),
    Positive("O205", K("    mov_sr r1, «r2»"), message="expected special register"),
    Positive("O206", K("    mov_imm r1, «r2»"), message="expected immediate operand"),
    Positive("O207", K("    call «r1»"), message="expected label operand"),
    Positive("O208", K("    fence_acquire «.gpu»"), message="expected scope specifier"),
    Positive("O208", K("    fence_acquire «.devic»"), K("    fence_acquire .device")),
    Positive("O209", K("    mov r1, «r255»"), message="invalid register index 255: must be 0-254"),
    Positive("O210", K("    icmp_eq «p4», r1, r2"), message="invalid predicate register index 4"),
    Positive("O210", K("    @«p7» nop")),
    Positive("O211", K("    mov_sr r1, «sr_lane»"), K("    mov_sr r1, sr_lane_id"), "did you mean"),
    Positive("O212", K("    mov_imm r1, «4294967296»"), message="out of range"),
    Positive("O212", K("    mov_imm r1, «-2147483649»")),
    Positive("O213", K("    mov r1«.x», r2"), K("    mov r1, r2"), "only .lo and .hi"),
    Positive("O214", K("    iadd«.wide» r1, r2, r3"), K("    iadd r1, r2, r3")),
    # ---- structure -------------------------------------------------------------------------
    Positive("K301", "«.kernel a»\n    halt\n.kernel b\n    halt\n.end\n", message="not closed"),
    Positive("K301", "«.kernel a»\n    halt\n", message="end of the file"),
    Positive("K302", ".kernel a\n    halt\n.end\n«.end»\n"),
    Positive("K303", "«halt»\n.kernel a\n    halt\n.end\n", message="instruction outside kernel"),
    Positive("K304", K("dup:\n    nop\n«dup»:\n    nop"), message="duplicate label 'dup'"),
    Positive("K305", K("    call «nowhere»"), message="undefined label 'nowhere'"),
    Positive("K306", K("    mov_imm r1, 1\n    icmp_eq p1, r1, r1\n    «if» p1\n    nop"),
             message="without a matching endif"),
    Positive("K306", K("    «endif»"), message="endif without a matching if"),
    Positive("K306", K("    «else»")),
    Positive("K306", K("    if p1\n    else\n    «else»\n    endif"), message="second else"),
    Positive("K307", K("    «loop»\n    nop"), message="without a matching endloop"),
    Positive("K307", K("    «endloop»")),
    Positive("K308", K("    «break» p1"), message="break outside a loop"),
    Positive("K308", K("    «continue» p1")),
    Positive("K309", K("    if p1\n" * 32 + "    «if» p1\n" + "    endif\n" * 33)),
    Positive("K310", ".kernel k\n«.registrs» 8\n    halt\n.end\n", ".kernel k\n.registers 8\n    halt\n.end\n",
             "did you mean '.registers'"),
    Positive("K310", ".kernel k\n«.global» x\n    halt\n.end\n", message="invalid directive"),
    Positive("K311", ".kernel k\n.registers «r8»\n    halt\n.end\n", message="expected an integer"),
    Positive("K311", ".kernel k\n.workgroup_size «8, 8»\n    halt\n.end\n"),
    Positive("K311", ".kernel «1»\n    halt\n.end\n", message="expected a kernel name"),
    Positive("K312", ".kernel a\n    halt\n.end\n«.kernel a»\n    halt\n.end\n"),
    # ---- legacy ----------------------------------------------------------------------------
    Positive("L401", K("    «add.s32» r1, r2, r3"), K("    iadd r1, r2, r3"), "current form is 'iadd'"),
    Positive("L401", K("    «ADD» r1, r2, r3"), K("    iadd r1, r2, r3")),
    Positive("L401", K("    «device_atomic_add» r1, r2, r3, .device"),
             K("    atomic_add r1, r2, r3, .device")),
    Positive("L401", K("    «fcmp_ge» p1, r2, r3"), K("    fcmp_le p1, r3, r2"), "swap"),
    Positive("L401", K("    «ucmp_gt» p1, r2, r3"), K("    ucmp_lt p1, r3, r2")),
    Positive("L401", K("    «umin» r1, r2, r3"), message="ucmp_lt and select"),
    Positive("L401", K("    «selp.s32» r1, r2, r3, p1"), K("    select r1, p1, r2, r3")),
    Positive("L401", K("    «atom.global.add.u32» r1, r2, r3"),
             K("    atomic_add r1, r2, r3, .device")),
    Positive("L401", K("    «ld.global.b32» r1, [r2]")),
    Positive("L402", K("    device_load_u32 r1, «[r2]»"), K("    device_load_u32 r1, r2")),
    Positive("L402", K("    device_load_u32 r1, «[r2 + 4]»"), message="add the offset"),
    Positive("L403", K("    mov r1, «%tid.x»"), K("    mov r1, sr_thread_id_x")),
    Positive("L403", K("    mov r1, «%clock»"), message="not a WAVE special register"),
    Positive("L404", K("    loop\n    break «!p1»\n    endloop"), message="invert the comparison"),
    Positive("L405", K("    «icmp.lt» p1, r2, r3"), K("    icmp_lt p1, r2, r3")),
    Positive("L405", K("    «device_load.u32» r1, r2"), K("    device_load_u32 r1, r2")),
    Positive("L406", K("    atomic_add«.device» r1, r2, r3"), K("    atomic_add r1, r2, r3, .device")),
    Positive("L407", ".kernel k\n.workgroup_size «256»\n    halt\n.end\n",
             ".kernel k\n.workgroup_size 256, 1, 1\n    halt\n.end\n"),
    Positive("L408", K("    shl r4, r3, «2»"), message="only mov_imm takes an immediate"),
    Positive("L409", K("    «IADD» r1, r2, r3"), K("    iadd r1, r2, r3")),
    Positive("L410", ".kernel k\n«.local_mem» 64\n    halt\n.end\n",
             ".kernel k\n.local_memory 64\n    halt\n.end\n"),
    # ---- upstream misbehaviour -------------------------------------------------------------
    Positive("U501", K("    «@p0» nop"), message="no guard"),
    Positive("U502", K("    mov r1, «r8»", registers=8), message="beyond .registers 8"),
    Positive("U502", K("    dadd r2, r4, «r7»", registers=8), message="through r8"),
    Positive("U502", ".kernel k\n    mov r1, «r40»\n    halt\n.end\n", message="default of 32"),
    Positive("U503", K("    iadd r1, «sr_lane_id», r2"), message="as register r4"),
    Positive("U504", K("    mov_imm r1, «1.5»"), K("    mov_imm r1, 0x3FC00000"), "0x00000000"),
    Positive("U505", ".kernel k\n    nop\n«.end»\n", message="without 'halt'"),
    Positive("U505", ".kernel k\n    mov_imm r1, 1\n    icmp_eq p1, r1, r1\n    if p1\n    halt\n"
                     "    endif\n«.end»\n"),
    Positive("U505", ".kernel a\n    halt\n.end\n.kernel k\n    nop\n«.end»\n",
             message="runs off the end of the code"),
    Positive("U505", ".kernel k\n    nop\n«.end»\n.kernel a\n    halt\n.end\n",
             message="runs on into the next kernel's code"),
    Positive("U506", "«.registers 8»\n.kernel k\n    halt\n.end\n", message="ignored"),
    Positive("U506", ".kernel k\n    halt\n.end\n«.local_memory 64»\n", message="still changes"),
    Positive("U507", K("    «atomic_cas» r1, r2, r3, r4, .device"), message="modifier 0"),
    Positive("U507", K("    «local_atomic_cas» r1, r2, r3, r4")),
    Positive("U508", K("    loop\n    «continue» p1\n    break p1\n    endloop"), message="live-locks"),
    Positive("U509", ".kernel k\n.registers «300»\n    halt\n.end\n"),
    Positive("U509", ".kernel k\n.local_memory «-1»\n    halt\n.end\n"),
    # reads before writes (more cases: tests/test_uninitialised.py)
    Positive("U511", K("    iadd r2, «r1», r1\n    mov_imm r1, 4"),
             K("    ; wave-lsp args: r1\n    iadd r2, r1, r1\n    mov_imm r1, 4").replace(
                 ".kernel k\n.registers 16\n    ; wave-lsp args: r1\n",
                 ".kernel k\n    ; wave-lsp args: r1\n.registers 16\n"),
             message="the kernel writes it only later"),
    Positive("U512", K("    if p1\n    mov_imm r1, 4\n    endif\n    iadd r2, «r1», r1"),
             message="may be read before it is written"),
    # local memory without .local_memory: the bound the accesses reach, declared by the fix
    Positive("U510", ".kernel k\n.registers 8\n.workgroup_size 64, 1, 1\n"
             "    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 4\n    imul r2, r0, r1\n"
             "    «local_store_u32 r2, r0»\n    local_load_u32 r3, r2\n    halt\n.end\n",
             fixed=".kernel k\n.registers 8\n.local_memory 256\n.workgroup_size 64, 1, 1\n"
             "    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 4\n    imul r2, r0, r1\n"
             "    local_store_u32 r2, r0\n    local_load_u32 r3, r2\n    halt\n.end\n",
             message="its accesses reach 256 bytes"),
    Positive("U510", "  .kernel k\n    mov_imm r2, 8\n    mov_imm r3, 100\n    icmp_eq p1, r2, r3\n"
             "    if p1\n        mov_imm r2, 60\n    else\n        mov_imm r2, 12\n    endif\n"
             "    «local_load_u64 r4, r2»\n    halt\n.end\n",
             fixed="  .kernel k\n  .local_memory 68\n    mov_imm r2, 8\n    mov_imm r3, 100\n"
             "    icmp_eq p1, r2, r3\n    if p1\n        mov_imm r2, 60\n    else\n"
             "        mov_imm r2, 12\n    endif\n    local_load_u64 r4, r2\n    halt\n.end\n"),
    Positive("U510", ".kernel k\n.registers 8\n    mov_sr r5, sr_lane_id\n    mov_imm r4, 0\n"
             "    icmp_eq p3, r5, r4\n    loop\n        @p3 mov_imm r2, 8\n"
             "        «@p3 local_load_u32 r3, r2»\n        break p3\n"
             "    endloop\n    halt\n.end\n",
             fixed=".kernel k\n.registers 8\n.local_memory 12\n    mov_sr r5, sr_lane_id\n"
             "    mov_imm r4, 0\n    icmp_eq p3, r5, r4\n    loop\n        @p3 mov_imm r2, 8\n"
             "        @p3 local_load_u32 r3, r2\n        break p3\n"
             "    endloop\n    halt\n.end\n"),
    Positive("U510", ".kernel k\n.registers 8\n    mov_imm r1, 0\n    mov_imm r2, 16\n"
             "    «mma_load_a r0, r1, r2»\n    halt\n.end\n",
             fixed=".kernel k\n.registers 8\n.local_memory 64\n    mov_imm r1, 0\n"
             "    mov_imm r2, 16\n    mma_load_a r0, r1, r2\n    halt\n.end\n"),
    Positive("U510", ".kernel k\n.registers 8\n    mov_imm r1, 0\n    mov_imm r2, 4\n    loop\n"
             "        «local_atomic_add r1, r2»\n        iadd r1, r1, r2\n    endloop\n"
             "    halt\n.end\n", message="cannot be told from the code"),
    # ---- encoding differences --------------------------------------------------------------
    Positive("C701", ".kernel k\n    iadd r1, r2, r3\n    call «f»\n    halt\nf:\n    return\n.end\n",
             message="0x10"),
    # ---- files -----------------------------------------------------------------------------
    Positive("X903", K("    nop ; wave-lsp: ignore[«Z999»]"), message="unknown diagnostic code"),
]

NEGATIVE = [
    Negative("S101", K("    iadd r1, r2, r3 ; fine (really)")),
    Negative("S102", K("    mov_imm r1, 0x10\n    mov_imm r2, -16\n    mov_imm r3, 1_000")),
    Negative("S103", K("    @!p1 nop\n    @p2 nop")),
    Negative("S104", K("loop_start:\n    nop\nrun:\n    nop\npx:\n    nop")),
    Negative("O201", K("    iadd r1, r2, r3\n    wave_reduce_max r1, r2")),
    Negative("O202", K("    atomic_add r1, r2, r3, .device\n    atomic_add r2, r3, .device\n"
                       "    local_atomic_add r2, r3")),
    Negative("O203", K("    mov r1, sr_lane_id")),
    Negative("O208", K("    fence_acquire.workgroup\n    fence_release .system\n"
                       "    atomic_or r1, r2, r3, device")),
    Negative("O209", K("    mov r1, r254", registers=255)),
    Negative("O211", K("    mov_sr r1, sr_mma_k")),
    Negative("O212", K("    mov_imm r1, 4294967295\n    mov_imm r2, -2147483648")),
    Negative("O213", K("    hadd r1.lo, r2.hi, r3")),
    Negative("O214", K("    device_load_u32.uncached r1, r2\n    device_store_u32.streaming r1, r2")),
    Negative("K301", ".kernel a\n    halt\n.end\n.kernel b\n    halt\n.end\n"),
    Negative("K303", ".kernel a\nx:\n    halt\n.end\n"),
    Negative("K305", K("    call f\n    halt\nf:\n    return")),
    Negative("K306", K("    if p1\n    if p2\n    else\n    endif\n    else\n    endif")),
    Negative("K308", K("    loop\n    if p1\n    break p1\n    endif\n    endloop")),
    Negative("K309", K("    if p1\n" * 32 + "    endif\n" * 32)),
    Negative("K312", ".kernel a\n    halt\n.end\n.kernel b\n    halt\n.end\n"),
    Negative("L401", K("    and r1, r2, r3\n    not r1, r2")),
    Negative("U501", K("    @!p0 nop\n    @p1 nop")),
    Negative("U502", K("    mov r7, r6\n    dadd r2, r4, r6", registers=8)),
    Negative("U503", K("    mov r1, sr_lane_id\n    mov_sr r2, sr_wave_id")),
    Negative("U504", K("    mov_imm r1, 0x3FC00000")),
    Negative("U505", ".kernel k\n    loop\n    break p1\n    endloop\n    halt\n.end\n"),
    Negative("U505", ".kernel k\n    @p0 halt\n.end\n"),
    Negative("U506", ".kernel k\n.registers 8\n    halt\n.end\n"),
    Negative("U511", K("    iadd r2, r1, r1")),                  # an argument by convention
    Negative("U511", K("    ; wave-lsp args: r1\n    iadd r2, r1, r1\n    mov_imm r1, 4")),
    Negative("U512", K("    mov_imm r1, 0\n    if p1\n    mov_imm r1, 4\n    endif\n"
                       "    iadd r2, r1, r1")),
    Negative("U510", ".kernel k\n.local_memory 16\n    mov_imm r1, 0\n"
             "    local_store_u32 r1, r1\n    halt\n.end\n"),
    Negative("U510", ".kernel k\n    mov_imm r1, 0\n    device_store_u32 r1, r1\n    halt\n.end\n"),
    Negative("C701", ".kernel k\n    call f\n    halt\nf:\n    return\n.end\n"),
    Negative("C701", ".kernel k\n    mov_imm r1, 1\n    call f\n    halt\nf:\n    return\n.end\n"),
]

# Codes whose positive cases live in other test files (file-level problems, divergence).
ELSEWHERE = {"X900", "X901", "X902", "U513", "D601", "D602", "D603", "D604", "D605", "D606",
             # run results: tests/server/test_run_results.py and tests/test_run_results.py
             "R001", "R002", "R003", "R004", "R005", "R006",
             # kernel tests: tests/server/test_kernel_tests.py
             "R011", "R012",
             # kernel profile: tests/server/test_profile.py and tests/test_profile_view.py
             "R021", "R022", "R023",
             # static verification in the editor: tests/server/test_verify.py
             "R031", "R032",
             # portability: tests/test_portability_lints.py (they depend on the targets)
             "P801", "P802", "P803", "P804", "P805", "P806", "P807", "P811", "P812", "P813", "P814",
             "P815", "P816", "P817", "P818", "P819", "P820", "P821", "P822", "P823",
             # the vendors' compilers in the editor: tests/server/test_vendor_explained.py
             "P824"}
