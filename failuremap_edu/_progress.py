"""A local progress log: one JSON line per check run, so progress survives the notebook.

The log lives in the user's data folder (``$FAILUREMAP_PROGRESS`` overrides the
file path). Writing never breaks a notebook: an unwritable location is reported
once and then ignored; unreadable lines are skipped when reading.

A log is born with a random, pseudonymous learner id in its first line. It names
nobody, yet lets an instructor count each learner once when a class hands in
downloads and exports (`failuremap-edu report`), and it keeps 30 downloads of the
same exercise from clashing (`file_tag`). Every line carries the check labels
next to the statuses, and for each check that did not pass the reason in one word
(the diff's kind, or the error's type) and a bounded outcome (`outcomes`: a
fingerprint of the returned value, its repr clipped to `OUTCOME_REPR` characters,
and whether it equals what the record's attempt or broken returns there): enough
for a class report to group learners who make the same mistake, without their
whole values.

The log is untrusted input too (a learner, a sync tool or a crash may have
written it): it is only opened when it is a regular file (a FIFO there would
block every later run), a line whose fields have the wrong shape is skipped as
unreadable, and a first line that no longer holds a learner id is kept: a new id
is appended, and the next run says so in one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import time
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from ._logfile import append_line as _append, open_for_reading as _open_for_reading, write_synced as _write_synced
from ._results import STATUSES, RunResult
from ._values import clip, safe_repr, text_safe

__all__ = [
    "ProgressOverview",
    "export_data",
    "export_link_html",
    "export_progress",
    "failure_reason",
    "file_tag",
    "latest_by_record",
    "learner_id",
    "log_run",
    "outcomes",
    "progress_overview",
    "progress_path",
    "read_progress",
    "read_progress_lines",
    "run_id",
    "short_id",
]

MAX_SOURCE = 100_000
"""Characters of a solve's source kept per log line (enough for any exercise)."""
LOG_FORMAT = "failuremap_edu progress 2"
"""Written in a log's first line, next to the learner id."""
EXPORT_FORMAT = "failuremap_edu export 2"
_ids: dict[str, tuple[int, bytes, str]] = {}
_fallback_id: list[str] = []
_notices: dict[str, str] = {}
"""Log path -> a one-line notice for the next `log_run` to return (a damaged first line got a new id)."""
_LEARNER = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a learner id may be (ours are 16 hex digits): it goes into file names and terminals."""
HUB_USER = re.compile(r"[\w.@+-]{1,255}")
"""What a hub user name in a log line may be (JupyterHub's names: letters, digits and ``.@+-_``)."""


def progress_path() -> Path:
    """The log's file: ``$FAILUREMAP_PROGRESS``, else ``progress.jsonl`` in the user's data folder.

    A relative ``$FAILUREMAP_PROGRESS`` is taken in the working directory, which for a notebook's kernel is the
    notebook's folder: ``FAILUREMAP_PROGRESS=failuremap-progress.jsonl`` gives each notebook folder a log of its own
    (learners who share one home folder then no longer see one another's runs)."""
    override = os.environ.get("FAILUREMAP_PROGRESS")
    if override:
        path = Path(override).expanduser()
        return path if path.is_absolute() else Path.cwd() / path
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "failuremap_edu" / "progress.jsonl"


def shown_path(path: str | os.PathLike) -> str:
    """A path as a hand-in may carry it: relative to the notebook folder (the working directory), never the home folder's name.

    Inside the working directory: relative to it. Elsewhere in the home folder
    (or when the working directory is above it): ``~/...``. Anywhere else: the
    file name alone (an absolute path may name its user, ``/srv/class/jdoe/...``).
    """
    full, cwd, home = os.path.abspath(path), os.getcwd(), os.path.abspath(os.path.expanduser("~"))

    def within(child: str, parent: str) -> bool:
        try:
            return os.path.commonpath([child, parent]) == parent
        except ValueError:  # another drive (Windows)
            return False

    if within(full, cwd) and full != cwd and (within(cwd, home) or not within(full, home)):
        return Path(os.path.relpath(full, cwd)).as_posix()
    if within(full, home) and full != home:
        return "~/" + Path(os.path.relpath(full, home)).as_posix()
    return os.path.basename(full)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _is_header(entry: Any) -> bool:
    return isinstance(entry, dict) and "record" not in entry and isinstance(entry.get("learner"), str) and bool(_LEARNER.fullmatch(entry["learner"]))


def _read_id(target: Path) -> str | None:
    """The first learner id written into the log (the first one wins, should two processes race).

    Remembered with its place in the file; one small read confirms it is still
    there (the log may have been replaced), so a run does not rescan the log.
    """
    key = str(target)
    try:
        with _open_for_reading(target) as fh:
            known = _ids.get(key)
            if known is not None:
                offset, line, learner = known
                fh.seek(offset)
                if fh.read(len(line)) == line:
                    return learner
                fh.seek(0)
            offset = 0
            for raw in fh:
                try:
                    entry = json.loads(raw.decode("utf-8"))
                except (ValueError, UnicodeDecodeError, RecursionError):
                    entry = _salvaged_header(raw) if offset == 0 else None
                if _is_header(entry):
                    _ids[key] = (offset, raw, entry["learner"])
                    return entry["learner"]
                offset += len(raw)
    except OSError:
        return None
    return None


def learner_id(path: Path | None = None) -> str:
    """The progress log's pseudonymous learner id, created with the log.

    Random (64 bits), so it names nobody; stable for as long as the log lives. When
    the log cannot be written, an id for this process only, so that downloads
    still get distinct names.
    """
    target = path or progress_path()
    found = _read_id(target)
    if found:
        return found
    header = (json.dumps({"learner": secrets.token_hex(8), "created": _now(), "log": LOG_FORMAT}) + "\n").encode("utf-8")
    link = getattr(os, "link", None)  # Pyodide (JupyterLite) has none
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if link is not None:
            staged = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}")
            try:
                _write_synced(staged, header)
                link(staged, target)  # the log appears with its id in it, or it existed already
            except OSError:  # it existed, or this file system has no hard links
                pass
            finally:
                staged.unlink(missing_ok=True)
        if _read_id(target) is None:  # a log from before ids, or no hard links: appended, the first id wins
            damaged = _damaged_first_line(target)
            _append(target, header)
            if damaged:
                new = _read_id(target)
                _notices[str(target)] = (
                    f"the first line of {target} no longer holds a learner id ({damaged}); it is kept as it is, with every run "
                    f"in the log, and a new learner id {short_id(new or '')}… was added at the end: hand-ins from now on carry it"
                )
    except OSError:
        pass
    found = _read_id(target)
    if found:
        return found
    if not _fallback_id:
        _fallback_id.append(secrets.token_hex(8))
    return _fallback_id[0]


