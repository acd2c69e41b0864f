"""The profile part of `wave-lsp run`'s output (`--profile`, `--profile-target`,
`--profile-lines`), so the command and kernel tests print the same.

After the normal output, the kernel profile as a table of source lines, hottest first —
executions (wave-instructions with an active lane), lane utilisation, divergent branches (waves
a branch split), local-memory bank ways (passes over the conflict-free ideal), device sectors
against the ideal, and the source text — then the kernel's totals. `--profile-target` picks a
preset of `isa.profile_presets.PROFILE_PRESETS` (default: the launch's wave width, 32 banks of 4
bytes, 32-byte sectors) and implies `--profile`; `--profile-lines N` caps the table (0: every line).
With `--json`, the document gains `"profile": {"target", "lines", "totals"}` (lines 1-based).

A kernel with more distinct memory access patterns than the profile keeps (at most 256 per
instruction, 4 MiB in all) has those lines' memory figures estimated from the patterns kept: the
table says so under its header, the JSON in `"estimated": [{"line", "kept_share"}]`.
`--time-limit` bounds the run and the profile's counting together: past it, the text is
`time limit: ...` (the command prints it as its error and exits with status 1).
"""

from __future__ import annotations

import time

from ..isa.profile_presets import profile_preset
from .flags import LaunchFlagError


def check_profile_flags(args) -> bool:
    """Whether parsed flags ask for a profile (`--profile-target` implies `--profile`);
    `LaunchFlagError` for a bad target (naming the targets) or flags a profile does not go
    with."""
    if args.profile_target is not None:
        try:
            profile_preset(args.profile_target)
        except ValueError as err:
            raise LaunchFlagError(str(err), "--profile-target") from None
        args.profile = True
    if not args.profile:
        return False
    if args.profile_lines < 0:
        raise LaunchFlagError(f"--profile-lines: must be 0 (all) or positive, got "
                              f"{args.profile_lines}", "--profile-lines")
    if args.wave_widths or args.device != "emulator" or args.compare or args.trace \
            or args.trace_lines:
        raise LaunchFlagError("--profile: profiles one run on the emulator; it does not go "
                              "with --wave-widths, --device, --compare or --trace", "--profile")
    return True


def counted_profile(report, target: str | None, time_limit: float | None, started: float):
    """The report's profile under `target`; `AnalysisStopped` past `time_limit` seconds counted
    from `started` (a `time.monotonic()` from before the run)."""
    from ..emu import AnalysisStopped, profile_for

    def check() -> None:
        if time_limit is not None and time.monotonic() - started > time_limit:
            raise AnalysisStopped(f"time limit: --time-limit {time_limit:g} s reached while "
                                  "counting the profile (the run and the profile's counting "
                                  "together); no profile shown")
    return profile_for(report.profile, target, check)


def profile_table(report, program, target: str | None, limit: int,
                  time_limit: float | None, started: float) -> tuple[list[str], str | None]:
    """(the table's lines, None), or ([], the error) when the counting stopped at the time
    limit. `program` is what the command loaded (source text or `.wbin` bytes)."""
    from ..emu import AnalysisStopped
    try:
        profile = counted_profile(report, target, time_limit, started)
    except AnalysisStopped as err:
        return [], str(err)
    return profile_lines(profile, source_texts(program, report, profile.by_pc), limit), None


def with_profile_json(text: str, report, target: str | None, time_limit: float | None,
                      started: float) -> tuple[str, str | None]:
    """`--json`'s document with the "profile" object added, and the error when its counting
    stopped at the time limit (the document then has none)."""
    import json
    from ..emu import AnalysisStopped
    if report.profile is None:
        return text, None
    try:
        profile = counted_profile(report, target, time_limit, started)
    except AnalysisStopped as err:
        return text, str(err)
    data = json.loads(text)
    data["profile"] = profile.to_json()
    return json.dumps(data, indent=1), None


def source_texts(program, report, by_pc: bool) -> dict:
    """Text per profile key: the source line, or the instruction's disassembly (by pc for
    `.wbin` input)."""
    if isinstance(program, str):
        return {i: text.strip() for i, text in enumerate(program.splitlines())}
    from ..emu import load_kernels, render, select_kernel
    kernel = select_kernel(load_kernels(program), report.kernel)
    return {ins.offset if by_pc else ins.line: render(ins) for ins in kernel.instructions}


def _ways(c) -> str:
    if not c.local_ideal_wavefronts:
        return "-"
    return f"{c.local_wavefronts / c.local_ideal_wavefronts:.1f}"


def _sectors(c) -> str:
    if not c.global_ideal_sectors:
        return "-"
    return f"{c.global_sectors} / {c.global_ideal_sectors}"


def _percent(part, whole) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _ratio(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def profile_lines(profile, texts: dict, limit: int) -> list[str]:
    """The table (hottest first, at most `limit` rows; 0: all) and the totals."""
    totals = profile.totals
    preset = profile.preset
    what = "pc" if profile.by_pc else "line"
    header = (f"Profile ({profile.target}: wave {totals['wave_width']}, {preset.banks} banks "
              f"x {preset.bank_bytes} B, {preset.sector_bytes}-byte sectors), hottest first:")
    note = profile.estimate_note()
    rows = [header, *([f"({note})"] if note else []),
            f"{what:>6} {'executions':>11} {'lanes':>7} {'divergent':>9} "
            f"{'bank ways':>9} {'sectors / ideal':>17}  source"]
    hottest = profile.hottest()
    shown = hottest if not limit else hottest[:limit]
    for c in shown:
        key = f"0x{c.line:04x}" if profile.by_pc else str(c.line + 1)
        rows.append(f"{key:>6} {c.executions:>11} {_percent(c.active_lanes, c.lane_slots):>7} "
                    f"{c.divergent_branches or '-':>9} {_ways(c):>9} {_sectors(c):>17}  "
                    f"{texts.get(c.line, '')}")
    if len(shown) < len(hottest):
        rows.append(f"  ... {len(hottest) - len(shown)} more lines (--profile-lines 0 or "
                    "--json for all)")
    rows.append(
        f"Totals: {totals['executions']} wave-instructions; lane utilisation "
        f"{_percent(totals['active_lanes'], totals['lane_slots'])}; memory efficiency "
        f"{_percent(totals['global_ideal_sectors'], totals['global_sectors'])} "
        f"({totals['global_sectors']} sectors, ideal {totals['global_ideal_sectors']}); "
        f"conflict ratio {_ratio(totals['conflict_ratio'])} ({totals['local_wavefronts']} "
        f"local wavefronts, ideal {totals['local_ideal_wavefronts']}); "
        f"{totals['divergent_branches']} divergent branches")
    rows.append("(executions: wave-instructions with an active lane, as a GPU issues them; "
                "--stats keeps upstream's count, which includes waves with none)")
    return rows
