"""Records: loading, validation, integrity, and never executing record code."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from conftest import PACKAGED, reseal
from failuremap_edu import RecordError, list_records, load_record
from failuremap_edu._records import packaged_records_dir

SHARED = Path(__file__).resolve().parents[2] / "shared" / "records"


def test_packaged_records_are_byte_for_byte_copies():
    if not SHARED.is_dir():
        pytest.skip("../shared/records is not beside this checkout")
    for record_id in PACKAGED:
        assert (packaged_records_dir() / f"{record_id}.json").read_bytes() == (SHARED / f"{record_id}.json").read_bytes()


def test_list_records_lists_packaged_ids():
    assert list_records() == list(PACKAGED)


@pytest.mark.parametrize("record_id", PACKAGED)
def test_load_by_id_and_by_path_agree(record_id):
    by_id = load_record(record_id)
    by_path = load_record(packaged_records_dir() / f"{record_id}.json")
    assert by_id.id == by_path.id == record_id
    assert by_id.origin == f"packaged:{record_id}" and by_id.packaged
    assert not by_path.packaged
    assert by_id.implementations["attempt"].source == by_path.implementations["attempt"].source
    assert [o.check for o in by_id.verification["broken"].observations] == [
        o.check for o in by_path.verification["broken"].observations
    ]


def test_record_fields(stopping):
    assert stopping.contract_signature == "text, stops"
    assert str(stopping.params) == "text, stops"
    assert stopping.license == "CC0-1.0" and stopping.verified and stopping.checks == 6
    first = stopping.verification["attempt"].observations[0]
    assert (first.check, first.actual, first.expected, first.passed) == (
        "partial marker held", ["hel", "lo<st"], ["hello", "<st"], False,
    )


def test_record_is_immutable(stopping):
    with pytest.raises(dataclasses.FrozenInstanceError):
        stopping.title = "changed"
    with pytest.raises(TypeError):
        stopping.implementations["attempt"] = None
    with pytest.raises(TypeError):
        stopping.provenance["license"] = "GPL"
    # Values decoded from a recorded observation are fresh copies each time.
    first = stopping.verification["attempt"].observations[0]
    first.actual.append("tampered")
    assert first.actual == ["hel", "lo<st"]


def test_repr_is_short_even_for_huge_titles(raw_record, write_record):
    raw_record["title"] = "<script>alert(1)</script>" + "x" * 5_000_000
    record = load_record(write_record(raw_record))
    assert len(repr(record)) < 200
    assert record.title.startswith("<script>")  # kept verbatim; renderers escape it


def _mutate(raw, path, value):
    target = raw
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return raw


_DELETE = object()


def _replace_source(raw, impl, old, new):
    raw["implementations"][impl]["source"] = raw["implementations"][impl]["source"].replace(old, new)
    return reseal(raw)


MALFORMED = {
    # name: (builder(raw) -> bytes|dict, expected message fragment)
    "truncated JSON": (lambda raw: json.dumps(raw).encode()[:500], "not valid JSON: Unterminated string"),
    "empty file": (lambda raw: b"", "empty file"),
    "whitespace only": (lambda raw: b"  \n", "empty file"),
    "JSON array": (lambda raw: b"[1, 2]", "expected a JSON object, got an array"),
    "non-UTF-8 bytes": (lambda raw: b'{"id": "\xff\xfe"}', "not UTF-8 text (byte 0xff at offset 8)"),
    "missing field": (lambda raw: _mutate(raw, ["contract"], _DELETE), "contract: missing required field"),
    "missing implementation": (
        lambda raw: _mutate(raw, ["implementations", "broken"], _DELETE),
        "implementations.broken: missing required implementation",
    ),
    "wrong type": (lambda raw: _mutate(raw, ["title"], 42), "title: expected a string, got a number"),
    "boolean as count": (lambda raw: _mutate(raw, ["checks"], True), "checks: expected an integer, got a boolean"),
    "observation not an object": (
        lambda raw: _mutate(raw, ["verification", "attempt", "observations"], [1]),
        "verification.attempt.observations[0]: expected an object, got a number",
    ),
    "observation missing actual": (
        lambda raw: (raw["verification"]["attempt"]["observations"][0].pop("actual"), raw)[1],
        "verification.attempt.observations[0].actual: missing required field",
    ),
    "unsafe id": (lambda raw: _mutate(raw, ["id"], "../../etc/passwd"), "id: must be 1-80 letters"),
    "bad contract signature": (
        lambda raw: _mutate(raw, ["contract_signature"], "text,, stops"),
        "contract_signature: 'text,, stops' is not a Python parameter list",
    ),
    "sha256 mismatch": (
        lambda raw: (raw["implementations"]["attempt"].__setitem__("source", raw["implementations"]["attempt"]["source"] + "\nimport os\n"), raw)[1],
        "implementations.attempt.source: sha256 mismatch: the record declares 697f899a2ccc…",
    ),
    "malformed sha256": (
        lambda raw: _mutate(raw, ["implementations", "attempt", "sha256"], "abc"),
        "implementations.attempt.sha256: must be 64 lowercase hex digits",
    ),
    "syntax error in a source": (
        lambda raw: _replace_source(raw, "broken", "return text,", "return text,)"),
        "implementations.broken.source: syntax error at line 7",
    ),
    "source with no solve": (
        lambda raw: _replace_source(raw, "attempt", "def solve(text, stops):", "def answer(text, stops):"),
        "implementations.attempt.source: defines no top-level function 'solve'",
    ),
    "signature mismatch": (
        lambda raw: _replace_source(raw, "attempt", "def solve(text, stops):", "def solve(text):"),
        "implementations.attempt.source: solve signature does not fit contract_signature: takes 1 positional argument",
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_records_get_one_line_errors(name, raw_record, write_record):
    build, expected = MALFORMED[name]
    path = write_record(build(raw_record))
    with pytest.raises(RecordError) as info:
        load_record(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": ")
    assert expected in message
    assert "\n" not in message and len(message) < 400


def test_missing_file_and_unknown_id(tmp_path):
    with pytest.raises(RecordError, match=r"nope\.json: no such file"):
        load_record(tmp_path / "nope.json")
    with pytest.raises(RecordError, match=r"FA-999999: no packaged record with this id \(packaged: FA-100061, FA-100786\)"):
        load_record("FA-999999")
    with pytest.raises(RecordError, match="is a directory"):
        load_record(tmp_path)


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_a_packaged_id_wins_over_a_same_named_entry_in_the_working_folder(kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    entry = tmp_path / "FA-100786"  # what `record edit FA-100786` makes
    entry.mkdir() if kind == "folder" else entry.write_text("{}")
    record = load_record("FA-100786")
    assert record.packaged and record.id == "FA-100786"
    with pytest.raises(RecordError, match="is a directory" if kind == "folder" else "id: missing") as raised:
        load_record("./FA-100786")  # a path names the entry itself
    assert not str(raised.value).startswith("packaged:")


def test_html_in_text_fields_loads_verbatim(raw_record, write_record):
    raw_record["title"] = '<script>alert("x")</script> & <stop>'
    raw_record["root_cause"] = "<img src=x onerror=alert(1)>"
    record = load_record(write_record(raw_record))
    assert record.title == '<script>alert("x")</script> & <stop>'
    assert record.root_cause == "<img src=x onerror=alert(1)>"


def test_five_megabyte_field_loads(raw_record, write_record):
    raw_record["limitations"] = "L" * 5_000_000
    assert len(load_record(write_record(raw_record)).limitations) == 5_000_000


def test_oversized_file_is_refused_before_parsing(tmp_path, monkeypatch):
    from failuremap_edu import _records

    monkeypatch.setattr(_records, "MAX_RECORD_BYTES", 1_000)
    path = tmp_path / "big.json"
    path.write_text("{" + " " * 2_000 + "}")
    with pytest.raises(RecordError, match="records over 1,000 bytes are refused"):
        load_record(path)


SENTINEL_SOURCE = "import pathlib\npathlib.Path({path!r}).write_text('executed')\n"


def test_loading_listing_and_showing_never_execute_record_code(raw_record, write_record, tmp_path, capsys):
    """A record whose scripts would leave a file behind if anything ran them."""
    from failuremap_edu._fixtures import read_fixtures
    from failuremap_edu.instructor._cli import main

    sentinel = tmp_path / "sentinel"
    for impl in raw_record["implementations"].values():
        impl["source"] = SENTINEL_SOURCE.format(path=str(sentinel)) + impl["source"]
    path = write_record(reseal(raw_record))
    record = load_record(path)
    read_fixtures(record)
    assert main(["show", str(path)]) == 0
    assert main(["show", str(path), "--json"]) == 0
    assert main(["list"]) == 0
    capsys.readouterr()
    assert not sentinel.exists()


def test_tampered_source_is_never_run(raw_record, write_record, tmp_path, capsys):
    from failuremap_edu.instructor._cli import main

    sentinel = tmp_path / "sentinel"
    raw_record["implementations"]["attempt"]["source"] = SENTINEL_SOURCE.format(path=str(sentinel)) + raw_record[
        "implementations"
    ]["attempt"]["source"]  # sha256 left as it was: tampered
    path = write_record(raw_record)
    solution = tmp_path / "solution.py"
    solution.write_text("def solve(text, stops):\n    return text, ''\n")
    assert main(["verify", str(path)]) == 2
    assert main(["check", str(path), str(solution)]) == 2
    err = capsys.readouterr().err
    assert "sha256 mismatch" in err and "Traceback" not in err
    assert not sentinel.exists()


def test_sha256_is_over_utf8_source(raw_record):
    for impl in raw_record["implementations"].values():
        assert hashlib.sha256(impl["source"].encode("utf-8")).hexdigest() == impl["sha256"]


def test_a_huge_integer_is_a_one_line_record_error(raw_record, write_record):
    text = json.dumps(raw_record)
    with pytest.raises(RecordError) as caught:
        load_record(write_record(text.replace('"checks": 6', '"checks": ' + "9" * 5_000)))
    assert str(caught.value).endswith(": cannot be read: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits")
    raw_record["verification"]["attempt"]["elapsed_ms"] = 10**400  # a number JSON allows and a float cannot hold
    with pytest.raises(RecordError, match=r"verification\.attempt\.elapsed_ms: a number too large$"):
        load_record(write_record(raw_record))


def test_a_record_is_validated_once_per_content(raw_record, write_record):
    """The exercise cell loads its record on every run: the same bytes give the same Record, edited bytes a new one."""
    path = write_record(raw_record, name="edited.json")
    first = load_record(path)
    assert load_record(path) is first and load_record(str(path)) is not None
    raw_record["title"] = "A new title"
    path.write_text(json.dumps(raw_record), encoding="utf-8")
    assert load_record(path).title == "A new title"
    raw_record["implementations"]["broken"]["sha256"] = "0" * 64  # an edit that breaks it is refused, not served from before
    path.write_text(json.dumps(raw_record), encoding="utf-8")
    with pytest.raises(RecordError, match="sha256"):
        load_record(path)
