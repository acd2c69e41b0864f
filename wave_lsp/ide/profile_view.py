"""What a kernel profile shows in the editor, per source line: plain data built from the
`KernelProfile` of every preset (`wave_lsp.emu.profile`), free of any protocol.

- heat: each executed line's cost (issue slots plus memory passes: executions + local
  wavefronts + global sectors; a relative measure, not cycles), its share of the kernel's cost
  and a level 1..5 relative to the hottest line;
- hints on the lines that matter: hot lines and divergent lines (`5 wave-instrs · 25% lanes`:
  the line's wave-instructions, every wave counted; a run's `×5` is how often the shown lanes
  ran it, so the two are named apart), branches
  that split waves (`4 of 8 divergent`: Nsight's divergent branches), bank conflicts (`2-way
  bank conflict`), uncoalesced device accesses (`32 sectors (ideal 4)`);
- findings: the worst of those as information diagnostics that say what to change (a bank
  conflict's change checked first, `bank_advice`, with its quick fix);
- a hover section with the line's counters under every preset (saying so where they are
  estimated from a sample of the line's access patterns: `KernelProfile.estimated`);
- the JSON of the `wave-lsp.profile` command (the `--profile --json` object plus the heat).
The first profile given is the primary one (the launch's own wave width): hints, heat and
findings come from it; the hover and the findings' notes compare the other presets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Diagnostic

HEAT_LEVELS = 5
HOT_LEVEL = 4                 # lines at this heat level or above are "hot"...
HOT_SHARE = 2.0               # ...when they cost at least this many times the average line
MAX_FINDINGS = 5              # information diagnostics per kernel, worst first
DIVERGENT_FINDING = 0.5       # lane utilisation at or below this is worth a diagnostic...
FINDING_SHARE = 0.05          # ...on a line with at least this share of the kernel's cost
UNCOALESCED_FINDING = 2.0     # sectors per access at least this many times the ideal
BANK_CONFLICT_CODE = "R021"
UNCOALESCED_CODE = "R022"
DIVERGENT_CODE = "R023"


def line_cost(c) -> int:
    """A line's relative cost: an issue slot per execution plus one per memory pass."""
    return c.executions + c.local_wavefronts + c.global_sectors


def lane_share(c) -> float | None:
    """Active lanes over lane slots (None when the line never ran)."""
    return c.active_lanes / c.lane_slots if c.lane_slots else None


def bank_ways(c) -> float | None:
    """Local-memory passes over the conflict-free passes (1.0: no conflict)."""
    return c.local_wavefronts / c.local_ideal_wavefronts if c.local_ideal_wavefronts else None


def sectors_per_access(c) -> tuple[float, float] | None:
    """Device sectors per execution, and the ideal (None without device accesses)."""
    if not c.global_ideal_sectors or not c.executions:
        return None
    return c.global_sectors / c.executions, c.global_ideal_sectors / c.executions


def count_text(n: int) -> str:
    """`5`, `1,024`, `12.3k`, `4.2M`: short enough for an inlay hint."""
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


def number_text(x: float) -> str:
    """`2`, `1.5`: a ratio or an average with at most one decimal."""
    return f"{x:.1f}".removesuffix(".0")


def percent_text(share: float) -> str:
    pct = 100 * share
    return "<1%" if 0 < pct < 1 else f"{round(pct)}%"


@dataclass(frozen=True)
class Heat:
    """How much of the kernel's cost one line is."""

    line: int            # 0-based source line
    level: int           # 1 (cool) .. HEAT_LEVELS (the hottest lines)
    share: float         # of the kernel's cost
    cost: int


@dataclass(frozen=True)
class ProfileHint:
    line: int
    label: str
    tooltip: str


