"""`--racecheck strict`: the specification's data races between the waves of a workgroup (spec
v0.1 §9.3, as `wave-lsp verify` decides them): a plain store or read meeting another wave's atomic
and two waves storing one same value are races too, named as such; atomics meeting atomics are
not. The default (`benign`, compute-sanitizer's racecheck) reports neither. Each case runs on the
numpy engine and through the pipeline with the native core, which reports each itself with the
same warning (native/waverace.c); races between workgroups are reported as before, in either
mode."""

from __future__ import annotations

import pytest

from emu_native.native_support import need_core
from wave_lsp.cli.main import main
from wave_lsp.emu import Launch, LaunchError, RunOptions, run

HEAD = (".kernel k\n.registers 12\n.local_memory 64\n    mov_sr r0, sr_thread_id_x\n"
        "    mov_imm r1, 0\n    mov_imm r2, 1\n    mov_imm r3, 8\n    icmp_eq p1, r0, r1\n")
TWO_WAVES = Launch(workgroup=(8, 1, 1), wave_width=4)


def kernel(body: str) -> str:
    return HEAD + body + "    halt\n.end\n"


def split(first: str, rest: str) -> str:
    """Thread 0 (wave 0) runs `first`, every other thread `rest`."""
    return kernel(f"    if p1\n        {first}\n    else\n        {rest}\n    endif\n")


# name -> (kernel, the strict message's last words, the space, the two access kinds)
CASES = {
    "local store vs atomic": (split("local_store_u32 r1, r2", "local_atomic_add r4, r1, r2"),
                              "(store vs atomic)", "local", ("write", "atomic")),
    "device store vs atomic": (split("device_store_u32 r3, r2", "atomic_add r4, r3, r2, .device"),
                               "(store vs atomic)", "device", ("write", "atomic")),
    "local read vs atomic": (split("local_load_u32 r4, r1", "local_atomic_add r4, r1, r2"),
                             "(read vs atomic)", "local", ("atomic", "read")),
    "device read vs atomic": (split("device_load_u32 r4, r3", "atomic_add r4, r3, r2, .device"),
                              "(read vs atomic)", "device", ("atomic", "read")),
    "local equal stores": (kernel("    local_store_u32 r1, r2\n"),
                           "(both wrote the same value)", "local", ("write", "write")),
    "device equal stores": (kernel("    device_store_u32 r3, r2\n"),
                            "(both wrote the same value)", "device", ("write", "write")),
}


def races(report):
    return [w for w in report.warnings if w.kind == "data_race"]


