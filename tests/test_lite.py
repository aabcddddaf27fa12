"""The JupyterLite site: its parts (fast), a real build, and a learner in Debian's Chromium, offline.

The browser tests serve the built site on 127.0.0.1 and log every request the page,
its workers and its service worker make (Playwright). Chromium also goes through a
proxy on 127.0.0.1 that answers nothing: any request for another host reaches it,
whoever made it. The tests fail if the page asked for anything outside 127.0.0.1.
Requests Chromium makes for itself (its updater, Google accounts) are listed, not
counted: they are the browser's, not the site's. Screenshots go to artifacts/lite/.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import socketserver
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

import failuremap_edu as fm
from conftest import record_path
from failuremap_edu.instructor._lite import (
    LITE_NOTE,
    PLOT_FALLBACK,
    LiteError,
    find_pyodide,
    lite_notebook,
    package_wheel,
)
from failuremap_edu.instructor._lite_wheels import _site_lock, _wheel_facts
from failuremap_edu.instructor._notebook import build_notebook, build_start_here
from test_browser import errors_shown, notebook, panel_status, reference_body, replace_cell_source, run_all, solve_cell, wait_idle

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "lite"
PYODIDE = ROOT / "node_modules" / "pyodide"
WHEEL_CACHE = ROOT / ".venv" / "lite-wheels"
CHROMIUM = os.environ.get("FAILUREMAP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_OWN = re.compile(r"(^|\.)(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)$")
"""Hosts Chromium itself calls (updates, accounts, time): not requests of the site."""


# ------------------------------------------------------------------------- notebooks (fast)


def test_exercise_notebook_runs_on_pyodides_kernel_with_one_line_about_the_fallback(stopping):
    original = build_notebook(stopping, "FA-100786")
    before = nbformat.writes(original)
    nb = lite_notebook(original)
    assert nbformat.writes(original) == before, "the generator's notebook is left as it is"
    assert nb.metadata["kernelspec"] == {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
    assert nb.metadata["language_info"]["version"] == "3.8"  # what the Pyodide kernel reports (see the test below)
    assert [c.source for c in nb.cells[2:]] == [c.source for c in original.cells[1:]]
    note = nb.cells[1]
    assert note.cell_type == "markdown" and note.source == LITE_NOTE and "\n" not in note.source
    for limit in ("os._exit()", "bare `except:`", "C code", "memory"):
        assert limit in note.source
    nbformat.validate(nb)


def test_start_here_plots_only_where_matplotlib_loads():
    original = build_start_here([("FA-100786", "a title", "FA-100786.ipynb")])
    assert any("import matplotlib" in c.source for c in original.cells), "the generator's start-here plots"
    nb = lite_notebook(original)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        tree = ast.parse(cell.source)
        top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert not any("matplotlib" in ast.unparse(n) for n in top_level), cell.source
    plotting = [c for c in code if "plt." in c.source]
    assert len(plotting) == 1
    namespace = {"fm": fm, "overview": fm.progress_overview([])}
    exec(compile(plotting[0].source, "<cell>", "exec"), namespace)  # with matplotlib here: it plots
    assert "plt" in namespace
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    printed = []
    namespace = {"fm": fm, "overview": fm.progress_overview([]), "print": printed.append, "__builtins__": {**vars(builtins), "__import__": no_matplotlib}}
    exec(compile(plotting[0].source, "<cell>", "exec"), namespace)  # without: one line of text, no error
    assert printed == [PLOT_FALLBACK]


# ------------------------------------------------------------------------------ the wheel (fast)


def test_package_wheel_is_reproducible_and_complete(tmp_path):
    first = package_wheel(tmp_path / "a")
    second = package_wheel(tmp_path / "b")
    assert first.name == f"failuremap_edu-{fm.__version__}-py3-none-any.whl"
    assert first.read_bytes() == second.read_bytes()
    package = ROOT / "failuremap_edu"
    with zipfile.ZipFile(first) as zf:
        names = set(zf.namelist())
        for path in package.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                inside = f"failuremap_edu/{path.relative_to(package).as_posix()}" in names
                # the site is public and runs only kernels: our reference solutions and the instructor side are never in it
                assert inside == (path.relative_to(package).parts[0] not in ("references", "instructor", "__main__.py")), path
        assert not [n for n in names if "/references/" in n]
        record = zf.read(f"failuremap_edu-{fm.__version__}.dist-info/RECORD").decode()
        for line in record.splitlines():
            name, digest, size = line.rsplit(",", 2)
            if digest:
                data = zf.read(name)
                assert int(size) == len(data)
                import base64

                assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    facts = _wheel_facts(first, "3.14.2")
    assert facts["name"] == "failuremap-edu" and facts["imports"] == ["failuremap_edu"]
    assert facts["depends"] == ["ipywidgets"], "in the browser: no JupyterLab, nbformat or matplotlib"


def test_package_runs_from_its_wheel_alone(tmp_path):
    """Unpacked as Pyodide's loader unpacks it into site-packages, in an interpreter that sees nothing else of ours."""
    with zipfile.ZipFile(package_wheel(tmp_path)) as zf:
        zf.extractall(tmp_path / "site")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import failuremap_edu as fm; "
        "r = fm.load_record('FA-100786'); print(fm.__file__); print(fm.verify_record(r).ok)"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code, str(tmp_path / "site")], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    where, ok = done.stdout.split()
    assert where.startswith(str(tmp_path / "site")) and ok == "True"


