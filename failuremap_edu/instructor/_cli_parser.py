"""The ``failuremap-edu`` command line's parser: every command, its options and help, and the synopsis the docs show.

Built lazily: with a command's name, only that command's parser is built (a
one-shot ``check`` starts faster). The commands themselves are in `_cli`.
"""

from __future__ import annotations

import argparse

from .. import __version__
from .._command import Parser as _Parser, SharedOptions, add_check, add_export, positive_float as _positive_float

__all__ = ["COMMANDS", "build_parser", "synopsis"]


def synopsis(parser: argparse.ArgumentParser | None = None) -> str:
    """Every command's usage line and what it does: the synopsis in docs/reference/cli.md (tests/test_cli.py compares them)."""
    lines: list[str] = []

    def walk(parser: argparse.ArgumentParser) -> None:
        commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if commands is None:
            return
        helps = {choice.dest: choice.help for choice in commands._choices_actions}
        for name, sub in commands.choices.items():
            if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
                walk(sub)  # `record new`, `record build`, …: each on its own
                continue
            usage = sub.format_usage().removeprefix("usage: ").replace(" [-h]", "").rstrip("\n").splitlines()
            lines.extend([usage[0], *(line[len("usage: "):] for line in usage[1:]), f"    # {helps.get(name, '')}"])

    walk(parser or build_parser())
    return "\n".join(lines) + "\n"


