"""Authoring: an instructor's own exercise, from a small source folder to a record.

A source folder holds four files that any editor and any git workflow handle:

    solve_attempt.py   the plausible attempt: ``def solve(...)`` (imports and helpers may go above it)
    solve_broken.py    the broken implementation, with the same parameters
    checks.py          the fixtures: ``check('label', solve(...), expected)`` lines; ``N`` is the variant
    record.toml        the teaching text, each field explained in a comment

`build_record` assembles the two check scripts in the exact shape of the Failure
Map's records (the header, ``N = 1``, ``observations = []``, solve, the ``check``
harness, the fixtures, the JSON print), hashes them as the records do, runs each
script with the runner's `run_script` (a fresh interpreter with a time limit,
never the caller) and records the run as the records' own runs look. Then the
result goes through `load_record` and the runner's replay (`verify_record`): a
record that does not load or does not hold parity is never written. Everything
wrong is one line naming the file and line. `write_folder` writes a source folder,
empty (a small worked example) or from an existing record.

Building runs the author's code, twice per implementation (the script, then the
replay), as the record's harness would.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._atomic import write_text
from .._errors import InputError
from .._fixtures import VARIANTS, read_fixtures
from .._parity import parse_crash, verify_record
from .._records import _ID_PATTERN, Record, RecordError, load_record
from .._results import FAIL, PASS, to_jsonable
from .._signature import Params
from .._values import Opaque
from ._weak_checks import weak_checks
from ..runner import DEFAULT_TIMEOUT, replay, run_script

__all__ = ["AuthoringError", "Built", "assemble", "build_record", "split_script", "write_folder", "write_record"]

HEADER = '"""Failure Map reference implementation. Python standard library only."""\nimport json\n'
SETUP = "\nN = 1\nobservations = []\n"
HARNESS = (
    "def check(label, actual, expected):\n"
    '    observations.append({"check": label, "actual": actual, "expected": expected, "passed": actual == expected})\n'
)
EPILOGUE = (
    'print(json.dumps({"observations": observations, "passed": all(x["passed"] for x in observations)}, ensure_ascii=False))\n'
    'raise SystemExit(0 if all(x["passed"] for x in observations) else 1)\n'
)
SCRIPT_NAME = "/tmp/failure_map_script.py"
"""How the records' own runs name their script in tracebacks."""
IMPLEMENTATIONS = ("attempt", "broken")
_CALLED = {"attempt": "the attempt", "broken": "the broken implementation"}
SOLVE_FILES = {"attempt": "solve_attempt.py", "broken": "solve_broken.py"}
CHECKS_FILE, TEXT_FILE = "checks.py", "record.toml"
BUILT_WITH = "failuremap-edu record build"
SCRIPT_TIMEOUT = 10.0
"""Default limit for one whole script's run, in seconds."""

# record.toml: (key, required, comment). The order is the file's order.
TEXT_FIELDS = (
    ("id", True, "The record's id: letters, digits, '.', '_' or '-'. It names the record file and its notebooks."),
    ("title", True, "What learners see first: what fails, in a few words."),
    ("category", False, "The area of ML-systems code, shown in listings (\"Batching\", \"Tokenization\", ...)."),
    ("contract", True, "What solve must do: its inputs, its result, the edge cases. Learners read it before anything else. "
     "Every text here is plain text, shown as written (no Markdown: a `backquote` shows as a backquote)."),
    ("abstract", True, "One or two sentences: what the broken implementation (solve_broken.py) gets wrong."),
    ("failed_approach", True, "Why the plausible attempt (solve_attempt.py) looks right, and where it goes wrong: a hint."),
    ("root_cause", True, "The root cause, which the last hint reveals."),
    ("limitations", False, "What this exercise does not claim or cover (shown in \"About this record\")."),
    ("variant_policy", False, "How checks.py uses N, the variant (1 to 5; the recorded run uses N = 1). Say so if it does not."),
    ("license", False, "The license of this record's text and code, as an SPDX id (CC0-1.0, CC-BY-4.0, ...)."),
    ("author", False, "Who wrote it; kept in the record's provenance."),
    ("family", False, "Optional: a name shared by records that teach the same mechanism."),
    ("relevance", False, "Optional: why this failure matters in real systems."),
    ("method", False, "Optional: how the record was made."),
    ("evaluation_group", False, "Optional: records that must stay together in evaluation splits."),
)
_KNOWN = {key for key, _, _ in TEXT_FIELDS}

