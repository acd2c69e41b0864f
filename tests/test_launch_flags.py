"""The launch flags shared by `wave-lsp run`, launch lines and the debugger."""

import pytest

from wave_lsp.launch.flags import (LaunchFlagError, build_launch, dump_requests,
                                       parse_launch_flags)


def test_flags_build_the_launch():
    args = parse_launch_flags(["--grid", "4,1,1", "--workgroup=64,1,1", "--fill-iota", "0:f32:8:0.5",
                               "--set-reg", "r3:0x10", "--dump-f32", "1024:8", "--dump-memory", "0:16"])
    launch = build_launch(args)
    assert launch.grid == (4, 1, 1) and launch.workgroup == (64, 1, 1)
    assert launch.set_regs == {3: 16}
    assert launch.memory_init[0].count == 8 and launch.memory_init[0].scale == 0.5
    assert [(d.kind, d.start, d.count) for d in dump_requests(args)] == [("memory", 0, 16),
                                                                         ("f32", 1024, 8)]


@pytest.mark.parametrize("tokens, flag", [
    (["--gird", "1,1,1"], "--gird"),
    (["--grid"], "--grid"),
    (["--grid", "1,x,1"], "--grid"),
    (["--grid", "1,1"], "--grid"),
    (["--fill-iota", "0:f32"], "--fill-iota"),
    (["--set-reg", "r1"], "--set-reg"),
    (["--arg", "0:no-such-file.bin"], "--arg"),
])
def test_errors_name_the_flag(tokens, flag, tmp_path):
    with pytest.raises(LaunchFlagError) as info:
        build_launch(parse_launch_flags(tokens), base_dir=tmp_path)
    assert info.value.flag == flag
    assert str(info.value)


def test_arg_files_are_relative_to_the_base_folder(tmp_path):
    (tmp_path / "data.bin").write_bytes(b"\x01\x02\x03\x04")
    launch = build_launch(parse_launch_flags(["--arg", "8:data.bin"]), base_dir=tmp_path)
    assert launch.memory_init[0].offset == 8 and launch.memory_init[0].data == b"\x01\x02\x03\x04"
