"""A JupyterLite site: the exercises running in the learner's browser, with no server at all.

JupyterLite serves JupyterLab as static files, and its Pyodide kernel runs Python
(WebAssembly) in the page. By default that kernel loads Pyodide and every package
from a CDN; a workshop on a USB stick or a locked-down network has none, so the
site built here carries everything itself and makes no request to any other host:

- Pyodide's core (the npm ``pyodide`` package) in ``static/pyodide``, at the
  version the installed ``jupyterlite-pyodide-kernel`` was made for; the kernel's
  ``pyodideUrl`` setting points there (jupyterlite-pyodide-kernel's own addon
  writes it when it finds Pyodide under the lite folder's ``static/pyodide``);
- a ``pyodide-lock.json`` rewritten to list only the wheels the site serves:
  micropip, the pure-Python wheels the kernel and the exercise panel need (IPython,
  ipywidgets, ...; from PyPI, at the versions Pyodide's own lock tested where it
  has them), and this package as a wheel. Packages of Pyodide's full distribution
  that the site does not serve are left out, so asking for one fails at once with
  a clear message rather than by reaching for a missing file;
- those wheels preloaded when the kernel starts (``loadPyodideOptions``), so
  ``import failuremap_edu`` works in every notebook, also in a new one and after a
  kernel restart, with nothing to install first; PyPI fallback disabled.

The notebooks are the generator's learner notebooks, adapted here (never in the
generator): the kernel is Pyodide's, one line says what the in-process runner
cannot contain, plots degrade to text where matplotlib is missing (it is a
compiled package of Pyodide's full distribution, not on PyPI, so it is not
served), and the progress log lives in the browser's storage with the notebooks.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from .._atomic import WriteError, write_text
from .._errors import InputError
from ._output import check_target, folder_files, install

__all__ = ["LiteError", "LiteSite", "build_site", "lite_notebook", "package_wheel"]

MANIFEST = ".failuremap-lite.json"
"""In the site's folder: every file the build wrote, with its sha256 (the workshop's rules, `_output`)."""

PROGRESS_IN_BROWSER = "/drive/failuremap-progress.jsonl"
"""The progress log in the site: under ``/drive``, the kernel's view of the notebooks'
folder in browser storage, so it persists and every notebook's kernel sees it."""

LITE_NOTE = (
    "*In your browser (JupyterLite):* the checks run inside this page's Python. An endless loop in plain "
    "Python still times out, but `os._exit()`, a loop inside a bare `except:`, a long wait inside C code or "
    "memory that grows without end can stop or freeze the kernel: then use *Kernel → Restart Kernel*. "
    "Your notebooks are kept in this browser."
)
"""The one line an exercise notebook shows in JupyterLite (the fallback's limits, docs/explanation/isolation.md)."""

PYODIDE_LANGUAGE_INFO = {
    "codemirror_mode": {"name": "python", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.8",
}
"""The language_info jupyterlite-pyodide-kernel 0.8 reports (its kernelInfoRequest; the version is fixed
there). JupyterLab copies it into a notebook when the kernel starts and marks the notebook modified if
that changes anything, so the site's notebooks carry exactly this (test_lite reads it from the kernel's code)."""
PYODIDE_KERNEL = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
"""The kernelspec of jupyterlite-pyodide-kernel: a notebook naming ``python3`` would ask for a kernel first."""

PRELOAD = ("micropip", "ipython", "jedi", "comm", "failuremap-edu")
"""Loaded as Pyodide starts: what the kernel itself installs next (it skips these), and this package."""

PROVIDED = frozenset({"ipykernel", "pyodide-kernel", "piplite", "widgetsnbextension", "jupyterlab-widgets"})
"""Served by jupyterlite-pyodide-kernel itself (its stand-ins) or by the page (the widgets' front end)."""

RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "package.json")
"""Of the npm package, what a browser loads (``pyodide-lock.json`` is written anew)."""

AUTOSAVE_SECONDS = 5
"""How often the site saves an open notebook into the browser's storage."""

