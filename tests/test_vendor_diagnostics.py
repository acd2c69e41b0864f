"""P824 below the server (`ide.vendor_diagnostics`): a vendor compiler's errors on the
translation land on the source line their generated line comes from, else on the `.kernel`
line of the kernel they name; one diagnostic per line and message naming every architecture;
the configuration's severity, `disable` and suppression comments apply. The compiler is a
planted ptxas that rejects the generated line of the first `xor.b32`, and the real ptxas where
installed."""

from __future__ import annotations

import pytest

from wave_lsp.analysis import Severity, config_from_mapping
from wave_lsp.asm import vendors
from wave_lsp.ide.state import DocumentState
from wave_lsp.ide.vendor_diagnostics import rejections
from wave_lsp.ide.vendor_help import NOT_FOUND, OFF, Absent
from wave_lsp.ide.vendor_usage import VendorTools

TWO = (".kernel first\n.registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n"
       ".kernel second\n.registers 4\n    mov_sr r0, sr_lane_id\n    mov_imm r1, 7\n"
       "    xor r2, r0, r1   ; the planted ptxas rejects this\n    halt\n.end\n")
XOR = 9


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> str:
    program = tmp_path_factory.mktemp("ptxas") / "ptxas"
    program.write_text(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.ptx) f=\"$a\";; esac; done\n"
        "n=$(grep -n 'xor.b32' \"$f\" | head -1 | cut -d: -f1)\n"
        "if [ -z \"$n\" ]; then exit 0; fi\n"
        "echo \"ptxas $f, line $n; error   : Arguments mismatch for instruction 'xor'\" >&2\n"
        "exit 1\n")
    program.chmod(0o755)
    return str(program)


def _found(text: str, ptxas: str, config=None, targets=("ptx", "hip")):
    tools = VendorTools((("ptx", ptxas), ("hip", None)))
    return rejections(DocumentState("file:///k.wave", text), tools, targets, config)


def test_an_error_lands_on_its_instruction(planted):
    found = _found(TWO, planted)
    assert [t for t, _ in found.texts] == ["ptx"]
    (d,) = found.diagnostics
    line = TWO.splitlines()[XOR]
    assert (d.code, d.severity, d.range.start_line) == ("P824", Severity.WARNING, XOR)
    assert (d.range.start_col, d.range.end_col) == (4, len("    xor r2, r0, r1"))
    assert "ptxas (sm_75, sm_90) rejects this kernel's PTX translation" in d.message
    assert "Arguments mismatch for instruction 'xor'" in d.message and line


def test_configuration_applies(planted):
    config, _ = config_from_mapping({"severity": {"P824": "error"}}, "test")
    assert [d.severity for d in _found(TWO, planted, config).diagnostics] == [Severity.ERROR]
    config, _ = config_from_mapping({"disable": ["P824"]}, "test")
    assert _found(TWO, planted, config).diagnostics == ()
    suppressed = TWO.replace("; the planted ptxas rejects this", "; wave-lsp: ignore[P824]")
    assert _found(suppressed, planted).diagnostics == ()
    assert _found(TWO, planted, targets=("hip", "metal")).texts == ()


def test_accepted_code_has_no_diagnostic(planted):
    assert _found(TWO.replace("xor r2", "iadd r2"), planted).diagnostics == ()


def test_the_real_ptxas_rejection_names_its_kernel():
    ptxas = vendors.find_compiler("ptx")
    if ptxas is None:
        pytest.skip("ptxas is not installed (pip install nvidia-cuda-nvcc-cu12)")
    text = (".kernel small\n.registers 4\n    halt\n.end\n.kernel big\n.registers 8\n"
            ".local_memory 200000\n    mov_imm r1, 0\n    local_store_u32 r1, r1\n    halt\n.end\n")
    (d,) = _found(text, ptxas).diagnostics
    assert d.range.start_line == 4 and "'big' uses too much shared data" in d.message


def test_absent_compilers_say_what_they_add_and_how_to_install():
    ptx, hip = Absent("ptx", NOT_FOUND), Absent("hip", OFF)
    assert ptx.install().endswith(" -m pip install nvidia-cuda-nvcc-cu12")
    assert hip.install() == "sudo apt-get install hipcc rocm-device-libs libamdhip64-dev"
    assert "not on PATH nor in wave-lsp's environment" in ptx.text()
    assert "backends.hipcc: false" in hip.markdown() and "wave.backends.hipcc" in hip.markdown()
