"""What a JupyterLite site serves of Python: this package as a pure-Python wheel, Pyodide from npm, and the PyPI wheels
it needs, pinned to Pyodide's lock and to the widgets' front end built here (`_lite.build_site` puts them in the site).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .. import __version__
from .._errors import InputError

__all__ = ["LiteError", "PROVIDED", "RUNTIME_FILES", "find_pyodide", "kernel_pyodide_version", "package_wheel"]

RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "package.json")
"""Of the npm package, what a browser loads (``pyodide-lock.json`` is written anew)."""

PROVIDED = frozenset({"ipykernel", "pyodide-kernel", "piplite", "widgetsnbextension", "jupyterlab-widgets"})
"""Served by jupyterlite-pyodide-kernel itself (its stand-ins) or by the page (the widgets' front end)."""


class LiteError(InputError):
    """A JupyterLite site cannot be built (a missing tool, no Pyodide, a wheel that cannot be had)."""


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