_FILE_HELP = {
    "attempt": (
        "# The plausible attempt: a solve that looks right and fails some of the checks.\n"
        "# Only def solve(...) is needed; imports and helpers may go above it.\n"
        "# This comment, down to the first blank line, is not copied into the record.\n"
    ),
    "broken": (
        "# The broken implementation: a solve that fails some checks, plainly, with the same parameters.\n"
        "# Only def solve(...) is needed; imports and helpers may go above it.\n"
        "# This comment, down to the first blank line, is not copied into the record.\n"
    ),
    "checks": (
        "# The checks, run against each solve: check('label', solve(...), expected).\n"
        "# N is the variant (1 to 5; the recorded run uses N = 1). Expected values must be JSON\n"
        "# data (str, int, float, bool, None, list, tuple, dict with str keys): the harness prints them.\n"
        "# This comment, down to the first blank line, is not copied into the record.\n"
    ),
}

_EXAMPLE = {
    "attempt": "def solve(items, size):\n    return [items[i * size:(i + 1) * size] for i in range(len(items) // size)]\n",
    "broken": "def solve(items, size):\n    return [items]\n",
    "checks": (
        "check('exact multiple', solve([1, 2, 3, 4], 2), [[1, 2], [3, 4]])\n"
        "check('last batch is shorter', solve([1, 2, 3], 2), [[1, 2], [3]])\n"
        "check('fewer items than one batch', solve([1, 2], 5), [[1, 2]])\n"
        "check('empty input', solve([], 3), [])\n"
        "check('N items in batches of 2', solve(list(range(N)), 2), [list(range(N))[i:i + 2] for i in range(0, N, 2)])\n"
    ),
    "text": {
        "title": "Batching: the last, shorter batch is dropped",
        "category": "Batching",
        "contract": "Split a list of items into batches of size items, in order; the last batch may be shorter. "
        "Return a list of lists. An empty list gives [].",
        "abstract": "The batch count is computed with floor division, so the items after the last full batch are lost.",
        "failed_approach": "len(items) // size looks like the number of batches, and it is whenever the length is a multiple of size.",
        "root_cause": "The number of batches is the ceiling of len(items) / size: a partial batch still counts.",
        "limitations": "A worked example written by failuremap-edu record new: replace it with your own exercise.",
        "variant_policy": "The last check uses N items; the others do not depend on N.",
        "license": "CC0-1.0",
        "author": "",
    },
}


class AuthoringError(InputError):
    """A source folder cannot become a record: one line, naming the file and line."""