@dataclass(frozen=True)
class ProfileView:
    """A kernel's profile as the editor shows it."""

    kernel: str
    profiles: tuple[Any, ...]        # KernelProfile per preset, the primary first
    heat: dict[int, Heat]
    hints: dict[int, ProfileHint]
    findings: tuple[Diagnostic, ...]

    @property
    def primary(self):
        return self.profiles[0]

    def hover(self, line: int) -> str | None:
        """Markdown: the line's counters under every preset (None when the line never ran)."""
        rows = []
        for profile in self.profiles:
            c = _by_line(profile).get(line)
            if c is None:
                continue
            ways = bank_ways(c)
            sectors = sectors_per_access(c)
            rows.append(f"| `{profile.target}` | {c.executions:,} | "
                        f"{percent_text(lane_share(c) or 0)} | "
                        f"{'—' if ways is None else number_text(ways) + '-way'} | "
                        f"{'—' if sectors is None else number_text(sectors[0]) + ' / ' + number_text(sectors[1])} |")
        if not rows:
            return None
        heat = self.heat.get(line)
        share = f": {percent_text(heat.share)} of the kernel's cost (heat {heat.level}/" \
            f"{HEAT_LEVELS})" if heat else ""
        note = self.primary.estimate_note({line})
        return "\n".join([
            f"**Profile of `{self.kernel}`**, this line{share}", "",
            "| preset | executions | lanes | bank ways | sectors / ideal per access |",
            "|---|--:|--:|--:|--:|", *rows, *self._divergence(line),
            *(["", f"*{note[0].upper()}{note[1:]}*"] if note else [])])

    def _divergence(self, line: int) -> list[str]:
        """The hover's note on a branch that split waves under some preset (none otherwise)."""
        counts = [(p.target, c) for p in self.profiles
                  if (c := _by_line(p).get(line)) is not None]
        if not any(c.divergent_branches for _, c in counts):
            return []
        each = "; ".join(f"`{target}` {c.divergent_branches:,} of {c.executions:,}"
                         for target, c in counts)
        return ["", f"Divergent branches (wave executions whose active lanes this line's "
                    f"condition split): {each}"]

    def summary(self) -> str:
        """The code lens title after a profile: `◔ Profile: 2-way banks · 1.6× sectors · 72%
        lanes`. The findings lead: a row that must shorten its titles (`lens_layout` drops
        last parts first) loses the lane figure, which the run's own lens states too."""
        totals = _line_totals(self.primary)
        parts = []
        if totals["ways"] is not None and totals["ways"] > 1.005:
            parts.append(f"{number_text(totals['ways'])}-way banks")
        if totals["sectors"] is not None and totals["sectors"] > 1.005:
            parts.append(f"{number_text(totals['sectors'])}× sectors")
        parts.append(f"{percent_text(totals['lanes'])} lanes" if totals["lanes"] is not None
                     else "nothing ran")
        if self.primary.estimated:
            parts.append("estimated")
        return "◔ Profile: " + " · ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The primary profile's `--profile --json` object, the heat levels (1-based lines) and
        every preset's totals."""
        return {**self.primary.to_json(),
                "heat": [{"line": h.line + 1, "level": h.level, "share": round(h.share, 4)}
                         for h in sorted(self.heat.values(), key=lambda h: h.line)],
                "presets": {p.target: p.totals for p in self.profiles}}


def _by_line(profile) -> dict[int, Any]:
    return {c.line: c for c in profile.lines}


def _line_totals(profile) -> dict[str, float | None]:
    """Kernel-wide lane utilisation, bank ways and sectors over ideal, from its lines."""
    def ratio(num: str, den: str) -> float | None:
        d = sum(getattr(c, den) for c in profile.lines)
        return sum(getattr(c, num) for c in profile.lines) / d if d else None
    return {"lanes": ratio("active_lanes", "lane_slots"),
            "ways": ratio("local_wavefronts", "local_ideal_wavefronts"),
            "sectors": ratio("global_sectors", "global_ideal_sectors")}


