"""Occupancy per configured target in the kernel resources (the code lens, hover and command)."""

from __future__ import annotations

from wave_lsp.ide.resources import kernel_resources
from wave_lsp.syntax.document import Document

SOURCE = ".kernel k\n.registers 16\n.workgroup_size 128, 1, 1\n    iadd r1, r2, r3\n    halt\n.end\n"


def resources(targets):
    doc = Document(SOURCE)
    return kernel_resources(doc.program.kernels[0], 16, targets)


def test_occupancy_per_target_and_width():
    res = resources(("ptx", "hip", "metal", "sycl"))
    data = res.as_dict()["targets"]
    # spec §2.4: floor(16384 / (16 registers * W * 4))
    assert data["ptx"] == {"32": {"wavesPerWorkgroup": 4, "residentWaves": 8}}
    assert data["hip"] == {"64": {"wavesPerWorkgroup": 2, "residentWaves": 4},
                           "32": {"wavesPerWorkgroup": 4, "residentWaves": 8}}
    assert set(data["sycl"]) == {"8", "16", "32"} and data["sycl"]["8"]["residentWaves"] == 32
    summary = res.summary()
    assert "occupancy ptx 8 (W32) · hip 4 (W64)/8 (W32) · metal 8 (W32)" in summary
    assert "sycl 32 (W8)/16 (W16)/8 (W32)" in summary
    table = res.markdown()
    assert "| hip (RDNA (wave32/64) and CDNA (wave64)) | W64: 4 resident waves, 2 per workgroup" \
        in table


def test_only_configured_targets_are_shown():
    res = resources(("metal",))
    assert list(res.as_dict()["targets"]) == ["metal"]
    assert "hip" not in res.summary() and "| metal (" in res.markdown()
    assert "occupancy" in res.summary() and resources(()).as_dict()["targets"] == {}


def local_resources(declaration: str, address: str = "    mov_imm r1, 60\n"):
    source = (f".kernel k\n.registers 4\n{declaration}{address}"
              "    local_store_u32 r1, r1\n    halt\n.end\n")
    return kernel_resources(Document(source).program.kernels[0])


def test_local_memory_in_the_summary_is_never_a_silent_zero():
    undeclared = local_resources("")
    assert "local memory undeclared (needs 64 B)" in undeclared.summary()
    assert "| local memory | used but not declared (U510): its accesses reach 64 bytes; the " \
           "emulator and `wave-lsp emit` lend 16384 bytes, upstream's backends none |" in undeclared.markdown()
    unknown = local_resources("", "    mov_sr r1, sr_workgroup_id_x\n")
    assert "local memory undeclared (size unknown)" in unknown.summary()
    declared = local_resources(".local_memory 128\n")
    assert "128 B local" in declared.summary() and "| local memory | 128 bytes |" in \
        declared.markdown()
    none = kernel_resources(Document(SOURCE).program.kernels[0])
    assert "0 B local" in none.summary()