LAST_MODIFIED_MARGIN_MS = 24 * 60 * 60 * 1000
"""How much newer than the tab's last save a stored file may be before JupyterLab asks whether to overwrite it.

JupyterLab's default, 500 ms, guards a file that another program changes on a server. On the site only the
learner's own tab writes its notebooks, but a save started while an earlier one is still finishing (autosave,
the widget state, Run All under load) reads the earlier one's time as a change on disk and asks "File Changed";
the default answer kept a copy with every output cleared and stopped the autosave. A day's margin never asks."""

PLOT_FALLBACK = (
    "No plot here: matplotlib is not part of this site. The table above shows the same progress as text."
)


class LiteError(InputError):
    """A JupyterLite site cannot be built (a missing tool, no Pyodide, a wheel that cannot be had)."""


@dataclass(frozen=True)
class LiteSite:
    """What `build_site` wrote."""

    path: Path
    """The site's folder: serve it as static files (GitHub Pages, ``python -m http.server``)."""
    notebooks: tuple[str, ...]
    """The notebooks in the site, as paths under its ``files/`` (the start-here notebook first)."""
    pyodide_version: str
    """The Pyodide the site carries (``static/pyodide``)."""
    wheels: tuple[str, ...]
    """The wheel files the site's ``pyodide-lock.json`` lists, this package's among them."""
    preload: tuple[str, ...]
    """Packages loaded when the kernel starts."""
    warnings: tuple[str, ...] = ()
    """One line each, e.g. a manifest entry outside the folder, ignored."""


# --------------------------------------------------------------------------- the package as a wheel


def package_wheel(dest: Path, requires: tuple[str, ...] = ("ipywidgets>=8.1",)) -> Path:
    """This package, as it is installed here, as a pure-Python wheel in `dest`.

    Built directly (a wheel is a zip with a METADATA and a RECORD) rather than with
    a build backend, so it works from any install, editable or not. In the browser
    the package needs only ipywidgets: JupyterLab, nbformat and matplotlib serve
    the notebook generator, the command line and plots, none of which a learner's
    kernel runs. Byte for byte reproducible: fixed timestamps, sorted entries.

    Our reference solutions (``references/``) and the instructor side (``instructor/``)
    stay out: the site is public, and a learner's kernel could read anything the wheel holds.
    """
    root = Path(__file__).resolve().parents[1]
    dist = f"failuremap_edu-{__version__}"
    files = sorted(
        p for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc" and p.relative_to(root).parts[0] not in ("references", "instructor", "__main__.py")
    )
    entries = [(f"failuremap_edu/{p.relative_to(root).as_posix()}", p.read_bytes()) for p in files]
    metadata = "\n".join(
        ["Metadata-Version: 2.1", "Name: failuremap-edu", f"Version: {__version__}",
         "Summary: Interactive notebooks that teach how real ML-systems code fails (JupyterLite build)",
         "Requires-Python: >=3.10", *[f"Requires-Dist: {r}" for r in requires], ""]
    )
    entries += [
        (f"{dist}.dist-info/METADATA", metadata.encode()),
        (f"{dist}.dist-info/WHEEL", b"Wheel-Version: 1.0\nGenerator: failuremap_edu.instructor._lite\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{dist}.dist-info/top_level.txt", b"failuremap_edu\n"),
    ]
    record = "".join(f"{name},sha256={_b64_digest(data)},{len(data)}\n" for name, data in entries) + f"{dist}.dist-info/RECORD,,\n"
    entries.append((f"{dist}.dist-info/RECORD", record.encode()))
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return path


def _b64_digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


# --------------------------------------------------------------------------- notebooks


