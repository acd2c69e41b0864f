"""`python -m wave_lsp` runs the `wave-lsp` command."""

import sys

from .cli.main import main

sys.exit(main())
