"""Records: load a Failure Map record, validate it, and refuse anything tampered with.

Everything a later layer reads from a record is checked here, once, so that the
fixture reader, the runner and the renderers can trust the shapes they get.
Nothing in this module executes record code: sources are only hashed and parsed
with `ast`. Text fields are untrusted (they may hold ``<script>`` or be megabytes
long); they are kept verbatim and escaped by whoever displays them.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from ._errors import InputError
from ._signature import Params, mismatch, parse_params

__all__ = [
    "Implementation",
    "Record",
    "RecordError",
    "RecordedObservation",
    "RecordedRun",
    "list_records",
    "load_record",
    "packaged_records_dir",
]

MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Larger files are refused before parsing: a record is a few kilobytes."""

REQUIRED_IMPLEMENTATIONS = ("broken", "attempt")
_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}")
_SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")
_REQUIRED_TEXT = ("title", "contract", "contract_signature", "abstract", "failed_approach", "root_cause")
_OPTIONAL_TEXT = ("category", "family", "limitations", "variant_policy", "relevance", "method", "evaluation_group")


class RecordError(InputError):
    """A record cannot be used. The message is one line: source, field, problem."""

    def __init__(self, source: str, field: str, problem: str) -> None:
        self.source = source
        self.field = field
        self.problem = problem
        where = f"{source}: {field}" if field else source
        super().__init__(_one_line(f"{where}: {problem}"))


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Implementation:
    """One standalone check script of the record (`broken` or `attempt`)."""

    name: str
    source: str = field(repr=False)
    sha256: str


@dataclass(frozen=True)
class RecordedObservation:
    """One check as the record's own harness printed it.

    `actual` and `expected` went through JSON when the record was made, so a
    tuple appears as a list here. They are stored as JSON text and decoded on
    each access, which keeps the record immutable.
    """

    check: str
    passed: bool
    actual_json: str = field(repr=False)
    expected_json: str = field(repr=False)

    @property
    def actual(self) -> Any:
        return json.loads(self.actual_json)

    @property
    def expected(self) -> Any:
        return json.loads(self.expected_json)


@dataclass(frozen=True)
class RecordedRun:
    """What happened when the record's author ran one implementation's script."""

    implementation: str
    passed: bool
    exit_code: int
    observations: tuple[RecordedObservation, ...]
    stdout: str = field(repr=False)
    stderr: str = field(repr=False)
    elapsed_ms: float

    @property
    def crashed(self) -> bool:
        """The harness died before printing: no observations, a traceback instead."""
        return not self.observations and bool(self.stderr.strip())


@dataclass(frozen=True, repr=False)
class Record:
    """A validated, immutable Failure Map record."""

    id: str
    title: str
    contract: str
    contract_signature: str
    abstract: str
    failed_approach: str
    root_cause: str
    category: str
    family: str
    limitations: str
    variant_policy: str
    relevance: str
    method: str
    evaluation_group: str
    verified: bool
    variant: int | None
    checks: int | None
    license: str
    provenance: Mapping[str, Any]
    implementations: Mapping[str, Implementation]
    verification: Mapping[str, RecordedRun]
    params: Params
    origin: str
    """Where the record came from: a file path, or ``packaged:ID``."""

    def __repr__(self) -> str:
        title = self.title if len(self.title) <= 60 else self.title[:59] + "…"
        return f"Record(id={self.id!r}, title={title!r}, origin={self.origin!r})"

    @property
    def neutral_title(self) -> str:
        """What a learner sees in place of the title, which often names the fix: the id and the category."""
        return f"Exercise {self.id}: {self.category}" if self.category else f"Exercise {self.id}"

    @property
    def packaged(self) -> bool:
        return self.origin.startswith("packaged:")


def packaged_records_dir() -> Path:
    """The folder of records shipped inside the package."""
    return Path(__file__).resolve().parent / "records"


def list_records(records_dir: str | os.PathLike | None = None) -> list[str]:
    """Ids of the packaged records (or of the records in `records_dir`), sorted.

    Listing reads file names only; it neither parses nor executes anything.
    """
    folder = Path(records_dir) if records_dir is not None else packaged_records_dir()
    return sorted(p.stem for p in folder.glob("*.json") if p.is_file())


def load_record(id_or_path: str | os.PathLike) -> Record:
    """Load and validate a record, given a packaged id or a path to a JSON file (an id wins over a same-named file).

    Raises RecordError (one line: where, which field, what is wrong) for a
    missing or unreadable file, malformed JSON, a schema violation, a source whose
    sha256 does not match, a source that does not parse, a missing `solve`, or a
    `solve` whose parameters do not fit `contract_signature`.
    """
    path, origin = _locate(id_or_path)
    label = str(path) if not origin.startswith("packaged:") else origin
    return _parsed(_read(path, label), origin, label)


