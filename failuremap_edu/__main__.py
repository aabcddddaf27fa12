"""``python -m failuremap_edu`` runs the CLI."""

import sys

from ._cli import main

sys.exit(main())