def heat_of(profile) -> dict[int, Heat]:
    """The heat of every executed line of a profile."""
    costs = {c.line: line_cost(c) for c in profile.lines if c.executions}
    total = sum(costs.values())
    hottest = max(costs.values(), default=0)
    if not hottest:
        return {}
    return {line: Heat(line, max(1, -(-HEAT_LEVELS * cost // hottest)), cost / total, cost)
            for line, cost in costs.items()}


def divergent_blocks(profile) -> list[list[Any]]:
    """Runs of consecutive executed lines that ran with fewer lanes than the kernel's best line,
    each as often and with as many lanes as the one before: the body of one divergent branch."""
    shares = [s for c in profile.lines if (s := lane_share(c)) is not None]
    best = max(shares, default=1.0)
    blocks: list[list[Any]] = []
    previous = None
    for c in profile.lines:
        lanes = lane_share(c)
        if lanes is None or lanes >= best - 0.005:
            previous = None
            continue
        if previous is not None and (previous.executions, previous.active_lanes) == \
                (c.executions, c.active_lanes):
            blocks[-1].append(c)
        else:
            blocks.append([c])
        previous = c
    return blocks


def is_hot(heat: Heat | None, lines: int) -> bool:
    """Near the hottest line and well above the average one (in a kernel whose lines all cost
    the same, no line is hot)."""
    return heat is not None and heat.level >= HOT_LEVEL and heat.share * lines >= HOT_SHARE


def hint_parts(c, hot: bool, opens_block: bool) -> list[str]:
    """What a line's hint says: nothing for a line that is not hot, not the first of a
    divergent block, splits no wave, has no bank conflict and accesses memory coalesced."""
    parts = []
    lanes = lane_share(c)
    if opens_block or hot:
        issued = f"{count_text(c.executions)} wave-instrs"     # not a run hint's ×N
        parts.append(issued if lanes is None or lanes >= 0.995
                     else f"{issued} · {percent_text(lanes)} lanes")
    if c.divergent_branches:
        parts.append(f"{count_text(c.divergent_branches)} of {count_text(c.executions)} "
                     "divergent")
    ways = bank_ways(c)
    if ways is not None and ways > 1.005:
        parts.append(f"{number_text(ways)}-way bank conflict")
    sectors = sectors_per_access(c)
    if sectors is not None and sectors[0] > sectors[1] + 0.005:
        parts.append(f"{number_text(sectors[0])} sectors (ideal {number_text(sectors[1])})")
    return parts


def _bank_presets(line: int, profiles: Sequence[Any]) -> str:
    """`8-way on default, ptx; 4-way on hip-cdna; none on sycl`: the line's bank ways under
    every preset, as the hover's table shows them (empty with the primary profile alone)."""
    if len(profiles) < 2:
        return ""
    groups: dict[str, list[str]] = {}
    for profile in profiles:
        c = _by_line(profile).get(line)
        ways = bank_ways(c) if c is not None else None
        if ways is not None:
            figure = "none" if ways < 1.005 else f"{number_text(ways)}-way"
            groups.setdefault(figure, []).append(profile.target)
    return "; ".join(f"{figure} on {', '.join(targets)}" for figure, targets in groups.items())


def _agrees(told, line: int, profiles: Sequence[Any]) -> bool:
    """Whether the advice started from the ways the table shows for the line, per preset."""
    for profile in profiles:
        c = _by_line(profile).get(line)
        ways = bank_ways(c) if c is not None else None
        said = (told.before or {}).get(profile.target)
        if ways is None or said is None or abs(ways - said) > 1e-9:
            return False
    return True


def findings_of(profiles: Sequence[Any], heat: dict[int, Heat], spots: dict[int, tuple[int, int]],
                advice: dict[int, Any] | None = None) -> list[Diagnostic]:
    """The worst findings of the primary profile, as information diagnostics that say what to
    change, worst (most wasted passes or lane slots) first. `advice`: per line with a bank
    conflict, its checked advice (`bank_advice.BankAdvice`: a text and maybe a quick fix)."""
    primary = profiles[0]
    found: list[tuple[float, Diagnostic]] = []

    def add(waste: float, code: str, line: int, message: str, fix=None) -> None:
        start, end = spots.get(line, (0, 0))
        found.append((waste, replace(diagnostic(code, line, start, end, message),
                                     fixes=(fix,) if fix is not None else ())))

    for c in primary.lines:
        ways = bank_ways(c)
        if ways is not None and ways >= 1.995:
            where = _bank_presets(c.line, profiles)
            told = (advice or {}).get(c.line)
            pending = "what would remove it is being checked under every preset"
            if told is not None and not _agrees(told, c.line, profiles):
                # advice is said only from the figures the table shows
                told, pending = None, "change the index so neighbouring lanes use neighbouring words"
            add(c.local_wavefronts - c.local_ideal_wavefronts, BANK_CONFLICT_CODE, c.line,
                f"{number_text(ways)}-way bank conflict ({c.local_wavefronts:,} passes, ideal "
                f"{c.local_ideal_wavefronts:,}{'; ' + where if where else ''}): "
                + (told.text if told is not None else pending),
                told.fix if told is not None else None)
        sectors = sectors_per_access(c)
        if sectors is not None and sectors[0] >= UNCOALESCED_FINDING * sectors[1]:
            add(c.global_sectors - c.global_ideal_sectors, UNCOALESCED_CODE, c.line,
                f"uncoalesced: {number_text(sectors[0])} sectors per access, ideal "
                f"{number_text(sectors[1])} ({number_text(sectors[0] / sectors[1])}× the "
                "traffic): make neighbouring lanes access neighbouring words (swap the index "
                "roles, or stage the data through local memory)")
    for block in divergent_blocks(primary):
        first, last = block[0], block[-1]
        lanes = lane_share(first) or 0.0
        share = sum(heat[c.line].share for c in block if c.line in heat)
        if lanes <= DIVERGENT_FINDING and share >= FINDING_SHARE:
            lines = f"line {first.line + 1}" if len(block) == 1 else \
                f"lines {first.line + 1}-{last.line + 1}"
            add(sum(c.executions for c in block) * (1 - lanes), DIVERGENT_CODE, first.line,
                f"only {percent_text(lanes)} of the lanes run {lines} ({percent_text(share)} "
                "of the kernel's cost): the lanes of a wave take different paths, or its waves "
                "are partly empty; make the condition uniform per wave, or size the workgroup "
                "to whole waves")
    found.sort(key=lambda item: -item[0])
    return [d for _waste, d in found[:MAX_FINDINGS]]


def profile_view(kernel: str, profiles: Sequence[Any],
                 spots: dict[int, tuple[int, int]] | None = None,
                 advice: dict[int, Any] | None = None) -> ProfileView:
    """The view of a kernel's profiles (the primary first); `spots` gives each instruction
    line's (start, end) columns for the diagnostics' ranges, `advice` the bank conflicts'
    checked advice (`findings_of`)."""
    primary = profiles[0]
    heat = heat_of(primary)
    openers = {block[0].line for block in divergent_blocks(primary)}
    hints = {}
    for c in primary.lines:
        parts = hint_parts(c, is_hot(heat.get(c.line), len(heat)), c.line in openers)
        if parts:
            h = heat.get(c.line)
            where = f"{percent_text(h.share)} of the kernel's cost, heat {h.level}/" \
                    f"{HEAT_LEVELS}" if h else "not executed"
            hints[c.line] = ProfileHint(c.line, " · ".join(parts),
                                        f"{kernel} profile on {primary.target}: {where}")
    return ProfileView(kernel, tuple(profiles), heat, hints,
                       tuple(findings_of(profiles, heat, spots or {}, advice)))


def profile_hover(profiles, line: int) -> str | None:
    """What the `profiles` (`profile_session.KernelProfileRun`s) add to the hover at `line`:
    the line's counters under every preset, for each kernel profiled."""
    return "\n\n".join(text for r in profiles if r.view is not None
                       and (text := r.view.hover(line))) or None