def _salvaged_header(raw: bytes) -> dict | None:
    """A damaged first line (cut short, a byte changed) whose learner id can still be read whole: the id is kept."""
    found = re.search(rb'^\{"learner": ?"([0-9a-f]{16})"', raw)
    return {"learner": found.group(1).decode("ascii")} if found else None


def _damaged_first_line(target: Path) -> str | None:
    """Why the log's first line is neither a learner id nor a run, or None (an empty log, a log from before ids)."""
    try:
        with _open_for_reading(target) as fh:
            first = fh.readline(64 * 1024)
    except OSError:
        return None
    if not first.strip():
        return None
    try:
        entry = json.loads(first.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return "not JSON"
    if isinstance(entry, dict) and isinstance(entry.get("record"), str):
        return None  # a run: the log is from before learner ids
    if isinstance(entry, dict) and "learner" in entry:
        return "not a valid learner id"
    return "not a learner id"


def short_id(learner: str) -> str:
    """The first six characters of a learner id: enough to tell a class apart in file names."""
    return learner[:6]


def file_tag(path: Path | None = None, when: float | None = None) -> str:
    """``3f9a2c-20261130-064500``: the short learner id and a timestamp, for download and export names."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    return f"{short_id(learner_id(path))}-{stamp}"


def failure_reason(status: str, expected: Any = None, actual: Any = None, error_type: str | None = None) -> str | None:
    """Why a check did not pass, in one word: the error's type, or the kind of the diff's first difference.

    None for a pass. Timeouts and dead workers have the error types ``Timeout`` and
    ``ProcessDied``. A failing check whose values show no difference is ``value``.
    """
    if status == "pass":
        return None
    if status != "fail":
        return error_type or status
    from ._diff import diff

    try:
        found = diff(expected, actual)
    except Exception:  # noqa: BLE001 - logging must never break a notebook
        return "value"
    return found.differences[0].kind if found.differences else "value"


OUTCOME_REPR = 80
"""Characters of a returned value's repr kept per check in a log line (its fingerprint is of the whole repr)."""
_FINGERPRINT_REPR = 10_000


def outcomes(result: RunResult, replays: Sequence[RunResult] = ()) -> list[dict | None]:
    """Per check: None for a pass, else what happened there, bounded (a class report groups learners by it).

    ``{"status", "value": sha256 of the returned value's safe repr (16 hex digits) or None,
    "repr": that repr clipped to `OUTCOME_REPR`, "same_as": ["attempt", ...]}``. `same_as`
    names the replays (the record's attempt and broken, run for the same variant) whose
    value at this check EQUALS the learner's, decided on the values (`_diff.diff`),
    never on the clipped text; an error is its type.
    """
    from ._diff import diff

    out: list[dict | None] = []
    for o in result.observations:
        if o.status == "pass":
            out.append(None)
            continue
        entry: dict = {"status": o.status, "value": None, "repr": None, "same_as": []}
        if o.status == "fail":
            text = safe_repr(o.actual, _FINGERPRINT_REPR)
            entry["value"] = hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]
            entry["repr"] = clip(text, OUTCOME_REPR, one_line=True)
            for other in replays:
                theirs = next((t for t in other.observations if t.index == o.index), None)
                if theirs is None or theirs.status != "fail":
                    continue
                try:
                    same = diff(theirs.actual, o.actual).equal
                except Exception:  # noqa: BLE001 - logging must never break a notebook
                    same = False
                if same:
                    entry["same_as"].append(other.solver)
        elif o.error is not None:
            entry["repr"] = clip(o.error.type, OUTCOME_REPR, one_line=True)
        out.append(entry)
    return out