@functools.lru_cache(maxsize=32)
def _parsed(raw: bytes, origin: str, label: str) -> Record:
    """The record these bytes hold, validated once: the exercise cell loads its record on every run (3 of its
    ~25 ms). Keyed on the file's bytes, read each time, so an edited file is validated again; a Record is frozen."""
    return _build(_decode(raw, label), origin, label)


def as_record(record: "Record | str | os.PathLike") -> Record:
    """A Record as given, or loaded from a packaged id or a path (`load_record`).

    So that a notebook cell can name its record (``fm.try_call('FA-100786', solve, ...)``)
    and still work after a kernel restart, without the cell that loaded it.
    """
    return record if isinstance(record, Record) else load_record(record)


def _locate(id_or_path: str | os.PathLike) -> tuple[Path, str]:
    """The file to read and its origin: a path-like argument or text with a slash or `.json` is a path;
    otherwise a packaged id wins over a same-named file or folder here (``./FA-100786`` names that one)."""
    if isinstance(id_or_path, os.PathLike):
        path = Path(id_or_path)
        return path, str(path)
    text = str(id_or_path)
    if os.sep in text or "/" in text or text.endswith(".json"):
        return Path(text), text
    packaged = packaged_records_dir() / f"{text}.json" if _ID_PATTERN.fullmatch(text) else None
    if packaged is not None and packaged.is_file():  # a packaged id wins over a same-named file here
        return packaged, f"packaged:{text}"
    if os.path.exists(text):
        return Path(text), text
    if packaged is None:
        raise RecordError(repr(text)[:80], "", "not a record id or a path to a record file")
    known = ", ".join(list_records()) or "none"
    raise RecordError(text, "", f"no packaged record with this id (packaged: {known}); pass a path to use another record")


def _read(path: Path, label: str) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            raise RecordError(label, "", f"file is {size:,} bytes; records over {MAX_RECORD_BYTES:,} bytes are refused")
        with path.open("rb") as fh:
            return fh.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise RecordError(label, "", "no such file") from None
    except IsADirectoryError:
        raise RecordError(label, "", "is a directory, not a record file") from None
    except PermissionError:
        raise RecordError(label, "", "permission denied") from None
    except OSError as exc:
        raise RecordError(label, "", f"cannot read: {exc.strerror or exc}") from None


def _decode(raw: bytes, label: str) -> dict:
    if not raw.strip():
        raise RecordError(label, "", "empty file; expected a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(label, "", f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(label, "", f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise RecordError(label, "", "not valid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4,300 digits (sys.set_int_max_str_digits)
        raise RecordError(label, "", f"cannot be read: {_first_sentence(exc)}") from None
    if not isinstance(data, dict):
        raise RecordError(label, "", f"expected a JSON object, got {_json_type(data)}")
    return data


def _first_sentence(exc: BaseException) -> str:
    text = _one_line(str(exc))
    return text.split(";")[0][:200] or type(exc).__name__


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class _Fields:
    """Typed access to a JSON object that reports the path of whatever is wrong."""

    def __init__(self, data: Mapping, path: str, label: str) -> None:
        self.data, self.path, self.label = data, path, label

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, problem: str) -> RecordError:
        return RecordError(self.label, self.where(key), problem)

    def get(self, key: str, kind: type | tuple, *, required: bool = True, default: Any = None) -> Any:
        if key not in self.data:
            if required:
                raise self.fail(key, "missing required field")
            return default
        value = self.data[key]
        if value is None and not required:
            return default
        if isinstance(value, bool) and kind in (int, float, (int, float)):
            raise self.fail(key, f"expected {_kind_name(kind)}, got a boolean")
        if not isinstance(value, kind):
            raise self.fail(key, f"expected {_kind_name(kind)}, got {_json_type(value)}")
        return value

    def child(self, key: str, *, required: bool = True) -> "_Fields | None":
        value = self.get(key, dict, required=required)
        return None if value is None else _Fields(value, self.where(key), self.label)


def _kind_name(kind: type | tuple) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", dict: "an object", list: "an array"}
    if isinstance(kind, tuple):
        return "a number" if set(kind) == {int, float} else " or ".join(names.get(k, k.__name__) for k in kind)
    return names.get(kind, kind.__name__)