def engines(source: str, launch: Launch, racecheck: str):
    """The reports of the numpy engine and of the pipeline trying the native core first."""
    need_core()
    return [run(source, launch, RunOptions(engine=engine, racecheck=racecheck))
            for engine in ("numpy", "auto")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_strict_reports_what_benign_does_not(name):
    source, words, space, kinds = CASES[name]
    numpy_report, native_report = engines(source, TWO_WAVES, "strict")
    assert (native_report.engine, native_report.fallback) == ("native", None)
    for report in (numpy_report, native_report):
        (race,) = races(report)
        assert race.message.endswith(words), race.message
        assert f"data race on {space} address 0x{race.address:x} in workgroup" in race.message
        assert race.wave != race.other_wave and race.other_access == kinds[1]
        verb = {"write": "writes it", "atomic": "atomically updates it", "read": "reads it"}
        assert f"wave {race.wave} {verb[kinds[0]]}" in race.message
        assert f"wave {race.other_wave} {verb[kinds[1]]}" in race.message
    assert numpy_report.warnings == native_report.warnings
    benign = engines(source, TWO_WAVES, "benign")
    for report in benign:
        assert races(report) == []
    # the core's device shadows know no benign stores: its exact check decides those
    assert (benign[1].engine, benign[1].fallback) == ("native", None)


def test_atomics_meeting_atomics_are_no_race():
    source = kernel("    local_atomic_add r4, r1, r2\n    atomic_add r4, r3, r2, .device\n")
    for report in engines(source, TWO_WAVES, "strict"):
        assert races(report) == []
    assert engines(source, TWO_WAVES, "strict")[1].engine == "native"


def test_a_barrier_orders_a_store_and_an_atomic():
    source = kernel("    if p1\n        local_store_u32 r1, r2\n    endif\n    barrier\n"
                    "    local_atomic_add r4, r1, r2\n")
    for report in engines(source, TWO_WAVES, "strict"):
        assert races(report) == []


def test_one_wave_mixing_a_store_and_an_atomic_is_no_race():
    source = split("local_store_u32 r1, r2", "local_atomic_add r4, r1, r2")
    for report in engines(source, Launch(workgroup=(4, 1, 1), wave_width=4), "strict"):
        assert races(report) == []


def test_strict_names_a_pair_of_different_values_where_there_is_one():
    """Waves 0 and 1 store 1, wave 2 stores 2: the race named is not the equal pair."""
    source = kernel("    mov_imm r5, 8\n    icmp_lt p2, r5, r0\n    if p2\n        mov_imm r2, 2\n"
                    "    endif\n    local_store_u32 r1, r2\n")
    for report in engines(source, Launch(workgroup=(12, 1, 1), wave_width=4), "strict"):
        (race,) = races(report)
        assert race.message.endswith("with no barrier between them"), race.message
        assert 2 in (race.wave, race.other_wave)


def test_benign_messages_name_no_kind():
    """The default check reports a read of a word two waves stored one same value to (the
    reading wave stored nothing) as before, naming no kind."""
    source = kernel("    mov_imm r5, 4\n    icmp_lt p2, r0, r5\n    mov_imm r6, 8\n"
                    "    icmp_lt p3, r0, r6\n    if p2\n        local_store_u32 r1, r2\n"
                    "    else\n        if p3\n            local_store_u32 r1, r2\n"
                    "        else\n            local_load_u32 r7, r1\n        endif\n"
                    "    endif\n")
    for report in engines(source, Launch(workgroup=(12, 1, 1), wave_width=4), "benign"):
        (race,) = races(report)
        assert race.message.endswith("with no barrier between them"), race.message


def test_strict_in_several_workgroups_on_threads():
    """Each workgroup's waves race; the native core, running workgroups on threads, bails and the
    numpy engine names the race of each workgroup (one warning: once per pair of lines)."""
    source, words, _space, _kinds = CASES["local store vs atomic"]
    launch = Launch(grid=(8, 1, 1), workgroup=(8, 1, 1), wave_width=4)
    numpy_report, native_report = engines(source, launch, "strict")
    assert numpy_report.warnings == native_report.warnings
    (race,) = races(numpy_report)
    assert race.workgroup == (0, 0, 0) and race.message.endswith(words)


@pytest.mark.parametrize("racecheck", ["benign", "strict"])
def test_races_between_workgroups_of_both_kinds_in_either_mode(racecheck):
    """A store meeting another workgroup's atomic, and two workgroups storing one same value:
    races between workgroups in the default mode already, on both engines."""
    launch = Launch(grid=(2, 1, 1), workgroup=(4, 1, 1), wave_width=4)
    store_vs_atomic = kernel("    mov_sr r6, sr_workgroup_id_x\n    icmp_eq p2, r6, r1\n"
                             "    if p2\n        device_store_u32 r3, r2\n    else\n"
                             "        atomic_add r4, r3, r2, .device\n    endif\n")
    equal = kernel("    device_store_u32 r3, r2\n")
    for source, lines, words in (
            (store_vs_atomic, (11, 13), ("workgroup (0, 0, 0) writes it (line 12,",
                                         "workgroup (1, 0, 0) updates it atomically (line 14,",
                                         "), a plain access racing an atomic;")),
            (equal, (8, 8), ("workgroup (1, 0, 0) writes it (line 9,",
                             ") with no atomic between them;"))):
        reports = engines(source, launch, racecheck)
        assert reports[1].engine == "native"
        for report in reports:
            (race,) = races(report)
            assert race.workgroup == (0, 0, 0) and race.other_workgroup == (1, 0, 0)
            assert (race.line, race.other_line) == lines and race.address == 8
            assert all(part in race.message for part in words), race.message


def test_the_flag_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "k.wave"
    path.write_text(CASES["local equal stores"][0])
    flags = [str(path), "--workgroup", "8,1,1", "--wave-width", "4"]
    assert main(["run", *flags]) == 0
    assert "data race" not in capsys.readouterr().err
    assert main(["run", *flags, "--racecheck", "strict"]) == 0
    err = capsys.readouterr().err
    assert err.count("Warning: data race") == 1 and "(both wrote the same value)" in err
    with pytest.raises(SystemExit):
        main(["run", *flags, "--racecheck", "loose"])
    assert "invalid choice: 'loose'" in capsys.readouterr().err
    with pytest.raises(LaunchError, match="--racecheck: must be one of benign, strict"):
        RunOptions(racecheck="loose")
