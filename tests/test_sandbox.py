"""``--sandbox`` holds as root: what code in the bubblewrap sandbox can and cannot reach.

CI runs as root, as containers and hubs often do; these tests are meant to run
so. They are skipped only where bwrap is missing, and never in CI (``CI`` set):
there `make test` installs it (the Makefile's system-deps), so a missing bwrap fails.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from failuremap_edu.instructor._cli import main
from failuremap_edu.instructor._notebook import reference_path
from failuremap_edu.runner import run_checks, run_script

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "failuremap_edu"


@pytest.fixture(autouse=True)
def _needs_bwrap(bwrap):
    """Every test here (conftest's `bwrap`: never skipped in CI)."""


def _actual(result):
    """The first element of solve's (value, rest) on every check: one value if the probe saw the same each time."""
    values = {json.dumps(o.actual[0]) for o in result.observations}
    assert len(values) == 1, values
    return json.loads(values.pop())


def _under_tmp(path: Path) -> bool:
    real = path.resolve()
    return real == Path("/tmp") or Path("/tmp") in real.parents


def test_as_root_sandboxed_code_has_no_capabilities_and_cannot_remount_or_write(stopping):
    """With root's capabilities, code could remount a read-only bind writable and write into the real folder: here it has none."""
    marker = f"fm-sandbox-probe-{uuid.uuid4().hex}"
    in_package, in_cwd = PACKAGE / marker, Path.cwd() / marker

    def probe(text, stops, package=str(PACKAGE), marker=marker):
        import ctypes
        import os

        libc = ctypes.CDLL(None, use_errno=True)
        remounts = [libc.mount(None, where.encode(), None, 32 | 4096, None) for where in ("/", package, os.getcwd())]  # MS_REMOUNT | MS_BIND
        writes = []
        for path in (os.path.join(package, marker), os.path.join(os.getcwd(), marker)):
            try:
                with open(path, "w") as fh:
                    fh.write("x")
                writes.append("wrote")
            except OSError as exc:
                writes.append(exc.strerror)
        with open("/proc/self/status") as fh:
            caps = [line.split()[1] for line in fh if line.startswith("CapEff:")]
        return [os.getuid(), caps[0], remounts, writes, os.environ.get("HOME"), os.path.exists("/run")], ""

    try:
        result = run_checks(stopping, probe, isolation="sandbox")
        landed = [p.exists() for p in (in_package, in_cwd)]
    finally:
        in_package.unlink(missing_ok=True)
        in_cwd.unlink(missing_ok=True)
    assert result.isolation == "sandbox" and result.problem is None
    uid, caps, remounts, writes, home, run_visible = _actual(result)
    assert uid != 0 and caps == "0000000000000000"
    assert remounts == [-1, -1, -1]
    assert landed == [False, False]  # nothing reached the real folders
    assert writes[0] != "wrote"  # the package is read-only in the sandbox
    if not _under_tmp(Path.cwd()):  # else the working folder is made afresh inside the sandbox's own /tmp, writable and gone after
        assert writes[1] != "wrote"
    assert home == "/tmp" and home != os.path.expanduser("~")
    assert run_visible is False


def test_unix_sockets_outside_the_sandbox_are_out_of_reach(stopping, tmp_path, monkeypatch):
    """'No network' does not cover Unix-domain sockets: a listener in the caller's working folder (or anywhere else) hears nothing."""
    monkeypatch.chdir(tmp_path)
    places = [tmp_path / "agent.sock", ROOT / "tests" / f".fm-{uuid.uuid4().hex[:8]}.sock"]
    listeners = []
    try:
        for place in places:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(place))
            listener.listen(8)
            listener.setblocking(False)
            listeners.append(listener)

        def reach(text, stops, places=tuple(map(str, places))):
            import socket

            said = []
            for place in places:
                try:
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                        s.connect(place)
                        s.sendall(b"hello from sandbox")
                    said.append("connected")
                except OSError as exc:
                    said.append(type(exc).__name__)
            return said, ""

        result = run_checks(stopping, reach, isolation="sandbox")
        heard = []
        for listener in listeners:
            try:
                heard.append(listener.accept()[0].recv(100))
            except BlockingIOError:
                heard.append(None)
    finally:
        for listener in listeners:
            listener.close()
        for place in places:
            place.unlink(missing_ok=True)
    assert result.problem is None
    assert "connected" not in _actual(result)
    assert heard == [None, None]