def test_site_lock_lists_exactly_the_served_wheels(tmp_path):
    ours = package_wheel(tmp_path)
    widgets = _fake_wheel(tmp_path, "ipywidgets", "8.1.9", ["comm>=0.1.3", "widgetsnbextension~=4.0.14", "pexpect; sys_platform != 'emscripten'"])
    comm = _fake_wheel(tmp_path, "comm", "0.2.3", [])
    lock = {"info": {"python": "3.14.2"}, "packages": {"numpy": {"name": "numpy", "file_name": "numpy-2-cp314.whl"}}}
    site = _site_lock(lock, [ours, widgets, comm], "3.14.2")
    assert site["info"] == lock["info"]
    assert sorted(site["packages"]) == ["comm", "failuremap-edu", "ipywidgets"], "numpy is not served, so it is not listed"
    entry = site["packages"]["ipywidgets"]
    assert entry["file_name"] == widgets.name and entry["sha256"] == hashlib.sha256(widgets.read_bytes()).hexdigest()
    assert entry["depends"] == ["comm"], "widgetsnbextension is the kernel's own; pexpect is not for emscripten"
    assert site["packages"]["failuremap-edu"]["depends"] == ["ipywidgets"]
    with pytest.raises(LiteError, match="failuremap_edu-.*needs ipywidgets, which the site would not serve"):
        _site_lock(lock, [ours], "3.14.2")


def _fake_wheel(folder: Path, name: str, version: str, requires: list[str]) -> Path:
    path = folder / f"{name}-{version}-py3-none-any.whl"
    meta = "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{name}/__init__.py", "")
        zf.writestr(f"{name}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{meta}\n")
    return path


# ------------------------------------------------------------------------ bad input (fast)


def test_no_pyodide_is_one_clear_line(tmp_path):
    with pytest.raises(LiteError, match=r"no Pyodide at .*: run `npm install pyodide@\d+\.\d+\.\d+` here, or pass --pyodide DIR"):
        find_pyodide(tmp_path)


def test_cli_refuses_bad_input_in_one_line(tmp_path):
    """Runs without node_modules/pyodide (a clean clone's `make test-fast`): bad input is refused before Pyodide is looked for."""
    cli = [sys.executable, "-m", "failuremap_edu", "lite"]
    cases = [
        ([*cli, "FA-000000", "-o", str(tmp_path / "a")], "FA-000000"),
        ([*cli, "-o", str(tmp_path / "b"), "--pyodide", str(tmp_path)], "no Pyodide at"),
        ([*cli, str(record_path("TR-000101")), "--records-dir", str(tmp_path / "nope"), "-o", str(tmp_path / "c")], "--records-dir is not a folder"),
    ]
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "precious.txt").write_text("mine")
    cases.append(([*cli, "-o", str(tmp_path / "taken")], "is not empty and was not made by `failuremap-edu lite`"))
    for argv, words in cases:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.count("\n") == 1 and words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert (tmp_path / "taken" / "precious.txt").read_text() == "mine"
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()


# ------------------------------------------------------- the output folder (fast: the builder is a stand-in)


LITE_MANIFEST = ".failuremap-lite.json"


@pytest.fixture
def fake_build(monkeypatch, tmp_path):
    """`build_site` with its slow and networked steps replaced: no Pyodide, no pip, no `jupyter lite build`.

    What is left is ours: the notebooks, the staging, the checks on the output folder and the swap.
    """
    from failuremap_edu.instructor import _lite

    pyodide = tmp_path / "pyodide"
    pyodide.mkdir()
    for name in _lite.RUNTIME_FILES:
        (pyodide / name).write_text(name)
    monkeypatch.setattr(_lite, "kernel_pyodide_version", lambda: "0.0.0")
    monkeypatch.setattr(_lite, "find_pyodide", lambda pyodide_dir=None: pyodide)
    monkeypatch.setattr(_lite, "_check_pyodide", lambda path, wanted: {"info": {"python": "3.12.1"}, "packages": {}})
    monkeypatch.setattr(_lite, "_download", lambda *args: None)
    monkeypatch.setattr(_lite, "_closure", lambda *args: [])
    monkeypatch.setattr(_lite, "_site_lock", lambda lock, wheels, python: {"info": {}, "packages": {"failuremap-edu": {}}})
    calls = []

    def wheel(dest: Path) -> Path:
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "failuremap_edu-0-py3-none-any.whl").write_bytes(b"a wheel")
        return dest / "failuremap_edu-0-py3-none-any.whl"

    monkeypatch.setattr(_lite, "package_wheel", wheel)

    def build(lite: Path, out_dir: Path) -> None:  # what `jupyter lite build` makes of the lite folder, in short
        calls.append(out_dir)
        shutil.copytree(lite / "files", out_dir / "files")
        shutil.copytree(lite / "static", out_dir / "static")
        shutil.copyfile(lite / "jupyter-lite.json", out_dir / "jupyter-lite.json")
        (out_dir / "lab").mkdir()
        (out_dir / "lab" / "index.html").write_text("<html></html>")

    monkeypatch.setattr(_lite, "_jupyter_lite_build", build)
    return calls


