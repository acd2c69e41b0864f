"""Per-project configuration: disabled codes, severity overrides and the compatibility mode.

Read from `wave-lsp.toml` (top level) or `[tool.wave-lsp]` in `pyproject.toml`, found by walking
up from the linted file; the language server builds the same `Config` from its settings. Every
problem with a configuration is reported as a `ConfigProblem`; nothing is silently ignored.

    disable = ["U505"]               # codes to drop
    severity = { U501 = "error" }    # error, warning, information (info) or hint
    compat = "wave-asm"              # or "none" (the default): reproduce wave-asm's bytes
    targets = ["ptx", "hip", "metal", "sycl"]   # backends the portability lints check (all)
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..files import read_regular
from ..isa.backends import TARGET_NAMES
from .codes import CODES
from .diagnostic import Severity

MAX_CONFIG_BYTES = 1 << 20

KEYS = ("disable", "severity", "compat", "targets")
COMPAT_MODES = ("none", "wave-asm")


@dataclass(frozen=True)
class Config:
    disabled: frozenset[str] = frozenset()
    severities: dict[str, Severity] = field(default_factory=dict)
    compat: bool = False
    source: str | None = None
    targets: tuple[str, ...] = TARGET_NAMES


@dataclass(frozen=True)
class ConfigProblem:
    message: str
    source: str
    line: int = 0  # 0-based, when known


def listing(items: list[str], one: str, many: str, shown: int = 10) -> str:
    """`code 'A'`, or `codes 'A', 'B', ... (N in all)` with at most `shown` of them named."""
    if len(items) == 1:
        return f"{one} {items[0][:80]!r}"
    names = ", ".join(repr(item[:80]) for item in items[:shown])
    more = f", ... ({len(items)} in all)" if len(items) > shown else ""
    return f"{many} {names}{more}"


def config_from_mapping(data: Any, source: str,
                        extra_keys: Iterable[str] = ()) -> tuple[Config, list[ConfigProblem]]:
    """Validate a settings mapping; invalid entries are left out and reported."""
    problems: list[ConfigProblem] = []

    def problem(msg: str) -> None:
        problems.append(ConfigProblem(msg, source))

    if data is None:
        return Config(source=source), problems
    if not isinstance(data, dict):
        problem(f"settings must be a table/object, not {type(data).__name__}")
        return Config(source=source), problems
    allowed = set(KEYS) | set(extra_keys)
    for key in data:
        if key not in allowed:
            problem(f"unknown setting '{key}' (known: {', '.join(sorted(allowed))})")
    disabled: set[str] = set()
    raw = data.get("disable", [])
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        problem("'disable' must be a list of diagnostic codes")
    else:
        unknown = [code for code in raw if code.upper() not in CODES]
        disabled.update(code.upper() for code in raw if code.upper() in CODES)
        if unknown:
            problem(f"unknown diagnostic {listing(unknown, 'code', 'codes')} in 'disable'")
    severities: dict[str, Severity] = {}
    raw = data.get("severity", {})
    if not isinstance(raw, dict):
        problem("'severity' must map diagnostic codes to error, warning, information or hint")
    else:
        unknown = [str(code) for code in raw if str(code).upper() not in CODES]
        if unknown:
            problem(f"unknown diagnostic {listing(unknown, 'code', 'codes')} in 'severity'")
        for code, value in raw.items():
            if str(code).upper() not in CODES:
                continue
            try:
                severities[str(code).upper()] = Severity.parse(str(value))
            except ValueError as err:
                problem(f"severity of {code}: {err}")
    compat = False
    raw = data.get("compat", "none")
    if raw not in COMPAT_MODES:
        problem(f"'compat' must be one of {', '.join(repr(m) for m in COMPAT_MODES)}, not {raw!r}")
    else:
        compat = raw == "wave-asm"
    targets = _targets(data.get("targets", list(TARGET_NAMES)), problem)
    return Config(frozenset(disabled), severities, compat, source, targets), problems


def _targets(raw: Any, problem) -> tuple[str, ...]:
    """The `targets` list: backend names, in the table's order; invalid ones are reported."""
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        problem(f"'targets' must be a list of backend names ({', '.join(TARGET_NAMES)})")
        return TARGET_NAMES
    unknown = [name for name in raw if name.lower() not in TARGET_NAMES]
    if unknown:
        problem(f"unknown {listing(unknown, 'target', 'targets')} in 'targets' "
                f"(known: {', '.join(TARGET_NAMES)})")
    chosen = {t.lower() for t in raw}
    return tuple(t for t in TARGET_NAMES if t in chosen)


def find_config(start: Path) -> Path | None:
    """The nearest `wave-lsp.toml`, or `pyproject.toml` with a [tool.wave-lsp] table, at or above
    `start` (a file or directory)."""
    folder = start if start.is_dir() else start.parent
    for directory in (folder.resolve(), *folder.resolve().parents):
        candidate = directory / "wave-lsp.toml"
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            try:
                text = read_regular(pyproject, MAX_CONFIG_BYTES).decode("utf-8", "replace")
            except OSError:
                continue
            if re.search(r"^\s*\[tool\.wave-lsp\]", text, re.MULTILINE):
                return pyproject
    return None


def load_config(path: Path) -> tuple[Config, list[ConfigProblem]]:
    """Read and validate a configuration file."""
    data, problems = read_config(path)
    if problems:
        return Config(source=str(path)), problems
    return config_from_mapping(data, str(path))


def read_config(path: Path) -> tuple[dict | None, list[ConfigProblem]]:
    """The settings table of a configuration file (the top level of `wave-lsp.toml`,
    `[tool.wave-lsp]` of `pyproject.toml`), not yet validated; None and the problem when it
    cannot be read. The language server merges it with the editor's settings."""
    source = str(path)
    try:
        data = tomllib.loads(read_regular(path, MAX_CONFIG_BYTES).decode("utf-8"))
    except OSError as err:
        return None, [ConfigProblem(f"cannot read configuration: {err.strerror}", source)]
    except UnicodeDecodeError:
        return None, [ConfigProblem("configuration is not UTF-8", source)]
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"line (\d+)", str(err))
        line = int(m.group(1)) - 1 if m else 0
        return None, [ConfigProblem(f"invalid TOML: {err}", source, line)]
    except RecursionError:
        return None, [ConfigProblem("invalid TOML: nested too deeply", source)]
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data = tool.get("wave-lsp", {}) if isinstance(tool, dict) else None
        if data is None:
            return None, [ConfigProblem(f"[tool] must be a table, not {type(tool).__name__}",
                                        source)]
    return data, []
