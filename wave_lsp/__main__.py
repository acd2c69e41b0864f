"""`python -m wave_lsp` runs the `wave-lsp` command.

`python -m` puts the working directory first on `sys.path`; the server runs with the opened
workspace as its working directory (the VS Code extension's interpreter mode), so a workspace's
`numpy/`, `cupy/` or `nvidia/` folder would be imported in place of the real package. The
package itself is already loaded, so the entry is dropped before anything else is imported
(what `python -P` does).
"""

import os
import sys

if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from .cli.main import main  # noqa: E402  (after the working directory left sys.path)

sys.exit(main())
