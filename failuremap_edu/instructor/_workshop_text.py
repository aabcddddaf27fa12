"""What a workshop's folders say and link to: Binder and nbgitpuller links, the learners' README, the instructor's notes,
the learners' pyproject and Binder pins (`_workshop` writes them).

Links are built with `urllib.parse` in the forms nbgitpuller's link generator
writes: ``HUB/hub/user-redirect/git-pull?repo=…&branch=…&urlpath=lab/tree/FOLDER/…``
where FOLDER is what nbgitpuller clones into (the last part of the repository
URL, as its server derives it), and the Binder form that pulls the content into an
environment repository: ``https://mybinder.org/v2/gh/ENV/HEAD?urlpath=git-pull%3F…``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from .._errors import InputError
from ._hub import HUB_CONFIG, LEARNERS_ENV_SCRIPT, Z2JH_CONFIG, live_view_lines
from ._notebook import keep_work, md

__all__ = ["BINDER", "START", "WorkshopError", "binder_pull_url", "binder_url", "clone_folder", "nbgitpuller_url"]

START = "notebooks/00-start-here.ipynb"
BINDER = "https://mybinder.org"


class WorkshopError(InputError):
    """A workshop cannot be built as asked (duplicate ids, an output folder to protect, a bad link option)."""


def _check_url(url: str, option: str, schemes: tuple[str, ...], *, needs_path: bool = True) -> None:
    parts = urlsplit(url)
    if parts.scheme not in schemes or not (parts.netloc or parts.scheme == "file") or (needs_path and not parts.path.strip("/")):
        raise WorkshopError(f"{option} {url!r}: expected a URL starting with {' or '.join(s + '://' for s in schemes)}")


def clone_folder(repo: str) -> str:
    """The folder nbgitpuller clones `repo` into: the last part of the URL, as its server derives it.

    nbgitpuller's ``git-pull`` handler uses ``repo.rstrip('/').split('/')[-1]`` when
    no ``targetPath`` is given, so ``…/course.git`` becomes ``course.git``.
    """
    return repo.rstrip("/").split("/")[-1]


def _binder_spec(repo: str, ref: str | None) -> str:
    """Binder's provider path for a repository: ``gh/OWNER/REPO/REF``, ``gl/…`` or ``git/…``."""
    parts = urlsplit(repo)
    path = parts.path.strip("/")
    path = path[: -len(".git")] if path.endswith(".git") else path
    ref = quote(ref or "HEAD", safe="")
    if parts.netloc.lower() in ("github.com", "www.github.com") and path.count("/") == 1:
        return f"gh/{path}/{ref}"
    if parts.netloc.lower() == "gitlab.com" and path:
        return f"gl/{quote(path, safe='')}/{ref}"
    return f"git/{quote(repo, safe='')}/{ref}"


def binder_url(repo: str, branch: str | None = None, path: str = START) -> str:
    """Binder builds `repo` itself and opens `path` in JupyterLab."""
    return f"{BINDER}/v2/{_binder_spec(repo, branch)}?{urlencode({'urlpath': f'lab/tree/{path}'}, safe='/')}"


def _pull_query(repo: str, path: str, branch: str | None) -> str:
    params = [("repo", repo)] + ([("branch", branch)] if branch else []) + [("urlpath", f"lab/tree/{clone_folder(repo)}/{path}")]
    return urlencode(params)


def nbgitpuller_url(hub: str, repo: str, path: str, branch: str | None = None) -> str:
    """A JupyterHub link: log in, start the server, pull `repo` with nbgitpuller, open `path` in JupyterLab."""
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{_pull_query(repo, path, branch)}"


def binder_pull_url(env_repo: str, repo: str, path: str, branch: str | None = None) -> str:
    """Binder builds `env_repo` (rarely changes, so it is cached), then nbgitpuller pulls `repo` into it."""
    return f"{BINDER}/v2/{_binder_spec(env_repo, None)}?{urlencode({'urlpath': 'git-pull?' + _pull_query(repo, path, branch)})}"