@dataclass(frozen=True)
class Built:
    """A record built from a source folder: its JSON data, already loaded and replayed with parity."""

    data: dict
    record: Record
    warnings: tuple[str, ...]
    parity: str
    """The parity report's summary line."""
    replays: dict = field(default_factory=dict)
    """implementation -> {variant: RunResult}: the runner's replays, one per variant the checks use."""
    weak_checks: Any = None
    """What mutation testing of the attempt found (`_weak_checks.WeakChecks`): mutants no check tells from it."""

    def text(self) -> str:
        """The record file's text, in the packaged records' layout."""
        return json.dumps(self.data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


# ----------------------------------------------------------------- script shape


@dataclass(frozen=True)
class _Part:
    """A source file's code without its help comment, and the file line its first line came from."""

    file: str
    text: str
    first_line: int


@dataclass(frozen=True)
class _Script:
    source: str
    segments: tuple[tuple[int, int, str, int], ...]
    """(first script line, number of lines, file, its first line): where each script line was written."""
    epilogue_line: int

    def where(self, lineno: int | None) -> tuple[str, int] | None:
        for start, count, file, first in self.segments:
            if lineno is not None and start <= lineno < start + count:
                return file, first + lineno - start
        return None


def assemble(preamble: str, solve: str, fixtures: str) -> str:
    """One implementation's check script, in the Failure Map's shape (see `tests/records/build.py`)."""
    return HEADER + preamble + SETUP + solve + "\n" + HARNESS + fixtures + "\n" + EPILOGUE


def split_script(source: str) -> tuple[str, str, str] | None:
    """(preamble, solve, fixtures) of a script in the Failure Map's shape, or None when it is not in it."""
    if not source.startswith(HEADER) or SETUP not in source:
        return None
    preamble, _, rest = source[len(HEADER) :].partition(SETUP)
    solve, found, rest = rest.partition("\n" + HARNESS)
    if not found or not rest.endswith("\n" + EPILOGUE):
        return None
    fixtures = rest[: -len(EPILOGUE) - 1]
    return (preamble, solve, fixtures) if assemble(preamble, solve, fixtures) == source else None


def _lines(text: str) -> int:
    return text.count("\n")


def _script(preamble: _Part, solve: _Part, fixtures: _Part) -> _Script:
    pre = preamble.text + "\n" if preamble.text else ""
    source = assemble(pre, solve.text, fixtures.text)
    p, s, f = _lines(pre), _lines(solve.text) + 1, _lines(fixtures.text) + 1
    segments = ((3, p, preamble.file, preamble.first_line), (6 + p, s, solve.file, solve.first_line), (8 + p + s, f, fixtures.file, fixtures.first_line))
    return _Script(source, segments, 8 + p + s + f)


def _strip_help(text: str) -> tuple[str, int]:
    """Drop the help comment at the top (comment lines followed by a blank line) and surrounding blank lines."""
    lines = text.replace("\r\n", "\n").split("\n")
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        start += 1
    if start == 0 or (start < len(lines) and lines[start].strip()):
        start = 0  # comments that belong to the code below them
    while start < len(lines) and not lines[start].strip():
        start += 1
    return "\n".join(lines[start:]).rstrip(), start + 1


def _parse(file: str, text: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise AuthoringError(f"{file}:{exc.lineno or 1}: syntax error: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise AuthoringError(f"{file}: cannot be parsed: {exc}") from None


def _solve_parts(file: str, text: str) -> tuple[_Part, _Part, ast.FunctionDef, int]:
    """The preamble and solve parts of a solve file, its def, and the def's line in the file."""
    _parse(file, text)  # syntax errors at the file's own line numbers
    body, first = _strip_help(text)
    tree = _parse(file, body)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "solve"]
    if not defs:
        raise AuthoringError(f"{file}: defines no top-level def solve(...)")
    solve = defs[0]
    line = first + solve.lineno - 1
    if isinstance(solve, ast.AsyncFunctionDef):
        raise AuthoringError(f"{file}:{line}: solve is async; it must be a plain def")
    start = min([solve.lineno] + [d.lineno for d in solve.decorator_list])
    lines = body.split("\n")
    preamble = "\n".join(lines[: start - 1]).rstrip()
    return _Part(file, preamble, first), _Part(file, "\n".join(lines[start - 1 :]), first + start - 1), solve, line


def _fixtures_part(file: str, text: str) -> _Part:
    _parse(file, text)
    body, first = _strip_help(text)
    tree = _parse(file, body)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "check"]
    if not calls:
        raise AuthoringError(f"{file}: has no check('label', solve(...), expected) call")
    for call in calls:
        if len(call.args) + len(call.keywords) != 3 or any(isinstance(a, ast.Starred) for a in call.args):
            raise AuthoringError(f"{file}:{first + call.lineno - 1}: check() takes three values: check('label', solve(...), expected)")
    return _Part(file, body, first)


# ------------------------------------------------------------------ record.toml


def _toml_string(text: str) -> str:
    """A TOML basic string (multi-line when the text has line breaks), escaped by hand: no writer needed."""
    multi = "\n" in text
    escapes = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\f": "\\f", "\r": "\\r", "\n": "\n" if multi else "\\n"}
    out = []
    for ch in text:
        code = ord(ch)
        if ch in escapes:
            out.append(escapes[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be written as UTF-8
            out.append("\\ufffd")
        else:
            out.append(ch)
    body = "".join(out)
    return f'"""\n{body}"""' if multi else f'"{body}"'


def _toml_text(values: dict[str, str]) -> str:
    lines = [
        f"# The teaching text of record {values['id']}. `failuremap-edu record build FOLDER` reads it.",
        '# Values are TOML strings: "one line", or """several lines""". Optional fields may be "".',
        "",
    ]
    for key, required, comment in TEXT_FIELDS:
        value = values.get(key, "")
        if not required and not value and key in ("family", "relevance", "method", "evaluation_group"):
            continue
        lines += [f"# {comment}" + (" (required)" if required else ""), f"{key} = {_toml_string(value)}", ""]
    text = "\n".join(lines)
    if any(_SURROGATE.sub("\ufffd", values.get(key, "")) != value for key, value in tomllib.loads(text).items()):  # pragma: no cover - a bug in _toml_string
        raise AssertionError("record.toml does not read back as written")
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _read_text_fields(file: str, raw: str) -> dict[str, str]:
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = f":{match.group(1)}" if match else ""
        raise AuthoringError(f"{file}{line}: not valid TOML: {str(exc).split(' (at line')[0]}") from None
    lines = raw.splitlines()

    def line_of(key: str) -> str:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        return next((f":{i}" for i, line in enumerate(lines, 1) if pattern.match(line)), "")

    for key, value in data.items():
        if key not in _KNOWN:
            known = ", ".join(k for k, _, _ in TEXT_FIELDS)
            raise AuthoringError(f"{file}{line_of(key)}: unknown field {key!r} (fields: {known})")
        if not isinstance(value, str):
            raise AuthoringError(f"{file}{line_of(key)}: {key} must be a string, got {type(value).__name__}")
    for key, required, _ in TEXT_FIELDS:
        if required and not data.get(key, "").strip():
            raise AuthoringError(f"{file}{line_of(key)}: {key} is {'empty' if key in data else 'missing'}; it is required")
    if not _ID_PATTERN.fullmatch(data["id"]):
        raise AuthoringError(f"{file}{line_of('id')}: id must be 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return {key: data.get(key, "") for key, _, _ in TEXT_FIELDS}


# ---------------------------------------------------------------- source folder


def write_folder(out: str | os.PathLike, record_id: str | None = None, from_record: str | os.PathLike | Record | None = None) -> list[Path]:
    """Write a source folder: a small worked example, or the parts of an existing record.

    Refuses a folder that exists and is not empty (nothing we did not create is overwritten).
    """
    out = Path(out)
    if from_record is not None:
        record = from_record if isinstance(from_record, Record) else load_record(from_record)
        parts, values = _record_parts(record)
        values["id"] = record_id or record.id
    else:
        if not record_id:
            raise AuthoringError("record new: give the new record's ID (or --from RECORD)")
        parts = {name: (_EXAMPLE[name]) for name in ("attempt", "broken", "checks")}
        values = dict(_EXAMPLE["text"], id=record_id)
    if not _ID_PATTERN.fullmatch(values["id"]):
        raise AuthoringError(f"{values['id']!r}: not a record id (1-80 letters, digits, '.', '_' or '-', starting with a letter or digit)")
    if out.is_symlink() or out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise AuthoringError(f"{out}: exists and is not an empty folder; record new writes only into a new or empty folder")
    files = {
        SOLVE_FILES["attempt"]: _FILE_HELP["attempt"] + "\n" + parts["attempt"],
        SOLVE_FILES["broken"]: _FILE_HELP["broken"] + "\n" + parts["broken"],
        CHECKS_FILE: _FILE_HELP["checks"] + "\n" + parts["checks"],
        TEXT_FILE: _toml_text(values),
    }
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        path = out / name
        write_text(path, text, new=True)  # never over a file someone else put there; whole or not at all
        written.append(path)
    return written


def _record_parts(record: Record) -> tuple[dict[str, str], dict[str, str]]:
    """The source-folder texts of a record, checked to build back into the very same scripts."""
    label = record.id if record.packaged else record.origin
    parts: dict[str, str] = {}
    fixtures = None
    for name in IMPLEMENTATIONS:
        where = f"{label}: implementations.{name}.source"
        split = split_script(record.implementations[name].source)
        if split is None:
            raise AuthoringError(
                f"{where}: not in the Failure Map's script shape (header, N = 1, observations = [], solve, check harness, "
                "fixtures, JSON print), so it cannot become a source folder"
            )
        preamble, solve, own_fixtures = split
        if fixtures is not None and own_fixtures != fixtures:
            raise AuthoringError(f"{where}: its fixtures differ from the attempt's; a source folder has one checks.py")
        fixtures = own_fixtures
        parts[name] = (preamble + "\n" if preamble else "") + solve + "\n"
        try:
            rebuilt = _reassemble(_FILE_HELP[name] + "\n" + parts[name], _FILE_HELP["checks"] + "\n" + fixtures + "\n")
        except AuthoringError as exc:
            raise AuthoringError(f"{where}: cannot become a source folder: {exc}") from None
        if rebuilt != record.implementations[name].source:
            raise AuthoringError(f"{where}: has blank lines or spaces around its parts that a source folder cannot keep")
    parts["checks"] = fixtures + "\n"
    values = {key: getattr(record, key, "") or "" for key, _, _ in TEXT_FIELDS if key not in ("id", "author")}
    values["license"] = record.license
    created_by = record.provenance.get("created_by")
    values["author"] = created_by if isinstance(created_by, str) else ""
    return parts, values


def _reassemble(solve_text: str, checks_text: str) -> str:
    preamble, solve, _, _ = _solve_parts("solve", solve_text)
    return _script(preamble, solve, _fixtures_part("checks", checks_text)).source


# -------------------------------------------------------------------- building


def build_record(folder: str | os.PathLike, *, timeout: float = SCRIPT_TIMEOUT, check_timeout: float = DEFAULT_TIMEOUT,
                 isolation: str | None = None) -> Built:
    """Build (and prove) the record a source folder describes. Runs the folder's code; writes nothing.

    `isolation` is the runner's, for every run of the folder's code (``sandbox``: `record build --sandbox`).

    Raises AuthoringError, one line naming the file and line, when the folder
    cannot give a record that teaches: see the module docstring and docs/tutorials/writing-an-exercise.md.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise AuthoringError(f"{folder}: not a folder (record new writes one)")

    def read(name: str) -> tuple[str, str]:
        path = folder / name
        label = str(path)
        try:
            return label, path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise AuthoringError(f"{label}: no such file (record new writes it)") from None
        except UnicodeDecodeError as exc:
            raise AuthoringError(f"{label}: not UTF-8 text (byte offset {exc.start})") from None
        except OSError as exc:
            raise AuthoringError(f"{label}: cannot read: {exc.strerror or exc}") from None

    values = _read_text_fields(*read(TEXT_FILE))
    fixtures = _fixtures_part(*read(CHECKS_FILE))
    solves = {name: _solve_parts(*read(SOLVE_FILES[name])) for name in IMPLEMENTATIONS}
    params = {name: Params.from_ast(solves[name][2].args) for name in IMPLEMENTATIONS}
    if str(params["attempt"]) != str(params["broken"]):
        a, b = (f"{solves[n][0].file}:{solves[n][3]}" for n in IMPLEMENTATIONS)
        raise AuthoringError(
            f"{b}: solve({params['broken']}) has other parameters than {a}: solve({params['attempt']}); both must take the same"
        )
    scripts = {name: _script(solves[name][0], solves[name][1], fixtures) for name in IMPLEMENTATIONS}

    # A draft (no runs yet) proves the shape with the loader, and gives the check sites.
    draft = _record_data(values, str(params["attempt"]), scripts, {n: _empty_run() for n in IMPLEMENTATIONS}, 0)
    with tempfile.TemporaryDirectory(prefix="failuremap-build-") as tmp:
        record = _load(draft, Path(tmp), folder)
        runs = {name: _run(name, scripts[name], solves[name][3], timeout, isolation) for name in IMPLEMENTATIONS}
        _refuse_too_big(_record_data(values, str(params["attempt"]), scripts, runs, 0), folder)  # before any replay of such values
        variants = VARIANTS if read_fixtures(record).uses_variant else (1,)
        every = {name: {v: replay(record, name, v, check_timeout, isolation=isolation) for v in variants} for name in IMPLEMENTATIONS}
        replays = {name: every[name][1] for name in IMPLEMENTATIONS}
        for name in IMPLEMENTATIONS:
            _refuse_unprintable(name, scripts[name], replays[name], record)
            at = f"{solves[name][0].file}:{solves[name][3]}"
            _refuse_crash(name, scripts[name], runs[name], record, at)
            if runs[name]["exit_code"] == 0:
                passes = len(runs[name]["observations"])
                lesson = "there is nothing to teach" if name == "attempt" else "it shows no failure"
                failing = [v for v in variants if not every[name][v].passed]
                elsewhere = (f" (with N = 1, the variant the record's own run uses; it fails with N = {', '.join(map(str, failing))}: "
                             "make it fail with N = 1 too)") if failing else (" (with every N from 1 to 5)" if len(variants) > 1 else "")
                raise AuthoringError(f"{at}: {_CALLED[name]} passes every check ({passes}/{passes}){elsewhere}, so {lesson}: it must fail at least one")
        checks = next((len(runs[n]["observations"]) for n in ("broken", "attempt") if runs[n]["observations"]), None)
        data = _record_data(values, str(params["attempt"]), scripts, runs, checks if checks is not None else len(replays["broken"].observations))
        record = _load(data, Path(tmp), folder)
        report = verify_record(record, timeout=check_timeout, isolation=isolation)
    if not report.ok:
        problem = next(p for impl in report.implementations for p in impl.problems)
        raise AuthoringError(f"{folder}: the built record does not replay as recorded, so it is not written: {problem}")
    weak = weak_checks(record, "attempt", isolation=isolation, where=lambda n: _file_line(scripts["attempt"], n))
    return Built(data, record, tuple(_warnings(runs, folder) + _same_errors(every, scripts, record)), report.summary(), every, weak)


def _file_line(script: _Script, lineno: int) -> str:
    where = script.where(lineno)
    return f"{where[0]}:{where[1]}" if where else f"line {lineno}"


def write_record(built: Built, out: str | os.PathLike, *, force: bool = False) -> Path:
    """Write the record file; an existing file is replaced only if `record build` wrote it (or with `force`)."""
    out = Path(out)
    if out.is_symlink() and not force:
        raise AuthoringError(f"{out}: is a symbolic link; record build does not write through it (pass --force to replace the link's target)")
    if out.exists() and not force and not _built_by_us(out):
        raise AuthoringError(f"{out}: exists and was not written by record build; choose another -o FILE or pass --force")
    # --force on a link replaces the link's target, as it says; whole or not at all, so a failed write keeps the old record
    write_text(Path(os.path.realpath(out)) if out.is_symlink() else out, built.text())
    return out


def _built_by_us(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return isinstance(data, dict) and isinstance(data.get("provenance"), dict) and str(data["provenance"].get("built_with", "")).startswith(BUILT_WITH)
    except (OSError, ValueError):
        return False


def _empty_run() -> dict:
    return {"elapsed_ms": 0.0, "exit_code": 1, "observations": [], "passed": False, "stderr": "", "stdout": ""}


def _record_data(values: dict[str, str], signature: str, scripts: dict[str, _Script], runs: dict[str, dict], checks: int) -> dict:
    import hashlib

    implementations = {
        name: {"sha256": hashlib.sha256(s.source.encode("utf-8", "surrogatepass")).hexdigest(), "source": s.source} for name, s in scripts.items()
    }
    provenance = {
        "built_with": f"{BUILT_WITH} {_version()}".strip(),
        "created_by": values["author"] or "an instructor, with failuremap-edu record build",
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "license": values["license"],
        "python": sys.version.split()[0],
    }
    data = {
        "checks": checks,
        "contract_signature": signature,
        "id": values["id"],
        "implementations": implementations,
        "provenance": {k: v for k, v in provenance.items() if v},
        "variant": 1,
        "verification": runs,
        "verified": True,
        "visibility": "public",
    }
    data.update({key: values[key] for key, _, _ in TEXT_FIELDS if key not in ("id", "license", "author")})
    return data


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("failuremap-edu")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree that was never installed
        return ""


def _record_text(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def _refuse_too_big(data: dict, folder: Path) -> None:
    """Refuse a record over the loader's size cap from its scripts' runs alone, naming its biggest value."""
    from .. import _records

    encoder = json.JSONEncoder(ensure_ascii=False, indent=1, sort_keys=True)  # as `_record_text` writes it, counted piece by piece
    size = 1 + sum(len(piece.encode("utf-8", "surrogatepass")) for piece in encoder.iterencode(data))
    if size <= _records.MAX_RECORD_BYTES:
        return
    sizes = [(len(json.dumps(o.get(side), ensure_ascii=False)), side, o.get("check"), name)
             for name, run in data["verification"].items() for o in run["observations"] if isinstance(o, dict) for side in ("actual", "expected")]
    biggest = ""
    if sizes:
        chars, side, check, name = max(sizes, key=lambda t: t[0])
        biggest = f"; the biggest value is the {side} value of check {str(check)[:80]!r} in the {name}'s run ({chars:,} characters as JSON)"
    raise AuthoringError(f"{folder}: the record would be {size:,} bytes, and records over {_records.MAX_RECORD_BYTES:,} bytes are refused"
                         f"{biggest}: make the checks' values smaller")


def _load(data: dict, tmp: Path, folder: Path) -> Record:
    path = tmp / f"{data['id']}.json"
    path.write_text(_record_text(data), encoding="utf-8")
    try:
        record = load_record(path)
        for name in IMPLEMENTATIONS:
            read_fixtures(record, name)
    except RecordError as exc:
        raise AuthoringError(f"{folder}: the assembled record does not load: {exc.field}: {exc.problem}") from None
    return record


def _run(name: str, script: _Script, def_line: int, timeout: float, isolation: str | None = None) -> dict:
    """Run the whole script as the record's harness runs it, and record what happened."""
    run = run_script(script.source, timeout, isolation=isolation)
    if run.not_started is not None:
        raise AuthoringError(f"{_CALLED[name]}'s script did not run: {run.not_started}")
    stderr = run.stderr.replace('File "<string>"', f'File "{SCRIPT_NAME}"')
    if run.timed_out or run.output_exceeded:
        where, inside = _frames(stderr, script)
        at = f"{where[0]}:{where[1]}" if where else f"{script.segments[1][2]}:{def_line}"  # it swallowed the interrupt
        if run.timed_out:
            stopped = f" (stopped in {inside[0]}:{inside[1]})" if inside and inside != where else ""
            what = f"did not finish within {timeout:g} s{stopped}; is there an infinite loop?"
        else:
            what = "wrote more output than the limit (16 MB) and was stopped"
        raise AuthoringError(f"{at}: {_CALLED[name]}'s script {what}")
    try:
        observations = json.loads(run.stdout.splitlines()[-1])["observations"]
        if not isinstance(observations, list):
            raise TypeError
    except (IndexError, ValueError, KeyError, TypeError):
        observations = []
    return {
        "elapsed_ms": run.elapsed_ms,
        "exit_code": run.exit_code,
        "observations": observations,
        "passed": run.exit_code == 0,
        "stderr": stderr,
        "stdout": run.stdout,
    }


_FRAME = re.compile(rf'^\s*File "{re.escape(SCRIPT_NAME)}", line (\d+), in (.+)$')


def _frames(stderr: str, script: _Script) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
    """The traceback's module-level statement and its innermost frame, as (file, line) of the source folder."""
    lines = [int(m.group(1)) for m in map(_FRAME.match, stderr.splitlines()) if m]
    if not lines:
        return None, None
    return script.where(lines[0]), script.where(lines[-1])


def _refuse_crash(name: str, script: _Script, run: dict, record: Record, solve_at: str) -> None:
    """A script that died outside every check (the fixture code itself) is refused; one that died in a check is a recorded crash."""
    if run["observations"]:
        return
    crash = parse_crash(run["stderr"])
    if crash is None:
        raise AuthoringError(
            f"{solve_at}: {_CALLED[name]}'s script ended with exit code {run['exit_code']} without printing its observations "
            "or a traceback (does solve or the fixture code call sys.exit or os._exit?)"
        )
    frames = [int(m.group(1)) for m in map(_FRAME.match, run["stderr"].splitlines()) if m]
    sites = read_fixtures(record, name).sites
    if any(s.lineno <= line <= s.end_lineno for line in frames for s in sites):
        return  # solve (or a check's own expression) raised inside a check: the record's harness crashes there
    where = script.where(crash.lineno) or script.where(frames[-1] if frames else None)
    at = f"{where[0]}:{where[1]}" if where else str(script.segments[2][2])
    first = sites[0].lineno if sites else 0
    when = "before the first check" if crash.lineno is None or crash.lineno < first else "outside any check"
    message = f": {crash.message}" if crash.message else ""
    raise AuthoringError(f"{at}: the fixture code raised {crash.type}{message} {when} (in {_CALLED[name]}'s script)")


def _refuse_unprintable(name: str, script: _Script, result, record: Record) -> None:
    """A check whose expected (or actual) value the harness cannot print with json.dumps."""
    sites = {s.site: s for s in read_fixtures(record, name).sites}
    for o in result.observations:
        if o.status not in (PASS, FAIL):
            continue
        site = sites.get(o.site)
        where = script.where(site.lineno if site else o.lineno)
        at = f"{where[0]}:{where[1]}" if where else script.segments[2][2]
        bad = _unprintable(o.expected)
        if bad:
            raise AuthoringError(
                f"{at}: the expected value of check {o.check!r} is {bad}, which cannot be serialized as JSON "
                "(the harness prints every value with json.dumps): use a list, a dict with str keys, or another JSON value"
            )
        bad = _unprintable(o.actual)
        if bad:
            raise AuthoringError(
                f"{at}: in check {o.check!r} the solve of {SOLVE_FILES[name]} returns {bad}, which the harness cannot print as JSON "
                "(every value is printed with json.dumps); make solve return JSON data"
            )


def _unprintable(value: Any) -> str | None:
    """What in `value` json.dumps cannot print as JSON (a set, bytes, NaN, an object), or None."""
    if to_jsonable(value) is not None or value is None:
        return None
    if isinstance(value, Opaque):
        return f"a {value.type_name}"
    if isinstance(value, float):
        return f"the float {value!r}"
    if isinstance(value, dict):
        bad_key = next((k for k in value if not isinstance(k, (str, int, float, bool, type(None)))), None)
        if bad_key is not None:
            return f"a dict with a {type(bad_key).__name__} key"
    if isinstance(value, (list, tuple, dict)):
        inner = value.values() if isinstance(value, dict) else value
        return next((f"a {type(value).__name__} holding {b}" for b in map(_unprintable, inner) if b), f"a {type(value).__name__}")
    return f"a {type(value).__name__}"


def _same_errors(every: dict, scripts: dict, record: Record) -> list[str]:
    """A check that raises the same error for both implementations, in some variant: most often the
    check's own expression is wrong (``solve([], 4)[0]``), and learners would be blamed for it."""
    warnings, seen = [], set()
    sites = {s.site: s for s in read_fixtures(record, "attempt").sites}
    for variant in every["attempt"]:
        a, b = every["attempt"][variant], every["broken"][variant]
        for x, y in zip(a.observations, b.observations):
            same = x.status == y.status == "error" and x.error and y.error and (x.error.type, x.error.message) == (y.error.type, y.error.message)
            if not same or x.check in seen or x.error.type in ("Timeout", "NotRun", "ProcessDied"):
                continue
            seen.add(x.check)
            site = sites.get(x.site)
            where = scripts["attempt"].where(site.lineno) if site else None
            at = f"{where[0]}:{where[1]}" if where else CHECKS_FILE
            n = f" with N = {variant}" if len(every["attempt"]) > 1 else ""
            warnings.append(
                f"{at}: check {x.check!r} raises {x.error.type} for both the attempt and the broken implementation{n}: "
                "if that is the check's own expression and not solve, fix it, or learners get an error that is not theirs"
            )
    return warnings


def _warnings(runs: dict[str, dict], folder: Path) -> list[str]:
    def failures(run: dict) -> list:
        return [(i, o.get("check"), json.dumps(o.get("actual"), sort_keys=True)) for i, o in enumerate(run["observations"]) if not o.get("passed")]

    a, b = failures(runs["attempt"]), failures(runs["broken"])
    if runs["attempt"]["observations"] and a == b:
        labels = ", ".join(repr(f[1]) for f in a[:3]) + (", …" if len(a) > 3 else "")
        return [(f"{folder}: the attempt and the broken implementation fail exactly the same checks ({labels}) with the same values: "
                 "the story needs them to differ (make the attempt plausible: right more often, wrong differently)")]
    return []