COMMANDS = ("list", "show", "check", "notebook", "workshop", "lite", "export", "report", "serve", "record", "verify")
"""Every command, in the order --help lists them."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `only` (a command's name), of that command alone (the others are not built)."""
    parser = _Parser(prog="failuremap-edu", description="Learn how ML-systems code fails, one Failure Map record at a time.")
    parser.add_argument("--version", action="version", version=f"failuremap-edu {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    shared = SharedOptions()

    def add(name: str, help: str, parents=lambda: []) -> argparse.ArgumentParser:
        if only is not None and name != only:  # another command is given: this one is neither listed nor built
            return _Unbuilt()  # type: ignore[return-value]
        return commands.add_parser(name, help=help, parents=parents())

    p = add("list", help="list the packaged records (or a folder of records)", parents=lambda: [shared["json"]])
    p.add_argument("--records-dir", metavar="DIR", help="list the record files in DIR instead")

    p = add("show", help="show a record's contract, teaching text and checks (runs nothing)", parents=lambda: [shared["json"]])
    p.add_argument("record", metavar="RECORD", help="a packaged id or a path to a record JSON file")

    add_check(add, shared)  # as a learners' folder has it (failuremap_edu._command)

    p = add("notebook", parents=lambda: [shared["sandbox"]], help="build a teaching notebook from a record")
    p.add_argument("record", metavar="RECORD", nargs="?", help="a packaged id or a path to a record JSON file")
    p.add_argument("-o", "--out", default=".", metavar="DIR", help="folder to write into (default: current folder)")
    p.add_argument("--instructor", action="store_true", help="the instructor version: reference filled in, hints open")
    p.add_argument("--solution", metavar="FILE", help="reference solution for --instructor")
    p.add_argument("--references", metavar="DIR", help="reference solutions as DIR/ID.py, for --instructor and --all-packaged "
                   "(for example references/ of the failuremap_edu repository: never looked up on their own)")
    p.add_argument("--all-packaged", action="store_true", help="write start-here, learner and instructor notebooks for every packaged record")
    p.add_argument("--force", action="store_true", help="overwrite a notebook that was edited since this command wrote it")

    p = add(
        "workshop", help="build a learners' folder to publish, and a separate instructor's folder",
        parents=lambda: [shared["title"], shared["records_dir"], shared["force"], shared["sandbox"]],
    )
    p.add_argument("records", nargs="*", metavar="RECORD", help="packaged ids or paths")
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="the learners' folder (no reference solutions in it)")
    p.add_argument("--solutions", metavar="DIR", help="reference solutions as DIR/ID.py, for instructor notebooks")
    p.add_argument("--instructor-dir", metavar="DIR", help="where instructor notebooks, solutions and notes go (default: OUT-instructor)")
    p.add_argument("--with-solutions", action="store_true", help="also put instructor notebooks and solutions in the learners' folder (self-study)")
    p.add_argument("--repo", metavar="URL", help="the git repository the learners' folder will be pushed to (fills the Binder badge)")
    p.add_argument("--branch", metavar="NAME", help="its branch (default: the repository's default branch)")
    p.add_argument("--hub", metavar="URL", help="a JupyterHub with nbgitpuller: write a link per notebook (needs --repo)")
    p.add_argument("--env-repo", metavar="URL", help="a Binder environment repository: write Binder nbgitpuller links (needs --repo)")
    p.add_argument("--lite", metavar="DIR", help="also build a JupyterLite site of the same exercises in DIR (no server needed; see the docs, JupyterLite)")
    p.add_argument("--release-solutions", action="store_true",
                   help="after class: add the reference solutions to the learners' folder OUT as solutions/ID.py (from --solutions, "
                        "default the instructor's folder's solutions/), leaving every notebook as it is; commit and push for nbgitpuller")

    p = add(
        "lite", help="build a JupyterLite site: the exercises run in the browser, no server at all",
        parents=lambda: [shared["title"], shared["records_dir"], shared["force"], shared["sandbox"]],
    )
    p.add_argument("records", nargs="*", metavar="RECORD", help="packaged ids or paths (default: every packaged record)")
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="the folder to build the site in")
    p.add_argument("--pyodide", metavar="DIR", help="the npm pyodide package to serve (default: ./node_modules/pyodide)")
    p.add_argument("--wheels", metavar="DIR", help="where to keep the PyPI wheels the site serves (default: ~/.cache/failuremap_edu/lite-wheels)")

    add_export(add)

    p = add("report", help="a class report from learners' progress logs, downloaded results and exports", parents=lambda: [shared["json"]])
    p.add_argument("paths", nargs="*", metavar="FILE|DIR", help="results (.json), exports, progress logs (.jsonl); folders are searched for both")
    p.add_argument("--homes", metavar="GLOB", help="also read every learner's progress log under these home folders, e.g. /home/* (in quotes, so that the shell leaves it to us)")
    p.add_argument("--workshop", metavar="DIR", help="the learners' folder `workshop` wrote: list its every exercise, started or not")
    p.add_argument("--names", metavar="CSV", help="show learners by name: lines of 'learner id (or a unique prefix of 6+),name'; only in this output")
    p.add_argument("--service", metavar="URL", help="also read every learner's runs from the class collector (failuremap-edu serve) at URL")
    p.add_argument("--token", metavar="TOKEN", help="an instructor's hub token for --service (default: $JUPYTERHUB_API_TOKEN)")
    p.add_argument("--anonymise", action="store_true", help="show learners by stable pseudonyms (for a projector), not by name or id")
    p.add_argument("--html", metavar="FILE", help="also write a standalone HTML page with a heatmap (with --watch: a live page that refreshes itself)")
    p.add_argument("--csv", metavar="FILE", help="also write learner × exercise as CSV (passed, checks passed, runs, first-pass time)")
    p.add_argument("--with-code", action="store_true", help="include each learner's solve (left out by default)")
    p.add_argument("--watch", nargs="?", const=5.0, type=_positive_float, metavar="SECONDS",
                   help="a live view: re-read everything every SECONDS (default 5) until Ctrl-C")
    p.add_argument("--watch-rounds", type=int, default=None, help=argparse.SUPPRESS)

    p = add("serve", help="the class collector: a JupyterHub service that learners' kernels send their runs to")
    p.add_argument("--db", metavar="URL", help="an SQLAlchemy database URL (default: sqlite:///failuremap-runs.sqlite in the current folder)")
    p.add_argument("--url", metavar="URL", help="where to listen (default: $JUPYTERHUB_SERVICE_URL, which JupyterHub sets)")
    p.add_argument("--instructor", action="append", default=[], metavar="USER", help="a hub user who may read every learner's runs (hub admins may)")
    p.add_argument("--instructor-group", action="append", default=[], metavar="GROUP", help="a hub group whose members may read every learner's runs")
    p.add_argument("--reader-service", action="append", default=[], metavar="NAME", help="a hub service whose token may read every learner's runs")

    p = add("record", help="write your own exercise: a source folder, built into a record")
    record_commands = p.add_subparsers(dest="record_command", required=True, metavar="new|build|edit", parser_class=_Parser)
    q = record_commands.add_parser("new", help="write a source folder for a new record (a worked example to edit)")
    q.add_argument("id", nargs="?", metavar="ID", help="the new record's id (default with --from: the record's own)")
    q.add_argument("-o", "--out", required=True, metavar="DIR", help="the folder to write (new or empty)")
    q.add_argument("--from", dest="from_record", metavar="RECORD", help="start from an existing record (a packaged id or a path)")
    q = record_commands.add_parser("edit", help="turn an existing record back into a source folder")
    q.add_argument("record", metavar="RECORD", help="a packaged id or a path to a record JSON file")
    q.add_argument("-o", "--out", metavar="DIR", help="the folder to write (default: ./ID)")
    q = record_commands.add_parser("build", help="build a record from a source folder (this runs the folder's code)",
                                   parents=[shared["sandbox"]] if only in (None, "record") else [])
    q.add_argument("folder", metavar="DIR", help="a source folder, as record new writes it")
    q.add_argument("-o", "--out", metavar="FILE", help="the record file to write (default: DIR/ID.json)")
    q.add_argument("--timeout", type=_positive_float, default=10.0, metavar="SECONDS", help="time limit for each whole script (default 10)")
    q.add_argument("--force", action="store_true", help="overwrite FILE even if record build did not write it")
    q = record_commands.add_parser("preview", help="the panel's text for a solve against the record DIR builds (no notebook built, nothing written)")
    q.add_argument("folder", metavar="DIR", help="a source folder, as record new writes it (its code runs, as in record build)")
    q.add_argument("--solve", required=True, metavar="FILE", help="a .py file with def solve to check")
    q.add_argument("--variant", choices=("1", "2", "3", "4", "5", "all"), help="N, or all five (default: the record's own)")

    p = add("verify", help="replay attempt and broken and compare them with the recorded runs", parents=lambda: [shared["json"], shared["sandbox"]])
    p.add_argument("records", nargs="*", metavar="RECORD", help="packaged ids or paths (default: all packaged records)")
    p.add_argument("--records-dir", metavar="DIR", help="also verify every record file in DIR")
    p.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: one per core)")
    return parser


class _Unbuilt:
    """A command's parser that is not built: every call on it does nothing."""

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: self
