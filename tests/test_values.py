"""The bottom layer: clipping, calls as text, error payloads."""

from __future__ import annotations


from failuremap_edu._values import clip, render_call, safe_repr


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


def test_a_sys_exit_says_what_happened_and_what_to_do():
    from failuremap_edu._values import error_payload

    for exc, shown in ((SystemExit(), "sys.exit()"), (SystemExit(3), "sys.exit(3)"), (SystemExit("bye"), "sys.exit('bye')")):
        payload = error_payload(exc)
        assert payload["type"] == "SystemExit"
        assert payload["message"] == (
            f"solve called {shown} (or exit()), which would end a whole program; here it only ended this call of solve. Return a value instead."
        )
