"""``python -m failuremap_edu`` runs the CLI."""

import sys

from .instructor._cli import main

sys.exit(main())
