"""What the vendors' compilers cost the rest of the editor, through a real
`wave-lsp serve`:

    python benchmarks/bench_vendor_contention.py [--instructions 20000] [--seconds 90] [--delay S]

A kernel of INSTRUCTIONS distinct instructions is opened and its name hovered (which starts
ptxas and hipcc on its PTX and HIP, four compiler runs). Meanwhile, until the compilers are done
(or SECONDS have passed), another large document (3,000 lines, so its requests are computed
off the event loop) is hovered and shown as Metal again and again. Prints the kernel hover's
own latency (the server promises an answer within `hover.VENDOR_WAIT_S`), the slowest hover and
Show Metal of the other document meanwhile, and the most compiler processes (ptxas, hipcc and
the clang it starts) that ran at once among the server's descendants. `--delay S` makes every
compiler run S seconds slower (a wrapper script named by `backends.*`): a kernel the compilers
take minutes over, as on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_session import RawSession  # noqa: E402
from bench_hostile import command, open_doc, timed  # noqa: E402

COMPILERS = ("ptxas", "hipcc", "clang", "lld", "ld.lld", "slow-")


def big_kernel(instructions: int) -> str:
    """Loads, compares, branches and float arithmetic on 24 live registers, none repeated."""
    lines = []
    for i in range(instructions // 8):
        a, b = 8 + i % 24, 8 + (i * 7 + 3) % 24
        lines += [f"    mov_imm r3, {i * 4 + 4096}", "    iadd r4, r2, r3",
                  "    device_load_u32 r5, r4", f"    icmp_lt p1, r5, r{b}", "    if p1",
                  f"    fma r{a}, r5, r{b}, r{a}", "    endif", f"    fmul r{b}, r{b}, r5"]
    lines += [f"    iadd r4, r2, r{8 + k}\n    device_store_u32 r4, r{8 + k}" for k in range(24)]
    return ".kernel big\n.registers 32\n    mov_sr r2, sr_thread_id_x\n" + "\n".join(lines) \
        + "\n    halt\n.end\n"


def slow_compilers(folder: Path, delay: float) -> dict:
    """`backends` settings naming wrappers that wait `delay` s, then run the real compiler:
    a kernel the compilers take that much longer over."""
    from wave_lsp.asm.vendors import find_compiler
    settings = {}
    for key, target in (("ptxas", "ptx"), ("hipcc", "hip")):
        real = find_compiler(target)
        if real:
            wrapper = folder / f"slow-{key}"
            wrapper.write_text(f"#!/bin/sh\nsleep {delay}\nexec {real} \"$@\"\n")
            wrapper.chmod(0o755)
            settings[key] = str(wrapper)
    return settings


def other_document(lines: int = 3_000) -> str:
    body = "".join(f"    iadd r{1 + i % 6}, r{1 + (i + 1) % 6}, r7\n" for i in range(lines))
    return ".kernel other\n.registers 8\n    mov_sr r7, sr_lane_id\n" + body + "    halt\n.end\n"


def compiler_processes(root: int) -> list[str]:
    """The compilers among `root`'s descendants (by /proc's comm names)."""
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        parent = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(parent, []).append(int(entry))
        names[int(entry)] = name
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if any(names.get(pid, "").startswith(c) for c in COMPILERS):
            found.append(names[pid])
        todo += children.get(pid, [])
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=90)
    parser.add_argument("--delay", type=float, default=0,
                        help="make each compiler run this many seconds slower (a wrapper)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wave-bench-") as tmp:
        folder = Path(tmp)
        session = RawSession()
        options = {"run": {"live": False}, "workspaceTrusted": True}
        if args.delay:
            options["backends"] = slow_compilers(folder, args.delay)
        await session.start(options)
        big, other = (folder / "big.wave").as_uri(), (folder / "other.wave").as_uri()
        open_doc(session, big, big_kernel(args.instructions))
        open_doc(session, other, other_document())
        other_hover = {"textDocument": {"uri": other}, "position": {"line": 5, "character": 5}}
        await timed(session, "textDocument/hover", other_hover)       # parsed, warm
        await timed(session, "workspace/executeCommand", command("wave-lsp.emit", other, "metal"))
        kernel_hover = asyncio.ensure_future(timed(session, "textDocument/hover", {
            "textDocument": {"uri": big}, "position": {"line": 0, "character": 9}}))
        started = time.perf_counter()
        hovers, views, most, hover_answer = [], [], [], None
        watcher_done = asyncio.Event()

        async def watch() -> None:
            while not watcher_done.is_set():
                most.append(len(compiler_processes(session.proc.pid)))
                await asyncio.sleep(0.1)

        watcher = asyncio.ensure_future(watch())
        await asyncio.sleep(1.0)
        while time.perf_counter() - started < args.seconds:
            seconds, _ = await timed(session, "textDocument/hover", other_hover)
            hovers.append(seconds)
            seconds, _ = await timed(session, "workspace/executeCommand",
                                     command("wave-lsp.emit", other, "metal"))
            views.append(seconds)
            if kernel_hover.done() and hover_answer is None:
                hover_answer = kernel_hover.result()
            if kernel_hover.done() and most and not compiler_processes(session.proc.pid):
                break
            await asyncio.sleep(0.2)
        watcher_done.set()
        await watcher
        if hover_answer is None and kernel_hover.done():
            hover_answer = kernel_hover.result()
        said = ""
        if hover_answer is not None:
            text = (hover_answer[1] or {}).get("contents", {}).get("value", "")
            vendor = text[text.find("vendor"):][:160].replace("\n", " ")
            said = f"{hover_answer[0]:.1f} s: {vendor!r}"
        print(f"{args.instructions:,}-instruction kernel: its hover {said or 'no answer'}")
        print(f"other document meanwhile ({len(hovers)} rounds over "
              f"{time.perf_counter() - started:.0f} s): hover slowest "
              f"{max(hovers, default=0):.2f} s, Show Metal slowest {max(views, default=0):.2f} s")
        print(f"compiler processes at once (ptxas, hipcc and its clang): at most "
              f"{max(most, default=0)}")
        await session.stop()


if __name__ == "__main__":
    asyncio.run(main())