def lite_notebook(nb):
    """A generated notebook adapted to JupyterLite (a copy; `nb` is left as it is).

    The kernel becomes Pyodide's; the one-line note on what the in-process runner
    cannot contain follows the title; matplotlib imports become optional, and a
    cell that plots says so in one line when matplotlib cannot be loaded.
    """
    import copy

    from nbformat.v4 import new_markdown_cell

    nb = copy.deepcopy(nb)
    nb.metadata["kernelspec"] = dict(PYODIDE_KERNEL)
    nb.metadata["language_info"] = dict(PYODIDE_LANGUAGE_INFO)  # what the kernel reports: opening the notebook changes nothing
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if not cell.outputs:
            cell.execution_count = None  # a number with no output reads as "already run, showed nothing"
        lines = cell.source.splitlines()
        kept = [line for line in lines if not _MATPLOTLIB_IMPORT.match(line)]
        if len(kept) != len(lines) or re.search(r"\bplt\.", cell.source):
            cell.source = "\n".join(kept).strip("\n")
        if re.search(r"\bplt\.", cell.source):
            cell.source = _guarded_plot(cell.source)
            cell.outputs = []
            cell.execution_count = None
    note = new_markdown_cell(LITE_NOTE, id=f"{nb.cells[0].get('id', 'lite')}-lite"[:64] if nb.cells else "lite-note")
    nb.cells.insert(1 if nb.cells else 0, note)
    return nb


_MATPLOTLIB_IMPORT = re.compile(r"^\s*(import matplotlib(\.\w+)*( as \w+)?|from matplotlib(\.\w+)* import .+)\s*$")


def _guarded_plot(source: str) -> str:
    body = "\n".join("    " + line if line.strip() else "" for line in source.splitlines())
    return (
        "try:\n    import matplotlib.pyplot as plt\nexcept ImportError:  # matplotlib is not part of this site\n"
        f"    print({PLOT_FALLBACK!r})\nelse:\n{body}"
    )


def _write_notebook(nb, path: Path) -> None:
    """Write a notebook with every multi-line string as one string, never a list of lines.

    nbformat allows both, and a Jupyter server joins the lists before a page sees
    them; JupyterLite serves the file as it is, and shows a list of output lines
    joined with commas (",2/6 checks pass"). So the site's notebooks hold no lists.
    """
    import nbformat

    data = json.loads(nbformat.writes(nb))
    for cell in data.get("cells", []):
        cell["source"] = _joined(cell.get("source", ""))
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = _joined(output["text"])
            for mime, value in output.get("data", {}).items():
                if not mime.endswith("json"):
                    output["data"][mime] = _joined(value)
    write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def _joined(value):
    return "".join(value) if isinstance(value, list) and all(isinstance(line, str) for line in value) else value


def _read_notebook(path: Path):
    import nbformat

    return nbformat.read(str(path), as_version=4)


# --------------------------------------------------------------------------- Pyodide and wheels


def kernel_pyodide_version() -> str:
    """The Pyodide version the installed jupyterlite-pyodide-kernel was made for."""
    try:
        from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION
        import jupyterlite_core  # noqa: F401 - `jupyter lite build` needs it
    except ImportError as exc:
        raise LiteError(
            f"building a JupyterLite site needs jupyterlite-core and jupyterlite-pyodide-kernel ({exc.name} is missing): "
            "pip install 'failuremap-edu[lite]'"
        ) from None
    return PYODIDE_VERSION


def find_pyodide(pyodide_dir: str | os.PathLike | None = None) -> Path:
    """The npm ``pyodide`` package to copy into the site: given, $FAILUREMAP_PYODIDE, or a node_modules nearby."""
    candidates = [Path(pyodide_dir)] if pyodide_dir else []
    if not candidates:
        if os.environ.get("FAILUREMAP_PYODIDE"):
            candidates.append(Path(os.environ["FAILUREMAP_PYODIDE"]))
        candidates += [Path.cwd() / "node_modules" / "pyodide", Path(__file__).resolve().parents[2] / "node_modules" / "pyodide"]
    for candidate in candidates:
        if (candidate / "pyodide.mjs").is_file():
            return candidate
    where = str(candidates[0]) if pyodide_dir else "./node_modules/pyodide"
    raise LiteError(
        f"no Pyodide at {where}: run `npm install pyodide@{kernel_pyodide_version()}` here, or pass --pyodide DIR (a folder holding pyodide.mjs)"
    )


