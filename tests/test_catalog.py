"""A catalog at scale: records verified side by side, each replay on the runner's own path."""

from __future__ import annotations

import json
import os


from conftest import OWN, PACKAGED, record_path


def test_verify_never_forks_the_caller(monkeypatch):
    """The caller has threads (the runner's, a notebook's): a fork of it may deadlock (Python 3.12 warns).
    Every replay takes the runner's own path, a worker from its clean server."""
    from failuremap_edu.instructor import _catalog

    def no_fork():
        raise AssertionError("verify forked the calling process")

    monkeypatch.setattr(os, "fork", no_fork)
    refs = [str(record_path(r)) for r in OWN] + list(PACKAGED)
    for jobs in (1, 2):
        entries = list(_catalog.verify_many(refs, jobs=jobs))
        assert [(e.ref, e.ok, e.error) for e in entries] == [(r, True, None) for r in refs]


def test_catalog_reports_a_record_whose_replay_differs(tmp_path, write_record):
    from failuremap_edu.instructor import _catalog

    data = json.loads(record_path("TR-000101").read_text())
    data["verification"]["broken"]["observations"][0]["passed"] = True
    bad = str(write_record(data))
    entries = list(_catalog.verify_many([bad, "FA-100786"], jobs=2))
    assert [e.ok for e in entries] == [False, True]
    assert "verdict differs" in str(entries[0].report)


def test_a_looping_record_is_stopped_by_the_time_limit_and_the_rest_is_verified(raw_record, write_record):
    """Record code runs with the runner's time limit per check, like everyone's."""
    from conftest import reseal
    from failuremap_edu.instructor import _catalog

    raw_record["implementations"]["broken"]["source"] = raw_record["implementations"]["broken"]["source"].replace(
        "    return text,", "    while True:\n        pass"
    )
    looping = str(write_record(reseal(raw_record)))
    entries = list(_catalog.verify_many(["FA-100061", looping, "FA-100786"], jobs=2))
    assert [e.ok for e in entries] == [False if e.ref == looping else True for e in entries]
    assert "timeout" in str(entries[1].report)


def test_progress_bar_only_on_a_terminal(capsys):
    """tqdm draws on a terminal; a pipe or a log file (pytest's captured stderr is one) gets nothing."""
    import io

    from failuremap_edu.instructor._catalog import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    bar = ProgressBar("verifying")  # stderr, which is not a terminal here
    for done in range(1, 5):
        bar(done, 4)
    assert capsys.readouterr().err == ""
    loud = Terminal()
    bar = ProgressBar("verifying", stream=loud)
    for done in range(1, 5):
        bar(done, 4)
    drawn = loud.getvalue().split("\r")
    assert drawn[-1].startswith("verifying: 100%") and "4/4" in drawn[-1] and drawn[-1].endswith("\n")
    assert bar._bar.n == 4


def test_workshop_shows_a_progress_bar_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    """The CLI's builds pass the bar; with stderr a pseudo-terminal tqdm writes there, through a pipe nothing."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    from failuremap_edu.instructor._cli import main

    assert main(["workshop", "FA-100786", "-o", str(tmp_path / "piped")]) == 0
    assert "100%" not in capsys.readouterr().err
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a terminal's size: 80 columns
    try:
        with os.fdopen(follower, "w", closefd=False) as terminal:
            monkeypatch.setattr("sys.stderr", terminal)
            assert main(["workshop", "FA-100786", "-o", str(tmp_path / "terminal")]) == 0
            terminal.flush()
        drawn = os.read(leader, 65536).decode()
    finally:
        os.close(leader)
        os.close(follower)
    assert "building: 100%" in drawn and "1/1" in drawn