def log_run(
    result: RunResult,
    solve_source: str | None = None,
    path: Path | None = None,
    *,
    instructor: bool = False,
    title: str | None = None,
    replays: Sequence[RunResult] = (),
    run: str | None = None,
) -> str | None:
    """Append one line for `result`. Returns a one-line message when it was not saved (every time), else None.

    `run` names the run of the solve cell this result belongs to: the variants of
    one run, and the panel's re-runs of the same solve, share it, so the progress
    table counts runs of the cell (lines without it count one each).

    Each line gets a random ``id`` (`run_id`): the class collector stores a run once however often it is sent.
    On a hub, the line names the hub user (``hub_user``, from ``JUPYTERHUB_USER``).

    `instructor` marks the runs of an instructor notebook (a demo in front of the
    room, not learning): `failuremap-edu report` skips them. `replays` (the record's
    attempt and broken for this variant) name the checks where the learner returned
    what one of them returns (`outcomes`).
    """
    target = path or progress_path()
    entry = {
        "id": secrets.token_hex(8),
        "record": result.record_id,
        "title": title,
        "variant": result.variant,
        "passed": result.passed_count,
        "total": result.total,
        "statuses": [o.status for o in result.observations],
        "checks": [o.check for o in result.observations],
        "reasons": [failure_reason(o.status, o.expected, o.actual, o.error.type if o.error else None) for o in result.observations],
        "outcomes": outcomes(result, replays),
        "time": _now(),
        "learner": learner_id(target),
        "solve_sha256": hashlib.sha256(solve_source.encode("utf-8", "replace")).hexdigest() if solve_source else None,
        "solve_source": solve_source[:MAX_SOURCE] if solve_source else None,
    }
    if run:
        entry["run"] = run
    hub_user = os.environ.get("JUPYTERHUB_USER")
    if hub_user and HUB_USER.fullmatch(hub_user):
        entry["hub_user"] = hub_user  # the hub's name for the learner: a report on the hub names them without a --names file
    if instructor:
        entry["instructor"] = True
    line = (text_safe(json.dumps(entry, ensure_ascii=False)) + "\n").encode("utf-8")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _append(target, line)
    except OSError as exc:  # said for every run that is not saved: the run's own result stays as it is
        return unsaved_note(target, exc)
    return _notices.pop(str(target), None)


