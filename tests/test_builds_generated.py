"""`notebook`, `workshop` and `lite` build every generated record that the harness verifies (issue 32's acceptance).

Each record of `generate_records` is sealed by the real harness; those that
`verify` confirms are built through the CLI, as an instructor would: a notebook
each, then one workshop and one JupyterLite site of them all, into temporary
folders. A sample runs in the fast suite, each command making its own runs; every
slow seed runs under ``slow``, where the three commands share one `SharedRuns`
(the CLI's `main(..., runs=)`), so each record's runs are made once and each
command still builds and writes every notebook. The slow corpus is the one
test_parity_generated sealed in this pytest process, when it has (sealing 2,000
records with the real harness takes about 10 minutes); alone, this test seals it
and leaves it there. The site's networked steps (Pyodide, the PyPI wheels,
``jupyter lite build``) are the stand-ins of test_lite's `fake_build`: what can
refuse a record is ours.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest

from failuremap_edu.instructor._catalog import verify_many
from failuremap_edu.instructor._cli import main
from failuremap_edu.instructor._notebook_runs import SharedRuns
from test_lite import fake_build  # noqa: F401 - the fixture
from test_parity_generated import _SEALED, SLOW_SEEDS, _sealed

SAMPLE = range(1000, 1008)


def _corpus(seeds, folder: Path, sealed_in: Path) -> tuple[list[Path], int]:
    """The sealed records that `verify` confirms, copied to `folder`; and how many were sealed.

    The records of `seeds` are sealed once per pytest process (`test_parity_generated._SEALED`), in `sealed_in` when
    this test seals them."""
    if seeds not in _SEALED:
        _SEALED[seeds] = _sealed(seeds, sealed_in)
    sealed = _SEALED[seeds]
    folder.mkdir()
    paths = []
    for _, _, record in sealed:
        path = folder / Path(record.origin).name
        path.write_bytes(Path(record.origin).read_bytes())
        paths.append(path)
    verified = []
    for path, entry in zip(paths, verify_many([str(p) for p in paths])):
        if entry.ok:
            verified.append(path)
        else:
            path.unlink()
    return verified, len(sealed)


def _cli(capsys, *argv, runs: SharedRuns | None = None) -> tuple[int, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv], runs=runs)
    return code, capsys.readouterr().err


def _builds_every_record(seeds, tmp_path, capsys, runs: SharedRuns | None = None) -> tuple[int, int, str]:
    """(records sealed, records verified and built, the seconds each step took); `runs`: shared by the three commands."""
    began = time.monotonic()
    reused = seeds in _SEALED
    paths, sealed = _corpus(seeds, tmp_path / "records", tmp_path / "sealed")
    corpus_s, began = time.monotonic() - began, time.monotonic()
    assert len(paths) >= 0.9 * sealed > 0, f"{len(paths)} of {sealed} sealed records verify"
    ids = sorted(p.stem for p in paths)
    refused = []
    for path in paths:
        code, err = _cli(capsys, "notebook", path, "-o", tmp_path / "notebooks", runs=runs)
        if code != 0:
            refused.append(f"notebook {path.stem}: {err.strip()}")
    assert not refused, "\n".join(refused[:10])
    assert runs is None or len(runs) == len(ids)  # the notebook command kept each record's runs for the other two
    assert sorted(p.stem for p in (tmp_path / "notebooks").glob("GEN-*.ipynb")) == ids
    nbformat.validate(nbformat.read(str(tmp_path / "notebooks" / f"{ids[0]}.ipynb"), as_version=4))

    code, err = _cli(capsys, "workshop", "--records-dir", tmp_path / "records", "-o", tmp_path / "workshop", runs=runs)
    assert code == 0, err
    notebooks = tmp_path / "workshop" / "notebooks"
    assert sorted(p.stem for p in notebooks.glob("GEN-*.ipynb")) == ids
    assert sorted(p.stem for p in (notebooks / "records").glob("GEN-*.json")) == ids

    code, err = _cli(capsys, "lite", "--records-dir", tmp_path / "records", "-o", tmp_path / "site", runs=runs)
    assert code == 0, err
    files = tmp_path / "site" / "files"
    assert sorted(p.stem for p in files.glob("GEN-*.ipynb")) == ids
    assert sorted(p.stem for p in (files / "records").glob("GEN-*.json")) == ids
    seconds = f"corpus {corpus_s:.0f} s ({'sealed before, verified' if reused else 'sealed and verified'}), builds {time.monotonic() - began:.0f} s"
    return sealed, len(ids), seconds


def test_a_sample_of_generated_records_builds_as_notebooks_a_workshop_and_a_site(fake_build, tmp_path, capsys):  # noqa: F811
    _builds_every_record(SAMPLE, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.timeout(7200)  # about 10 minutes on a quiet 2-core machine with the corpus sealed; at a load of 9, over an hour
def test_every_generated_record_of_the_slow_seeds_the_harness_verifies_builds(fake_build, tmp_path, capsys, record_property):  # noqa: F811
    runs = SharedRuns()
    sealed, built, seconds = _builds_every_record(SLOW_SEEDS, tmp_path, capsys, runs)
    assert len(runs) == built  # each record's runs made once, shared by notebook, workshop and lite
    line = f"seeds {SLOW_SEEDS.start}-{SLOW_SEEDS.stop - 1}: {sealed} sealed, {built} verified, each built by notebook, workshop and lite; {seconds}"
    record_property("built", line)
    with capsys.disabled():
        print(line)
