"""End to end in a real JupyterLab, driven in Debian's Chromium by Playwright, as a learner would.

Nothing here sleeps for a fixed time: every step waits for a real condition (the
kernel reads Idle in the status bar, a widget is present, its text is what we
expect). Each state is saved as a screenshot under artifacts/browser/; a failure
leaves its screenshot and the server log there too.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from failuremap_edu.instructor._notebook import write_all

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = os.environ.get("FAILUREMAP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]
LEARNER_NOTEBOOKS = ["FA-100786.ipynb", "FA-100061.ipynb"]
TIMEOUT_S = 2.0  # the runner's default per-check limit, which the notebooks use
LOOP_TARGET_S = 4.0  # a solve that loops on every check has every check reported within this (make bench measures it)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 with a temporary HOME, serving a copy of notebooks/."""
    assert Path(CHROMIUM).is_file(), f"{CHROMIUM} is missing: `make test` installs Debian's chromium package"
    home = tmp_path_factory.mktemp("home")
    work = home / "work"
    write_all(work, ROOT / "references")  # the committed notebooks, generated here: their language_info matches this kernel's Python
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        "JUPYTER_DATA_DIR": str(home / ".local" / "share" / "jupyter"),
        "FAILUREMAP_PROGRESS": str(home / "progress.jsonl"),
    }
    # What installing the package puts into the environment's lab settings (the shared test venv may predate it).
    settings = home / "lab-settings"
    (settings / "overrides.d").mkdir(parents=True)
    (settings / "overrides.d" / "failuremap_edu.json").write_bytes((ROOT / "failuremap_edu" / "_jupyter" / "widgets_settings.json").read_bytes())
    jupyter = Path(sys.executable).parent / "jupyter"
    port = _free_port()
    log_path = ARTIFACTS / "jupyterlab-server.log"
    log = open(log_path, "w")
    server = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--ip", "127.0.0.1", "--port", str(port), "--ServerApp.port_retries=0",
         "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True", "--allow-root",
         f"--ServerApp.root_dir={work}", f"--LabApp.app_settings_dir={settings}"],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        assert server.poll() is None, f"JupyterLab exited; see {log_path}"
        assert time.monotonic() < deadline, f"JupyterLab did not start in 120 s; see {log_path}"
        time.sleep(0.2)  # polling a server that is starting up, not waiting for the UI
    try:
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser(lab):
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        pg.screenshot(path=str(ARTIFACTS / f"FAILED-{request.node.name}.png"), full_page=True)
    context.close()


# ---------------------------------------------------------------------------- helpers


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def open_notebook(page, lab: str, name: str) -> None:
    """Open in a workspace of its own, so no other notebook's tab is restored beside it."""
    workspace = "t" + uuid.uuid4().hex[:12]
    page.goto(f"{lab}/lab/workspaces/{workspace}/tree/{name}")
    wait_idle(page)


def wait_idle(page, timeout: float = 120_000) -> None:
    """The kernel is ready only when the status bar reads '… | Idle' (the toolbar says so too early)."""
    expect(page.locator("#jp-main-statusbar")).to_contain_text(re.compile(r"\|\s*Idle"), timeout=timeout)


def run_all(page) -> None:
    page.locator("li.lm-MenuBar-item", has_text="Run").first.click()
    page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").click()


def notebook(page):
    """The notebook in the visible tab."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def solve_cell(page):
    """The exercise cell: the one that defines solve (found by its def, which survives a lost decorator line)."""
    return notebook(page).locator(".jp-CodeCell").filter(has=page.locator(".cm-content", has_text="def solve(")).first


def panel_status(page):
    return solve_cell(page).locator(".widget-html .fm-summary").first


def replace_cell_source(page, cell, source: str) -> None:
    """Type into the cell's editor as a person would: click, select all, replace."""
    editor = cell.locator(".cm-content").first
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)


def reference_body(record_id: str) -> str:
    text = (ROOT / "references" / f"{record_id}.py").read_text()
    return text.split('"""', 2)[2].strip() + "\n"


def exercise_cell(record_id: str, body: str) -> str:
    """The exercise cell as the notebook writes it: import, the decorator line, then solve."""
    return f"import failuremap_edu as fm\n\n@fm.exercise({record_id!r})\n{body}"


def errors_shown(page) -> int:
    return notebook(page).locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count()


