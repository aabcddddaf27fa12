"""In a real IPython kernel: a solve defined in a cell, misbehaving, never hurts the kernel."""

from __future__ import annotations

import pytest

jupyter_client = pytest.importorskip("jupyter_client")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    import os

    runtime = tmp_path_factory.mktemp("runtime")
    os.environ.setdefault("JUPYTER_RUNTIME_DIR", str(runtime))
    manager = jupyter_client.KernelManager(kernel_name="python3", transport="ipc")
    manager.start_kernel(extra_arguments=["--HistoryManager.enabled=False"])
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def execute(client, code: str, timeout: float = 60) -> dict:
    """Run a cell; return its status and everything it showed, by stream name and mime type."""
    shown = {"stdout": "", "stderr": "", "text/plain": "", "error": ""}

    def collect(msg):
        kind, content = msg["header"]["msg_type"], msg["content"]
        if kind == "stream":
            shown[content["name"]] += content["text"]
        elif kind in ("execute_result", "display_data"):
            shown["text/plain"] += content["data"].get("text/plain", "")
        elif kind == "error":
            shown["error"] += f"{content['ename']}: {content['evalue']}"

    reply = client.execute_interactive(code, timeout=timeout, output_hook=collect)
    shown["status"] = reply["content"]["status"]
    return shown


def test_interactive_solve_misbehaves_and_the_kernel_survives(kernel):
    setup = execute(kernel, "import os, sys, warnings\nwarnings.simplefilter('default')\nimport failuremap_edu as fm\nrecord = fm.load_record('FA-100786')")
    assert setup["status"] == "ok", setup
    cells = {
        "while True: pass": "0/6 checks pass (6 timeout)",
        "os._exit(1)": "0/6 checks pass (6 error)",
        "sys.exit(0)": "0/6 checks pass (6 error)",
        "return solve(text, stops)": "0/6 checks pass (6 error)",
        "print('x' * 10**6); return (text, '')": "4/6 checks pass (2 fail)",
        "from IPython.display import display; display('hi'); return (text, '')": "4/6 checks pass (2 fail)",
    }
    for body, summary in cells.items():
        out = execute(kernel, f"def solve(text, stops):\n    {body}\nprint(fm.run_checks(record, solve, timeout=0.5).summary())")
        assert out["status"] == "ok", (body, out)
        assert out["stdout"] == summary + "\n", (body, out)
        assert out["stderr"] == "" and out["text/plain"] == "", (body, out)
    alive = execute(kernel, "pid = os.getpid(); 6 * 7")
    assert alive["status"] == "ok" and alive["text/plain"] == "42"


def test_a_class_defined_in_the_notebook_comes_back_described(kernel):
    out = execute(
        kernel,
        "class Pair:\n    def __init__(self, a, b): self.a, self.b = a, b\n    def __repr__(self): return f'Pair({self.a!r}, {self.b!r})'\n"
        "def solve(text, stops):\n    return Pair(text, '')\n"
        "o = fm.run_checks(record, solve).observations[0]\nprint(o.status, o.actual.type_name, o.actual.repr)",
    )
    assert out["stdout"] == "fail Pair Pair('hello<st', '')\n", out


def test_a_cell_defined_solve_runs_on_a_warm_worker_without_forking_the_kernel(kernel):
    from failuremap_edu._notebook import reference_path

    reference = reference_path("FA-100786").read_text(encoding="utf-8")
    setup = execute(
        kernel,
        "import time\nfrom failuremap_edu import _runner, _warm\n_warm.warm_up()\n"
        "deadline = time.monotonic() + 20\n"
        "while _warm._client() is None or not _warm._client().ready:\n"
        "    assert time.monotonic() < deadline\n    time.sleep(0.05)\n    _warm._client() and _warm._client()._poll(0)\n"
        "forks = []\noriginal = _runner._Worker.start\n"
        "_runner._Worker.start = classmethod(lambda cls, plan, skip: forks.append(skip) or original.__func__(cls, plan, skip))",
    )
    assert setup["status"] == "ok", setup
    defined = execute(kernel, reference)  # the reference solve, as a learner would type it in a cell
    assert defined["status"] == "ok", defined
    out = execute(kernel, "r = fm.run_checks(record, solve)\nprint(r.summary(), 'forks:', len(forks), 'kernel pid unchanged:', os.getpid() == pid)")
    assert out["stdout"] == "6/6 checks pass forks: 0 kernel pid unchanged: True\n", out
