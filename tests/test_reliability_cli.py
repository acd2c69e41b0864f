"""Reliability and security of the commands, each through the real `wave-lsp` process:
no code from cache files, no data lost when a write fails, no directory skipped silently, no
injection through kernel names, no reading without bound, and hostile configurations reported."""

from __future__ import annotations

import os
import pickle
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from wave_lsp.asm import assemble, read_wbin
from wave_lsp.asm.wbin import HEADER, RECORD
from wave_lsp.cache import write_atomically as write_cache
from tests.forkserver import wave_lsp_argv

LEGACY_LINE = "    ADD r1, r2, r3\n"  # `lint --fix` rewrites it to `iadd`


def wave_lsp(*args: str, cache: Path | None = None, fsize: int | None = None,
             cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    # a limit set on the shim would not reach a forked command: with one, the real command
    argv = wave_lsp_argv(*args, env=env) if fsize is None else [sys.executable, "-m",
                                                                  "wave_lsp", *args]
    return subprocess.run(argv, capture_output=True,
                          env=env, cwd=cwd, timeout=timeout, preexec_fn=limit)


# ---- nothing from the cache is ever executed -------------------------------------------

class Planted:
    """Unpickling this creates a marker file: proof that code from a cache file ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def old_grammar_key() -> str:
    """The name under which wave-lsp up to 0.x kept its pickled grammar (the issue's attack)."""
    import hashlib

    from wave_lsp.cache import package_stamp
    from wave_lsp.syntax.grammar import grammar_text

    text = f"{grammar_text()}\0{package_stamp('parsimonious')}\0{sys.version}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def test_a_planted_cache_file_never_runs(tmp_path):
    cache = tmp_path / "cache"
    folder = cache / "wave-lsp"
    folder.mkdir(parents=True)
    marker = tmp_path / "pwned"
    payload = pickle.dumps(Planted(marker))
    # every name a cache file of any version could have: the grammar pickle, the initialize
    # answer, whatever else sits there
    names = ["grammar-" + "0" * 32 + ".pickle", "initialize-" + "0" * 32 + ".json",
             f"grammar-{old_grammar_key()}.pickle"]
    for name in names:
        (folder / name).write_bytes(payload)
    for key_len in range(8, 65, 8):
        (folder / f"grammar-{'a' * key_len}.pickle").write_bytes(payload)
    source = tmp_path / "k.wave"
    source.write_text(".kernel k\n    halt\n.end\n")
    assert wave_lsp("lint", str(source), cache=cache).returncode == 0
    assert wave_lsp("asm", str(source), cache=cache).returncode == 0
    assert not marker.exists()
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        names + [f"grammar-{'a' * n}.pickle" for n in range(8, 65, 8)])  # nothing new written


def test_the_grammar_is_built_without_a_disk_cache(tmp_path):
    source = tmp_path / "k.wave"
    source.write_text(".kernel k\n    halt\n.end\n")
    cache = tmp_path / "cache"
    assert wave_lsp("lint", str(source), cache=cache).returncode == 0
    assert not (cache / "wave-lsp").exists() or not list((cache / "wave-lsp").iterdir())


def test_cache_writes_never_follow_a_planted_temporary_name(tmp_path):
    """The temporary file's name cannot be guessed: a link planted at the old predictable
    name (`NAME.<pid>.tmp`) is never written through."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    target = tmp_path / "initialize-x.json"
    os.symlink(victim, target.with_suffix(f".{os.getpid()}.tmp"))
    write_cache(target, b"{}")
    assert victim.read_bytes() == b"precious"
    assert target.read_bytes() == b"{}"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp") and not p.is_symlink()] \
        == []


# ---- a failed write loses nothing ------------------------------------------------------

def big_legacy_source(lines: int) -> str:
    body = "".join(f"    iadd r{i % 8}, r{(i * 3) % 8}, r{(i * 5) % 8} ; line {i}\n"
                   for i in range(lines))
    return ".kernel k\n.registers 8\n" + LEGACY_LINE + body + "    halt\n.end\n"


def test_lint_fix_keeps_the_file_when_the_write_fails(tmp_path):
    path = tmp_path / "big.wave"
    text = big_legacy_source(1800)
    assert len(text) > 53_000
    path.write_text(text)
    r = wave_lsp("lint", "--fix", str(path), fsize=16 * 1024)
    assert r.returncode == 2
    assert "cannot write" in r.stderr.decode() and "cannot read" not in r.stderr.decode()
    assert path.read_text() == text  # not cut at 16 kB
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.wave"]  # no temporary left
    r = wave_lsp("lint", "--fix", str(path))  # without the limit the fix is written
    assert "ADD" not in path.read_text() and path.read_text().count("\n") == text.count("\n")


def test_lint_fix_keeps_the_file_mode(tmp_path):
    path = tmp_path / "m.wave"
    path.write_text(big_legacy_source(3))
    path.chmod(0o640)
    wave_lsp("lint", "--fix", str(path))
    assert "ADD" not in path.read_text() and (path.stat().st_mode & 0o777) == 0o640


def test_asm_keeps_the_old_output_when_the_write_fails(tmp_path):
    source = tmp_path / "big.wave"
    source.write_text(big_legacy_source(6000).replace(LEGACY_LINE, ""))
    out = tmp_path / "big.wbin"
    out.write_bytes(b"old output")
    r = wave_lsp("asm", str(source), fsize=16 * 1024)
    assert r.returncode == 2 and "cannot write" in r.stderr.decode()
    assert out.read_bytes() == b"old output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.wave", "big.wbin"]


# ---- directories that cannot be read ---------------------------------------------------

def unreadable_directory(parent: Path) -> Path:
    """A directory below `parent` that cannot be listed: no permission for an ordinary user;
    for root (who bypasses permissions), a path longer than PATH_MAX."""
    if os.geteuid() != 0:
        secret = parent / "secret"
        secret.mkdir()
        (secret / "bad.wave").write_text(".kernel k\n    ADD r1, r2, r3\n.end\n")
        secret.chmod(0)
        return secret
    fd = os.open(parent, os.O_RDONLY)
    try:
        for _ in range(25):
            os.mkdir("d" * 200, dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        bad = os.open("bad.wave", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(bad, b".kernel k\n    ADD r1, r2, r3\n.end\n")
        os.close(bad)
    finally:
        os.close(fd)
    return parent / ("d" * 200)


def test_lint_reports_an_unreadable_directory_and_exits_2(tmp_path):
    (tmp_path / "ok.wave").write_text(".kernel k\n    halt\n.end\n")
    unreadable_directory(tmp_path)
    try:
        r = wave_lsp("lint", str(tmp_path))
        assert r.returncode == 2, r
        assert "cannot read directory" in r.stderr.decode()
        assert "Traceback" not in r.stderr.decode()
    finally:
        for folder in tmp_path.iterdir():
            if folder.name == "secret":
                folder.chmod(0o755)


# ---- kernel names from a .wbin ---------------------------------------------------------

def with_kernel_name(wbin: bytes, name: bytes) -> bytes:
    """A copy of a one-kernel .wbin whose kernel name is `name` (symbols rebuilt)."""
    import struct

    parsed = read_wbin(wbin)
    code = wbin[parsed.code_offset:parsed.code_offset + parsed.code_size]
    symbols = name + b"\0"
    sym_off = parsed.code_offset + len(code)
    meta_off = sym_off + len(symbols)
    k = parsed.kernels[0]
    record = RECORD.pack(sym_off, k.register_count, k.local_memory, *k.workgroup_size,
                         k.code_offset, len(k.code))
    meta = struct.pack("<I", 1) + record
    header = HEADER.pack(b"WAVE", parsed.version, parsed.flags, parsed.code_offset, len(code),
                         sym_off, len(symbols), meta_off, len(meta))
    return header + code + symbols + meta


@pytest.mark.parametrize("name", [b"k\n    halt\n    nop", b"a]b", b"x\x7fy", b"esc\x1b[2Jz",
                                  b"tab\tname", b"bell\x07", b"nel\xc2\x85x"])
def test_hostile_kernel_names_never_reach_the_listing(tmp_path, name):
    good = assemble(".kernel k\n    mov_imm r1, 5\n    halt\n.end\n").wbin()
    path = tmp_path / "evil.wbin"
    path.write_bytes(with_kernel_name(good, name))
    r = wave_lsp("dis", str(path))
    out = r.stdout + r.stderr
    for bad in (b"\x1b", b"\x7f", b"\x07", b"\t", "\x85".encode()):
        assert bad not in out
    if r.returncode == 0:  # printable but not an identifier: listed under a safe name
        listing = r.stdout.decode()
        assert ".kernel kernel_0" in listing
        relisted = tmp_path / "re.wave"
        relisted.write_text(listing)
        assert wave_lsp("asm", str(relisted), "-o", str(tmp_path / "re.wbin")).returncode == 0
        assert read_wbin((tmp_path / "re.wbin").read_bytes()).kernels[0].code == \
            read_wbin(good).kernels[0].code
    else:
        assert r.returncode == 1 and "cannot be printed" in r.stderr.decode()
    assert b"    nop" not in r.stdout  # no instruction injected


def test_a_valid_name_still_round_trips(tmp_path):
    good = assemble(".kernel my_kernel\n    halt\n.end\n").wbin()
    path = tmp_path / "good.wbin"
    path.write_bytes(good)
    assert ".kernel my_kernel" in wave_lsp("dis", str(path)).stdout.decode()


# ---- (command line) asm never overwrites its input -------------------------------------

def test_asm_never_overwrites_its_input(tmp_path):
    source = tmp_path / "prog.wbin"  # a source file misnamed .wbin
    text = ".kernel k\n    halt\n.end\n"
    source.write_text(text)
    r = wave_lsp("asm", str(source))
    assert r.returncode == 2 and "input file itself" in r.stderr.decode()
    assert source.read_text() == text
    r = wave_lsp("asm", str(source), "-o", str(tmp_path / "out.wbin"))
    assert r.returncode == 0 and (tmp_path / "out.wbin").read_bytes() == assemble(text).wbin()


# ---- reading without bound, hostile configurations ------------------------------------

def test_a_fifo_and_dev_zero_are_refused_not_read(tmp_path):
    fifo = tmp_path / "pipe.wave"
    os.mkfifo(fifo)
    r = wave_lsp("lint", str(fifo), "/dev/zero", timeout=60)
    assert r.returncode == 2
    err = r.stderr.decode()
    assert "pipe.wave: error: cannot read: not a regular file" in err
    assert "/dev/zero: error: cannot read: not a regular file" in err
    r = wave_lsp("asm", "/dev/zero", "-o", str(tmp_path / "z.wbin"), timeout=60)
    assert r.returncode == 2 and "not a regular file" in r.stderr.decode()
    r = wave_lsp("dis", str(fifo), timeout=60)
    assert r.returncode == 2 and "not a regular file" in r.stderr.decode()


def test_a_huge_file_is_refused(tmp_path):
    huge = tmp_path / "huge.wave"
    with open(huge, "wb") as f:
        f.truncate(65 << 20)  # sparse: 65 MiB of NULs without using the disk
    r = wave_lsp("lint", str(huge))
    assert r.returncode == 2 and "too large" in r.stderr.decode()


@pytest.mark.parametrize("config,needle", [
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ('[tool]\n' + "x = 1\n", None),
    ('tool = "wave-lsp"\n', "[tool] must be a table"),
])
def test_hostile_pyproject_gives_x902_not_a_traceback(tmp_path, config, needle):
    (tmp_path / "pyproject.toml").write_text(config + "\n[tool.wave-lsp]\n"
                                             if needle is None else config)
    src = tmp_path / "k.wave"
    src.write_text(".kernel k\n    halt\n.end\n")
    r = wave_lsp("lint", "--config", str(tmp_path / "pyproject.toml"), str(src))
    assert "Traceback" not in r.stderr.decode()
    if needle is not None:
        assert "X902" in r.stdout.decode() and needle in r.stdout.decode()


def test_ten_thousand_unknown_codes_are_one_problem(tmp_path):
    config = tmp_path / "wave-lsp.toml"
    config.write_text("disable = [" + ", ".join(f'"Q{i:04d}"' for i in range(10_000)) + "]\n")
    src = tmp_path / "k.wave"
    src.write_text(".kernel k\n    halt\n.end\n")
    r = wave_lsp("lint", str(src))
    lines = [line for line in r.stdout.decode().splitlines() if "X902" in line]
    assert len(lines) == 1 and "10000 in all" in lines[0] and len(lines[0]) < 1000
