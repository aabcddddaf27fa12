"""The shared status marks and colours."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from failuremap_edu._results import STATUSES
from failuremap_edu.render._style import STATUS_CSS, STATUS_STYLE, STATUS_SYMBOLS


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="fontconfig is not installed (make test installs it with chromium)")
@pytest.mark.parametrize("status", sorted(STATUS_SYMBOLS))
def test_every_status_mark_is_in_dejavu_sans(status):
    """Debian's Chromium has no emoji font: a mark outside DejaVu Sans renders as an empty box."""
    code = f"{ord(STATUS_SYMBOLS[status]):x}"
    families = subprocess.run(["fc-list", f":charset={code}", "family"], capture_output=True, text=True, timeout=30).stdout
    assert "DejaVu Sans" in families, f"{status}: U+{code.upper()} is not in DejaVu Sans"


def test_every_status_has_a_mark_a_badge_colour_and_a_plot_style():
    assert set(STATUS_SYMBOLS) == set(STATUS_CSS) == set(STATUS_STYLE) == set(STATUSES) == {"pass", "fail", "error", "timeout", "unconfirmed"}
