"""A record's source folder: its four files (two solves, the checks, record.toml), their shapes, written and read back.

The check scripts are assembled in the exact shape of the Failure Map's records
(`assemble`, `split_script`); record.toml carries the teaching text, each field
explained in a comment. Nothing here runs the author's code: `_authoring` builds.
"""

from __future__ import annotations

import ast
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .._atomic import write_text
from .._errors import InputError
from .._records import _ID_PATTERN, Record, load_record

__all__ = ["AuthoringError", "assemble", "split_script", "write_folder"]

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