def _check_pyodide(pyodide: Path, wanted: str) -> dict:
    missing = [name for name in (*RUNTIME_FILES, "pyodide-lock.json") if not (pyodide / name).is_file()]
    if missing:
        raise LiteError(f"{pyodide}: not a Pyodide distribution (missing {', '.join(missing)})")
    version = json.loads((pyodide / "package.json").read_text(encoding="utf-8")).get("version")
    if version != wanted:
        raise LiteError(
            f"{pyodide}: Pyodide {version}, but the installed jupyterlite-pyodide-kernel needs {wanted}: npm install pyodide@{wanted}"
        )
    return json.loads((pyodide / "pyodide-lock.json").read_text(encoding="utf-8"))


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _requirements(lock: dict) -> tuple[list[str], dict[str, str]]:
    """What to download, and the pins: Pyodide's lock versions, else the versions installed here."""
    roots = ["micropip", "ipython", "jedi", "comm", "ipywidgets"]
    pins = {}
    for key, entry in lock["packages"].items():
        if entry.get("file_name", "").endswith("-none-any.whl"):
            pins[_normalize(entry["name"])] = entry["version"]
    for name in ("ipywidgets", "comm", "jupyterlab-widgets"):
        # ipywidgets must match the widgets front end this site is built with (from this environment).
        version = _installed_version(name)
        if version and name not in pins:
            pins[name] = version
    return roots, pins


def _download(roots: list[str], pins: dict[str, str], python: str, cache: Path) -> None:
    """Pure-Python wheels for `python` into `cache` with pip: from the cache alone when it has them all."""
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("".join(f"{name}=={version}\n" for name, version in sorted(pins.items())))
        constraints_file = fh.name
    base = [
        sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--quiet", "--only-binary=:all:",
        "--python-version", python, "--implementation", "py", "--abi", "none", "--platform", "any",
        "-c", constraints_file, "-d", str(cache), *roots,
    ]
    try:
        offline = subprocess.run([*base, "--no-index", "--find-links", str(cache)], capture_output=True, text=True)
        if offline.returncode == 0:
            return
        online = subprocess.run(base, capture_output=True, text=True)
        if online.returncode != 0:
            last = [line for line in online.stderr.splitlines() if line.strip() and "is ignored" not in line]
            raise LiteError(f"pip could not download the wheels the site needs: {last[-1] if last else 'exit ' + str(online.returncode)}")
    finally:
        os.unlink(constraints_file)


_MARKER_ENV = {
    "sys_platform": "emscripten", "platform_system": "Emscripten", "os_name": "posix", "platform_machine": "wasm32",
    "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": "",
}


def _wheel_facts(path: Path, python: str) -> dict:
    """Name, version, import names and (for Pyodide's platform) requirements of one wheel."""
    from packaging.metadata import Metadata

    env = {**_MARKER_ENV, "python_version": ".".join(python.split(".")[:2]), "python_full_version": python}
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        meta = Metadata.from_email(zf.read(meta_name), validate=False)
        top = meta_name.replace("METADATA", "top_level.txt")
        imports = zf.read(top).decode().split() if top in names else []
    if not imports:
        tops = {n.split("/", 1)[0] for n in names}
        imports = sorted(
            t.removesuffix(".py") for t in tops
            if not t.endswith((".dist-info", ".data")) and (t.endswith(".py") or f"{t}/__init__.py" in names)
        )
    depends = [_normalize(req.name) for req in meta.requires_dist or () if req.marker is None or req.marker.evaluate(env)]
    return {"name": meta.name, "version": str(meta.version), "imports": imports, "depends": depends}


def _site_lock(lock: dict, wheels: list[Path], python: str) -> dict:
    """Pyodide's lock, listing exactly the wheels in `wheels` (the rest of the distribution is not served)."""
    packages = {}
    facts = {path: _wheel_facts(path, python) for path in wheels}
    for path, fact in facts.items():
        packages[_normalize(fact["name"])] = fact
    for path, fact in facts.items():
        key = _normalize(fact["name"])
        missing = [d for d in fact["depends"] if d not in packages and d not in PROVIDED]
        if missing:
            raise LiteError(f"{path.name} needs {', '.join(missing)}, which the site would not serve")
        packages[key] = {
            "name": fact["name"],
            "version": fact["version"],
            "file_name": path.name,
            "install_dir": "site",
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "package_type": "package",
            "imports": fact["imports"],
            "depends": sorted(d for d in fact["depends"] if d in packages),
            "unvendored_tests": False,
            "shared_library": False,
        }
    return {"info": lock["info"], "packages": dict(sorted(packages.items()))}


