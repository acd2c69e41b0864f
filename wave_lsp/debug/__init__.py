"""The kernel debugger: a Debug Adapter Protocol server (`wave-lsp debug`, stdio) over the
emulator's stepping execution. Waves are DAP threads, registers have one child per lane, local
and device memory are readable through memory references, and the run stops on breakpoints,
steps and run-time errors.

Modules: `protocol` (framing), `target` (launch arguments), `session` (run control),
`breakpoints`, `expressions` (per-lane conditions), `values` (formatting), `views` (what a
stopped session shows), `adapter` (request dispatch), `listener` (`wave-lsp debug --server`: a
warm adapter serving one session per socket connection).
"""

from .adapter import serve

__all__ = ["serve"]
