"""A learner's ``failuremap-edu``: ``check`` and ``export``, the commands a learners' folder has (the rest are the instructor's).

Exit codes: 0 everything passed; 1 a check failed; 2 bad input or usage; 141 the
reader of stdout went away (``| head``). Errors are one line on stderr, never a traceback.
The instructor's command line (`failuremap_edu.instructor._cli`) builds on these parts.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Sequence

from . import __version__

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_READER_LEFT = 141
"""128 + SIGPIPE: the reader of stdout went away (``| head``), as a shell reports it."""


class Formatter(argparse.HelpFormatter):
    """A fixed width, so that --help and the docs' synopsis read the same on every terminal."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=100, max_help_position=32)


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # one line, exit 2
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


SHARED = {
    "records_dir": ("--records-dir", {"metavar": "DIR", "help": "also include every record file in DIR"}),
    "title": ("--title", {"help": "the workshop's title (the start-here notebook's heading)"}),
    "force": ("--force", {"action": "store_true", "help": "overwrite a folder that was changed or not made by this command (files it does not write stay)"}),
    "json": ("--json", {"action": "store_true", "help": "print JSON"}),
    "sandbox": ("--sandbox", {"action": "store_true",
                              "help": "run the code in a bubblewrap sandbox (read-only files, no network), judged apart from solve: for someone "
                                      "else's code, such as a hand-in, which without it can forge its own verdict (see the docs, Isolation)"}),
}
"""Options that several commands take, written once (argparse ``parents=``)."""


class SharedOptions(dict):
    """The parent parser of each shared option, built when a command first asks for it."""

    def __missing__(self, name: str) -> argparse.ArgumentParser:
        flag, options = SHARED[name]
        parent = self[name] = argparse.ArgumentParser(add_help=False)
        parent.add_argument(flag, **options)
        return parent


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def add_learner_commands(add: Callable, shared: SharedOptions) -> None:
    """Add `check` and `export` through `add(name, help=..., parents=...)`: the commands a learner's environment has."""
    add_check(add, shared)
    add_export(add)


def add_check(add: Callable, shared: SharedOptions) -> None:
    """Add the `check` command through `add`."""
    p = add("check", parents=lambda: [shared["sandbox"]], help="run a record's checks against your solve")
    p.add_argument("record", metavar="RECORD", help="a packaged id or a path to a record JSON file")
    p.add_argument("solution", metavar="SOLUTION.py", help="a Python file that defines solve")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--variant", type=int, choices=range(1, 6), metavar="N", help="the variant N = 1..5 (default 1)")
    which.add_argument("--all-variants", action="store_true", help="run variants 1 to 5")
    p.add_argument("--timeout", type=positive_float, default=2.0, metavar="SECONDS", help="time limit per check, and for importing SOLUTION.py (default 2)")
    p.add_argument("--json", action="store_true", help="print JSON (schema in the docs: reference, check --json schema)")
    p.add_argument("--html", metavar="FILE", help="also write a standalone HTML report (no external assets)")
    p.add_argument("--plot", metavar="FILE", help="also write the status grid beside attempt and broken (.png or .svg)")


def add_export(add: Callable) -> None:
    """Add the `export` command through `add`."""
    p = add("export", help="write all logged runs and every distinct solve to one JSON file")
    p.add_argument("--out", metavar="FILE", help="JSON file to write (default: failuremap-export-LEARNER-TIME.json)")


