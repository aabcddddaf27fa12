"""Shared fixtures: packaged records, our own test records, and a record factory."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import tempfile
from pathlib import Path

import pytest

from failuremap_edu import load_record

TESTS = Path(__file__).resolve().parent
TEST_RECORDS = TESTS / "records"
PACKAGED = ("FA-100061", "FA-100786")
OWN = tuple(sorted(p.stem for p in TEST_RECORDS.glob("*.json")))
SLOW_RECORDS = frozenset({"TR-001919", "TR-003434", "TR-004343"})
"""Test records whose runs take seconds by design (a check that times out and the restart after it; 1,000 calls;
40,000 rows): tests that build or run a notebook of each record take them under ``slow`` (`own_params`)."""


def own_params(*others: str) -> list:
    """The test records (then `others`) as parameters, those of `SLOW_RECORDS` marked ``slow``: make test runs them all."""
    return [pytest.param(r, marks=pytest.mark.slow) if r in SLOW_RECORDS else r for r in (*OWN, *others)]
REFERENCES = TESTS.parent / "references"
"""Our reference solutions: always named where used (the package never looks for them)."""


def record_path(record_id: str) -> Path:
    return TEST_RECORDS / f"{record_id}.json"


def solution_path(record_id: str) -> Path:
    return TEST_RECORDS / "solutions" / f"{record_id}.py"


def mixed_stopping_solve(text, stops):
    """For FA-100786: loops on one check, raises on another, fails two and passes two."""
    if text == "x":
        while True:
            pass
    if text == "abc":
        raise ValueError("no <abc>")
    return text, ""


def reference_solve(record_id: str):
    """Our reference solution (references/ of the repository), as a function."""
    import runpy

    from failuremap_edu.instructor._notebook import reference_path

    return runpy.run_path(str(reference_path(record_id, REFERENCES)))["solve"]


@pytest.fixture
def stopping():
    return load_record("FA-100786")


@pytest.fixture
def pairs():
    return load_record("FA-100061")


@pytest.fixture
def raw_record():
    """A fresh, mutable copy of a packaged record's JSON."""
    from failuremap_edu._records import packaged_records_dir

    return json.loads((packaged_records_dir() / "FA-100786.json").read_text(encoding="utf-8"))


def reseal(data: dict) -> dict:
    """Recompute every implementation's sha256, as an honest record author would."""
    data = copy.deepcopy(data)
    for impl in data["implementations"].values():
        impl["sha256"] = hashlib.sha256(impl["source"].encode()).hexdigest()
    return data


@pytest.fixture
def write_record(tmp_path):
    """Write a record dict (or raw bytes) to a file and return its path."""
    counter = iter(range(10_000))

    def write(content, name: str | None = None) -> Path:
        path = tmp_path / (name or f"record-{next(counter)}.json")
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
        return path

    return write


def pytest_configure(config):
    """Kernels, servers and nbval started by the tests inherit a private progress log too.

    `make test` names one; a bare `pytest` gets a fresh one, never the user's real log
    (a learner trial once found the test suite's runs in its start-here progress table).
    """
    if not os.environ.get("FAILUREMAP_PROGRESS"):
        os.environ["FAILUREMAP_PROGRESS"] = str(Path(tempfile.mkdtemp(prefix="failuremap-tests-")) / "progress.jsonl")


@pytest.fixture(autouse=True)
def _private_progress_log(tmp_path, monkeypatch):
    """Tests never write to the user's real progress log."""
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "progress.jsonl"))


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can tell a failed test (browser screenshots)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


LONE = "\ud800"
"""A lone surrogate: JSON's "\\ud800" decodes to it, and no encoding can write it."""


def with_lone_surrogates(data: dict) -> dict:
    """A record (as a dict) with a lone surrogate in its title, its category and its first check's label, resealed.

    The label lives in the implementations' sources, which carry their sha256, and in
    the recorded observations; the title is outside the hashed part.
    """
    data = copy.deepcopy(data)
    data["title"] = f"bad {LONE} title"
    data["category"] = f"bad {LONE} category"  # what a learner's panel shows in place of the title
    first = data["verification"]["attempt"]["observations"][0]["check"]
    for impl in data["implementations"].values():
        impl["source"] = impl["source"].replace(repr(first), repr(f"{first} {LONE}"), 1)
        impl["sha256"] = hashlib.sha256(impl["source"].encode("utf-8", "surrogatepass")).hexdigest()
    for run in data["verification"].values():
        for o in run["observations"]:
            if o["check"] == first:
                o["check"] = f"{first} {LONE}"
    return data


def alive_with(marker: str) -> list[int]:
    """Live processes (not zombies) whose command line holds `marker`: only ever those are killed here."""
    import os

    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                if marker.encode() not in fh.read():
                    continue
            with open(f"/proc/{name}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    continue
        except OSError:
            continue
        found.append(int(name))
    return found


class SmallDisk:
    """A folder on its own small file system (tmpfs), to fill up: `fill` leaves `free` bytes, `empty` gives them back."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.filler = root / ".filler"

    def fill(self, free: int = 0) -> None:
        """Take all the room but about `free` bytes (tmpfs counts whole pages)."""
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            while os.write(fd, b"\0" * 4096) == 4096:
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        if free:
            size = self.filler.stat().st_size
            os.truncate(self.filler, max(0, size - free))

    def empty(self) -> None:
        self.filler.unlink(missing_ok=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs mounted in tmp_path (we are root here, as in CI); skipped only outside CI when mount is not permitted."""
    import subprocess

    root = tmp_path / "disk"
    root.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(root)], capture_output=True, text=True)
    if done.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a small tmpfs in CI: {done.stderr.strip()}")
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()}")
    try:
        yield SmallDisk(root)
    finally:
        subprocess.run(["umount", "-l", str(root)], capture_output=True)


@pytest.fixture
def bwrap():
    """For tests of ``--sandbox``: skipped where bubblewrap is missing, but failed in CI (``CI`` set), where `make test` installs it."""
    import shutil

    if shutil.which("bwrap") is None:
        if os.environ.get("CI"):
            pytest.fail("bubblewrap (bwrap) is missing in CI, where `make test` installs it (system-deps): the sandbox tests must run")
        pytest.skip("needs bubblewrap (apt-get install bubblewrap)")