def test_a_venv_under_tmp_runs_the_reference_in_the_sandbox(tmp_path):
    """The sandbox's own /tmp must not hide the interpreter: a venv's prefix under /tmp is bound in, and the reference passes."""
    import site

    venv = tmp_path / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    own_site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True).stdout.strip()
    # The venv finds this one's packages (jupyter and the rest) and this checkout's package.
    Path(own_site, "fm-deps.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in site.getsitepackages()))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    work = tmp_path / "work"  # beside the venv, not above it
    work.mkdir()
    out = subprocess.run([python, "-m", "failuremap_edu", "check", "FA-100786", str(reference_path("FA-100786", ROOT / "references")), "--sandbox", "--json"],
                         capture_output=True, text=True, cwd=work, env=env, timeout=180)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    run = json.loads(out.stdout)["runs"][0]
    assert run["isolation"] == "sandbox"
    assert [o["status"] for o in run["observations"]] == ["pass"] * 6


def _failing_bwrap(tmp_path, monkeypatch):
    fake = tmp_path / "bwrap"
    fake.write_text(f"#!/bin/sh\nexec {shutil.which('bwrap')} --fm-no-such-option \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    return "bwrap: Unknown option --fm-no-such-option"


def _missing_source(tmp_path, monkeypatch):
    from failuremap_edu.runner import _sandbox

    missing = str(tmp_path / "not-there")
    monkeypatch.setattr(_sandbox, "python_folders", lambda: [missing])
    return f"bwrap: Can't find source path {missing}"


@pytest.mark.parametrize("breaks", [_failing_bwrap, _missing_source])
def test_a_sandbox_that_does_not_start_quotes_bwrap_and_blames_no_solve(stopping, tmp_path, monkeypatch, breaks):
    said = breaks(tmp_path, monkeypatch)
    result = run_checks(stopping, lambda text, stops: (text, ""), isolation="sandbox")
    assert result.problem is not None and result.problem.type == "WorkerDied"
    assert said in result.problem.message
    assert "solve" not in result.problem.message and "os._exit" not in result.problem.message
    assert {o.status for o in result.observations} == {"error"}


def test_a_sandboxed_script_that_does_not_start_quotes_bwrap_and_blames_no_script(tmp_path, monkeypatch, capsys):
    said = _failing_bwrap(tmp_path, monkeypatch)
    run = run_script("print('hello')\n", isolation="sandbox")
    assert run.not_started is not None and said in run.not_started and run.stdout == ""
    assert run_script("print('hello')\n").not_started is None  # not sandboxed: nothing to start
    folder = tmp_path / "source"
    assert main(["record", "new", "TR-SBX-2", "-o", str(folder)]) == 0
    capsys.readouterr()
    assert main(["record", "build", str(folder), "--sandbox"]) == 2
    err = capsys.readouterr().err
    assert said in err and "sys.exit" not in err and "os._exit" not in err


def test_only_the_py_files_beside_a_solution_file_are_in_the_sandbox(capsys, tmp_path):
    """A solution may import a module next to it; the rest of its folder (data, sockets, a home) stays out."""
    hand_in = tmp_path / "hand-in"
    hand_in.mkdir()
    (hand_in / "helper.py").write_text("WORD = 'helper'\n")
    (hand_in / "secret.txt").write_text("not for solve\n")
    solution = hand_in / "solution.py"
    solution.write_text(
        "import os\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
        "def solve(text, stops):\n"
        "    return [os.path.isfile(os.path.join(HERE, 'helper.py')), os.path.exists(os.path.join(HERE, 'secret.txt'))], ''\n"
    )
    code = main(["check", "FA-100786", str(solution), "--sandbox", "--json"])
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert code == 1 and run["problem"] is None
    assert {json.dumps(o["actual"][0]) for o in run["observations"]} == {"[true, false]"}


def test_a_sandboxed_script_runs_as_nobody_in_an_empty_tmp_and_is_interrupted_at_the_limit():
    probe = "import os\nprint(os.getuid(), os.getcwd(), os.listdir('.'), os.environ['HOME'], os.path.exists('/run'))\n"
    run = run_script(probe, isolation="sandbox")
    # An empty /tmp: but for the caller's working folder's path, made afresh in it when that folder is under /tmp (a clone there)
    seen = str([Path.cwd().resolve().relative_to("/tmp").parts[0]]) if _under_tmp(Path.cwd()) else "[]"
    assert run.exit_code == 0 and run.stdout.split() == ["65534", "/tmp", seen, "/tmp", "False"]
    assert run.stderr == "" and run.not_started is None  # the launcher's mark is not the script's
    looping = run_script("import time\nwhile True:\n    time.sleep(0.01)\n", timeout=1.0, isolation="sandbox")
    assert looping.timed_out and looping.exit_code == -2  # SIGINT, as outside the sandbox
    assert looping.stderr.rstrip().endswith("KeyboardInterrupt") and 'File "<string>", line 3' in looping.stderr  # where it was


PREAMBLE = '''
try:
    with open(MARKER, "a") as _fh:  # the record's own code, run at every build step
        _fh.write("x")
except OSError:
    pass
'''


def test_record_build_and_notebook_run_the_records_code_in_the_sandbox(tmp_path, capsys):
    """Without --sandbox a build runs the record's code as the caller, who can write anywhere (a home folder); with it, nothing lands."""
    folder, home = tmp_path / "source", tmp_path / "home"
    home.mkdir()
    marker = home / "written-by-the-record"
    assert main(["record", "new", "TR-SBX-1", "-o", str(folder)]) == 0
    for name in ("solve_attempt.py", "solve_broken.py"):
        path = folder / name
        path.write_text(path.read_text().replace("\ndef solve", PREAMBLE.replace("MARKER", repr(str(marker))) + "\n\ndef solve", 1))
    record = tmp_path / "TR-SBX-1.json"

    # Sandboxed first: a plain run's standby rehearses the record's code after the run, so it would write later.
    assert main(["record", "build", str(folder), "-o", str(record), "--sandbox"]) == 0
    assert main(["notebook", str(record), "-o", str(tmp_path / "sandboxed"), "--sandbox"]) == 0
    assert main(["workshop", str(record), "-o", str(tmp_path / "workshop"), "--sandbox"]) == 0
    assert not marker.exists()
    assert main(["record", "build", str(folder), "-o", str(tmp_path / "plain.json")]) == 0
    assert main(["notebook", str(record), "-o", str(tmp_path / "plain")]) == 0
    assert len(marker.read_text()) > 1  # many runs of the record's code, as the caller
    capsys.readouterr()
