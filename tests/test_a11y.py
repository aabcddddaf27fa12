"""Accessibility of our outputs in a real JupyterLab (issue 26): axe-core, the keyboard, a live region, 200 % zoom.

axe-core comes from npm (package.json; `make test` runs `npm ci`). JupyterLab's `<body>` is
0 px tall with `overflow: hidden`, so axe would treat the whole notebook as hidden and check
the colour contrast of almost nothing: the audit injects `html, body {height: 100%}` and uses
a tall viewport, for the measurement only, and asserts that contrast was really checked on
many nodes. axe is scoped to our outputs (the panel and the HTML we render): JupyterLab's
own chrome has violations of its own. Themes are set through JupyterLab's settings API.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest

from test_browser import ARTIFACTS, browser, lab, notebook, open_notebook, panel_status, run_all, solve_cell, wait_idle  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
NOTEBOOK = "FA-100061.ipynb"  # its checks use N: the variant controls are there too
ATTEMPT = "3/6 checks pass (3 fail)"
EXAMPLE = "[['a', 'x', 1], ['b', 'y', 0]]"
OURS = [".fm-panel", ".jp-RenderedHTMLCommon .fm-root"]  # the exercise panel, and watch it fail (plain HTML outputs)
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
THEMES = ["JupyterLab Light", "JupyterLab Dark"]


def put_setting(lab: str, plugin: str, value: dict) -> None:
    """JupyterLab's settings API, as the Settings menu would."""
    body = json.dumps({"raw": json.dumps(value)}).encode()
    request = urllib.request.Request(
        f"{lab}/lab/api/settings/{plugin}", data=body, method="PUT",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status in (200, 204), response.status


def set_theme(lab: str, theme: str) -> None:
    put_setting(lab, "@jupyterlab/apputils-extension:themes", {"theme": theme})


@pytest.fixture
def new_page(browser):  # noqa: F811
    contexts = []

    def make(width=1400, height=1000):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(60_000)
        return page

    yield make
    for context in contexts:
        context.close()


def panel(page):
    return solve_cell(page).locator(".fm-panel").first


FOLDS = ("Keep your work: downloads", "Compared with the record's broken and attempt", "Hints", "Playground: try any inputs")


def restart_kernel(lab: str, name: str) -> None:
    """Restart the kernel of notebook `name`, if it has one: a test starts from a fresh exercise (no hint shown, no
    playground input), not from what an earlier test left in the kernel (the CI run of 582f3f3 failed on that)."""
    with urllib.request.urlopen(f"{lab}/api/sessions", timeout=10) as response:
        sessions = json.load(response)
    for session in sessions:
        if session.get("path", "").endswith(name) and session.get("kernel"):
            request = urllib.request.Request(f"{lab}/api/kernels/{session['kernel']['id']}/restart", data=b"", method="POST")
            with urllib.request.urlopen(request, timeout=60) as response:
                assert response.status == 200, response.status


def ran(page, lab: str) -> None:  # noqa: F811
    """The notebook run in a fresh kernel: every folded part folded."""
    restart_kernel(lab, NOTEBOOK)
    open_notebook(page, lab, NOTEBOOK)
    run_all(page)
    expect(panel_status(page)).to_have_text(ATTEMPT, timeout=120_000)
    wait_idle(page)
    for title in FOLDS:
        expect(panel(page).locator(".widget-button", has_text=f"▸ {title}")).to_have_count(1)


def open_everything(page) -> None:
    """Every hint shown, the playground in use, every details element open."""
    ui = panel(page)
    for title in FOLDS:
        fold = ui.locator(".widget-button", has_text=f"▸ {title}")  # a folded part, made when opened
        if fold.count():
            fold.click()
            expect(ui.locator(".widget-button", has_text=f"▾ {title}")).to_have_count(1)
    button = ui.locator(".widget-button", has_text="Show next hint")
    expect(button).to_have_count(1)
    while button.is_enabled():
        shown = ui.locator(".widget-html ol li").count()
        button.click()
        expect(ui.locator(".widget-html ol li")).to_have_count(shown + 1)
    box = ui.locator(".widget-text input[type='text']")
    box.click()
    box.press_sequentially(EXAMPLE, delay=10)
    expect(ui.locator(".fm-playground tbody tr")).to_have_count(3)
    wait_idle(page)
    opened = page.evaluate("() => { const all = [...document.querySelectorAll('.fm-root details')]; all.forEach(d => d.open = true); return all.length }")
    assert opened >= 3, opened


def axe(page) -> dict:
    """Run axe on our outputs, with the measurement-only body height, and return its result."""
    assert AXE.is_file(), f"{AXE} is missing: `make test` (npm ci) installs axe-core"
    page.add_style_tag(content="html, body {height: 100% !important}")
    page.set_viewport_size({"width": 1400, "height": 9000})
    notebook(page).locator(".jp-WindowedPanel-outer").first.evaluate("e => e.scrollTop = 0")  # every cell inside the viewport
    page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async ([include, tags]) => {
            const found = include.filter(s => document.querySelector(s));
            const r = await axe.run({include: found.map(s => [s])}, {runOnly: {type: 'tag', values: tags}});
            const nodes = rule => ((r.passes.find(x => x.id === rule) || {nodes: []}).nodes.length
                                  + (r.violations.find(x => x.id === rule) || {nodes: []}).nodes.length);
            return {found, contrast: nodes('color-contrast'),
                    violations: r.violations.map(v => ({id: v.id, nodes: v.nodes.map(n => [n.target.join(' '), n.failureSummary.split('\\n').slice(1).join(' ')])}))};
        }""",
        [OURS, WCAG],
    )


@pytest.mark.parametrize("theme", THEMES)
def test_axe_finds_no_violation_in_the_panel_and_watch_it_fail(new_page, lab, theme):  # noqa: F811
    set_theme(lab, theme)
    # Every cell in the DOM and rendered, for the measurement: off-screen cells would count as hidden.
    put_setting(lab, "@jupyterlab/notebook-extension:tracker", {"windowingMode": "none"})
    try:
        page = new_page()
        ran(page, lab)
        expect(page.locator("body")).to_have_attribute("data-jp-theme-name", theme)
        open_everything(page)
        result = axe(page)
        stem = "a11y-" + theme.split()[-1].lower()
        (ARTIFACTS / f"{stem}-axe.json").write_text(json.dumps(result, indent=1))
        page.set_viewport_size({"width": 1400, "height": 1000})
        panel(page).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"{stem}-panel.png"))
    finally:
        set_theme(lab, "JupyterLab Light")
        put_setting(lab, "@jupyterlab/notebook-extension:tracker", {})
    assert result["found"] == OURS, result["found"]
    assert result["contrast"] >= 100, f"colour contrast checked on {result['contrast']} nodes only: axe saw the notebook as hidden"
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)


def test_keyboard_walks_the_panel_and_focus_never_lands_on_body(new_page, lab):  # noqa: F811
    """Tab through every control of the panel; press each button (Space) and each becomes-disabled case; focus stays."""
    page = new_page()
    ran(page, lab)
    ui = panel(page)
    page.evaluate(
        """() => { window.__lost = []; window.__changes = 0;
            new MutationObserver(ms => { window.__changes += ms.length }).observe(document.querySelector('.fm-panel'), {subtree: true, childList: true, attributes: true, characterData: true});
            document.addEventListener('focusout', e => { const from = e.target;
                setTimeout(() => { if (document.activeElement === document.body) window.__lost.push(from.outerHTML.slice(0, 120)) }, 0) }, true) }"""
    )
    first = ui.locator("select, input, button, a[href], summary").first
    first.focus()
    in_panel = "() => !!document.activeElement.closest('.fm-panel')"
    # A folded part's button says ▸ (folded) or ▾ (open) before its title: the same control either way.
    name = """() => { const a = document.activeElement, label = a.labels && a.labels.length ? a.labels[0].innerText : '';
                      return (label || a.innerText || a.getAttribute('aria-label') || a.title || a.tagName).trim().replace(/^[▸▾] /, '').slice(0, 60) }"""
    ring = "() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth + ' ' + s.outlineColor }"
    seen, pressed, rings = [], [], {}
    for _ in range(80):
        assert page.evaluate(in_panel), f"focus left the panel after {seen}"
        label = page.evaluate(name)
        seen.append(label)
        rings[label] = page.evaluate(ring)
        moved = False
        if label not in pressed and page.evaluate("() => document.activeElement.matches('button.widget-button:not(:disabled)')"):
            for _ in range(5 if label == "Show next hint" else 1):  # past the last hint: the button disables itself
                if page.evaluate(name) != label:
                    moved = True  # the press moved focus on (to Hide hints, after the last hint)
                    break
                before = page.evaluate("() => window.__changes")
                page.keyboard.press("Space")
                pressed.append(label)
                # The press has had its effect: the panel changed, and (after a run) the summary is back.
                page.wait_for_function("n => window.__changes > n", arg=before)
                expect(panel_status(page)).to_have_text(ATTEMPT)
                expect(ui.locator("[role='status']")).to_have_count(1)
                wait_idle(page)
                page.wait_for_function("() => document.activeElement !== document.body || window.__lost.length", timeout=10_000)
                assert page.evaluate("() => window.__lost") == [], f"focus fell to <body> after pressing {label!r}"
            moved = moved or page.evaluate(name) != label
        if moved:
            continue  # the new control gets its turn before the next Tab
        page.keyboard.press("Tab")
        if not page.evaluate(in_panel):
            break
    assert page.evaluate("() => window.__lost") == [], page.evaluate("() => window.__lost")
    joined = " | ".join(seen)
    for control in ("Variant N", "all variants", "Run checks again", "Show next hint", "Hide hints", "Download your solve", "Arguments to try"):
        assert control.lower() in joined.lower() or any(control in p for p in pressed), f"{control!r} not reached by Tab: {joined}"
    assert {"Run checks again", "Show next hint", "Hide hints"} <= {p for p in pressed}, pressed
    # A visible focus ring on every control: 2 px solid in the theme's focus colour (#1565c0, 5.7:1 on white)
    assert {label: r for label, r in rings.items() if r != "solid 2px rgb(21, 101, 192)"} == {}, rings
    expect(panel_status(page)).to_have_text(ATTEMPT)


def test_arrow_keys_change_the_variant_and_stay_in_the_panel(new_page, lab):  # noqa: F811
    page = new_page()
    ran(page, lab)
    ui = panel(page)
    number = ui.locator(".widget-inline-hbox input[type='number']").first
    number.focus()
    active_cell = lambda: notebook(page).locator(".jp-Cell.jp-mod-active").first.get_attribute("data-windowed-list-index")  # noqa: E731
    before = active_cell()
    page.keyboard.press("ArrowUp")
    expect(number).to_have_value("2")
    expect(ui.locator(".widget-html code", has_text="a2").first).to_be_visible()
    wait_idle(page)
    page.keyboard.press("ArrowDown")
    expect(number).to_have_value("1")
    wait_idle(page)
    assert page.evaluate("() => document.activeElement.closest('.fm-panel') !== null && document.activeElement.type === 'number'")
    assert active_cell() == before


def test_the_summary_line_is_a_polite_live_region(new_page, lab):  # noqa: F811
    page = new_page()
    ran(page, lab)
    regions = panel(page).locator("[aria-live], [role='status'], [role='alert']")
    expect(regions).to_have_count(1)  # only the summary line is announced
    expect(regions.first).to_have_attribute("aria-live", "polite")
    expect(regions.first).to_have_attribute("role", "status")
    expect(regions.first).to_have_text(ATTEMPT)
    names = panel(page).locator(".widget-button").evaluate_all("bs => bs.map(b => b.querySelector('i.fa') ? 'icon:' + b.innerText : b.innerText)")
    assert not [n for n in names if n.startswith("icon:")], names  # no icon-font glyph in a button's name
    open_everything(page)
    headings = panel(page).locator("h3, h4").all_inner_texts()
    assert "Hints" in headings and any(h.startswith("Playground") for h in headings), headings
    expect(panel(page).locator(".widget-text input[type='text']")).to_have_accessible_name("Arguments to try, as between solve( and )")
    expect(panel(page).locator(".widget-text input[type='number']")).to_have_accessible_name("Variant N (1–5)")


def test_the_panel_reflows_at_200_percent_zoom_with_the_file_browser_open(new_page, lab):  # noqa: F811
    """683x450 CSS px is 1366x900 at 200 %: no horizontal scrolling, no cut-off label, no clipped text."""
    page = new_page(683, 450)
    ran(page, lab)
    if not page.locator("#filebrowser").is_visible():
        page.locator(".jp-SideBar [data-id='filebrowser']").click()
    expect(page.locator("#filebrowser")).to_be_visible()
    ui = panel(page)
    ui.scroll_into_view_if_needed()
    width = ui.evaluate("p => p.getBoundingClientRect().width")
    assert width < 420, width  # the narrow case really is tested
    page.screenshot(path=str(ARTIFACTS / "a11y-683x450.png"))
    problems = ui.evaluate(
        """p => { const right = p.getBoundingClientRect().right + 1, out = [];
            if (p.scrollWidth > p.clientWidth + 1) out.push('panel scrolls: ' + p.scrollWidth + ' > ' + p.clientWidth);
            for (const el of p.querySelectorAll('*')) {
                if (!el.getClientRects().length || el.closest('.fm-named-box .widget-label')) continue;  // the label only a screen reader meets
                if (el.closest('.fm-textdiff, pre')) continue;  // aligned diffs and long tracebacks scroll inside their own box
                const r = el.getBoundingClientRect();
                if (r.right > right) out.push('past the edge: ' + el.tagName + '.' + el.className + ' ' + (el.innerText || '').slice(0, 40));
                const s = getComputedStyle(el);
                if (el.scrollWidth > el.clientWidth + 1 && ['hidden', 'clip'].includes(s.overflowX) && (el.innerText || '').trim())
                    out.push('clipped: ' + el.tagName + '.' + el.className + ' ' + el.innerText.slice(0, 40));
            }
            return out }"""
    )
    assert problems == [], "\n".join(problems)
