"""The ``failuremap-edu`` command: a thin front over the public API.

Exit codes: 0 everything passed (or parity holds); 1 a check failed (or parity is
broken); 2 bad input or usage; 141 the reader of stdout went away (``| head``).
Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Sequence

from .. import __version__
from .._command import (EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_READER_LEFT, Parser as _Parser, SharedOptions, add_check, add_export,
                        cmd_check as _cmd_check, cmd_export as _cmd_export, emit_json as _emit_json, error as _error,
                        escape_unwritable, isolation as _isolation, positive_float as _positive_float, reader_left as _reader_left, run,
                        terminal as _terminal)

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


def main(argv: Sequence[str] | None = None, *, runs=None) -> int:
    """Run one command. `runs` (`_notebook_runs.SharedRuns`): the notebooks' runs to share with the other commands
    given it in this process; by default each command makes its own, dropped when it ends."""
    escape_unwritable()
    words = sys.argv[1:] if argv is None else list(argv)
    command = next((w for w in words if not w.startswith("-")), None)
    args = build_parser(command if command in COMMANDS else None).parse_args(words)
    args.runs = runs
    return run(args, _COMMANDS, program=argv is None)


def _cmd_list(args) -> int:
    from ._catalog import catalog_refs
    from .._records import RecordError, load_record
    from ..render._text import terminal_safe

    rows, status = [], EXIT_OK
    refs = catalog_refs(records_dir=args.records_dir) if args.records_dir else catalog_refs()
    for ref in refs:
        try:
            record = load_record(ref)
        except RecordError as exc:
            _error(exc)
            status = EXIT_BAD_INPUT
            continue
        rows.append(record)
    if args.json:
        _emit_json(
            [
                {"id": r.id, "title": r.title, "category": r.category, "family": r.family, "checks": r.checks, "verified": r.verified}
                for r in rows
            ]
        )
    else:
        for r in rows:
            print(terminal_safe(f"{r.id}  {r.checks if r.checks is not None else '?'} checks  {r.title}", limit=200))
    return status


def _cmd_show(args) -> int:
    from .._fixtures import read_fixtures
    from .._records import load_record
    from ..render._text import render_record

    record = load_record(args.record)
    fixtures = read_fixtures(record)
    if args.json:
        _emit_json(_record_json(record, fixtures))
    else:
        print(render_record(record, fixtures))
    return EXIT_OK


def _record_json(record, fixtures) -> dict:
    fields = (
        "id title category family contract contract_signature abstract failed_approach root_cause "
        "limitations variant_policy relevance method verified variant checks license"
    ).split()
    data = {name: getattr(record, name) for name in fields}
    data["provenance"] = dict(record.provenance)
    data["fixtures"] = [
        {
            "label": s.label,
            "line": s.lineno,
            "call": s.actual_source,
            "expected": s.expected_source,
            "dynamic": s.dynamic,
        }
        for s in fixtures.sites
    ]
    data["uses_variant"] = fixtures.uses_variant
    data["recorded"] = {
        name: {"passed": run.passed, "exit_code": run.exit_code, "checks": len(run.observations), "crashed": run.crashed}
        for name, run in record.verification.items()
    }
    return data


def _cmd_verify(args) -> int:
    from ._catalog import ProgressBar, catalog_refs, verify_many
    from ..render._text import terminal_safe

    refs = catalog_refs(args.records, args.records_dir)
    if args.jobs is not None and args.jobs < 1:
        print("failuremap-edu: error: --jobs must be at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    entries = []
    for entry in verify_many(refs, args.jobs, ProgressBar("verifying"), isolation=_isolation(args)):
        entries.append(entry)
        if entry.error is not None:
            _error(entry.error)
        elif not args.json:
            print(terminal_safe(str(entry.report), limit=20_000))
    bad_input = any(e.error is not None for e in entries)
    reports = [e.report for e in entries if e.report is not None]
    if args.json:
        _emit_json(
            {
                "ok": all(r.ok for r in reports) and not bad_input,
                "records": [r.to_json() for r in reports],
                "errors": [{"record": e.ref, "error": e.error} for e in entries if e.error is not None],
            }
        )
    elif len(entries) > 1:
        broken = sum(1 for r in reports if not r.ok)
        print(f"{len(reports)} verified, {len(reports) - broken} with parity, {broken} broken, {sum(1 for e in entries if e.error)} unreadable")
    if bad_input:
        return EXIT_BAD_INPUT
    return EXIT_OK if all(r.ok for r in reports) else EXIT_FAILED


def _cmd_notebook(args) -> int:
    from pathlib import Path

    from ._notebook import write_all, write_notebook
    from ..runner import isolation_default

    if args.solution and not args.instructor:
        print("failuremap-edu: error: --solution only applies with --instructor", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.references and not (args.instructor or args.all_packaged):
        print("failuremap-edu: error: --references only applies with --instructor or --all-packaged", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not args.all_packaged and not args.record:
        print("failuremap-edu: error: give a RECORD, or --all-packaged", file=sys.stderr)
        return EXIT_BAD_INPUT
    warnings: list[str] = []
    with isolation_default(_isolation(args)):  # the notebook generator takes no isolation of its own
        if args.all_packaged:
            paths = write_all(Path(args.out), references=args.references, force=args.force, warnings=warnings)
        else:
            paths = [write_notebook(args.record, Path(args.out), instructor=args.instructor, solution_path=args.solution, references=args.references,
                                    force=args.force, warnings=warnings, runs=args.runs)]
    for warning in warnings:
        print(_terminal(f"failuremap-edu: warning: {warning}"), file=sys.stderr)
    for path in paths:
        print(_terminal(path))
    return EXIT_OK


def _cmd_workshop(args) -> int:
    from pathlib import Path

    from ._catalog import ProgressBar, catalog_refs
    from ._workshop import write_workshop

    if args.release_solutions:
        return _release(args)
    if not args.records and not args.records_dir:
        print("failuremap-edu: error: give RECORDs and/or --records-dir", file=sys.stderr)
        return EXIT_BAD_INPUT
    from ._notebook_runs import SharedRuns

    refs = catalog_refs(args.records, args.records_dir)
    runs = args.runs if args.runs is not None else SharedRuns()  # the site of --lite shows the same runs
    ws = write_workshop(
        refs, Path(args.out), args.title, args.solutions, progress=ProgressBar("building"),
        instructor_dir=Path(args.instructor_dir) if args.instructor_dir else None, with_solutions=args.with_solutions,
        repo=args.repo, branch=args.branch, hub=args.hub, env_repo=args.env_repo, force=args.force, isolation=_isolation(args), runs=runs,
    )
    for warning in ws.warnings:
        print(_terminal(f"failuremap-edu: warning: {warning}"), file=sys.stderr)
    n = len(ws.exercises)
    kind = "with reference solutions (self-study)" if ws.with_solutions else "no reference solutions in it"
    print(f"{args.out}: {n} exercise{'s' if n != 1 else ''}, {len(ws.learner_notebooks)} notebooks for learners ({kind})")
    own = sum(1 for p in ws.instructor_notebooks if ws.instructor_dir in p.parents)
    solutions = len(ws.solutions)
    print(
        f"{ws.instructor_dir}: instructor material ({own} instructor notebook{'s' if own != 1 else ''}, "
        f"{solutions} reference solution{'s' if solutions != 1 else ''}, notes); keep it out of the learners' repository"
    )
    if ws.skipped:
        print(f"no instructor notebook for {', '.join(ws.skipped)} (no reference solution: pass --solutions DIR with DIR/ID.py)")
    if args.lite:
        from ._lite import build_site

        site = build_site(refs, Path(args.lite), title=args.title, progress=ProgressBar("building the JupyterLite site"), force=args.force,
                          isolation=_isolation(args), runs=runs)
        _print_site(site)
    return EXIT_OK


def _release(args) -> int:
    import shlex
    from pathlib import Path

    from ._release import MANIFEST, release_solutions
    from ._workshop import default_instructor_dir

    out = Path(args.out)
    source = Path(args.solutions) if args.solutions else Path(args.instructor_dir or default_instructor_dir(out)) / "solutions"
    done = release_solutions(out, source, force=args.force)
    for warning in done.warnings:
        print(_terminal(f"failuremap-edu: warning: {warning}"), file=sys.stderr)
    if done.missing:
        print(_terminal(f"failuremap-edu: warning: no reference solution for {', '.join(done.missing)} in {source}: not released"), file=sys.stderr)
    print(_terminal(str(done)))
    print(f"then: git -C {shlex.quote(str(out))} add solutions {MANIFEST} && git -C {shlex.quote(str(out))} commit -m 'Reference solutions' && git push"
          "   (learners get them at their next nbgitpuller link)")
    return EXIT_OK


def _print_site(site) -> None:
    for warning in site.warnings:
        print(f"failuremap-edu: warning: {warning}", file=sys.stderr)
    exercises = len(site.notebooks) - 1
    print(
        f"{site.path}: a JupyterLite site with {exercises} exercise{'s' if exercises != 1 else ''} and a start-here notebook, "
        f"Pyodide {site.pyodide_version} and {len(site.wheels)} wheels, nothing loaded from elsewhere"
    )
    print(f"try it: python -m http.server --bind 127.0.0.1 --directory {site.path}   then open http://127.0.0.1:8000/lab/index.html")


def _cmd_lite(args) -> int:
    from pathlib import Path

    from ._catalog import ProgressBar, catalog_refs
    from ._lite import build_site

    refs = catalog_refs(args.records, args.records_dir)
    site = build_site(
        refs, Path(args.out), title=args.title, pyodide_dir=args.pyodide, wheels_dir=args.wheels, progress=ProgressBar("building"), force=args.force,
        isolation=_isolation(args), runs=args.runs,
    )
    _print_site(site)
    return EXIT_OK


def _report_inputs(args) -> dict:
    """What every round of the report reads: the same for the report and its live view."""
    from ._report import ReportError, home_logs, read_names, workshop_exercises

    if not args.paths and not args.homes and not args.service:
        raise ReportError("give the files or folders to read, --homes GLOB, or --service URL")
    paths, without, handins, problems = list(args.paths), [], [], []
    if args.service:
        from ._remote import service_handins

        token = args.token or os.environ.get("JUPYTERHUB_API_TOKEN")
        if not token:
            raise ReportError(f"--service {args.service}: give an instructor's hub token with --token or $JUPYTERHUB_API_TOKEN")
        handins, problems = service_handins(args.service, token)
    if args.homes:
        logs, without = home_logs(args.homes)
        if not logs and not without:
            raise ReportError(f"--homes {args.homes}: no folder matches it")
        paths += logs
    return {
        "paths": paths,
        "with_code": args.with_code,
        "exercises": workshop_exercises(args.workshop) if args.workshop else None,
        "names": read_names(args.names) if args.names else None,
        "homes_without_log": without,
        "handins": handins,
        "problems": problems,
        "anonymise": args.anonymise,
    }


def _cmd_report(args) -> int:
    from .render._report import report_page, report_text
    from ._report import build_report

    if args.watch is not None or args.watch_rounds is not None:
        return _watch(args)
    report = build_report(**_report_inputs(args))
    for problem in report.problems:  # the report is still made, from what could be read: not an error that stops it
        print(_terminal(f"failuremap-edu: left out of the report: {problem}"), file=sys.stderr)
    if args.html:
        from .._atomic import write_text

        write_text(args.html, report_page(report))
    if args.csv:
        from .._atomic import write_text
        from .render._need import needs_csv

        write_text(args.csv, needs_csv(report))
    if args.json:
        _emit_json(report.to_json())
    else:
        print(report_text(report))
    return EXIT_BAD_INPUT if report.problems else EXIT_OK


def _built_summary(built, name: str) -> str:
    """``attempt fails 2 of 7 checks, then its script crashes in 'empty batch' (IndexError)``, with N = 1."""
    run = built.replays[name][1]
    failing = sum(1 for o in run.observations if o.status != "pass")
    text = f"{name} fails {failing} of {run.total} checks"
    crash = built.record.verification[name]
    if crash.crashed:
        where = next((o for o in run.observations if o.status == "error"), None)
        text += f" (its own run stops at check {where.check!r}: {where.error.type})" if where and where.error else " (its own run crashes)"
    others = [v for v, r in built.replays[name].items() if v != 1 and r.passed]
    return text + (f"; it passes every check with N = {', '.join(map(str, others))}" if others else "")


def _cmd_record(args) -> int:
    from pathlib import Path

    from ._authoring import build_record, write_folder, write_record

    if args.record_command == "build":
        from ._authoring import AuthoringError

        try:
            built = build_record(args.folder, timeout=args.timeout, isolation=_isolation(args))
        except AuthoringError as exc:
            earlier = [p for p in Path(args.folder).glob("*.json")] if args.out is None else [Path(args.out)] if Path(args.out).exists() else []
            if earlier:  # never let an earlier build pass for this one
                raise AuthoringError(f"{exc}; nothing was written ({', '.join(str(p) for p in earlier[:2])} is an earlier build)") from None
            raise
        for warning in built.warnings:
            print(f"failuremap-edu: warning: {warning}", file=sys.stderr)
        if built.weak_checks is not None and (built.weak_checks.survivors or built.weak_checks.problem):
            print(f"failuremap-edu: warning: {built.weak_checks}", file=sys.stderr)  # one block: the mutants no check catches
        out = write_record(built, args.out or Path(args.folder) / f"{built.record.id}.json", force=args.force)
        print(f"{out}: record {built.record.id}, {built.data['checks']} checks; " + "; ".join(_built_summary(built, n) for n in ("attempt", "broken")))
        print(built.parity)
        return EXIT_OK
    if args.record_command == "preview":
        from ._preview import preview

        variant = int(args.variant) if args.variant not in (None, "all") else args.variant
        shown = preview(args.folder, args.solve, variant=variant)
        for warning in shown.warnings:
            print(f"failuremap-edu: warning: {warning}", file=sys.stderr)
        print(_terminal(shown.text))
        return EXIT_OK if shown.passed else EXIT_FAILED  # as check: 1 while a check fails
    if args.record_command == "edit":
        from .._records import load_record

        record = load_record(args.record)
        paths = write_folder(args.out or record.id, from_record=record)
    else:
        paths = write_folder(args.out, args.id, from_record=args.from_record)
    for path in paths:
        print(path)
    print(f"edit them, then: failuremap-edu record build {paths[0].parent}")
    return EXIT_OK


def _cmd_serve(args) -> int:
    try:
        from ._service import Access, serve
    except ImportError as exc:  # jupyterhub (and with it SQLAlchemy and tornado) is on the hub, not in every install
        print(f"failuremap-edu: error: serve needs JupyterHub installed here (pip install jupyterhub): {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    access = Access(frozenset(args.instructor), frozenset(args.instructor_group), frozenset(args.reader_service))
    try:
        serve(args.db, url=args.url, access=access)
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _watch(args) -> int:
    """``report --watch``: re-read the logs every few seconds and show the live view (in place on a terminal)."""
    import time

    from .render._report import watch_text
    from ._report import ReportError, build_report, read_names, workshop_exercises

    if args.names:  # what the instructor typed is wrong: said once, not every round
        read_names(args.names)
    if args.workshop:
        workshop_exercises(args.workshop)
    seconds = args.watch if args.watch is not None else 5.0
    rounds, tty = 0, sys.stdout.isatty()
    try:
        while True:
            rounds += 1
            stamp = time.strftime("%H:%M:%S")
            try:
                report = build_report(**_report_inputs(args))
                text = watch_text(report, stamp)
            except ReportError as exc:  # nobody has run anything yet (or the service is restarting): keep watching
                report, text = None, _terminal(f"Class live view at {stamp}: {exc}")
            if args.html:  # the live page for a projector: rewritten every round, it reloads itself
                from .._atomic import write_text
                from .render._need import live_page

                write_text(args.html, live_page(report, stamp, seconds, text))
                text += "\n" + _terminal(f"live page: {args.html} (reloads itself every {seconds:g} s)")
            if tty:
                sys.stdout.write("\x1b[H\x1b[2J" + text + "\n")  # every line of it is terminal-safe already
            else:
                sys.stdout.write(("" if rounds == 1 else "\n") + f"---- round {rounds}\n" + text + "\n")
            sys.stdout.flush()
            if args.watch_rounds is not None and rounds >= args.watch_rounds:
                return EXIT_OK
            time.sleep(seconds)
    except KeyboardInterrupt:
        return EXIT_OK


_COMMANDS = {"serve": _cmd_serve, "record": _cmd_record, "lite": _cmd_lite, "workshop": _cmd_workshop, "export": _cmd_export, "report": _cmd_report, "notebook": _cmd_notebook, "list": _cmd_list, "show": _cmd_show, "check": _cmd_check, "verify": _cmd_verify}
