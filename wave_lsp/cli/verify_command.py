"""`wave-lsp verify PATH... [--kernel K] [--grid/--workgroup/--wave-width/...] [--json] [--strict]`:
prove each kernel free of data races and divergent barriers, or show a witness.

For every kernel (or the one `--kernel` names), under its launch geometry — the flags given
here, else the kernel's `; wave-lsp run:` launch line, else `.workgroup_size` (default 32,1,1)
with any number of workgroups — for all kernel arguments and memory contents and every schedule
the specification allows (waves of a workgroup interleave freely between barriers, workgroups
run in any order): every barrier is reached by all threads of a workgroup or none, and no two
threads touch the same byte of local memory (of their workgroup) or device memory (of the
grid) unordered, at least one writing and not both atomics. One line per kernel:

    FILE:LINE: KERNEL: proved | race | divergence | unknown — reason
      witness: thread T1 (write, line 12) ↔ thread T2 (read, line 15), local byte 64
      replay:  wave-lsp run FILE --grid 1,1,1 --workgroup 64,1,1 --wave-width 32 ...

`--json` prints {"kernels": [{"kernel", "verdict", "reason", "elapsed_ms", "witness"}]}, a
witness being {"kind", "space", "address", "threads", "lines" (1-based), "accesses",
"launch"} (plus "exact", "inputs", "thread_ids" and "replayed"). A witness is run in the
emulator (`--no-replay` skips it); one found through an over-approximation (a loop summary, a
loaded value) that does not show in its replay, or is not replayed, makes the verdict `unknown`.

Exit status: 1 when a kernel has a race or a divergent barrier (or, with `--strict`, is
unknown), 2 for a file or flag that cannot be read, else 0 — for pre-commit
(`.pre-commit-hooks.yaml`: `wave-lsp-verify`). How it works and what it cannot decide:
docs/dev/verify.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify", help="prove kernels free of data races and divergent barriers",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", type=Path, nargs="+", metavar="PATH",
                   help=".wave source, or a directory (its .wave files, recursively)")
    p.add_argument("--kernel", help="verify only this kernel")
    for flag, what in (("--grid", "workgroups X,Y,Z (default: any number)"),
                       ("--workgroup", "threads per workgroup X,Y,Z (the kernel's "
                                       ".workgroup_size wins; default 32,1,1)"),
                       ("--wave-width", "lanes per wave (default 32)"),
                       ("--local-memory", "local memory bytes (.local_memory wins)"),
                       ("--device-memory", "device memory bytes (bounds witnesses' launches)")):
        p.add_argument(flag, help=what)
    p.add_argument("--set-reg", action="append", metavar="REG:VALUE",
                   help="initial register value (repeatable); with any, the others start at 0")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--strict", action="store_true", help="exit 1 when a kernel is unknown")
    p.add_argument("--no-replay", action="store_true",
                   help="do not run witnesses in the emulator")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..files import read_regular
    from ..launch.flags import LaunchFlagError
    from ..launch.verify import GEOMETRY_FLAGS, set_reg_values, verify_source
    from ..syntax.document import Document

    flags = {f: getattr(args, f[2:].replace("-", "_")) for f in GEOMETRY_FLAGS}
    flags = {f: v for f, v in flags.items() if v is not None}
    try:
        set_regs = set_reg_values(args.set_reg) if args.set_reg else None
    except LaunchFlagError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 2
    results = []
    for path in _expand(args.files):
        try:
            source = read_regular(path).decode("utf-8")
        except (OSError, UnicodeDecodeError, ValueError) as err:
            print(f"Error: cannot read '{path}': {getattr(err, 'strerror', None) or err}",
                  file=sys.stderr)
            return 2
        document = Document(source)
        program = document.program
        if args.kernel and all(k.name != args.kernel for k in program.kernels):
            print(f"Error: no kernel '{args.kernel}' in '{path}'", file=sys.stderr)
            return 2
        try:
            found = verify_source(source, program, flags, args.kernel, not args.no_replay,
                                  set_regs, document.syntax)
        except LaunchFlagError as err:
            print(f"Error: {err}", file=sys.stderr)
            return 2
        results += [(path, v, r) for v, r in found]
    if args.json:
        kernels = []
        for path, v, r in results:
            item = v.as_json()
            item["file"] = str(path)
            if item["witness"] is not None:
                item["witness"]["replayed"] = None if r is None else r.shown
            kernels.append(item)
        print(json.dumps({"kernels": kernels}, ensure_ascii=False))
    else:
        for path, v, r in results:
            print(_text(path, v, r))
    bad = {"race", "divergence"} | ({"unknown"} if args.strict else set())
    return 1 if any(v.verdict in bad for _p, v, _r in results) else 0


def _expand(paths: list[Path]) -> list[Path]:
    """Files as given; a directory's `.wave` files, sorted."""
    out = []
    for path in paths:
        out += sorted(path.rglob("*.wave")) if path.is_dir() else [path]
    return out


def _text(path, v, replay) -> str:
    head = f"{path}:{v.line + 1}: {v.kernel}: {v.verdict} ({v.elapsed:.2f} s) — {v.reason}"
    w = v.witness
    if w is None:
        return head
    a, b = w.threads
    if w.kind == "race":
        what = (f"  witness: thread {a.global_id} ({w.accesses[0]}, line {w.lines[0] + 1}) ↔ "
                f"thread {b.global_id} ({w.accesses[1]}, line {w.lines[1] + 1}), {w.space} byte "
                f"{w.address}")
    else:
        what = (f"  witness: thread {a.global_id} reaches the barrier at line {w.lines[0] + 1}, "
                f"thread {b.global_id} does not")
    out = [head, what]
    if w.memory:
        from ..analysis.verify.model import unwritable
        left = unwritable(w.memory)
        out.append("  memory:  " + ", ".join(
            f"{address}={value}" + (" (not set by the replay)" if address in left else "")
            for address, value in w.memory.items()) + " (device words it loads)")
    out.append(f"  replay:  wave-lsp run {path} {v.launch()}")
    if replay is not None:
        out.append(f"  replayed: {replay.line}")
    return "\n".join(out)
