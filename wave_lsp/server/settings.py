"""Server settings: from `initializationOptions` and from `workspace/configuration` (section `wave`).

Analysis settings (disabled codes, severity overrides, compatibility mode) are validated by the
analysis layer's own configuration builder; this module adds the server-only ones (inlay-hint
parts, diagnostics delivery) and returns every problem found, so the server can show and log
each invalid setting instead of silently dropping it.

    {
      "disable": ["U501"], "severity": {"U505": "error"}, "compat": "wave-asm",
      "targets": ["ptx", "hip", "metal", "sycl"],
      "inlayHints": {"offsets": false, "encoding": false},
      "diagnostics": {"mode": "auto", "debounceMs": 30},
      "run": {"maxInstructions": 1000000, "timeLimitMs": 2000, "recordBudgetMiB": 256,
              "live": false},
      "backends": {"ptxas": "/opt/cuda/bin/ptxas", "hipcc": false, "timeoutSeconds": 30}
    }

`backends.ptxas` / `backends.hipcc`: the vendor compiler to run for the resource hover, the
kernelResources command and Show PTX/HIP (an absolute path or a name on PATH; false: none; unset:
PATH, then for ptxas the nvidia-cuda-nvcc-cu12 wheel). An untrusted workspace runs none that a
setting names (`vendor_compilers.tools`). `backends.timeoutSeconds` (1..600, default 30): a
compiler run that takes longer is stopped, and the hover or view says so.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from typing import Any

from ..analysis.config import Config, config_from_mapping
from ..ide.vendor_usage import EDITOR_TIMEOUT_S, program_setting_ok
from ..ide.run_limits import (DEFAULT_MAX_INSTRUCTIONS, DEFAULT_RECORD_BUDGET_MIB,
                              DEFAULT_TIME_LIMIT_MS)
from ..isa.backends import TARGET_NAMES

SECTION = "wave"
DIAGNOSTIC_MODES = ("auto", "push", "pull")
SERVER_KEYS = ("inlayHints", "diagnostics", "run", "backends")
BACKEND_TOOLS = {"ptxas": "ptx", "hipcc": "hip"}
BACKEND_TIMEOUT = ("timeoutSeconds", 1, 600)
# `run.*`: limits of inline runs (an infinite loop stops within about 2 s) and live mode
RUN_INTEGERS = {"maxInstructions": ("run_max_instructions", 0, 1 << 40),
                "timeLimitMs": ("run_time_limit_ms", 0, 600_000),
                "recordBudgetMiB": ("run_record_budget_mib", 0, 1 << 16)}


@dataclass
class Settings:
    """Everything configurable, with defaults."""

    analysis: Config | None = None  # None: the analysis layer's defaults
    # byte offsets and encoded words are opt-in: on every line they bury the run values (and
    # the hover shows the encoding of the instruction under the cursor anyway)
    inlay_offsets: bool = False
    inlay_encoding: bool = False
    diagnostics_mode: str = "auto"
    debounce_ms: int = 30
    run_max_instructions: int = DEFAULT_MAX_INSTRUCTIONS
    run_time_limit_ms: int = DEFAULT_TIME_LIMIT_MS
    run_record_budget_mib: int = DEFAULT_RECORD_BUDGET_MIB
    run_live: bool = False
    backend_tools: dict = field(default_factory=dict)   # "ptx"/"hip" -> path, or False
    vendor_timeout_s: int = EDITOR_TIMEOUT_S
    raw: dict = field(default_factory=dict)

    @property
    def targets(self) -> tuple[str, ...]:
        """The configured backends (`targets`; all four by default)."""
        return getattr(self.analysis, "targets", TARGET_NAMES)

    @property
    def compat(self) -> bool:
        """Whether encodings are shown (and assembled) as wave-asm emits them."""
        return bool(getattr(self.analysis, "compat", False))


def parse_settings(data: Any, origin: str = "settings") -> tuple[Settings, list[str]]:
    """Build settings from a client-supplied object; returns them and the list of problems."""
    problems: list[str] = []
    settings = Settings()
    if data is None:
        return settings, problems
    if not isinstance(data, dict):
        return settings, [f"settings must be an object, not {type(data).__name__}"]
    if isinstance(data.get(SECTION), dict) and len(data) == 1:
        data = data[SECTION]  # {"wave": {...}} as some clients send it
    settings.raw = data

    hints = data.get("inlayHints", {})
    if not isinstance(hints, dict):
        problems.append("inlayHints must be an object with boolean 'offsets' and 'encoding'")
    else:
        for key, value in hints.items():
            if key not in ("offsets", "encoding"):
                problems.append(f"inlayHints.{key}: unknown setting (use offsets, encoding)")
            elif not isinstance(value, bool):
                problems.append(f"inlayHints.{key} must be true or false, not {value!r}")
            elif key == "offsets":
                settings.inlay_offsets = value
            else:
                settings.inlay_encoding = value

    diag = data.get("diagnostics", {})
    if not isinstance(diag, dict):
        problems.append("diagnostics must be an object with 'mode' and 'debounceMs'")
    else:
        for key, value in diag.items():
            if key == "mode":
                if value in DIAGNOSTIC_MODES:
                    settings.diagnostics_mode = value
                else:
                    problems.append(f"diagnostics.mode must be one of {', '.join(DIAGNOSTIC_MODES)},"
                                    f" not {value!r}")
            elif key == "debounceMs":
                if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 5000:
                    settings.debounce_ms = value
                else:
                    problems.append(f"diagnostics.debounceMs must be an integer 0..5000, "
                                    f"not {value!r}")
            else:
                problems.append(f"diagnostics.{key}: unknown setting (use mode, debounceMs)")

    problems.extend(_run_settings(data.get("run", {}), settings))
    problems.extend(_backend_settings(data.get("backends", {}), settings))
    config, analysis_problems = config_from_mapping(data, origin, extra_keys=SERVER_KEYS)
    settings.analysis = config
    problems.extend(p.message for p in analysis_problems)
    return settings, problems


def _run_settings(run, settings: Settings) -> list[str]:
    """`run.maxInstructions` (wave-instructions per workgroup, 0 = unlimited), `run.timeLimitMs`
    (0 = none), `run.recordBudgetMiB` (0 = runs not recorded) and `run.live`."""
    if not isinstance(run, dict):
        return ["run must be an object with 'maxInstructions', 'timeLimitMs', "
                "'recordBudgetMiB' and 'live'"]
    problems = []
    for key, value in run.items():
        if key in RUN_INTEGERS:
            attr, low, high = RUN_INTEGERS[key]
            if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
                setattr(settings, attr, value)
            else:
                problems.append(f"run.{key} must be an integer {low}..{high}, not {value!r}")
        elif key == "live":
            if isinstance(value, bool):
                settings.run_live = value
            else:
                problems.append(f"run.live must be true or false, not {value!r}")
        else:
            problems.append(f"run.{key}: unknown setting (use maxInstructions, timeLimitMs, "
                            "recordBudgetMiB, live)")
    return problems


def _backend_settings(backends, settings: Settings) -> list[str]:
    """`backends.ptxas` and `backends.hipcc`: a path or command name, or false for none;
    `backends.timeoutSeconds`: how long one compiler run may take."""
    if not isinstance(backends, dict):
        return ["backends must be an object with 'ptxas', 'hipcc' and 'timeoutSeconds'"]
    problems = []
    for key, value in backends.items():
        target = BACKEND_TOOLS.get(key)
        if key == BACKEND_TIMEOUT[0]:
            _, low, high = BACKEND_TIMEOUT
            if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
                settings.vendor_timeout_s = value
            else:
                problems.append(f"backends.{key} must be an integer {low}..{high} (seconds), "
                                f"not {value!r}")
        elif target is None:
            problems.append(f"backends.{key}: unknown setting (use ptxas, hipcc, timeoutSeconds)")
        elif isinstance(value, str) and not program_setting_ok(value):
            problems.append(f"backends.{key}: {value!r} is a relative path; name an absolute "
                            "path or a program on PATH (a relative one would be looked up in "
                            "the server's working folder)")
        elif value is False or (isinstance(value, str) and value.strip()):
            settings.backend_tools[target] = value
            if value and shutil.which(os.path.expanduser(value)) is None:
                problems.append(f"backends.{key}: {value!r} is not an executable program "
                                "(no vendor figures for it)")
        elif value is not None:
            problems.append(f"backends.{key} must be a path or false, not {value!r}")
    return problems
