"""No panel scrolls sideways (WCAG 1.4.10, Reflow), for every record we have, in a real JupyterLab in Chromium.

One notebook holds two exercise cells per record: the record's attempt (failing) and a
correct solve (passing), for every record in tests/records/ and both packaged ones. The
panels are measured at a 320 CSS px wide viewport, and at 1280 px with 400 % zoom (the
same 320 CSS px, at four device pixels per CSS pixel), with every fold of the panel open:
a panel's scrollWidth is at most its clientWidth. A table that must stay wide scrolls in
its own labelled, focusable region (role=region, aria-label, tabindex=0), never the panel.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import nbformat
import pytest

from failuremap_edu._fixtures import read_fixtures
from failuremap_edu.instructor._solve_cell import learner_preamble as _learner_preamble, solve_cell as _solve_cell
from failuremap_edu._records import load_record
from test_a11y import put_setting
from test_browser import ARTIFACTS, browser, lab, notebook, open_notebook, page, run_all, wait_idle  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

ROOT = Path(__file__).resolve().parents[1]
TEST_RECORDS = sorted((ROOT / "tests" / "records").glob("TR-*.json"))
PACKAGED = ["FA-100061", "FA-100786"]
NAME = "reflow.ipynb"
SIZES = {"320px": (320, 640, 1), "1280px-at-400%": (320, 180, 4)}  # CSS px wide, CSS px tall, device pixels per CSS px


def _passing_body(record_id: str) -> str:
    """A correct solve: our reference solution for the record."""
    path = ROOT / "tests" / "records" / "solutions" / f"{record_id}.py"
    if not path.is_file():
        path = ROOT / "references" / f"{record_id}.py"
    text = path.read_text(encoding="utf-8")
    return text.split('"""', 2)[2] if text.startswith('"""') else text


def _with_decorator(ref: str, preamble: list[str], body: str) -> str:
    """The body's imports and helpers first, then the decorator right above ``def solve``.

    The decorator names an option (the default time limit), so the cell gets an exercise and a panel of its own:
    ``@fm.exercise(ID)`` twice would be one exercise, whose panel shows the latest solve's results in both cells.
    """
    head, _, solve = body.partition("\ndef solve(") if not body.startswith("def solve(") else ("", "", body[len("def solve("):])
    return _solve_cell(ref, [*preamble, head.strip()], "def solve(" + solve, decorator=f"@fm.exercise({ref!r}, timeout=2.0)")


def reflow_notebook() -> tuple[dict, list[str]]:
    """The notebook and, for each exercise cell, what it holds ("ID attempt", "ID correct")."""
    cells, names = [], []
    for ref in [str(p) for p in TEST_RECORDS] + PACKAGED:
        record = load_record(ref)
        preamble = _learner_preamble(record)
        cells.append(nbformat.v4.new_code_cell(_solve_cell(ref, preamble, read_fixtures(record).solve_source)))
        names.append(f"{record.id} attempt")
        cells.append(nbformat.v4.new_code_cell(_with_decorator(ref, preamble, _passing_body(record.id))))  # an exercise of its own: see below
        names.append(f"{record.id} correct")
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb, names


def put_notebook(lab: str, name: str, nb) -> None:  # noqa: F811
    body = json.dumps({"type": "notebook", "format": "json", "content": nb}).encode()
    request = urllib.request.Request(f"{lab}/api/contents/{name}", data=body, method="PUT", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status in (200, 201), response.status


MEASURE = """() => [...document.querySelectorAll('.jp-CodeCell .fm-panel')].map(p => {
    const out = [];
    if (p.scrollWidth > p.clientWidth + 1) out.push('panel scrolls: ' + p.scrollWidth + ' > ' + p.clientWidth);
    for (const region of p.querySelectorAll('.fm-scroll'))
        if (region.getAttribute('role') !== 'region' || !region.getAttribute('aria-label') || region.tabIndex !== 0)
            out.push('a scroll box without a name or focus: ' + region.outerHTML.slice(0, 80));
    return out })"""


@pytest.mark.timeout(1500)  # 44 exercise cells, each running its checks, on a shared machine
def test_no_panel_scrolls_sideways_for_any_record_failing_or_passing(page, lab):  # noqa: F811
    nb, names = reflow_notebook()
    put_notebook(lab, NAME, nb)
    put_setting(lab, "@jupyterlab/notebook-extension:tracker", {"windowingMode": "none"})  # every cell's panel in the DOM
    try:
        open_notebook(page, lab, NAME)
        run_all(page)
        expect(notebook(page).locator(".jp-CodeCell .fm-panel")).to_have_count(len(names), timeout=1_200_000)
        expect(notebook(page).locator(".fm-panel .fm-summary", has_text="Checking your solve")).to_have_count(0, timeout=600_000)
        wait_idle(page, timeout=300_000)
        summaries = notebook(page).locator(".fm-panel .fm-status:not(.fm-status-end) .fm-summary").all_inner_texts()
        passed = [bool(re.match(r"(\d+)/\1 checks pass\b", s.strip())) or ("timeout" in s and name.endswith("correct"))
                  for name, s in zip(names, summaries)]  # a correct solve's heavy check may hit its limit on a loaded machine
        wrong = [(n, s) for n, s, p, want in zip(names, summaries, passed, [False, True] * (len(names) // 2)) if p != want]
        assert wrong == [], wrong  # the attempt fails, the correct solve passes
        page.evaluate("() => document.querySelectorAll('.fm-panel details').forEach(d => d.open = true)")  # every fold open
        if page.locator("#filebrowser").is_visible():  # at 320 px a learner closes the side bar: the notebook is all there is
            page.locator(".jp-SideBar [data-id='filebrowser']").click()
        expect(page.locator("#filebrowser")).to_be_hidden()
        client = page.context.new_cdp_session(page)
        problems = []
        for size, (width, height, scale) in SIZES.items():
            client.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False})
            assert page.evaluate("() => [innerWidth, devicePixelRatio]") == [width, scale]
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # laid out at this size
            narrowest = page.evaluate("() => Math.max(...[...document.querySelectorAll('.fm-panel')].map(p => p.clientWidth))")
            assert 120 <= narrowest <= width, narrowest  # the narrow case really is measured, on a panel with room for text
            for name, found in zip(names, page.evaluate(MEASURE)):
                problems += [f"{size} {name}: {p}" for p in found]
            page.screenshot(path=str(ARTIFACTS / f"reflow-{size}.png"))
        client.send("Emulation.clearDeviceMetricsOverride")
    finally:
        put_setting(lab, "@jupyterlab/notebook-extension:tracker", {})
    assert problems == [], "\n".join(problems)