def build_learner_parser() -> argparse.ArgumentParser:
    """The parser of a learners' folder's command: check and export."""
    parser = Parser(prog="failuremap-edu", description="Check a solve against a Failure Map record, or export your runs "
                    "(the instructor's commands — notebook, workshop, report, … — come with the full failuremap-edu package).")
    parser.add_argument("--version", action="version", version=f"failuremap-edu {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    shared = SharedOptions()
    add_learner_commands(lambda name, help, parents=lambda: []: commands.add_parser(name, help=help, parents=parents()), shared)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The learners' ``failuremap-edu``: parse, run one command, return its exit code."""
    escape_unwritable()
    args = build_learner_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    return run(args, LEARNER_COMMANDS, program=argv is None)


def escape_unwritable() -> None:
    """Make stdout and stderr show a character no encoding can write escaped: the last line of defence."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # not a TextIOWrapper (captured), or closed
            pass


def run(args: argparse.Namespace, commands: dict, *, program: bool) -> int:
    """Run `args.command` from `commands`: its exit code; an error in what it was given is one line on stderr, never a traceback.

    `program`: this process is the command itself (not a caller of `main`), so a check's workers may fork from it."""
    if program and args.command == "check":  # the program itself, running one command: workers fork from it
        from .runner import one_shot

        one_shot()
    from ._errors import InputError

    if isolation(args) == "sandbox":
        import shutil

        from .runner import BWRAP, MISSING_BWRAP

        if shutil.which(BWRAP) is None:
            print(f"failuremap-edu: error: {MISSING_BWRAP}", file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        code = commands[args.command](args)
        sys.stdout.flush()  # here, not at exit: a closed pipe must reach the handler below
        return code
    except InputError as exc:
        error(exc)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # before OSError, its base class
        return reader_left()
    except OSError as exc:
        if not exc.filename:
            raise
        error(f"{exc.filename}: cannot write: {exc.strerror or exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("failuremap-edu: interrupted", file=sys.stderr)
        return 130


def isolation(args: argparse.Namespace) -> str | None:
    """The isolation a command's runs use, as its options ask (``--sandbox``): passed down to every run, never through the environment."""
    return "sandbox" if getattr(args, "sandbox", False) else None


def terminal(text: object, limit: int = 4_000) -> str:
    """Anything from outside (file names, messages, record text) as a terminal may show it: escapes escaped."""
    from .render._text import terminal_safe

    return terminal_safe(str(text), limit)


def error(message: object) -> None:
    """One line on stderr, naming the problem; nothing in it reaches the terminal raw."""
    print(terminal(f"failuremap-edu: error: {message}"), file=sys.stderr)


def reader_left() -> int:
    """Whoever read our stdout has gone (``failuremap-edu list | head -1``): stop quietly.

    Python ignores SIGPIPE, so the write raised BrokenPipeError. Unflushed output
    is still buffered, and the interpreter would try to flush it at exit and print
    "Exception ignored ... BrokenPipeError". Pointing stdout at /dev/null first is
    the idiom from Python's documentation (signal module, "Note on SIGPIPE").
    The exit code is what a shell reports for a writer killed by SIGPIPE.
    """
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a real file (captured, closed): nothing to flush at exit
        pass
    return EXIT_READER_LEFT


def emit_json(data) -> None:
    from ._values import text_safe

    sys.stdout.write(text_safe(json.dumps(data, ensure_ascii=False, indent=2)) + "\n")


def cmd_check(args) -> int:
    from ._code import can_fall_off_end
    from ._records import load_record
    from .render._text import render_run, render_variants_summary
    from .runner import run_checks
    from ._solution import SolutionError, load_solution

    record = load_record(args.record)
    solution = load_solution(args.solution)
    if args.plot and not args.plot.lower().endswith((".png", ".svg")):
        raise SolutionError(f"{args.plot}: --plot needs a .png or .svg file name")
    variants = [1, 2, 3, 4, 5] if args.all_variants else [args.variant or 1]
    runs = [run_checks(record, solution, variant=v, timeout=args.timeout, isolation=isolation(args)) for v in variants]
    if args.html or args.plot:
        write_exports(args, record, runs)
    if args.json:
        emit_json({"record": record.id, "runs": [run.to_json() for run in runs]})
    else:
        from ._fixtures import read_fixtures

        depends_on_n = read_fixtures(record).uses_variant
        said: set[str] = set()  # a note that holds for every variant (the sandbox's, say) is printed once
        for run in runs:
            if len(runs) > 1:
                print(f"== variant N={run.variant}")
            elif depends_on_n:
                print(f"== variant N={run.variant} (the checks depend on N: --variant N or --all-variants for the others)")
            print(render_run(run, missing_return=can_fall_off_end(solution), said=said))
        if len(runs) > 1:
            print(render_variants_summary(runs))
    return EXIT_OK if all(run.passed for run in runs) else EXIT_FAILED


def write_exports(args, record, runs) -> None:
    """The learner's runs beside the record's attempt and broken, as HTML and/or a plot."""
    from .runner import replay

    columns, names = [], []
    for run in runs:
        for name in ("broken", "attempt"):
            columns.append(replay(record, name, run.variant, args.timeout, isolation=isolation(args)))
            names.append(name)
        columns.append(run)
        names.append("yours")
    if args.html:
        from .render._html import report_html

        suffixes = [f" N={c.variant}" if len(runs) > 1 else "" for c in columns]
        from ._atomic import write_text

        write_text(args.html, report_html(record, columns, [n + s for n, s in zip(names, suffixes)]))
    if args.plot:
        from .render._plot import save_status

        # The plot groups the runs by variant itself, and wraps the whole title.
        save_status(columns, args.plot, names, title=f"{record.id}: {record.title}")


def cmd_export(args) -> int:
    from pathlib import Path

    from ._progress import export_progress, file_tag, progress_path

    out = args.out or f"failuremap-export-{file_tag()}.json"
    data = export_progress(Path(out))
    print(
        terminal(
            f"from the progress log {progress_path()}: {out}: {len(data['attempts'])} runs, {len(data['sources'])} distinct solves, "
            f"latest of {len(data['latest'])} exercises (learner {data['learner'][:6]})"
        )
    )
    return EXIT_OK


LEARNER_COMMANDS = {"check": cmd_check, "export": cmd_export}
"""The commands of a learner's environment, by name."""
