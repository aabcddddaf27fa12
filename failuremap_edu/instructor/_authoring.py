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
replay), as the record's harness would. The folder's files, their shapes and
`write_folder` are `_authoring_folder`'s.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._atomic import write_text
from .._fixtures import VARIANTS, read_fixtures
from .._parity import parse_crash, verify_record
from .._records import Record, RecordError, load_record
from .._results import FAIL, PASS, to_jsonable
from .._signature import Params
from .._values import Opaque
from ._authoring_folder import (BUILT_WITH, CHECKS_FILE, IMPLEMENTATIONS, SCRIPT_NAME, SCRIPT_TIMEOUT, SOLVE_FILES, TEXT_FIELDS, TEXT_FILE, _CALLED,
                                AuthoringError, _fixtures_part, _read_text_fields, _Script, _script, _solve_parts, assemble, split_script,
                                write_folder)
from ._weak_checks import weak_checks
from ..runner import DEFAULT_TIMEOUT, replay, run_script

__all__ = ["AuthoringError", "Built", "assemble", "build_record", "split_script", "write_folder", "write_record"]


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