# ------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("name", LEARNER_NOTEBOOKS)
def test_learner_session(page, lab, name):
    record_id = name.removesuffix(".ipynb")
    stem = record_id
    open_notebook(page, lab, name)
    shot(page, f"{stem}-0-opened")
    tab = page.locator("li[data-type='document-title'].lm-mod-current")
    expect(tab).not_to_have_class(re.compile(r"jp-mod-dirty"))  # opening alone does not mark it modified

    # 1. Run all: "watch it fail" shows what the attempt returned; the panel shows the attempt's true result.
    run_all(page)
    status = panel_status(page)
    expected_attempt = {"FA-100786": "1/6 checks pass (5 fail)", "FA-100061": "3/6 checks pass (3 fail)"}[record_id]
    expect(status).to_have_text(expected_attempt, timeout=120_000)
    wait_idle(page)
    assert errors_shown(page) == 0
    story = notebook(page).locator(".jp-OutputArea-output", has_text="Where they fail").first
    expect(story).to_contain_text("attempt returned")
    expect(story.locator("details summary", has_text="The code of attempt")).to_be_visible()
    solve_cell(page).scroll_into_view_if_needed()
    shot(page, f"{stem}-1-attempt")

    # 2. Type a correct solve into the exercise cell and run it: all checks pass.
    cell = solve_cell(page)
    replace_cell_source(page, cell, exercise_cell(record_id, reference_body(record_id)))
    page.keyboard.press("Shift+Enter")
    expect(panel_status(page)).to_have_text("6/6 checks pass", timeout=60_000)
    wait_idle(page)
    # JupyterLab moves on to the next cell and the panel's top scrolls away: its last line says the outcome (issue 21).
    expect(solve_cell(page).locator(".fm-status-end .fm-summary")).to_have_text("6/6 checks pass")
    expect(solve_cell(page).locator(".fm-status-end")).to_be_in_viewport()
    shot(page, f"{stem}-2-fixed")

    # Export: one click downloads the solve through the browser, results in its header.
    for title in ("Keep your work: downloads", "Hints", "Playground: try any inputs"):  # folded parts, made when opened
        solve_cell(page).locator(".jupyter-widgets").first.locator(".widget-button", has_text=f"▸ {title}").click()
    with page.expect_download() as info:
        solve_cell(page).locator("a.fm-download", has_text="your solve (.py)").click()
    download = info.value
    assert re.fullmatch(rf"{record_id}-[0-9a-f]{{6}}-\d{{8}}-\d{{6}}-solve\.py", download.suggested_filename), download.suggested_filename
    exported = Path(download.path()).read_text(encoding="utf-8")
    assert exported.startswith(f"# failuremap_edu export: {record_id}") and "# result: 6/6 checks pass" in exported
    assert "\ndef solve(" in exported and "\n@fm.exercise" not in exported

    # 3. Hints one by one, another variant (where the checks use N), and the playground.
    panel = solve_cell(page).locator(".jupyter-widgets").first
    hint_button = panel.locator(".widget-button", has_text="Show next hint")
    hints = ["Where the attempt fails", "What the attempt does there", "The plausible attempt", "Root cause"]  # all checks pass by now
    for shown, title in enumerate(hints, start=1):
        hint_button.click()
        expect(panel.locator(".widget-html ol li")).to_have_count(shown)
        expect(panel.locator(".widget-html ol li").nth(shown - 1)).to_contain_text(title)
    expect(hint_button).to_be_disabled()
    shot(page, f"{stem}-3-hints")
    if record_id == "FA-100061":
        panel.locator(".widget-text input[type='number']").fill("3")  # the variant box (a select lost its arrow keys to JupyterLab)
        expect(panel.locator(".widget-html code", has_text="a3").first).to_be_visible()
        expect(panel_status(page)).to_have_text("6/6 checks pass")
    else:
        expect(panel.locator(".widget-text input[type='number']")).to_have_count(0)  # one set of checks: no selector
    playground = panel.locator(".widget-text input[type='text']")
    playground.click()
    example = {"FA-100786": "'hello<st', ['<stop>']", "FA-100061": "[['a', 'x', 1], ['b', 'y', 0]]"}[record_id]
    playground.press_sequentially(example, delay=15)
    rows = panel.locator(".fm-playground tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("yours")
    expect(rows.nth(1)).to_contain_text("attempt")
    expect(rows.nth(2)).to_contain_text("broken")
    if record_id == "FA-100786":
        expect(rows.nth(0)).to_contain_text("('hello', '<st')")
        expect(rows.nth(1)).to_contain_text("('hel', 'lo<st')")
    wait_idle(page)
    shot(page, f"{stem}-4-playground")

    # 4. The decorator line deleted: the cell is still checked, and one line says what to put back.
    replace_cell_source(page, solve_cell(page), reference_body(record_id))
    page.keyboard.press("Shift+Enter")
    note = solve_cell(page).locator(".jp-OutputArea-output", has_text="without the line @fm.exercise")
    expect(note).to_contain_text(f"@fm.exercise('{record_id}')")
    expect(panel_status(page)).to_have_text("6/6 checks pass")
    wait_idle(page)
    shot(page, f"{stem}-5-no-decorator")

    # 5. A loop on every check: every check is reported, the playground follows the new solve, the notebook lives on.
    replace_cell_source(page, solve_cell(page), exercise_cell(record_id, "def solve(*args):\n    while True:\n        pass\n"))
    started = time.monotonic()
    page.keyboard.press("Shift+Enter")
    expect(solve_cell(page).locator(".fm-badge.fm-timeout").first).to_be_visible(timeout=30_000)
    first_timeout = time.monotonic() - started
    assert first_timeout < TIMEOUT_S + 8, f"first timeout shown after {first_timeout:.1f} s"
    expect(panel_status(page)).to_have_text("0/6 checks pass (6 timeout)", timeout=60_000)
    every_check = time.monotonic() - started
    # The target (issue 10): every check reported within 4 s of a 2 s limit; the slack is the browser's round trips.
    assert every_check < LOOP_TARGET_S + 4, f"every check reported after {every_check:.1f} s"
    panel_status(page).scroll_into_view_if_needed()
    shot(page, f"{stem}-6-timeout")
    expect(solve_cell(page).locator(".fm-playground tbody tr").nth(0)).to_contain_text("timeout")  # re-ran with the new solve
    wait_idle(page)
    page.keyboard.press("Escape")
    page.keyboard.press("b")  # a new cell below, in command mode
    page.keyboard.press("Enter")
    page.keyboard.insert_text("print(6 * 7)")
    page.keyboard.press("Shift+Enter")
    expect(notebook(page).locator(".jp-OutputArea-output", has_text=re.compile(r"^\s*42\s*$"))).to_have_count(1)
    shot(page, f"{stem}-7-still-alive")


def test_a_notebook_reopened_with_a_new_kernel_shows_its_last_results(page, lab):
    """A learner trial: reopened with a new kernel, the exercise cell said only "Error displaying widget: model not found"."""
    import json

    open_notebook(page, lab, "FA-100061.ipynb")
    run_all(page)
    expect(panel_status(page)).to_have_text("3/6 checks pass (3 fail)", timeout=120_000)
    wait_idle(page)
    page.keyboard.press("Control+s")
    tab = page.locator("li[data-type='document-title'].lm-mod-current")
    expect(tab).not_to_have_class(re.compile(r"jp-mod-dirty"))
    with urllib.request.urlopen(f"{lab}/api/kernels", timeout=10) as response:
        kernels = json.load(response)
    for kernel in kernels:  # the kernel goes away, as after a shutdown or on another day
        urllib.request.urlopen(urllib.request.Request(f"{lab}/api/kernels/{kernel['id']}", method="DELETE"), timeout=10).close()
    page.reload()
    wait_idle(page)
    cell = solve_cell(page)
    cell.scroll_into_view_if_needed()
    shot(page, "FA-100061-reopened")
    expect(cell.locator(".jp-OutputArea")).to_contain_text("3/6 checks pass (3 fail)")
    stale = cell.locator(".fm-stale").first  # shown only while the panel has no kernel: it says to run the cell again
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("Run the exercise cell again")
    expect(cell.locator(".jp-OutputArea")).not_to_contain_text("model not found")


def test_a_notebook_saved_after_a_kernel_restart_still_shows_its_last_results(page, lab):
    """A learner trial: restart, save, reload: the saved notebook held no widget state (the restart cleared it), and
    the cell said only "Error displaying widget: model not found". The saved copy above the panel shows instead."""
    open_notebook(page, lab, "FA-100061.ipynb")
    run_all(page)
    expect(panel_status(page)).to_have_text("3/6 checks pass (3 fail)", timeout=120_000)
    wait_idle(page)
    cell = solve_cell(page)
    expect(cell.locator(".fm-saved")).to_be_hidden()  # the live panel is drawn: its copy is not shown
    # As the learner did: the Kernel menu's restart (the REST API's restart keeps the page's widget models; this one did not).
    page.locator("li.lm-MenuBar-item", has_text="Kernel").first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…?$")).first.click()
    page.locator(".jp-Dialog-button.jp-mod-accept, .jp-Dialog-button.jp-mod-warn").first.click()
    expect(page.locator("#jp-main-statusbar")).to_contain_text(re.compile(r"\|\s*Idle"), timeout=120_000)
    wait_idle(page)
    # The panel lost its kernel: one line says so, and one broken-link icon (the panel's), not one per widget.
    expect(cell.locator(".fm-stale")).to_be_visible(timeout=20_000)
    icons = cell.locator(".fm-panel, .fm-panel .jupyter-widgets-disconnected").evaluate_all(
        "els => els.filter(e => e.classList.contains('jupyter-widgets-disconnected')"
        " && getComputedStyle(e, '::before').display !== 'none').length")
    assert icons == 1, icons
    page.keyboard.press("Control+s")
    tab = page.locator("li[data-type='document-title'].lm-mod-current")
    expect(tab).not_to_have_class(re.compile(r"jp-mod-dirty"))
    page.reload()
    wait_idle(page)
    cell = solve_cell(page)
    cell.scroll_into_view_if_needed()
    shot(page, "FA-100061-restarted-saved-reloaded")
    saved = cell.locator(".fm-saved")  # no widget state was saved after this restart: the copy is what shows
    expect(saved).to_be_visible(timeout=20_000)
    expect(saved).to_contain_text("3/6 checks pass (3 fail)")
    expect(saved).to_contain_text("run the cell to check again")
    expect(cell.locator(".jp-OutputArea")).not_to_contain_text("model not found")  # the widget output that draws nothing is hidden


def test_start_here_runs_cleanly(page, lab):
    open_notebook(page, lab, "00-start-here.ipynb")
    run_all(page)
    expect(notebook(page).locator(".jp-OutputArea-output", has_text="exercise").first).to_be_visible(timeout=120_000)
    wait_idle(page)
    assert errors_shown(page) == 0
    shot(page, "00-start-here-ran")


def test_instructor_notebook_tells_the_story_at_projector_size(browser, lab):
    """Story order at 1280x720: the attempt's panel fails, the reference's panel passes; no button label is cut off."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_notebook(page, lab, "instructor/FA-100786.ipynb")
        run_all(page)
        cells = notebook(page).locator(".jp-CodeCell")
        attempt = cells.filter(has=page.locator(".cm-content", has_text="@fm.exercise(")).first
        fix = cells.filter(has=page.locator(".cm-content", has_text="@reference.check")).first
        expect(fix.locator(".widget-html .fm-summary").first).to_have_text("6/6 checks pass", timeout=120_000)
        expect(attempt.locator(".widget-html .fm-summary").first).to_have_text("1/6 checks pass (5 fail)")
        wait_idle(page)
        assert errors_shown(page) == 0
        for button in attempt.locator(".widget-button").all():
            assert button.evaluate("b => b.scrollWidth <= b.clientWidth"), f"cut off: {button.inner_text()}"
        attempt.scroll_into_view_if_needed()
        shot(page, "instructor-FA-100786-1280x720")
        # Presentation mode (what the panel's presenter row points to) enlarges the notebook, and the panel with it.
        summary = attempt.locator(".widget-html .fm-summary").first
        size = lambda: summary.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")  # noqa: E731
        before = size()
        page.keyboard.press("Control+Shift+C")  # the command palette: "Presentation Mode" is under View → Appearance
        page.locator(".lm-CommandPalette-input").fill("Presentation Mode")
        page.locator(".lm-CommandPalette-item[data-command='application:toggle-presentation-mode']").click()
        expect(page.locator(".jp-mod-presentationMode")).to_have_count(1)
        page.wait_for_function("([el, px]) => parseFloat(getComputedStyle(el).fontSize) > px", arg=[summary.element_handle(), before])
        assert size() >= before * 1.2, (before, size())
        for button in attempt.locator(".widget-button").all():
            assert button.evaluate("b => b.scrollWidth <= b.clientWidth"), f"cut off in presentation mode: {button.inner_text()}"
        attempt.locator(".widget-html .fm-summary").first.scroll_into_view_if_needed()
        shot(page, "instructor-FA-100786-1280x720-presentation-mode")
    finally:
        context.close()
