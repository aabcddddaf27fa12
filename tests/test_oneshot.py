"""`failuremap-edu check` as a program: its workers are plain forks of it (no server, no standby), as contained as the server's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REFERENCES
from failuremap_edu.instructor._cli import COMMANDS, build_parser
from failuremap_edu.instructor._notebook import reference_path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = reference_path("FA-100786", REFERENCES).read_text()
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers are for Linux (pidfds, /proc)")


def _check(tmp_path: Path, body: str, *options: str) -> tuple[subprocess.Popen, list, list[tuple[int, int]]]:
    """Run ``check`` on a solve whose first lines note its pid and its parent's in a file; the observations and the notes."""
    notes = tmp_path / "pids"
    source = (f"import os\n{REFERENCE}\n_reference = solve\n\ndef solve(text, stops):\n"
              f"    with open({str(notes)!r}, 'a') as fh:\n        fh.write(f'{{os.getpid()}} {{os.getppid()}}\\n')\n{body}")
    (tmp_path / "sol.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "failuremap_edu", "check", "FA-100786", str(tmp_path / "sol.py"), "--json", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    proc.stdout_text, _ = proc.communicate(timeout=120)
    pairs = [tuple(map(int, line.split())) for line in notes.read_text().split("\n") if line] if notes.exists() else []
    return proc, json.loads(proc.stdout_text)["runs"][0]["observations"], pairs


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_the_workers_of_check_are_forks_of_the_command_itself(tmp_path):
    """No forkserver, no standby: each worker's parent is the command's own process, and it passes as before."""
    proc, observations, pairs = _check(tmp_path, "    return _reference(text, stops)\n")
    assert proc.returncode == 0 and [o["status"] for o in observations] == ["pass"] * 6
    assert pairs and {parent for _, parent in pairs} == {proc.pid}


def test_a_loop_and_os_exit_and_a_segfault_are_survived_one_check_at_a_time(tmp_path):
    body = ("    if text == 'x':\n        while True: pass\n"
            "    if text == 'hello<st':\n        os._exit(3)\n"
            "    if text == 'abc':\n        import ctypes; ctypes.string_at(0)\n"
            "    return _reference(text, stops)\n")
    proc, observations, pairs = _check(tmp_path, body, "--timeout", "0.5")
    assert proc.returncode == 1
    by_status = {o["status"] for o in observations}
    assert "timeout" in by_status and "pass" in by_status, observations
    died = [o["error"]["message"] for o in observations if o["error"] and o["error"]["type"] == "ProcessDied"]
    assert any("os._exit(3)" in m for m in died) and any("SIGSEGV" in m for m in died), died
    assert len({pid for pid, _ in pairs}) >= 3, "a fresh worker after each death and timeout"


def test_nothing_solve_started_outlives_the_command(tmp_path):
    """A child that loops, a detached grandchild (double fork, setsid) and a program in a session of its own all end with the run."""
    body = ("    import subprocess, time\n"
            "    if os.fork() == 0:\n        while True: pass\n"
            "    r, w = os.pipe()\n"
            "    if os.fork() == 0:\n        os.setsid()\n        pid = os.fork()\n        if pid == 0:\n            time.sleep(600)\n"
            "        os.write(w, str(pid).encode()); os._exit(0)\n"
            "    grandchild = int(os.read(r, 32))\n"
            "    sleeper = subprocess.Popen(['sleep', '600'], start_new_session=True).pid\n"
            "    raise ValueError(f'{grandchild} {sleeper}')\n")
    proc, observations, pairs = _check(tmp_path, body)
    started = [int(p) for o in observations if o["error"] and o["error"]["type"] == "ValueError" for p in o["error"]["message"].split()]
    assert len(started) >= 12, observations
    ended = time.monotonic()
    while time.monotonic() < ended + 1 and any(map(_alive, started)):
        time.sleep(0.02)
    assert [pid for pid in started if _alive(pid)] == [], "one second after the command ended"


def test_a_fork_loop_is_stopped(tmp_path):
    tally = tmp_path / "started"
    body = ("    import time\n    while True:\n        if os.fork() == 0:\n"
            f"            fd = os.open({str(tally)!r}, os.O_WRONLY | os.O_CREAT | os.O_APPEND); os.write(fd, b'x')\n"
            "            time.sleep(30); os._exit(0)\n")
    proc, observations, _ = _check(tmp_path, body, "--timeout", "5")
    assert proc.returncode == 1 and all(o["error"]["type"] == "TooManyProcesses" for o in observations), observations


def test_only_the_given_commands_parser_is_built_and_the_full_one_lists_every_command():
    def commands(parser):
        return next(a for a in parser._actions if a.dest == "command").choices

    assert list(commands(build_parser("check"))) == ["check"]
    assert list(commands(build_parser())) == list(COMMANDS)
    assert build_parser("check").parse_args(["check", "FA-100786", "sol.py", "--sandbox"]).sandbox is True


def test_check_of_a_right_solution_imports_no_picture_and_no_pattern_module(tmp_path):
    """What a passing run's text needs is loaded, nothing more: the pictures and the pattern search (a tenth of the
    command's imports) load only for a failing check. Counted in the program itself, as `failuremap-edu check` runs."""
    (tmp_path / "sol.py").write_text(REFERENCE)
    program = ("import atexit, sys\n"
               "atexit.register(lambda: print('MODULES', sorted(m for m in sys.modules if m.startswith('failuremap_edu')), file=sys.stderr))\n"
               f"sys.argv = ['failuremap-edu', 'check', 'FA-100786', {str(tmp_path / 'sol.py')!r}]\n"
               "from failuremap_edu.instructor._cli import main\nraise SystemExit(main())\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = __import__("ast").literal_eval(done.stderr.rsplit("MODULES ", 1)[1].strip())
    assert "failuremap_edu.render._text" in loaded and "failuremap_edu._diff" in loaded  # it did render the run
    assert "failuremap_edu.render._grid" not in loaded and "failuremap_edu._patterns" not in loaded, loaded