def _closure(roots: list[str], pins: dict[str, str], cache: Path, python: str) -> list[Path]:
    """The wheels in `cache` that `roots` need on Pyodide's platform: the pinned version, else the newest."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename
    from packaging.version import Version

    best: dict[str, tuple[tuple[bool, Version], Path]] = {}
    for path in cache.glob("*.whl"):
        try:
            name, parsed, _, _ = parse_wheel_filename(path.name)
        except (InvalidWheelFilename, ValueError):
            continue  # not a wheel's name: never served
        key, version = _normalize(name), str(parsed)
        rank = (pins.get(key) == version, parsed)
        if key not in best or rank > best[key][0]:
            best[key] = (rank, path)
    wanted, todo = {}, [_normalize(r) for r in roots]
    while todo:
        key = todo.pop()
        if key in wanted or key in PROVIDED:
            continue
        if key not in best:
            raise LiteError(f"no wheel for {key} in {cache}")
        wanted[key] = best[key][1]
        todo += _wheel_facts(best[key][1], python)["depends"]
    return sorted(wanted.values())


# --------------------------------------------------------------------------- the site


def build_site(
    refs: list[str],
    out_dir: Path,
    *,
    title: str | None = None,
    pyodide_dir: str | os.PathLike | None = None,
    wheels_dir: str | os.PathLike | None = None,
    progress=None,
    force: bool = False,
    isolation: str | None = None,
    runs=None,
) -> LiteSite:
    """Build a JupyterLite site in `out_dir` for the records `refs` (packaged ids or paths).

    `pyodide_dir` is the npm ``pyodide`` package (default: found nearby, see
    `find_pyodide`); `wheels_dir` caches the PyPI wheels between builds (default:
    the user's cache folder). The site is built in a folder beside `out_dir` and
    moved in only when the build succeeded. `out_dir` follows the workshop's rules
    (`_output`): the files of an earlier site of ours, unchanged since, are
    replaced or removed, and files someone added stay; a folder we did not build,
    or one whose files were edited, is refused unless `force` (which overwrites
    only what the build writes). Runs ``jupyter lite build``; raises LiteError, in
    one line, when a tool, Pyodide or a wheel is missing. `isolation` is the runner's,
    for every run that builds a notebook here (``sandbox``: ``lite --sandbox``). With `runs`
    (`_notebook_runs.SharedRuns`) each record's runs are taken from there, as other builds of the same records made them.
    """
    from .._records import load_record

    records = [load_record(ref) for ref in refs]  # bad input fails here, before anything is looked for or built
    out_dir = Path(out_dir)
    check_target(out_dir, None, force, MANIFEST, "lite")  # a folder that is not our site: refused before the build
    wanted = kernel_pyodide_version()
    pyodide = find_pyodide(pyodide_dir)
    lock = _check_pyodide(pyodide, wanted)
    python = lock["info"]["python"]
    cache = Path(wheels_dir) if wheels_dir else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "failuremap_edu" / "lite-wheels"

    beside = out_dir.resolve().parent
    beside.mkdir(parents=True, exist_ok=True)
    try:
        notebooks, wheels, preload, target = _build(refs, records, out_dir, title, pyodide, lock, python, cache, beside, progress, force, isolation, runs)
    except WriteError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise
        raise WriteError(out_dir, exc, True, kept=f"{out_dir} is as it was: the site is built beside it and moved in only when whole") from None
    if progress is not None:
        progress(len(refs) + 2, len(refs) + 2)
    return LiteSite(
        path=out_dir,
        notebooks=tuple(notebooks),
        pyodide_version=wanted,
        wheels=tuple(sorted(w.name for w in wheels)),
        preload=preload,
        warnings=tuple(target.warnings),
    )


def _build(refs, records, out_dir, title, pyodide, lock, python, cache, beside, progress, force, isolation=None, runs=None):
    """`build_site`'s work: the site in a temporary folder, then installed in `out_dir` (`_output.install`)."""
    from ._notebook import build_start_here, write_notebook
    from ..runner import isolation_default

    with tempfile.TemporaryDirectory(prefix="failuremap-lite-") as tmp, \
            tempfile.TemporaryDirectory(prefix=".failuremap-lite-", dir=beside) as staging:
        lite = Path(tmp)
        files = lite / "files"
        files.mkdir()
        entries, record_refs, notebooks = [], [], []
        for done, (ref, record) in enumerate(zip(refs, records)):
            if progress is not None:
                progress(done, len(refs) + 2)
            with isolation_default(isolation):  # write_notebook takes no isolation of its own
                path = write_notebook(ref, files, platform="lite", manifest=False, runs=runs)
            _write_notebook(lite_notebook(_read_notebook(path)), path)
            entries.append((record.id, record.category, path.name))
            record_refs.append(record.id if record.packaged else f"records/{record.id}.json")
            notebooks.append(path.name)
        start = files / "00-start-here.ipynb"
        _write_notebook(lite_notebook(build_start_here(entries, title or "Failure Map workshop", record_refs, platform="lite")), start)
        notebooks.insert(0, start.name)

        static = lite / "static" / "pyodide"
        static.mkdir(parents=True)
        for name in RUNTIME_FILES:
            shutil.copyfile(pyodide / name, static / name)
        roots, pins = _requirements(lock)
        _download(roots, pins, python, cache)
        if progress is not None:
            progress(len(refs) + 1, len(refs) + 2)
        wheels = _closure(roots, pins, cache, python) + [package_wheel(lite / "ours")]
        for wheel in wheels:
            shutil.copyfile(wheel, static / wheel.name)
        site_lock = _site_lock(lock, wheels, python)
        (static / "pyodide-lock.json").write_text(json.dumps(site_lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        preload = tuple(p for p in PRELOAD if p in site_lock["packages"])
        (lite / "jupyter-lite.json").write_text(json.dumps(_lite_config(preload), indent=2) + "\n", encoding="utf-8")
        built = Path(staging) / "site"
        _jupyter_lite_build(lite, built)
        (built / ".nojekyll").touch()  # GitHub Pages: serve the files as they are, no Jekyll build
        written = folder_files(built)
        target = check_target(out_dir, written, force, MANIFEST, "lite")
        install(built, written, target, MANIFEST)
    return notebooks, wheels, preload, target


def _lite_config(preload: tuple[str, ...]) -> dict:
    return {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "Failure Map exercises",
            # A reload (or a closed tab) loses at most the last few seconds of an edit: the browser's storage is
            # the only copy of the learner's work, and JupyterLab autosaves every 120 s by default.
            "settingsOverrides": {
                "@jupyterlab/docmanager-extension:plugin": {
                    "autosave": True, "autosaveInterval": AUTOSAVE_SECONDS, "lastModifiedCheckMargin": LAST_MODIFIED_MARGIN_MS,
                },
                # As on a server (the state goes into downloaded notebooks). JupyterLite 0.8 itself cannot restore it:
                # it never answers comm_info_request, which the widget manager awaits first. A reload shows the
                # panel's saved copy instead (`_cell._SavedCopy`).
                "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True},
            },
            "litePluginSettings": {
                "@jupyterlite/pyodide-kernel-extension:kernel": {
                    "disablePyPIFallback": True,
                    "loadPyodideOptions": {
                        "packages": list(preload),
                        "env": {"FAILUREMAP_PROGRESS": PROGRESS_IN_BROWSER},
                    },
                }
            },
        },
    }


def _jupyter_lite_build(lite: Path, out_dir: Path) -> None:
    command = [
        sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(lite), "--output-dir", str(out_dir.resolve()),
        "--apps", "lab", "--no-sourcemaps", "--no-unused-shared-packages",
    ]
    done = subprocess.run(command, cwd=lite, capture_output=True, text=True)
    if done.returncode != 0:
        tail = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()][-3:]
        raise LiteError(f"jupyter lite build failed (exit {done.returncode}): {' | '.join(tail)}")
    config = json.loads((out_dir / "jupyter-lite.json").read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    if not settings.get("pyodideUrl", "").startswith("./"):
        raise LiteError(f"jupyter lite build did not point the kernel at the site's own Pyodide (pyodideUrl: {settings.get('pyodideUrl')!r})")
