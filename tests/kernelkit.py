"""A real IPython kernel (jupyter_client) and what a cell costs it: its messages, their bytes, its time.

For tests/test_cell.py (a count of messages is stable, a time is not) and
benchmarks/bench_panel_messages.py (both, side by side). The kernel imports this
worktree's failuremap_edu (PYTHONPATH) and logs progress into its own folder.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r"^\d+/\d+ checks pass\b", re.M)

EXERCISE_CELL = "import failuremap_edu as fm\n\n@fm.exercise('FA-100786')\ndef solve(text, stops):\n{body}"
"""The learner's exercise cell: the panel below it."""
ATTEMPT = "    return text, ''\n"
"""FA-100786's failing attempt (4/6 checks pass): the solve of the issue's measurement."""
RUN_CHECKS_CELL = (
    "def mine(text, stops):\n{body}"
    "print(fm.run_checks(fm.load_record('FA-100786'), mine).summary())\n"
)
"""The same solve checked by a bare ``run_checks`` call, its summary printed: what the checks themselves cost
(not named solve: the cell watcher would check a ``def solve`` cell with the exercise's panel)."""


@dataclass
class Cell:
    """What one executed cell sent on IOPub (every message whose parent is its request), and when."""

    messages: list[dict] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)
    started: float = 0.0

    @property
    def count(self) -> int:
        return len(self.messages)

    @property
    def bytes(self) -> int:
        """Bytes of message content, as JSON (what the kernel serialises; headers not counted)."""
        return sum(len(json.dumps(m["content"])) for m in self.messages)

    def kinds(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for m in self.messages:
            found[m["header"]["msg_type"]] = found.get(m["header"]["msg_type"], 0) + 1
        return found

    def updates(self) -> list[str]:
        """The comm id of each widget update (comm_msg with method "update"), in order."""
        return [m["content"]["comm_id"] for m in self.messages
                if m["header"]["msg_type"] == "comm_msg" and m["content"].get("data", {}).get("method") == "update"]

    def summary_seconds(self) -> float | None:
        """Seconds from sending the cell to the first message carrying a ``K/N checks pass`` line (printed or shown)."""
        for m, at in zip(self.messages, self.arrived):
            content = m["content"]
            text = content.get("text", "") if m["header"]["msg_type"] == "stream" else content.get("data", {}).get("text/plain", "")
            if isinstance(text, str) and SUMMARY.search(text):
                return at - self.started
        return None


class Kernel:
    """One IPython kernel, started for the caller and shut down by it (a context manager)."""

    def __init__(self) -> None:
        import jupyter_client

        self._folder = tempfile.TemporaryDirectory(prefix="fm-kernel-")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")])),
               "FAILUREMAP_PROGRESS": os.path.join(self._folder.name, "progress.jsonl"),
               "JUPYTER_RUNTIME_DIR": os.environ.get("JUPYTER_RUNTIME_DIR", self._folder.name)}
        self.manager = jupyter_client.KernelManager(kernel_name="python3", transport="ipc",
                                                    connection_file=os.path.join(self._folder.name, "kernel.json"))
        self.manager.start_kernel(extra_arguments=["--HistoryManager.enabled=False"], env=env)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        self.all: list[dict] = []
        """Every IOPub message of every cell run so far (a frontend's view of the widgets)."""

    def run(self, code: str, timeout: float = 60) -> Cell:
        cell = Cell()

        def collect(msg: dict) -> None:
            cell.arrived.append(time.perf_counter())
            cell.messages.append(msg)

        cell.started = time.perf_counter()
        reply = self.client.execute_interactive(code, timeout=timeout, output_hook=collect)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"the cell failed: {reply['content']}")
        self.all += cell.messages
        return cell

    def frontend_widgets(self) -> dict[str, dict]:
        """The state of every widget as a frontend that got every message would hold it (comm_open, then updates)."""
        state: dict[str, dict] = {}
        for m in self.all:
            kind, content = m["header"]["msg_type"], m["content"]
            if kind == "comm_open":
                state[content["comm_id"]] = dict(content["data"].get("state", {}))
            elif kind == "comm_msg" and content.get("data", {}).get("method") == "update":
                state.setdefault(content["comm_id"], {}).update(content["data"]["state"])
        return state

    def kernel_widgets(self) -> dict[str, dict]:
        """The state of every widget in the kernel, as ipywidgets would send it whole."""
        cell = self.run("import json as _j, ipywidgets as _w\n"
                        "print(_j.dumps({k: v.get_state() for k, v in _w.widgets.widget._instances.items()}))")
        return json.loads("".join(m["content"]["text"] for m in cell.messages if m["header"]["msg_type"] == "stream"))

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)
        self._folder.cleanup()

    def __enter__(self) -> "Kernel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