def lite_cli(capsys, *argv) -> tuple[int, str, str]:
    from failuremap_edu.instructor._cli import main

    capsys.readouterr()
    code = main(["lite", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_jupyterlite_project_of_yours_is_not_removed(fake_build, tmp_path, capsys):
    project = tmp_path / "project"  # a JupyterLite source folder: jupyter-lite.json is its standard config file
    (project / "files").mkdir(parents=True)
    (project / "jupyter-lite.json").write_text('{"jupyter-config-data": {"appName": "mine"}}')
    (project / "files" / "lesson.ipynb").write_text("{}")
    (project / "overrides.json").write_text("{}")
    before = snapshot(project)
    code, stdout, err = lite_cli(capsys, "FA-100786", "-o", project)
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert "is not empty and was not made by `failuremap-edu lite`: it holds files/lesson.ipynb, jupyter-lite.json, overrides.json; build into another folder (-o DIR) to keep both, or pass --force" in err
    assert snapshot(project) == before and fake_build == []  # refused before anything was built
    code, _, err = lite_cli(capsys, "FA-100786", "-o", project, "--force")
    assert code == 0, err
    assert (project / "files" / "lesson.ipynb").read_text() == "{}" and (project / "overrides.json").read_text() == "{}"
    assert (project / "files" / "FA-100786.ipynb").is_file() and "appName" in (project / "jupyter-lite.json").read_text()


def test_a_failed_build_leaves_the_previous_site_as_it_was(fake_build, tmp_path, capsys, monkeypatch):
    from failuremap_edu.instructor import _lite

    site = tmp_path / "site"
    assert lite_cli(capsys, "FA-100786", "-o", site)[0] == 0
    before = snapshot(site)

    def fails(lite, out_dir):
        (out_dir / "lab").mkdir(parents=True)
        raise LiteError("jupyter lite build failed (exit 1): boom")

    monkeypatch.setattr(_lite, "_jupyter_lite_build", fails)
    code, stdout, err = lite_cli(capsys, "FA-100786", "FA-100061", "-o", site)
    assert code == 2 and err == "failuremap-edu: error: jupyter lite build failed (exit 1): boom\n"
    assert snapshot(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyodide", "site"]  # no staging folder left behind
    assert fake_build[0].parent.parent == tmp_path  # built beside the target, then swapped in
    manifest = json.loads((site / LITE_MANIFEST).read_text())["files"]
    assert "files/FA-100786.ipynb" in manifest and ".nojekyll" in manifest and "files/FA-100061.ipynb" not in manifest


def test_a_rebuild_replaces_our_site_and_keeps_what_you_added(fake_build, tmp_path, capsys):
    site = tmp_path / "site"
    assert lite_cli(capsys, "FA-100786", "FA-100061", "-o", site)[0] == 0
    (site / "CNAME").write_text("workshop.example.org\n")  # GitHub Pages' custom domain
    (site / ".git").mkdir()
    (site / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    code, _, err = lite_cli(capsys, "FA-100786", "-o", site)
    assert code == 0, err
    assert not (site / "files" / "FA-100061.ipynb").exists() and (site / "files" / "FA-100786.ipynb").is_file()
    assert (site / "CNAME").read_text() == "workshop.example.org\n" and (site / ".git" / "HEAD").is_file()
    (site / "lab" / "index.html").write_text("my edit")
    code, _, err = lite_cli(capsys, "FA-100786", "-o", site)
    assert code == 2 and "has changed since `failuremap-edu lite` wrote it: lab/index.html would be overwritten" in err
    assert (site / "lab" / "index.html").read_text() == "my edit"


def test_the_sites_manifest_and_links_are_held_to_the_workshops_rules(fake_build, tmp_path, capsys):
    site = tmp_path / "site"
    assert lite_cli(capsys, "FA-100786", "-o", site)[0] == 0
    (tmp_path / "victim.txt").write_text("mine\n")
    data = json.loads((site / LITE_MANIFEST).read_text())
    data["files"]["../victim.txt"] = hashlib.sha256(b"mine\n").hexdigest()
    (site / LITE_MANIFEST).write_text(json.dumps(data))
    code, _, err = lite_cli(capsys, "FA-100786", "-o", site)
    assert code == 0 and "'../victim.txt'" in err and (tmp_path / "victim.txt").read_text() == "mine\n"
    (tmp_path / "elsewhere").mkdir()
    shutil.rmtree(site / "files")
    (site / "files").symlink_to(tmp_path / "elsewhere")
    code, _, err = lite_cli(capsys, "FA-100786", "-o", site, "--force")
    assert code == 2 and err.count("\n") == 1 and f"{site / 'files'}: a symbolic link out of {site}" in err
    assert list((tmp_path / "elsewhere").iterdir()) == []


# ----------------------------------------------------------------------- a real build (slow)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """`failuremap-edu lite` for both packaged records and one of our own test records."""
    assert (PYODIDE / "pyodide.mjs").is_file(), f"{PYODIDE} is missing: `make test` installs it (npm ci)"
    out = tmp_path_factory.mktemp("lite") / "site"
    (out / "files").mkdir(parents=True)  # an earlier build's site: its files are replaced, a stale notebook goes
    (out / "jupyter-lite.json").write_text("{}")
    (out / "files" / "FA-999999.ipynb").write_text("{}")
    earlier = {rel: hashlib.sha256(b"{}").hexdigest() for rel in ("jupyter-lite.json", "files/FA-999999.ipynb")}
    (out / LITE_MANIFEST).write_text(json.dumps({"files": earlier}))
    cli = Path(sys.executable).parent / "failuremap-edu"
    started = time.monotonic()
    done = subprocess.run(
        [str(cli), "lite", "FA-100786", "FA-100061", str(record_path("TR-000101")), "-o", str(out), "--title", "Offline workshop",
         "--pyodide", str(PYODIDE), "--wheels", str(WHEEL_CACHE)],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    print(f"built in {time.monotonic() - started:.0f} s: {done.stdout}")
    assert "3 exercises and a start-here notebook" in done.stdout and "nothing loaded from elsewhere" in done.stdout
    return out


@pytest.mark.slow
def test_site_points_the_kernel_at_itself(site):
    config = json.loads((site / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    assert kernel["disablePyPIFallback"] is True
    assert "failuremap-edu" in kernel["loadPyodideOptions"]["packages"]
    assert all(url.startswith("./") for url in kernel.get("pipliteUrls", []))
    assert "http" not in json.dumps(kernel)
    pyodide = site / "static" / "pyodide"
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (pyodide / name).is_file(), name
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    for key, entry in lock["packages"].items():
        served = pyodide / entry["file_name"]
        assert served.is_file(), f"{key}: the lock lists {entry['file_name']}, which the site does not serve"
        assert hashlib.sha256(served.read_bytes()).hexdigest() == entry["sha256"], key
        assert set(entry["depends"]) <= set(lock["packages"]), key
    for needed in ("micropip", "ipython", "ipywidgets", "comm", "traitlets", "failuremap-edu"):
        assert needed in lock["packages"], needed
    assert "matplotlib" not in lock["packages"] and "numpy" not in lock["packages"]
    assert (site / ".nojekyll").is_file() and (site / "index.html").is_file()


@pytest.mark.slow
def test_site_has_the_notebooks_and_records(site):
    files = site / "files"
    assert sorted(p.name for p in files.glob("*.ipynb")) == ["00-start-here.ipynb", "FA-100061.ipynb", "FA-100786.ipynb", "TR-000101.ipynb"]
    assert not (files / "FA-999999.ipynb").exists(), "nothing of an earlier build lingers"
    assert (files / "records" / "TR-000101.json").read_bytes() == record_path("TR-000101").read_bytes()
    for path in files.glob("*.ipynb"):
        nb = nbformat.read(str(path), as_version=4)
        assert nb.metadata["kernelspec"]["name"] == "python", path.name
        assert any(c.source == LITE_NOTE for c in nb.cells), path.name
    start = nbformat.read(str(files / "00-start-here.ipynb"), as_version=4)
    assert start.cells[0].source.startswith("# Offline workshop")
    own = nbformat.read(str(files / "TR-000101.ipynb"), as_version=4)
    assert any("records/TR-000101.json" in c.source for c in own.cells if c.cell_type == "code")


@pytest.mark.slow
def test_workshop_lite_builds_the_same_exercises_as_a_site(tmp_path):
    """`workshop --lite DIR`: the learners' folder, and beside it a JupyterLite site of the same exercises."""
    cli = Path(sys.executable).parent / "failuremap-edu"
    env = {**os.environ, "XDG_CACHE_HOME": str(ROOT / ".venv" / "cache")}  # the wheels are downloaded once, kept for the next run
    done = subprocess.run(
        [str(cli), "workshop", "FA-100786", str(record_path("TR-000101")), "-o", str(tmp_path / "ws"), "--title", "Stops", "--lite", str(tmp_path / "site")],
        capture_output=True, text=True, timeout=900, cwd=ROOT, env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{tmp_path / 'site'}: a JupyterLite site with 2 exercises and a start-here notebook" in done.stdout
    assert (tmp_path / "ws" / "notebooks" / "FA-100786.ipynb").is_file()
    files = tmp_path / "site" / "files"
    assert sorted(p.name for p in files.glob("*.ipynb")) == ["00-start-here.ipynb", "FA-100786.ipynb", "TR-000101.ipynb"]
    assert nbformat.read(str(files / "00-start-here.ipynb"), as_version=4).cells[0].source.startswith("# Stops")
    wheel = next((tmp_path / "site" / "static" / "pyodide").glob("failuremap_edu-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        assert not [n for n in zf.namelist() if "/references/" in n], "no reference solutions in the learners' site"


# ------------------------------------------------------------------- a learner in Chromium (browser)


class _Trap(socketserver.BaseRequestHandler):
    """Chromium's proxy: notes the first line of every request and refuses it."""

    seen: list[str]

    def handle(self) -> None:
        try:
            line = self.request.recv(8192).split(b"\r\n", 1)[0].decode("latin-1")
        except OSError:
            return
        self.seen.append(line)
        try:
            self.request.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass


def _trap_host(line: str) -> str:
    target = line.split(" ")[1] if " " in line else line
    target = re.sub(r"^[a-z]+://", "", target)
    return re.split(r"[:/]", target, maxsplit=1)[0]


@pytest.fixture(scope="module")
def served(site):
    """The site on 127.0.0.1, as any static host would serve it; the paths it served are kept."""
    paths: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".mjs": "text/javascript"}

        def log_message(self, *args) -> None:
            paths.append(self.path.split("?", 1)[0])

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", paths
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def chromium(served):
    """One browser context for the whole module: the learner's storage carries over between the tests."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    assert Path(CHROMIUM).is_file(), f"{CHROMIUM} is missing: `make test` installs Debian's chromium package"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    trap_server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), type("Trap", (_Trap,), {"seen": []}))
    trap_server.daemon_threads = True
    threading.Thread(target=trap_server.serve_forever, daemon=True).start()
    args = [
        "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--disable-default-apps",
        f"--proxy-server=http://127.0.0.1:{trap_server.server_address[1]}",  # loopback itself is never proxied
    ]
    requests: list[str] = []
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        context.on("request", lambda r: requests.append(r.url))
        try:
            yield {"context": context, "requests": requests, "trap": trap_server.RequestHandlerClass.seen, "expect": playwright_api.expect}
        finally:
            context.close()
            browser.close()
            trap_server.shutdown()
            trap_server.server_close()


@pytest.fixture
def page(chromium, request):
    pg = chromium["context"].new_page()
    pg.set_default_timeout(60_000)
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        pg.screenshot(path=str(ARTIFACTS / f"FAILED-{request.node.name}.png"), full_page=True)
    pg.close()


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def open_notebook(page, expect, url: str, name: str) -> None:
    page.goto(f"{url}/lab/index.html?path={name}")
    expect(page.locator("li[data-type='document-title'].lm-mod-current")).to_contain_text(name, timeout=120_000)
    wait_idle(page, timeout=240_000)  # the first start loads Pyodide and the wheels


def assert_nothing_left_loopback(chromium, url: str) -> None:
    outside = [u for u in chromium["requests"] if not (u.startswith(url + "/") or u.startswith(("data:", "blob:")))]
    assert not outside, f"requests that left {url}: {outside[:20]}"
    foreign = [line for line in chromium["trap"] if not CHROMIUM_OWN.search(_trap_host(line))]
    assert not foreign, f"requests for other hosts reached the proxy: {foreign[:20]}"


@pytest.mark.browser
@pytest.mark.slow
def test_learner_solves_an_exercise_offline(page, chromium, served):
    url, paths = served
    expect = chromium["expect"]
    record = fm.load_record("FA-100786")
    open_notebook(page, expect, url, "FA-100786.ipynb")
    expect(notebook(page).locator(".jp-MarkdownOutput", has_text="In your browser (JupyterLite)")).to_be_visible()
    shot(page, "1-opened")

    # Run all: the attempt's true result, with a diff saying why a check fails.
    run_all(page)
    attempt = fm.replay(record, "attempt")
    expect(panel_status(page)).to_have_text(attempt.summary(), timeout=240_000)
    wait_idle(page)
    assert errors_shown(page) == 0
    failing = next(o for o in attempt.observations if o.status == "fail")
    reason = fm.diff(failing.expected, failing.actual).differences[0].message
    expect(solve_cell(page).locator(".fm-panel .fm-why", has_text=reason[:40]).first).to_be_attached()
    solve_cell(page).scroll_into_view_if_needed()
    shot(page, "2-attempt")

    # A correct solve: N/N.
    source = f"import failuremap_edu as fm\n\n@fm.exercise('FA-100786')\n{reference_body('FA-100786')}"
    replace_cell_source(page, solve_cell(page), source)
    page.keyboard.press("Shift+Enter")
    expect(panel_status(page)).to_have_text("6/6 checks pass", timeout=120_000)
    wait_idle(page)
    shot(page, "3-solved")

    # Download, hints, playground: the panel works as it does on a server.
    panel = solve_cell(page).locator(".jupyter-widgets").first
    for title in ("Keep your work: downloads", "Hints", "Playground: try any inputs"):  # folded parts, made when opened
        panel.locator(".widget-button", has_text=f"▸ {title}").click()
    with page.expect_download() as info:
        solve_cell(page).locator("a.fm-download", has_text="your solve (.py)").click()
    exported = Path(info.value.path()).read_text(encoding="utf-8")
    assert "# result: 6/6 checks pass" in exported and "\ndef solve(" in exported
    panel.locator(".widget-button", has_text="Show next hint").click()
    expect(panel.locator(".widget-html ol li")).to_have_count(1)
    playground = panel.locator(".widget-text input[type='text']")
    playground.click()
    playground.press_sequentially("'hello<st', ['<stop>']", delay=15)
    rows = panel.locator(".fm-playground tbody tr")
    expect(rows.nth(0)).to_contain_text("('hello', '<st')")
    expect(rows.nth(1)).to_contain_text("('hel', 'lo<st')")
    wait_idle(page)
    shot(page, "4-panel")

    # A loop on every check: each one times out, and the page and its kernel keep working.
    replace_cell_source(page, solve_cell(page), "import failuremap_edu as fm\n\n@fm.exercise('FA-100786')\ndef solve(text, stops):\n    while True:\n        pass\n")
    page.keyboard.press("Shift+Enter")
    expect(solve_cell(page).locator(".fm-panel .fm-badge.fm-timeout").first).to_be_visible(timeout=60_000)  # the panel's, not its saved copy's
    expect(panel_status(page)).to_have_text("0/6 checks pass (6 timeout)", timeout=120_000)
    wait_idle(page)
    shot(page, "5-loop")
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.insert_text("print(6 * 7)")
    page.keyboard.press("Shift+Enter")
    expect(notebook(page).locator(".jp-OutputArea-output", has_text=re.compile(r"^\s*42\s*$"))).to_have_count(1)
    page.keyboard.press("Control+s")
    expect(page.locator("li[data-type='document-title'].lm-mod-current")).not_to_have_class(re.compile(r"jp-mod-dirty"))
    shot(page, "6-alive")

    assert "/static/pyodide/pyodide.asm.wasm" in paths and f"/static/pyodide/failuremap_edu-{fm.__version__}-py3-none-any.whl" in paths
    assert_nothing_left_loopback(chromium, url)


@pytest.mark.browser
@pytest.mark.slow
def test_work_is_kept_in_browser_storage_and_progress_is_shared(page, chromium, served):
    """A new page in the same browser: the saved notebook and the progress log are still there."""
    url, _ = served
    expect = chromium["expect"]
    open_notebook(page, expect, url, "FA-100786.ipynb")
    expect(solve_cell(page).locator(".cm-content")).to_contain_text("while True:")
    expect(notebook(page).locator(".jp-OutputArea-output", has_text=re.compile(r"^\s*42\s*$"))).to_have_count(1)
    expect(page.locator(".jp-DirListing-item", has_text="failuremap-progress.jsonl")).to_be_visible()

    page.locator(".jp-DirListing-item", has_text="00-start-here.ipynb").dblclick()  # a second notebook, its own kernel
    expect(page.locator("li[data-type='document-title'].lm-mod-current")).to_contain_text("00-start-here.ipynb")
    wait_idle(page, timeout=240_000)
    run_all(page)
    expect(notebook(page).locator(".jp-OutputArea-output", has_text=PLOT_FALLBACK)).to_be_visible(timeout=120_000)
    wait_idle(page)
    # The exercise's kernel logged its runs under /drive; this notebook's kernel (another worker) reads them.
    expect(notebook(page).locator(".jp-OutputArea-output tr", has_text="FA-100786")).to_contain_text("0/6")
    expect(notebook(page).locator(".jp-OutputArea-output tr", has_text="FA-100061")).to_contain_text("not started")
    assert errors_shown(page) == 0
    shot(page, "7-start-here")
    assert_nothing_left_loopback(chromium, url)


@pytest.mark.slow
def test_every_notebook_of_the_built_site_stores_single_strings_and_says_nothing_false(site):
    """The stray commas (",2/6 checks pass") and the server's sentences, read off the site as served."""
    from test_notebook import _FALSE_IN

    for path in (site / "files").glob("*.ipynb"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for cell in data["cells"]:
            assert isinstance(cell["source"], str), path.name
            for output in cell.get("outputs", []):
                assert all(isinstance(v, str) or mime.endswith("json") for mime, v in output.get("data", {}).items()), path.name
                assert isinstance(output.get("text", ""), str), path.name
        text = "\n".join(cell["source"] for cell in data["cells"])
        assert [s for s in _FALSE_IN["lite"] if s in text] == [], path.name


@pytest.mark.browser
@pytest.mark.slow
def test_a_fresh_notebook_opens_unmodified_and_an_edit_survives_a_reload(page, chromium, served):
    """Opened: not marked modified, stored outputs without stray commas. Edited: autosaved within seconds,
    so a reload keeps the edit; the exercise panel after the reload shows its last results and says to re-run,
    never 'Loading widget...' for good, and running the cell brings the live panel back."""
    from failuremap_edu.instructor._lite import AUTOSAVE_SECONDS

    url, _ = served
    expect = chromium["expect"]
    open_notebook(page, expect, url, "FA-100061.ipynb")
    title = page.locator("li[data-type='document-title'].lm-mod-current")
    page.wait_for_timeout(2_000)
    expect(title).not_to_have_class(re.compile(r"jp-mod-dirty"))
    outputs = notebook(page).locator(".jp-OutputArea-output")
    assert outputs.count() > 0
    assert not [text for text in outputs.all_inner_texts() if text.lstrip().startswith(",")]
    shot(page, "8-fresh")

    run_all(page)
    expect(panel_status(page)).to_contain_text("checks pass", timeout=240_000)
    wait_idle(page)
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.insert_text("# an edit made just before a reload")
    page.keyboard.press("Escape")
    page.wait_for_timeout((AUTOSAVE_SECONDS + 3) * 1000)
    # The autosave has happened (under load it can come a few seconds late): the tab is no longer marked modified.
    expect(title).not_to_have_class(re.compile(r"jp-mod-dirty"), timeout=30_000)
    page.reload()
    expect(page.locator("li[data-type='document-title'].lm-mod-current")).to_contain_text("FA-100061.ipynb", timeout=120_000)
    # The edit is the last cell: JupyterLab draws only the cells near the view, so go to the end to find it.
    notebook(page).locator(".jp-Cell").first.wait_for(state="attached", timeout=60_000)
    for _ in range(40):
        if notebook(page).locator(".cm-content", has_text="# an edit made just before a reload").count():
            break
        notebook(page).locator(".jp-WindowedPanel-outer").first.evaluate("e => e.scrollTop = e.scrollHeight")
        page.wait_for_timeout(250)
    expect(notebook(page).locator(".cm-content", has_text="# an edit made just before a reload")).to_have_count(1, timeout=60_000)
    notebook(page).locator(".jp-WindowedPanel-outer").first.evaluate("e => e.scrollTop = 0")  # back to the exercise cell
    page.wait_for_timeout(20_000)
    cell = solve_cell(page)
    cell.scroll_into_view_if_needed()
    shot(page, "9-reloaded")
    # JupyterLite never restores a widget (it leaves comm_info_request unanswered): the panel's saved copy shows instead.
    loading = cell.locator("text=Loading widget...")
    assert not [n for n in loading.all() if n.is_visible()], "the reloaded panel still says 'Loading widget...'"
    saved = cell.locator(".fm-saved")
    expect(saved).to_be_visible()
    expect(saved.locator(".fm-summary")).to_contain_text("checks pass")
    expect(saved).to_contain_text("run the cell to check again")
    # Run the cell again: the live panel is back, and its saved copy steps aside.
    cell.locator(".cm-content").first.click()
    page.keyboard.press("Shift+Enter")
    expect(panel_status(page)).to_contain_text("checks pass", timeout=120_000)
    wait_idle(page)
    expect(saved).to_be_hidden()
    expect(cell.locator(".fm-panel")).to_be_visible()
    assert not [n for n in loading.all() if n.is_visible()]


def test_site_notebooks_hold_no_lists_of_lines(tmp_path, stopping):
    """JupyterLite shows a stored list of output lines joined with commas (",2/6 checks pass"): one string each."""
    from failuremap_edu.instructor._lite import _write_notebook, lite_notebook

    path = tmp_path / "FA-100786.ipynb"
    _write_notebook(lite_notebook(build_notebook(stopping, "FA-100786")), path)
    data = json.loads(path.read_text(encoding="utf-8"))
    lists = [
        (i, key)
        for i, cell in enumerate(data["cells"])
        for key, value in [("source", cell["source"])]
        + [("text", o["text"]) for o in cell.get("outputs", []) if "text" in o]
        + [(mime, v) for o in cell.get("outputs", []) for mime, v in o.get("data", {}).items() if not mime.endswith("json")]
        if isinstance(value, list)
    ]
    assert lists == []
    multi_line_outputs = [v for cell in data["cells"] for o in cell.get("outputs", []) for v in o.get("data", {}).values() if isinstance(v, str) and "\n" in v]
    assert multi_line_outputs, "the notebook stores multi-line outputs (the panel's text), so the test means something"
    assert nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)) is None


def test_site_notebooks_say_nothing_false_in_the_browser(tmp_path, stopping):
    """No terminal, no environment variable, no Binder, no 'this machine', no checking process in the site."""
    from test_notebook import _FALSE_IN

    from failuremap_edu.instructor._lite import lite_notebook

    notebooks = [
        lite_notebook(build_notebook(stopping, "FA-100786", platform="lite")),
        lite_notebook(build_start_here([("FA-100786", "t", "FA-100786.ipynb")], platform="lite")),
    ]
    text = "\n".join(cell.source for nb in notebooks for cell in nb.cells)
    assert [s for s in _FALSE_IN["lite"] if s in text] == []
    assert "the text above says the same" not in text


def test_site_autosaves_every_few_seconds():
    """The browser's storage is the only copy: a reload must lose at most a few seconds of an edit."""
    from failuremap_edu.instructor._lite import AUTOSAVE_SECONDS, _lite_config

    overrides = _lite_config(())["jupyter-config-data"]["settingsOverrides"]["@jupyterlab/docmanager-extension:plugin"]
    assert {k: overrides[k] for k in ("autosave", "autosaveInterval")} == {"autosave": True, "autosaveInterval": AUTOSAVE_SECONDS}
    assert AUTOSAVE_SECONDS <= 5


def test_site_never_asks_whether_a_file_changed_on_disk():
    """Only the learner's tab writes the site's notebooks: two of its saves overlapping is no change on disk."""
    from failuremap_edu.instructor._lite import _lite_config

    schema = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas" / "@jupyterlab" / "docmanager-extension" / "plugin.json"
    known = json.loads(schema.read_text(encoding="utf-8"))["properties"]
    overrides = _lite_config(())["jupyter-config-data"]["settingsOverrides"]["@jupyterlab/docmanager-extension:plugin"]
    assert set(overrides) <= set(known), "a setting JupyterLab does not know is silently ignored"
    assert overrides["lastModifiedCheckMargin"] >= 24 * 60 * 60 * 1000


def test_site_notebooks_carry_the_language_info_the_pyodide_kernel_reports(stopping):
    """Else JupyterLab marks every notebook modified the moment its kernel starts."""
    import jupyterlite_pyodide_kernel

    from failuremap_edu.instructor._lite import PYODIDE_LANGUAGE_INFO, lite_notebook

    share = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    code = "".join(p.read_text(encoding="utf-8", errors="replace") for p in share.glob("*.js"))
    reported = re.search(r"kernelInfoRequest\(\)\{return\{[^}]*?language_info:(\{.*?\}),protocol_version", code)
    assert reported, f"the kernel's language_info was not found in {share} ({jupyterlite_pyodide_kernel.__name__})"
    as_json = re.sub(r"([{,])([a-z_]+):", r'\1"\2":', reported.group(1))
    assert json.loads(as_json) == PYODIDE_LANGUAGE_INFO
    assert lite_notebook(build_notebook(stopping, "FA-100786")).metadata["language_info"] == PYODIDE_LANGUAGE_INFO


def test_site_keeps_widget_state_and_numbers_only_cells_with_outputs(stopping):
    """After a reload the panel showed 'Loading widget...' for good; a numbered cell without output looked run (lite trial)."""
    from failuremap_edu.instructor._lite import _lite_config, lite_notebook

    overrides = _lite_config(())["jupyter-config-data"]["settingsOverrides"]
    assert overrides["@jupyter-widgets/jupyterlab-manager:plugin"] == {"saveState": True}
    nb = lite_notebook(build_start_here([("FA-100786", "t", "FA-100786.ipynb")], platform="lite"))
    assert all(c.execution_count is None for c in nb.cells if c.cell_type == "code" and not c.outputs)


def test_a_record_built_with_record_build_makes_a_site_like_any_record(fake_build, tmp_path, capsys):
    """Issue 24: a record from `record new` + `record build` works with lite as a packaged one does."""
    from failuremap_edu.instructor._cli import main

    folder = tmp_path / "exercise"
    assert main(["record", "new", "TR-SITE-1", "-o", str(folder)]) == 0
    assert main(["record", "build", str(folder)]) == 0  # the worked example builds as it is
    capsys.readouterr()
    code, _, err = lite_cli(capsys, str(folder / "TR-SITE-1.json"), "-o", tmp_path / "site")
    assert code == 0, err
    files = tmp_path / "site" / "files"
    assert (files / "TR-SITE-1.ipynb").is_file() and (files / "records" / "TR-SITE-1.json").is_file()
    nb = nbformat.read(str(files / "TR-SITE-1.ipynb"), as_version=4)
    assert nb.metadata["kernelspec"]["name"] == "python" and any("records/TR-SITE-1.json" in c.source for c in nb.cells if c.cell_type == "code")
