"""`notebook`, `workshop` and `lite` build every generated record that the harness verifies (issue 32's acceptance).

Each record of `generate_records` is sealed by the real harness; those that
`verify` confirms are built through the CLI, as an instructor would: a notebook
each, then one workshop and one JupyterLite site of them all, into temporary
folders. A sample runs in the fast suite, the first 200 slow seeds under ``slow``. The
site's networked steps (Pyodide, the PyPI wheels, ``jupyter lite build``) are the
stand-ins of test_lite's `fake_build`: what can refuse a record is ours.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

import generate_records as gen
from failuremap_edu import load_record, verify_record
from failuremap_edu.instructor._cli import main
from test_lite import fake_build  # noqa: F401 - the fixture
from test_parity_generated import SLOW_SEEDS

SAMPLE = range(1000, 1008)
BUILT_SEEDS = SLOW_SEEDS[:200]
"""Built under ``slow``: a notebook takes about 0.5-1.4 s, so all 2,000 slow seeds would take most of CI's time."""


def _corpus(seeds, folder: Path) -> tuple[list[Path], int]:
    """The sealed records that `verify` confirms, written to `folder`; and how many were sealed."""
    folder.mkdir()
    sealed, verified = 0, []
    for seed in seeds:
        data = gen.seal(f"GEN-{seed:06d}", gen.generate(seed))
        if data is None:
            continue
        sealed += 1
        path = folder / f"GEN-{seed:06d}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if verify_record(load_record(path)).ok:
            verified.append(path)
        else:
            path.unlink()
    return verified, sealed


def _cli(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def _builds_every_record(seeds, tmp_path, capsys) -> None:
    paths, sealed = _corpus(seeds, tmp_path / "records")
    assert len(paths) >= 0.9 * sealed > 0, f"{len(paths)} of {sealed} sealed records verify"
    ids = sorted(p.stem for p in paths)
    refused = []
    for path in paths:
        code, err = _cli(capsys, "notebook", path, "-o", tmp_path / "notebooks")
        if code != 0:
            refused.append(f"notebook {path.stem}: {err.strip()}")
    assert not refused, "\n".join(refused[:10])
    assert sorted(p.stem for p in (tmp_path / "notebooks").glob("GEN-*.ipynb")) == ids
    nbformat.validate(nbformat.read(str(tmp_path / "notebooks" / f"{ids[0]}.ipynb"), as_version=4))

    code, err = _cli(capsys, "workshop", "--records-dir", tmp_path / "records", "-o", tmp_path / "workshop")
    assert code == 0, err
    notebooks = tmp_path / "workshop" / "notebooks"
    assert sorted(p.stem for p in notebooks.glob("GEN-*.ipynb")) == ids
    assert sorted(p.stem for p in (notebooks / "records").glob("GEN-*.json")) == ids

    code, err = _cli(capsys, "lite", "--records-dir", tmp_path / "records", "-o", tmp_path / "site")
    assert code == 0, err
    files = tmp_path / "site" / "files"
    assert sorted(p.stem for p in files.glob("GEN-*.ipynb")) == ids
    assert sorted(p.stem for p in (files / "records").glob("GEN-*.json")) == ids


def test_a_sample_of_generated_records_builds_as_notebooks_a_workshop_and_a_site(fake_build, tmp_path, capsys):  # noqa: F811
    _builds_every_record(SAMPLE, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_every_generated_record_of_200_slow_seeds_the_harness_verifies_builds(fake_build, tmp_path, capsys):  # noqa: F811
    _builds_every_record(BUILT_SEEDS, tmp_path, capsys)