def _links(entries, repo, branch, hub, env_repo) -> list[tuple[str, str | None, str | None]]:
    """(notebook, JupyterHub link, Binder link) for the start-here notebook and each exercise."""
    if not repo or not (hub or env_repo):
        return []
    paths = [START] + [f"notebooks/{name}" for _, _, name in entries]
    return [
        (path, nbgitpuller_url(hub, repo, path, branch) if hub else None, binder_pull_url(env_repo, repo, path, branch) if env_repo else None)
        for path in paths
    ]


def _link_lines(links) -> list[str]:
    if not links:
        return []
    hub, binder = any(h for _, h, _ in links), any(b for _, _, b in links)
    head = "| notebook |" + (" JupyterHub |" if hub else "") + (" Binder |" if binder else "")
    rows = [head, "|---|" + ("---|" if hub else "") + ("---|" if binder else "")]
    for path, h, b in links:
        rows.append(f"| {md(path.split('/')[-1])} |" + (f" [open]({h}) |" if hub else "") + (f" [open]({b}) |" if binder else ""))
    return rows


def _learner_readme(title, entries, repo, branch, links, with_solutions, platform="server") -> str:
    lines = [f"# {md(title, 200)}", ""]
    binder_badge = platform != "hub" and urlsplit(repo or "").scheme in ("https", "http")  # Binder cannot build a file:// repository
    if binder_badge:
        lines += [f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder_url(repo, branch)})", ""]
    lines += [
        "Open `notebooks/00-start-here.ipynb` first. Each exercise notebook gives you a function `solve` to fix: "
        "edit it in the cell with the line `@fm.exercise(...)` right above `def solve`, and run that cell (Shift+Enter).",
        "",
        "| exercise | what fails |",
        "|---|---|",
        *[f"| [{md(record_id)}](notebooks/{name}) | {md(text, 200)} |" for record_id, text, name in entries],
        "",
    ]
    if links:
        lines += ["## Links that open the notebooks", "", "Each link starts your server, pulls this repository into it and opens the notebook.", ""]
        lines += _link_lines(links) + [""]
    lines += [
        "## Keep your work",
        "",
        keep_work(platform) + " The exercise panel's links download your `solve` (.py) and your results (.json).",
        "",
    ]
    if with_solutions:
        lines += ["Reference solutions are in `notebooks/instructor/`: try first, then compare.", ""]
    if platform != "hub" and not binder_badge:
        lines += ["<!-- No Binder badge: rebuild with `failuremap-edu workshop ... --repo URL` (an https URL) once the repository exists. -->", ""]
    return "\n".join(lines)


def _instructor_notes(title, out_dir, entries, solutions, skipped, links, hub) -> str:
    lines = [
        f"# {md(title, 200)}: instructor material",
        "",
        f"Not for learners: keep this folder out of the learners' repository (`{md(str(out_dir))}`), which holds no reference solution.",
        "",
        "## Instructor notebooks",
        "",
    ]
    if solutions:
        lines += [
            "`notebooks/` holds one instructor notebook per exercise with a reference solution (`solutions/`): the reference "
            "filled in, every hint open, and presenter aids in the panel: reveal or hide everything at once. For the back of "
            "the room, JupyterLab's *View → Appearance → Presentation Mode* and *Settings → Theme → Increase Content Font Size* "
            "enlarge the notebook. Run them where `failuremap-edu` is installed (for example `pip install -e` of the learners' folder). "
            "Runs marked as an instructor's are left out of the class report.",
            "",
        ]
    lines += [f"- {md(record_id)}: `notebooks/{record_id}.ipynb`, `solutions/{record_id}.py`" for record_id, _, _ in entries if record_id in solutions]
    if skipped:
        lines += ["", "No instructor notebook for " + ", ".join(md(s) for s in skipped) + ": no reference solution was given "
                  "(pass `--solutions DIR` with `DIR/ID.py`)."]
    lines += [""]
    if links:
        lines += ["## Links for the learners", "", "The same links are in the learners' README."]
        if hub:
            lines += [
                f"The learners' servers run the environment `sh {LEARNERS_ENV_SCRIPT}` builds: `failuremap-edu` from a wheel of the "
                "learners' folder (no reference solution in it) and `nbgitpuller`, never your own, whose editable install has "
                "the reference solutions beside it. "
                f"`{HUB_CONFIG}` here is a JupyterHub configuration for one machine (the one failuremap_edu's hub test runs; "
                f"change the lines marked CHANGE), and `{Z2JH_CONFIG}` the Helm values for Zero to JupyterHub on Kubernetes, "
                "past one machine: about 60 MB of memory per learner, measured."
            ]
        lines += [""] + _link_lines(links) + [""] + (live_view_lines() if hub else [])
    lines += [
        "## Collecting results",
        "",
        "Learners hand in the results file (.json) that the panel downloads, or the file `failuremap-edu export` writes; "
        "both carry a pseudonymous learner id. Put them in one folder, then:",
        "",
        "```sh",
        "failuremap-edu report FOLDER                  # where the class got stuck, per exercise and check",
        "failuremap-edu report FOLDER --html report.html",
        "```",
        "",
    ]
    return "\n".join(lines)