def run_id(entry: dict) -> str:
    """A logged run's id: the ``id`` `log_run` wrote, else (a line from before ids) a hash of the line's content."""
    given = entry.get("id")
    if isinstance(given, str) and _LEARNER.fullmatch(given):
        return given
    return "sha-" + hashlib.sha256(json.dumps(entry, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def read_progress(path: Path | None = None) -> tuple[list[dict], int]:
    """All readable entries, oldest first, and how many lines were skipped as unreadable.

    The log's first line (the learner id) is not an entry; an empty line is nothing.
    """
    entries, skipped = read_progress_lines(path)
    return entries, len(skipped)


def read_progress_lines(path: Path | None = None) -> tuple[list[dict], list[tuple[int, str]]]:
    """All readable entries, oldest first, and each line skipped: its number (from 1) and why, in a few words.

    Why: ``cut short`` (a last line without its newline: a crash or a full disk tore
    it), ``not JSON``, ``not UTF-8``, ``not a run`` (fields of the wrong shape).
    """
    target = path or progress_path()
    entries, skipped = [], []
    try:
        with _open_for_reading(target) as fh:
            for number, raw in enumerate(fh, 1):
                if not raw.strip(b" \t\r\n"):
                    continue  # the newline a writer put after a torn line, or a blank line: nothing lost
                try:
                    entry = json.loads(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    skipped.append((number, "not UTF-8"))
                    continue
                except (ValueError, RecursionError):
                    skipped.append((number, "not JSON" if raw.endswith(b"\n") else "cut short"))
                    continue
                if _is_header(entry):
                    continue
                if not _is_entry(entry):
                    skipped.append((number, "not a run"))
                    continue
                entries.append(entry)
    except OSError:
        return [], []
    return entries, skipped


def _is_entry(entry: Any) -> bool:
    """A run as `log_run` writes it: counts that are whole numbers and agree, lists where lists belong.

    ``1e999`` is not a count, and ``"statuses": "pass"`` is not a list of statuses.
    """
    if not isinstance(entry, dict) or not isinstance(entry.get("record"), str):
        return False
    passed, total = entry.get("passed"), entry.get("total")
    if type(passed) is not int or type(total) is not int or not 0 <= passed <= total:
        return False
    statuses = entry.get("statuses")
    if statuses is not None:
        if not isinstance(statuses, list) or len(statuses) != total or any(s not in STATUSES for s in statuses):
            return False
        if statuses.count("pass") != passed:
            return False
    for key in ("checks", "reasons"):
        value = entry.get(key)
        if value is not None and (not isinstance(value, list) or not all(v is None or isinstance(v, str) for v in value)):
            return False
    found = entry.get("outcomes")
    if found is not None and (not isinstance(found, list) or not all(o is None or _is_outcome(o) for o in found)):
        return False
    for key in ("id", "hub_user", "title", "time", "solve_sha256", "solve_source"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            return False
    if entry.get("hub_user") is not None and not HUB_USER.fullmatch(entry["hub_user"]):
        return False
    variant = entry.get("variant")
    return variant is None or (type(variant) is int)


def _is_outcome(o: Any) -> bool:
    """One check's outcome as `outcomes` writes it: short strings, a list of names."""
    if not isinstance(o, dict) or o.get("status") not in STATUSES:
        return False
    for key, limit in (("value", 64), ("repr", 4 * OUTCOME_REPR)):
        if o.get(key) is not None and (not isinstance(o[key], str) or len(o[key]) > limit):
            return False
    same = o.get("same_as", [])
    return isinstance(same, list) and all(isinstance(x, str) and len(x) <= 32 for x in same)


def cell_runs(entries: Sequence[dict]) -> list[tuple[str, list[dict]]]:
    """The runs of the solve cell in `entries`, in the order they began: ``(record id, results)`` each.

    Entries that share a ``run`` id are one run of the cell: its variants, and the panel's
    re-checks of the same solve (a variant ticked or unticked, "Run checks again"). A run's
    results hold one entry per variant, the latest: a re-check replaces, never adds. An
    entry without a run id is a run of its own.
    """
    runs: dict[object, tuple[str, dict]] = {}
    for i, entry in enumerate(entries):
        run = entry.get("run")
        key = (entry["record"], run) if isinstance(run, str) else i
        runs.setdefault(key, (entry["record"], {}))[1][entry.get("variant")] = entry
    return [(record_id, list(by_variant.values())) for record_id, by_variant in runs.values()]


def latest_by_record(entries: list[dict]) -> dict[str, dict]:
    latest: dict[str, dict] = {}
    for entry in entries:
        latest[entry["record"]] = entry
    return latest


class ProgressOverview:
    """Which exercises pass, from the progress log: a table in HTML and in plain text."""

    def __init__(self, rows: list[tuple[str, str, str, int]], skipped: int, path: Path, entries: list[dict] | None = None) -> None:
        self.rows, self.skipped, self.path = rows, skipped, path
        self.entries = entries or []
        """The log lines of these exercises, oldest first (for `plot_progress`)."""

    def since(self) -> str:
        """Where the log is and since when it holds runs: history from before this session must not pass for yours."""
        first = min((e.get("time", "") for e in self.entries), default="")
        return f"Runs saved in {self.path}" + (f" since {first[:16].replace('T', ' ')}" if first else ": none yet")

    def __repr__(self) -> str:
        lines = [self.since(), f"{'exercise':<12} {'latest':<22} runs"]
        lines += [f"{record_id:<12} {latest:<22} {runs}" for record_id, _, latest, runs in self.rows]
        if self.skipped:
            lines.append(f"({self.skipped} unreadable line{'s' if self.skipped != 1 else ''} in {self.path} skipped)")
        return text_safe("\n".join(lines))

    def _repr_html_(self) -> str:
        from html import escape

        body = "".join(
            f"<tr><td>{escape(record_id)}</td><td>{escape(title)}</td><td>{escape(latest)}</td><td>{runs}</td></tr>"
            for record_id, title, latest, runs in self.rows
        )
        note = f"<p>{self.skipped} unreadable lines skipped.</p>" if self.skipped else ""
        link = export_link_html(self.path) if self.entries else ""
        return text_safe(
            f'<div class="fm-root"><p>{escape(self.since())}</p><table><thead><tr><th>exercise</th><th>title</th><th>latest run</th><th>runs</th></tr></thead>'
            f"<tbody>{body}</tbody></table>{note}{link}</div>"
        )


def progress_overview(records: list[str] | None = None, path: Path | None = None) -> ProgressOverview:
    """The exercises (by default the packaged ones and any other run here) with the latest logged result of each."""
    from ._records import RecordError, list_records, load_record

    entries, skipped = read_progress(path)
    entries = [e for e in entries if not e.get("instructor")]  # an instructor's demo runs are not their progress
    latest = latest_by_record(entries)
    runs = cell_runs(entries)
    counts = Counter(record_id for record_id, _ in runs)
    # The run each latest result belongs to (the latest result of a variant is always among its run's results).
    last_run = {record_id: results for record_id, results in runs if any(e is latest[record_id] for e in results)}
    rows = []
    ids = []
    refs = list(records) if records is not None else list_records()
    if records is None:  # and every other exercise run here (notebooks made from records of your own)
        refs += [record_id for record_id in counts if record_id not in refs]
    for ref in refs:
        try:
            record = load_record(ref)
            record_id, title = record.id, record.neutral_title
        except RecordError:
            if ref not in counts:
                continue
            record_id, title = ref, (latest.get(ref) or {}).get("title") or "(a record of your own, not found here)"
        ids.append(record_id)
        entry = latest.get(record_id)
        if entry is None:
            status = "not started"
        else:
            together = last_run[record_id]
            passed, total = sum(e["passed"] for e in together), sum(e["total"] for e in together)
            solved = passed == total and total
            mark = "✓ all pass" if solved else "✗"
            which = f"{len(together)} variants" if len(together) > 1 else f"N={entry.get('variant', '?')}"
            status = f"{mark} {passed}/{total} ({which})"  # an all-variants run is one run: its whole result, not its last variant
            if not solved and any(e["record"] == record_id and e["total"] and e["passed"] == e["total"] for e in entries):
                status += ", all passed before"  # a later experiment must not make a solved exercise look unsolved
        rows.append((record_id, title, status, counts.get(record_id, 0)))
    chosen = set(ids)
    return ProgressOverview(rows, skipped, path or progress_path(), [e for e in entries if e["record"] in chosen])


def export_progress(out: Path, path: Path | None = None) -> dict:
    """Write every logged run, every distinct solve and the latest of each exercise to one JSON file (`export_data`)."""
    from ._atomic import write_text

    data = export_data(path)
    write_text(out, _export_text(data))  # whole or not at all: a kill or a full disk leaves the old file as it was
    return data


def _export_text(data: dict) -> str:
    return text_safe(json.dumps(data, ensure_ascii=False, indent=1)) + "\n"


def export_data(path: Path | None = None) -> dict:
    """Every logged run, every distinct solve and the latest of each exercise, as `export_progress` writes them.

    Each run lists its checks as ``{"check", "status", "reason", "outcome"}`` (`outcomes`). Sources are kept
    once each, keyed by their sha256, so that a learner whose last run looped still
    hands in the passing code they had before (``latest[ID]["last_passing_sha256"]``).
    """
    entries, skipped = read_progress(path)
    sources: dict[str, str] = {}
    attempts = []
    latest: dict[str, dict] = {}
    for e in entries:
        sha, source = e.get("solve_sha256"), e.get("solve_source")
        if isinstance(sha, str) and isinstance(source, str):
            sources.setdefault(sha, source)
        statuses = e.get("statuses") if isinstance(e.get("statuses"), list) else []
        labels = e.get("checks") if isinstance(e.get("checks"), list) else []
        reasons = e.get("reasons") if isinstance(e.get("reasons"), list) else []
        found = e.get("outcomes") if isinstance(e.get("outcomes"), list) else []
        attempt = {k: e.get(k) for k in ("record", "variant", "passed", "total", "time", "solve_sha256")}
        attempt["checks"] = [
            {
                "check": labels[i] if i < len(labels) else None,
                "status": status,
                "reason": reasons[i] if i < len(reasons) else None,
                **({"outcome": found[i]} if i < len(found) and found[i] is not None else {}),
            }
            for i, status in enumerate(statuses)
        ]
        if isinstance(e.get("run"), str):
            attempt["run"] = e["run"]  # the run of the solve cell it belongs to (one per variant share it)
        if e.get("instructor"):
            attempt["instructor"] = True
        attempts.append(attempt)
        mine = latest.setdefault(e["record"], {"last_passing_sha256": None})
        mine.update({k: e.get(k) for k in ("variant", "passed", "total", "time", "solve_sha256")})
        mine["solve_source"] = sources.get(sha) if isinstance(sha, str) else None
        if e.get("total") and e.get("passed") == e.get("total") and isinstance(sha, str):
            mine["last_passing_sha256"] = sha
    data = {
        "format": EXPORT_FORMAT,
        "learner": learner_id(path),
        "exported": _now(),
        "source": shown_path(path or progress_path()),  # the learner's home folder names them: never in a hand-in
        "attempts": attempts,
        "sources": sources,
        "latest": latest,
        "skipped_lines": skipped,
    }
    return data


EXPORT_LINK_BYTES = 8 * 1024 * 1024
"""An export larger than this gets no download link (a notebook output that size slows the browser): the terminal command instead."""


def unsaved_note(target: Path, exc: OSError) -> str:
    """The line said beside a run the progress log could not take: why, that the result stands, and how to save the next runs."""
    return (f"progress is not being saved: cannot write {target} ({exc.strerror or exc}); this run's result above is unaffected. "
            "To save the next runs, set FAILUREMAP_PROGRESS to a writable file: in a notebook, a cell "
            "%env FAILUREMAP_PROGRESS=/tmp/failuremap-progress.jsonl before the exercise cell")


def export_link_html(path: Path | None = None) -> str:
    """An "export everything" download link (a data: link of what ``failuremap-edu export`` writes); empty without runs.

    For learners without a terminal (a hub whose terminal lacks the command, a
    browser-only site): the browser saves the file into its downloads folder.
    """
    import base64
    from html import escape

    data = export_data(path)
    if not data["attempts"]:
        return ""
    text = _export_text(data).encode("utf-8")
    if len(text) > EXPORT_LINK_BYTES:
        return (f'<p class="fm-muted">Your export is {len(text):,} bytes, too large for a link here: run '
                "<code>failuremap-edu export</code> in a terminal and download the file it names.</p>")
    name = f"failuremap-export-{file_tag(path)}.json"
    href = "data:application/json;charset=utf-8;base64," + base64.b64encode(text).decode("ascii")
    return (f'<p><a class="fm-download" download="{escape(name)}" href="{href}">⬇ Export everything (.json)</a> '
            f'<span class="fm-muted">{_runs_in(data["attempts"])}, as of {time.strftime("%H:%M:%S")}: hand this file in to your instructor.</span></p>')


def _runs_in(attempts: list[dict]) -> str:
    """``5 runs`` as the progress table counts them (a run of the solve cell over all variants is one run), with the
    number of results when that differs (one per variant), so the two numbers a learner sees never disagree unexplained."""
    runs = len(cell_runs(attempts))
    text = f"{runs} run{'s' if runs != 1 else ''}"
    if runs == len(attempts):
        return text
    # Not "one per variant": a cell run also gets a result per variant change and per "Run checks again"
    # (one run with 5 variants can count 11 results).
    return f"{text} of the exercise cell, {len(attempts)} results (each variant checked and each re-run is one)"
