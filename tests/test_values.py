"""The bottom layer: clipping, status marks, calls as text."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from failuremap_edu._values import STATUS_SYMBOLS, clip, render_call, safe_repr


def test_clip_keeps_short_text_and_marks_a_cut():
    assert clip("abc", 3) == "abc"
    assert clip("abcdef", 4) == "abc…"
    assert clip("a\n  b\tc", 10, one_line=True) == "a b c"
    assert clip("a\n  b\tc", 10) == "a\n  b\tc"


def test_keep_end_shows_both_ends_of_a_long_value():
    text = safe_repr("x" * 500 + "END", 60, keep_end=True)
    assert len(text) <= 70 and text.startswith("'xxx") and text.endswith("END'") and " … " in text
    assert safe_repr([1, 2], 60, keep_end=True) == "[1, 2]"


def test_render_call_reads_like_the_call_a_learner_would_type():
    assert render_call(("hello<st", ["<stop>"]), {"strict": True}) == "solve('hello<st', ['<stop>'], strict=True)"
    assert render_call(("x" * 2_000,), {}).endswith("…)")


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="fontconfig is not installed (make test installs it with chromium)")
@pytest.mark.parametrize("status", sorted(STATUS_SYMBOLS))
def test_every_status_mark_is_in_dejavu_sans(status):
    """Debian's Chromium has no emoji font: a mark outside DejaVu Sans renders as an empty box."""
    code = f"{ord(STATUS_SYMBOLS[status]):x}"
    families = subprocess.run(["fc-list", f":charset={code}", "family"], capture_output=True, text=True, timeout=30).stdout
    assert "DejaVu Sans" in families, f"{status}: U+{code.upper()} is not in DejaVu Sans"


def test_a_sys_exit_says_what_happened_and_what_to_do():
    from failuremap_edu._values import error_payload

    for exc, shown in ((SystemExit(), "sys.exit()"), (SystemExit(3), "sys.exit(3)"), (SystemExit("bye"), "sys.exit('bye')")):
        payload = error_payload(exc)
        assert payload["type"] == "SystemExit"
        assert payload["message"] == (
            f"solve called {shown} (or exit()), which would end a whole program; here it only ended this call of solve. Return a value instead."
        )


def test_shared_references_count_by_their_expanded_size():
    """``[b] * 300`` is one string to pickle, but 300 to every display and to json.dumps: budget what it expands to."""
    from failuremap_edu._values import _MAX_STRING, Opaque, portable, received

    b = "x" * 1_000_000
    value = portable([b] * 300)
    kept = [item for item in value if type(item) is str]
    assert sum(map(len, kept)) <= _MAX_STRING and len(kept) == _MAX_STRING // len(b)
    assert all(type(item) is Opaque and "too large to show" in item.reason for item in value[len(kept) :])
    assert received(value)[1] is False, "what was cut is no plain data any more"
    assert received([[b] * 30, [b] * 30])[1] is False, "the budget spans the whole value"
    assert received(([1, "a"], {2: frozenset({3})})) == (([1, "a"], {2: frozenset({3})}), True)
