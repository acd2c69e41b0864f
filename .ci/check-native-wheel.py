"""The test of each release wheel (pyproject's `[tool.cibuildwheel]` test-command, run in a fresh
environment with the wheel installed): it has the native core, and a kernel runs on it with the
example's documented output. Exits non-zero, with the reason, otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from wave_lsp.emu import engine_in_use

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "vector_add.wave"
FLAGS = ["--grid", "4,1,1", "--set-reg", "0:0", "--set-reg", "1:4096", "--set-reg", "2:8192",
         "--fill-iota", "0:f32:1024:1", "--fill-iota", "4096:f32:1024:2", "--dump-f32", "8192:8"]
EXPECTED = "0.0 3.0 6.0 9.0 12.0 15.0 18.0 21.0"


def main() -> int:
    name, why = engine_in_use()
    if name != "native core":
        print(f"check-native-wheel: no native core in this wheel: {why}", file=sys.stderr)
        return 1
    done = subprocess.run([sys.executable, "-m", "wave_lsp", "run", str(EXAMPLE), *FLAGS],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, WAVE_LSP_SHOW_ENGINE="1"))
    if done.returncode != 0 or done.stdout.split() != EXPECTED.split() \
            or "engine: native" not in done.stderr:
        print(f"check-native-wheel: the example did not run on the native core "
              f"(exit {done.returncode}):\n{done.stdout}{done.stderr}", file=sys.stderr)
        return 1
    print(f"check-native-wheel: {why}; vector_add ran on it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
