"""A workshop on a real JupyterHub: learners log in, follow nbgitpuller links and solve, all at once.

The hub is ``jupyterhub`` with ``DummyAuthenticator`` and ``SimpleLocalProcessSpawner``
(each learner has a home folder of their own), the proxy is ``configurable-http-proxy``
from npm, and the single-user servers load ``nbgitpuller``. The workshop is a folder
built by ``failuremap-edu workshop --repo … --hub …``, committed to a git repository;
the learners follow the links in its README. See tests/hubkit.py for how a learner
does what a browser does.

What is asserted is behaviour, not the runner's internals: the ``K/N checks pass``
line after each solve cell, whose progress log is where, and that the hub and
every kernel stay up while one learner runs a memory bomb, a fork and a busy loop.
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import pytest

from failuremap_edu._progress import read_progress
from failuremap_edu.instructor._workshop import clone_folder

import hubkit

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

RECORDS = ("FA-100786", "FA-100061")
LEARNERS = 5
HOSTILE = "mallory"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    with hubkit.Hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


@pytest.fixture(scope="module")
def course(hub, tmp_path_factory):
    repo, links = hubkit.publish_workshop(tmp_path_factory.mktemp("course"), hub, RECORDS)
    assert set(links) == {"00-start-here.ipynb", *(f"{r}.ipynb" for r in RECORDS)}
    return repo, links


def loop_cell(attempt_cell: str) -> str:
    return hubkit.with_body(attempt_cell, "    while True:\n        pass")


def open_exercise(learner: hubkit.Learner, link: str, record_id: str, repo: str) -> tuple[dict, str]:
    nb, attempt, folder = hubkit.open_exercise(learner, link, record_id)
    assert folder == clone_folder(repo)  # the folder nbgitpuller cloned into is the one our link's urlpath names
    urlpath = parse_qs(urlsplit(link).query)["urlpath"][0]
    assert learner.redirect == f"{learner.hub.url}/user/{learner.name}/{urlpath}"
    return nb, attempt


def learn(hub, repo, links, name: str, record_id: str, start: threading.Barrier) -> dict:
    learner = hubkit.Learner(hub, name)
    try:
        nb, attempt = open_exercise(learner, links[f"{record_id}.ipynb"], record_id, repo)
        start.wait(timeout=600)
        first = learner.execute(attempt)
        correct = learner.execute(hubkit.reference_cell(record_id, name, attempt))
        looping = learner.execute(loop_cell(attempt))
        return {"recorded": hubkit.recorded_summary(nb), "runs": [first, correct, looping], "steps": learner.steps}
    except BaseException as exc:
        start.abort()  # the others stop waiting for this learner
        raise AssertionError(f"{name}: {exc!r}; steps so far: {learner.steps}") from exc
    finally:
        learner.close()


HOSTILE_SOLVES = {
    "memory bomb": "    hoard = []\n    while True:\n        hoard.append(bytearray(50_000_000))\n",
    "fork": "    import os\n    if os.fork() == 0:\n        while True:\n            pass\n    return None\n",
    "busy loop": "    while True:\n        pass\n",
}


def attack(hub, repo, links, start: threading.Barrier) -> dict:
    learner = hubkit.Learner(hub, HOSTILE)
    try:
        nb, attempt = open_exercise(learner, links["FA-100786.ipynb"], "FA-100786", repo)
        start.wait(timeout=600)
        runs = {what: learner.execute(hubkit.with_body(attempt, body)) for what, body in HOSTILE_SOLVES.items()}
        runs["afterwards"] = learner.execute(hubkit.reference_cell("FA-100786", HOSTILE, attempt))
        return runs
    except BaseException as exc:
        start.abort()
        raise AssertionError(f"{HOSTILE}: {exc!r}; steps so far: {learner.steps}") from exc
    finally:
        learner.close()


def test_a_class_on_jupyterhub_with_a_hostile_learner(hub, course):
    repo, links = course
    names = [f"learner{i}" for i in range(LEARNERS)]
    start = threading.Barrier(LEARNERS + 1)  # everyone solves at once, while mallory attacks
    with ThreadPoolExecutor(LEARNERS + 1) as pool:
        hostile = pool.submit(attack, hub, repo, links, start)
        futures = {name: pool.submit(learn, hub, repo, links, name, RECORDS[i % 2], start) for i, name in enumerate(names)}
        results = {name: f.result() for name, f in futures.items()}
        attacked = hostile.result()
    for name in names:
        print(name, results[name]["steps"])  # shown when a later assertion fails

    for i, name in enumerate(names):
        r = results[name]
        first, correct, looping = r["runs"]
        total = int(r["recorded"].split("/")[1].split()[0])
        assert first.summary == r["recorded"], (name, first.display[-500:])  # the attempt, exactly as the notebook recorded it
        assert correct.summary == f"{total}/{total} checks pass", (name, correct.display[-500:])
        m = hubkit.SUMMARY.search(looping.summary or "")
        assert m and m.group(1) == "0" and m.group(2) == str(total) and "timeout" in m.group(0), (name, looping.display[-500:])
        assert all(run.status == "ok" and run.error is None for run in r["runs"])

    for what in HOSTILE_SOLVES:  # each is contained: a summary line, nothing passes, the kernel answers the next cell
        assert attacked[what].status == "ok" and attacked[what].summary, (what, attacked[what].display[-500:])
        assert attacked[what].summary.startswith("0/6 checks pass"), (what, attacked[what].summary)
    assert attacked["afterwards"].summary == "6/6 checks pass", attacked["afterwards"].display[-500:]

    # Each learner's progress log is in their own home, and holds only their own runs.
    ids = {}
    for i, name in enumerate(names + [HOSTILE]):
        home = hub.home(name)
        logs = list(home.rglob("progress.jsonl"))
        assert logs == [home / ".local" / "share" / "failuremap_edu" / "progress.jsonl"], logs
        entries, skipped = read_progress(logs[0])
        assert skipped == 0
        ids[name] = {e["learner"] for e in entries}
        assert len(ids[name]) == 1
        text = logs[0].read_text(encoding="utf-8")
        others = [o for o in names + [HOSTILE] if o != name and f"# learner {o}\\n" in text]
        assert others == [], (name, others)
        if name != HOSTILE:
            assert [e["record"] for e in entries] == [RECORDS[i % 2]] * 3
            assert [e["passed"] == e["total"] for e in entries] == [False, True, False]
            assert f"# learner {name}\\n" in text
        else:
            assert len(entries) == len(HOSTILE_SOLVES) + 1
    assert len({next(iter(v)) for v in ids.values()}) == len(ids)  # every learner has their own pseudonymous id

    # The hub stayed up and every learner's server is still running.
    assert hub.alive() and hub.process.poll() is None
    users = {u["name"]: u for u in hub.api("/users")}
    assert all(users[name]["servers"][""]["ready"] for name in names + [HOSTILE])


def test_the_start_here_link_opens_the_overview(hub, course):
    repo, links = course
    learner = hubkit.Learner(hub, "latecomer")
    try:
        learner.login()
        folder = learner.follow(links["00-start-here.ipynb"])
        nb = learner.notebook(f"{folder}/notebooks/00-start-here.ipynb")
        learner.open_notebook(f"{folder}/notebooks/00-start-here.ipynb")
        outputs = [learner.execute(code) for code in hubkit.solve_cells(nb)]
        assert all(o.status == "ok" and o.error is None for o in outputs), [o.error for o in outputs]
        overview = next(o.display for o in outputs if "progress_overview" in o.code)
        assert all(re.search(rf"^{r}\s+not started\s+0$", overview, re.M) for r in RECORDS), overview
    finally:
        learner.close()


CLASS = {  # issue 22: six learners, different mistakes (FA-100786), their homes read by report --homes
    "class0": ["attempt"],
    "class1": ["attempt"],
    "class2": ["lists"],
    "class3": ["loop"],
    "class4": ["reference"],
    "class5": ["attempt", "reference"],  # passes at the second run
}


def _report(hub, *args: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "failuremap_edu", "report", "--homes", str(hub.homes / "class*"), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def test_the_class_report_and_live_view_over_the_learners_homes(hub, course):
    from pathlib import Path

    repo, links = course
    first_done, go_on = threading.Barrier(len(CLASS) + 1), threading.Barrier(len(CLASS) + 1)

    def solve(name: str, plan: list[str]) -> list[str]:
        learner = hubkit.Learner(hub, name)
        try:
            _, attempt = open_exercise(learner, links["FA-100786.ipynb"], "FA-100786", repo)
            cells = {"attempt": attempt, "lists": hubkit.with_body(attempt, "    return [text, '']"),
                     "loop": loop_cell(attempt), "reference": hubkit.reference_cell("FA-100786", name, attempt)}
            summaries = []
            for n, step in enumerate(plan + [None] * (2 - len(plan))):
                if step is not None:
                    summaries.append(learner.execute(cells[step]).summary)
                if n == 0:
                    first_done.wait(timeout=900)
                    go_on.wait(timeout=900)
            return summaries
        except BaseException as exc:
            first_done.abort()
            go_on.abort()
            raise AssertionError(f"{name}: {exc!r}; steps so far: {learner.steps}") from exc
        finally:
            learner.close()

    with ThreadPoolExecutor(len(CLASS)) as pool:
        futures = {name: pool.submit(solve, name, plan) for name, plan in CLASS.items()}
        first_done.wait(timeout=900)
        live = _report(hub, "--watch", "--watch-rounds", "1")  # the live view, during the session
        go_on.wait(timeout=900)
        summaries = {name: f.result() for name, f in futures.items()}
    assert summaries["class4"] == ["6/6 checks pass"] and summaries["class5"][1] == "6/6 checks pass", summaries

    assert "FA-100786: 6 started, 1 pass every check" in live, live
    assert "       3 learners return what the attempt returns (('hel', 'lo<st'))" in live, live  # class5 has not fixed it yet

    folder = Path(urlsplit(repo).path).parent / "fm-course"
    out = _report(hub, "--workshop", str(folder))
    lines = out.splitlines()
    assert lines[0] == "Class report: 6 learners, 1 of 2 exercises started, from 6 files", out
    assert "FA-100061: nobody started it" in lines
    headline = next(line for line in lines if line.startswith("FA-100786: "))
    assert headline.startswith("FA-100786: 6 learners ran it (7 runs); 2 reached every check passing (median 1.5 runs); stuck: "), out
    start = lines.index("  Check 1 (partial marker held), groups of learners who fail it the same way:")
    assert lines[start + 1].startswith("    3 learners return what the attempt returns (('hel', 'lo<st')), 2 of them still stuck: "), out
    assert lines[start + 2].startswith("    1 learner returns ['hello<st', ''] (type): "), out
    assert lines[start + 3].startswith("    1 learner times out: "), out
    assert lines[start + 4].startswith("    Why the attempt fails: Holding a fixed maximum marker length"), out
    assert "learner class" not in out  # the reference cells are marked with the learner's name: no code without --with-code


REFERENCE_LINES = ("Hold back the longest suffix that is still a proper prefix", "if any(stop.startswith(tail) and tail != stop for stop")
"""Lines of our reference solution for FA-100786 (references/): a learner must reach neither, by any route."""


def _split(line: str) -> tuple[str, str]:
    """A line in two halves: typed as two, so the learner's own shell or kernel history never holds it whole."""
    return line[: len(line) // 2], line[len(line) // 2 :]


def test_no_learner_reaches_a_reference_solution(hub, course):
    """Issue 31: a learner's terminal and kernel run the learners' environment, which holds no reference solution."""
    reference = (hubkit.REPO / "references" / "FA-100786.py").read_text(encoding="utf-8")
    assert all(line in reference for line in REFERENCE_LINES)
    repo, links = course
    learner = hubkit.Learner(hub, "curious")
    try:
        learner.login()
        learner.follow(links["00-start-here.ipynb"])
        shown, code = learner.terminal("failuremap-edu notebook FA-100786 --instructor -o x && cat x/FA-100786.ipynb")
        assert code != 0 and "invalid choice: 'notebook'" in shown, shown  # a learners' folder has no notebook generator at all
        searched = " ".join(f"-e \"$(printf '%s%s' '{a}' '{b}')\"" for a, b in map(_split, REFERENCE_LINES))
        shown, code = learner.terminal(f"grep -rIlF {searched} ~ \"$(python -c 'import sys; print(sys.prefix)')\" "
                                       "$(python -c 'import os, sys; print(*(p for p in sys.path if p and os.path.isdir(p)))')")
        assert code == 1, shown  # grep: nothing found, in the home, the environment, or anywhere on Python's path

        learner.open_notebook("from-a-kernel.ipynb")
        run = learner.execute(
            "import os, subprocess, sys\n"
            "import importlib.util, shutil, failuremap_edu\n"
            "print('instructor side', importlib.util.find_spec('failuremap_edu.instructor'))\n"
            f"lines = [a + b for a, b in {[_split(line) for line in REFERENCE_LINES]!r}]\n"
            "roots = [p for p in sys.path if p and os.path.isdir(p)] + [sys.prefix]\n"
            "found = subprocess.run(['grep', '-rIlF', *(x for line in lines for x in ('-e', line)), *roots], capture_output=True, text=True)\n"
            "print('found', found.returncode, repr(found.stdout))\n"
            "print('beside', os.path.isdir(os.path.join(os.path.dirname(os.path.dirname(failuremap_edu.__file__)), 'references')))\n"
        )
        assert run.status == "ok" and run.error is None, run.error
        assert "instructor side None" in run.stdout, run.stdout  # no notebook generator, no instructor's CLI: only the kernel side
        assert "found 1 ''" in run.stdout and "beside False" in run.stdout, run.stdout
        assert not any(line in run.stdout + run.display for line in REFERENCE_LINES)
    finally:
        learner.close()
