"""Which server commands this checkout's wave-lsp provides (tests of features that other issues
deliver are expected to fail until those land)."""

from __future__ import annotations

from pathlib import Path

_SERVER = Path(__file__).resolve().parents[2] / "wave_lsp" / "server"


def _provides(command: str) -> bool:
    return any(f'"{command}"' in p.read_text(encoding="utf-8") for p in _SERVER.glob("*.py"))


HAS_RUN = _provides("wave-lsp.run")
HAS_ENCODING = _provides("wave-lsp.encoding")