def _build(data: dict, origin: str, label: str) -> Record:
    top = _Fields(data, "", label)
    record_id = top.get("id", str)
    if not _ID_PATTERN.fullmatch(record_id):
        raise top.fail("id", "must be 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit")
    text = {key: top.get(key, str) for key in _REQUIRED_TEXT}
    text.update({key: top.get(key, str, required=False, default="") for key in _OPTIONAL_TEXT})
    try:
        params = parse_params(text["contract_signature"])
    except ValueError as exc:
        raise top.fail("contract_signature", str(exc)) from None

    variant = top.get("variant", int, required=False)
    checks = top.get("checks", int, required=False)
    if checks is not None and checks < 0:
        raise top.fail("checks", "must not be negative")
    verified = top.get("verified", bool, required=False, default=False)
    sha = top.get("sha256", str, required=False)
    if sha is not None and not _SHA256_PATTERN.fullmatch(sha):
        raise top.fail("sha256", "must be 64 lowercase hex digits")

    provenance_fields = top.child("provenance", required=False)
    provenance: dict[str, Any] = {}
    if provenance_fields is not None:
        for key, value in provenance_fields.data.items():
            if not isinstance(value, (str, int, float, bool)) and value is not None:
                raise provenance_fields.fail(key, f"expected a string or number, got {_json_type(value)}")
            provenance[key] = value
    license_name = provenance.get("license") if isinstance(provenance.get("license"), str) else ""

    implementations = _implementations(top.child("implementations"), params)
    verification = _verification(top.child("verification"))

    return Record(
        id=record_id,
        variant=variant,
        checks=checks,
        verified=verified,
        license=license_name or "",
        provenance=MappingProxyType(provenance),
        implementations=MappingProxyType(implementations),
        verification=MappingProxyType(verification),
        params=params,
        origin=origin,
        **text,
    )


def _implementations(fields: _Fields, params: Params) -> dict[str, Implementation]:
    out: dict[str, Implementation] = {}
    for name in REQUIRED_IMPLEMENTATIONS:
        if name not in fields.data:
            raise fields.fail(name, "missing required implementation")
    for name in fields.data:
        impl = fields.child(name)
        source = impl.get("source", str)
        declared = impl.get("sha256", str)
        if not _SHA256_PATTERN.fullmatch(declared):
            raise impl.fail("sha256", "must be 64 lowercase hex digits")
        actual = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        if actual != declared:
            raise impl.fail(
                "source",
                f"sha256 mismatch: the record declares {declared[:12]}… but the source hashes to "
                f"{actual[:12]}…; refusing to use a modified source",
            )
        _check_source(impl, source, params)
        out[name] = Implementation(name=name, source=source, sha256=declared)
    return out


def _check_source(impl: _Fields, source: str, params: Params) -> None:
    """Parse (never run) a source and check its `solve` against the contract."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise impl.fail("source", f"syntax error at line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise impl.fail("source", f"cannot be parsed: {exc}") from None
    solves = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "solve"]
    if not solves:
        raise impl.fail("source", "defines no top-level function 'solve'")
    solve = solves[-1]
    if isinstance(solve, ast.AsyncFunctionDef):
        raise impl.fail("source", "'solve' is async; the contract needs a plain function")
    problem = mismatch(params, Params.from_ast(solve.args))
    if problem:
        raise impl.fail("source", f"solve signature does not fit contract_signature: {problem}")


def _milliseconds(run: _Fields) -> float:
    value = run.get("elapsed_ms", (int, float), required=False, default=0.0)
    try:
        return float(value)
    except OverflowError:  # an integer too large for a float
        raise run.fail("elapsed_ms", "a number too large") from None


def _verification(fields: _Fields) -> dict[str, RecordedRun]:
    out: dict[str, RecordedRun] = {}
    for name in REQUIRED_IMPLEMENTATIONS:
        if name not in fields.data:
            raise fields.fail(name, "missing recorded run")
    for name in fields.data:
        run = fields.child(name)
        observations = []
        for i, item in enumerate(run.get("observations", list)):
            where = f"observations[{i}]"
            if not isinstance(item, dict):
                raise run.fail(where, f"expected an object, got {_json_type(item)}")
            obs = _Fields(item, run.where(where), run.label)
            for key in ("actual", "expected"):
                if key not in item:
                    raise obs.fail(key, "missing required field")
            observations.append(
                RecordedObservation(
                    check=obs.get("check", str),
                    passed=obs.get("passed", bool),
                    actual_json=json.dumps(item["actual"], ensure_ascii=False),
                    expected_json=json.dumps(item["expected"], ensure_ascii=False),
                )
            )
        out[name] = RecordedRun(
            implementation=name,
            passed=run.get("passed", bool),
            exit_code=run.get("exit_code", int),
            observations=tuple(observations),
            stdout=run.get("stdout", str, required=False, default=""),
            stderr=run.get("stderr", str, required=False, default=""),
            elapsed_ms=_milliseconds(run),
        )
    return out
