"""The documentation: `make docs` builds it with warnings as errors, the README stays a front door,
and every shell command the docs show is run by a test or marked as not run.

A command in a ``sh`` block is accounted for in one of three ways:

- the block is preceded by ``<!-- run: tests/test_docs.py -->``: this module runs it, line by
  line, in a temporary folder (lines marked ``# not run: …`` are left out);
- the block or the line is marked not run: ``<!-- not run: REASON -->`` right above the block,
  or a comment ``# not run: REASON`` (or ``# N. not run: REASON``) on the line;
- the command is in ``RUN_BY``, which names the test that runs it (the test must exist).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
VENV = Path(sys.prefix)

RUN_BY = {
    "make lab": "tests/test_make_lab.py::test_a_fresh_make_lab_reaches_its_url_within_two_minutes_without_the_test_extra",
    "make test": ".ci/run",
    "make venv": "tests/test_makefile.py::test_make_venv_installs_the_package_without_the_test_extra_and_says_so",
}


@dataclass(frozen=True)
class Command:
    """One command of a docs ``sh`` block (continuation lines joined), where it is, and how it is marked."""

    page: str
    text: str
    block_mark: str  # "run", "not run" or ""

    @property
    def not_run(self) -> bool:
        return self.block_mark == "not run" or re.search(r"#\s*(\d+\.\s*)?not run: \S", self.text) is not None

    @property
    def command(self) -> str:
        """The command without its comment (a `#` after whitespace, outside quotes: good enough for these docs)."""
        return re.split(r"\s+#\s", " " + self.text, maxsplit=1)[0].strip()


BLOCK = re.compile(r"(?:<!-- (run|not run): [^\n]*-->\n)?^```(?:sh|bash|shell|console)\n(.*?)^```", re.M | re.S)


def shell_commands() -> list[Command]:
    found = []
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for match in BLOCK.finditer(path.read_text(encoding="utf-8")):
            joined = match.group(2).replace("\\\n", " ")
            for line in joined.splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    found.append(Command(str(path.relative_to(ROOT)), line.strip(), match.group(1) or ""))
    return found


def _test_exists(target: str) -> bool:
    file, _, name = target.partition("::")
    path = ROOT / file
    if not path.is_file():
        return False
    if not name:
        return True
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name for node in ast.walk(tree))


def test_the_readme_is_a_front_door_of_at_most_200_lines_linking_into_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") <= 200
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / target).is_file(), target
    assert "docs/tutorials/first-exercise.md" in readme


def test_every_shell_command_in_the_docs_is_run_by_a_test_or_marked_not_run():
    commands = shell_commands()
    assert len(commands) > 20, "the docs' sh blocks were not found"
    unaccounted = [f"{c.page}: {c.text}" for c in commands if c.block_mark != "run" and not c.not_run and c.command not in RUN_BY]
    assert unaccounted == [], "mark these `# not run: WHY`, run them in a test, or name their test in RUN_BY"
    for command, target in RUN_BY.items():
        assert _test_exists(target), f"{command}: {target} does not exist"
    shown = {c.command for c in commands}
    assert set(RUN_BY) <= shown, f"RUN_BY names commands the docs no longer show: {set(RUN_BY) - shown}"


def test_a_command_marked_not_run_is_told_apart_from_one_that_is_not():
    assert Command("p", "helm upgrade x  # not run: needs helm", "").not_run
    assert Command("p", "make venv   # 1. not run: needs a fresh clone", "").not_run
    assert not Command("p", "failuremap-edu list   # the packaged records", "").not_run
    assert Command("p", "failuremap-edu list   # the packaged records", "").command == "failuremap-edu list"


def _runnable_blocks() -> list[tuple[str, list[str]]]:
    blocks: dict[str, list[str]] = {}
    for c in shell_commands():
        if c.block_mark == "run" and not c.not_run:
            blocks.setdefault(c.page, []).append(c.command)
    return sorted(blocks.items())


@pytest.mark.slow
@pytest.mark.parametrize("page, commands", _runnable_blocks(), ids=[page for page, _ in _runnable_blocks()])
def test_the_commands_a_page_marks_as_run_succeed_from_a_clone(tmp_path, page, commands):
    """Run as the page says, from a folder holding the repository's `references/`, with this checkout's CLI on PATH."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "failuremap-edu").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m failuremap_edu "$@"\n')
    (shim / "failuremap-edu").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    (work / "references").symlink_to(ROOT / "references")
    env = dict(os.environ, PATH=f"{shim}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT), EDITOR="true",
               HOME=str(tmp_path), FAILUREMAP_PROGRESS=str(tmp_path / "progress.jsonl"),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    for command in commands:
        done = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, f"{page}: {command}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"


def _build(source: Path, out: Path) -> subprocess.CompletedProcess:
    """`make docs` with this venv (its install stamp taken as up to date) from ``source`` into ``out``."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-s", f"VENV={VENV}", "-o", f"{VENV}/.installed-test", "docs", f"DOCS_SRC={source}", f"DOCS_OUT={out}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_make_docs_builds_with_warnings_as_errors_and_generates_the_cli_and_api_pages(tmp_path):
    done = _build(DOCS, tmp_path / "html")
    assert done.returncode == 0, done.stdout + done.stderr
    cli = (tmp_path / "html" / "reference" / "cli.html").read_text(encoding="utf-8")
    assert "--all-variants" in cli and "--homes" in cli  # from the argparse parser
    api = (tmp_path / "html" / "reference" / "python-api.html").read_text(encoding="utf-8")
    assert "failuremap_edu.run_checks" in api  # from the docstrings
    pages = {p.relative_to(DOCS).with_suffix("") for p in DOCS.rglob("*.md")}
    assert {Path(f"{part}/index") for part in ("tutorials", "how-to", "reference", "explanation")} <= pages


def test_a_broken_internal_link_fails_the_docs_build(tmp_path):
    source = tmp_path / "docs"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("_build"))
    with open(source / "explanation" / "panel.md", "a", encoding="utf-8") as fh:
        fh.write("\nSee [the missing page](no-such-page.md).\n")
    done = _build(source, tmp_path / "html")
    assert done.returncode != 0 and "no-such-page" in done.stdout + done.stderr


def test_the_hub_guides_kernel_culling_options_are_jupyter_servers_own():
    """Issue 39: the hub guide says how to cull idle kernels; the options it names exist, with the defaults it gives."""
    from jupyter_server.services.kernels.kernelmanager import MappingKernelManager

    guide = (DOCS / "how-to" / "hub-one-machine.md").read_text(encoding="utf-8")
    options = set(re.findall(r"--MappingKernelManager\.(\w+)=\d+", guide))
    assert options == {"cull_idle_timeout", "cull_interval"}
    traits = MappingKernelManager.class_traits()
    assert traits["cull_idle_timeout"].default_value == 0 and traits["cull_interval"].default_value == 300
    assert "c.Spawner.args += [" in guide, "the generated config already sets Spawner.args (--allow-root): add, never replace"