_WORKSHOP_PYPROJECT = """[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "failuremap-edu"
dynamic = ["version"]
requires-python = ">=3.11"
license = "MIT"
dependencies = ["jupyterlab>=4.2", "ipywidgets>=8.1", "matplotlib>=3.8", "nbformat>=5.9", "tqdm>=4.66", "psutil>=5.9; sys_platform != 'emscripten'"]

# The learner's commands only (check, export): the instructor's are not in this folder.
[project.scripts]
failuremap-edu = "failuremap_edu._command:main"

[tool.hatch.version]
path = "failuremap_edu/__init__.py"

[tool.hatch.build.targets.wheel]
packages = ["failuremap_edu"]

# Turns JupyterLab's news pop-up off in the environment the package is installed in.
[tool.hatch.build.targets.wheel.shared-data]
"failuremap_edu/_jupyter/page_config.json" = "etc/jupyter/labconfig/page_config.d/failuremap_edu.json"
"failuremap_edu/_jupyter/widgets_settings.json" = "share/jupyter/lab/settings/overrides.d/failuremap_edu.json"
"""


def _binder_requirements(pull: bool = False) -> str:
    """The pins this project's own binder/ is tested with, with comments that fit the workshop folder.

    With `pull` (a hub, or an environment repository that learners pull content into), nbgitpuller too:
    the image a hub runs (Zero to JupyterHub's, built by repo2docker from this folder) needs it."""
    ours = Path(__file__).resolve().parents[2] / "binder" / "requirements.txt"
    pins = [line for line in ours.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")] if ours.is_file() else []
    pins = [line for line in pins if line.strip() != "."] or ["jupyterlab", "ipywidgets", "matplotlib", "nbformat"]
    return (
        "# Binder (repo2docker) reads this folder. The versions failuremap-edu is tested with.\n"
        + "\n".join(pins)
        + ("\n# The links that open a notebook on a hub go through nbgitpuller, in the learner's server.\nnbgitpuller" if pull else "")
        + "\n# With binder/ present, repo2docker does not install the repository itself: this line does\n"
        "# (pip runs from the repository root, where the copy of failuremap_edu is).\n.\n"
    )


def _license() -> str:
    """The package's license text: from its installed metadata, or from the source tree."""
    from importlib import metadata

    try:
        for file in metadata.distribution("failuremap-edu").files or ():
            if file.name.upper().startswith(("LICENSE", "LICENCE")):
                return file.read_text(encoding="utf-8")
    except (metadata.PackageNotFoundError, OSError):
        pass
    ours = Path(__file__).resolve().parents[2] / "LICENSE"
    if ours.is_file():
        return ours.read_text(encoding="utf-8")
    raise WorkshopError("the package's LICENSE file is missing: reinstall failuremap-edu")
