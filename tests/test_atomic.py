"""Files written whole or not at all: a full disk, a killed process, a link, a file's mode."""

from __future__ import annotations

import errno
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from failuremap_edu._atomic import WriteError, write_text
from failuremap_edu.instructor._cli import main

ROOT = Path(__file__).resolve().parents[1]


def _log_with_runs(path: Path, runs: int, source_size: int) -> None:
    from test_progress import run_result

    from failuremap_edu._progress import log_run

    for i in range(runs):
        assert log_run(run_result(["pass", "fail"]), f"def solve(text, stops):\n    return {i}\n" + "#" * source_size, path) is None


def test_a_full_disk_keeps_the_old_file_whole_and_the_error_names_it(small_disk):
    out = small_disk.root / "report.html"
    out.write_text("the old report\n")
    small_disk.fill()
    with pytest.raises(WriteError) as caught:
        write_text(out, "x" * 100_000)
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(out) and str(out) in str(caught.value)
    assert isinstance(caught.value, OSError) and pickle.loads(pickle.dumps(caught.value)).filename == str(out)
    assert out.read_text() == "the old report\n"
    assert sorted(p.name for p in small_disk.root.iterdir()) == [".filler", "report.html"]  # no temporary file left


def test_export_out_on_a_full_disk_is_one_line_and_the_old_hand_in_stays(small_disk, tmp_path, monkeypatch, capsys):
    log = tmp_path / "progress.jsonl"
    _log_with_runs(log, 3, 20_000)
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(log))
    out = small_disk.root / "hand-in.json"
    assert main(["export", "--out", str(out)]) == 0
    before = out.read_bytes()
    _log_with_runs(log, 3, 20_000)
    small_disk.fill(free=8192)
    assert main(["export", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(out) in err and "Traceback" not in err
    assert out.read_bytes() == before and len(json.loads(before)["attempts"]) == 3
    small_disk.empty()
    assert main(["export", "--out", str(out)]) == 0 and len(json.loads(out.read_bytes())["attempts"]) == 6


def test_an_export_killed_mid_write_leaves_the_old_file_whole(tmp_path):
    """The writer dies mid-write: a file-size limit below the export's size kills it with SIGXFSZ, as kill -9 would."""
    log = tmp_path / "progress.jsonl"
    _log_with_runs(log, 5, 30_000)
    out = tmp_path / "hand-in.json"
    out.write_text('{"old": true}\n')
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; by default it ends the process on the spot\n"
        "from pathlib import Path\n"
        "from failuremap_edu._progress_export import export_progress, export_data, _export_text\n"
        f"size = len(_export_text(export_data(Path({str(log)!r}))).encode())\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, size // 2))\n"
        f"export_progress(Path({str(out)!r}), Path({str(log)!r}))\n"
        "print('not killed')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode < 0 and "not killed" not in proc.stdout, (proc.returncode, proc.stderr)  # killed by the signal
    assert json.loads(out.read_text()) == {"old": True}


def test_a_file_keeps_its_mode_a_new_one_gets_the_umasks_and_a_link_is_replaced_not_followed(tmp_path):
    private = tmp_path / "private.json"
    private.write_text("old")
    private.chmod(0o600)
    write_text(private, "new")
    assert private.read_text() == "new" and private.stat().st_mode & 0o777 == 0o600
    mask = os.umask(0o022)
    os.umask(mask)
    fresh = write_text(tmp_path / "fresh.json", "new")
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not ours")
    (tmp_path / "link.json").symlink_to(elsewhere)
    write_text(tmp_path / "link.json", "ours")
    assert not (tmp_path / "link.json").is_symlink() and (tmp_path / "link.json").read_text() == "ours"
    assert elsewhere.read_text() == "not ours"


def test_a_failure_while_filling_leaves_no_temporary_file(tmp_path):
    from failuremap_edu._atomic import write_with

    target = tmp_path / "x.json"
    target.write_text("old")

    def fill(fh):
        fh.write(b"half")
        raise OSError(errno.EIO, "Input/output error")

    with pytest.raises(WriteError, match=r"x\.json: cannot write: Input/output error \(the old file is unchanged\)"):
        write_with(target, fill)
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"] and target.read_text() == "old"


def test_a_new_file_is_never_put_over_one_that_is_there(tmp_path):
    there = tmp_path / "checks.py"
    there.write_text("someone else's")
    with pytest.raises(WriteError, match="File exists"):
        write_text(there, "ours", new=True)
    assert there.read_text() == "someone else's" and [p.name for p in tmp_path.iterdir()] == ["checks.py"]
    assert write_text(tmp_path / "fresh.py", "ours", new=True).read_text() == "ours"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checks.py", "fresh.py"]
