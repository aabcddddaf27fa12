"""The notebook's words and cells: record text made safe for Markdown, numbered cells, and what each platform's texts say.

Everything here is a pure function of a record (or of runs already made): no code runs, nothing is imported
from a front. The generator (`_notebook`) puts these together with the results of `_notebook_runs`.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from .._fixtures import read_fixtures
from .._records import Record
from .._values import text_safe
from ._nbjson import Node, new_code_cell, new_markdown_cell, new_notebook, new_output

__all__ = ["CHECK_OUTPUT", "IMPORT", "PLATFORMS", "Cells", "about", "code_span", "header", "keep_work", "language_info", "md", "notebook_of", "variant_words"]

CHECK_OUTPUT = "nbval-check-output"
TEXT_LIMIT = 5_000

IMPORT = "import failuremap_edu as fm\n\n"
"""Each code cell starts with it: every cell works on its own after a kernel restart."""


def md(text: str, limit: int = TEXT_LIMIT) -> str:
    """Record text made safe for a Markdown cell: HTML-escaped, Markdown and math neutralised."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + f"… ({len(text) - limit + 1:,} more characters not shown)"
    text = html.escape(text_safe(text), quote=False)
    return re.sub(r"([\\`*_\[\]{}#|$~])", r"\\\1", text)


def code_span(text: str, limit: int = 300) -> str:
    """Record text as one Markdown code span, shown verbatim, that nothing inside it can end.

    CommonMark ends a code span only at a run of backquotes as long as the one
    that opened it: the fence is one longer than the longest run in `text`. Inside,
    nothing is Markdown, HTML or math (JupyterLab leaves ``$`` in code spans alone).
    """
    text = " ".join(text_safe(str(text)).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


@dataclass
class Cells:
    """A notebook's cells as they are added: ids fixed by the record's id and position, code cells numbered in order."""

    record_id: str
    cells: list
    count: int = 0

    def _id(self) -> str:
        return f"{re.sub(r'[^A-Za-z0-9-]', '-', self.record_id)[:40]}-{len(self.cells):02d}"

    def markdown(self, source: str) -> None:
        self.cells.append(new_markdown_cell(source.strip(), id=self._id()))

    def code(self, source: str, output: str | None = None, tags: tuple[str, ...] = (), display: dict | None = None, result: dict | None = None,
             displays: list[dict] = ()) -> None:
        """A code cell with the outputs it gives when run: `display`, `displays` and `result` (mime bundles), `output` (printed text)."""
        cell = new_code_cell(source.strip(), id=self._id())
        self.count += 1
        cell.execution_count = self.count  # every cell numbered in order, as after one Run All (nbval compares only numbered cells)
        if tags:
            cell.metadata["tags"] = list(tags)
        for bundle in ([display] if display is not None else []) + list(displays):
            cell.outputs.append(new_output("display_data", data=bundle))
        if output is not None:
            cell.outputs.append(new_output("stream", name="stdout", text=output if output.endswith("\n") else output + "\n"))
        if result is not None:
            cell.outputs.append(new_output("execute_result", data=result, execution_count=self.count))
        self.cells.append(cell)


def variant_words(runs) -> str:
    """What the variants change, counted from runs of every variant: only claim "different values" when it is so.

    A check depends on N when its label, what it compares or its expected value
    differs between variants (decided on values), or when only some variants run it.
    """
    longest = max((run.total for run in runs), default=0)
    depends = []
    for i in range(longest):
        seen = [run.observations[i] for run in runs if i < run.total]
        first = seen[0]
        differs = len(seen) < len(runs) or any(
            (o.check, o.expression) != (first.check, first.expression) or type(o.expected) is not type(first.expected) or not _equal(o.expected, first.expected)
            for o in seen[1:]
        )
        if differs:
            depends.append(first.check)
    counts = sorted({run.total for run in runs})
    if len(depends) > 1 and len(counts) > 1:
        return (f"The checks use `N` (1 to 5): there are {counts[0]} to {counts[-1]} checks, depending on N, and {len(depends)} "
                "of them get different values in each variant or run only in some.")
    if len(depends) > 1:
        return f"The checks use `N` (1 to 5): {len(depends)} of the {counts[0]} checks get different values in each variant."
    if depends:
        return f"The checks use `N` (1 to 5) in one check only, '{md(depends[0], 100)}'; the other checks are the same in every variant."
    return "The checks read `N` (1 to 5), but every variant checks the same values here."


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except BaseException:  # noqa: BLE001 - a record's value with a hostile __eq__: count it as different
        return False


def about(record: Record, *, learner: bool = False) -> str:
    """The record's facts and fine print, folded at the end: for the curious, not in the way.

    For a learner it starts with the record's title, which the notebook's top leaves out, since it often names the fix."""
    r = record
    facts = [("id", r.id), ("category", r.category), ("family", r.family), ("verified by its author", "yes" if r.verified else "no"), ("license", r.license)]
    provenance = "\n".join(f"| {md(k, 100)} | {md(v, 300)} |" for k, v in sorted(r.provenance.items()))
    parts = [
        f"**The record's title** (it names what fails, and often the fix). {md(r.title, 300)}" if learner else "",
        "| fact | value |\n|---|---|\n" + "\n".join(f"| {name} | {md(value, 300) or '—'} |" for name, value in facts),
        f"**What fails, in the record's words** (this gives part of the answer away). {md(r.abstract)}" if r.abstract else "",
        f"**Limitations.** {md(r.limitations) or '—'}",
        f"**Variants, as the record states them.** {md(r.variant_policy)}" if r.variant_policy else "",
        "" if read_fixtures(r).uses_variant else "(The checks here never read `N`, so every variant runs the same checks: there is one set.)",
        f"**Method.** {md(r.method)}" if r.method else "",
        f"**Why it matters.** {md(r.relevance)}" if r.relevance else "",
        f"| provenance | |\n|---|---|\n{provenance}" if provenance else "",
    ]
    body = "\n\n".join(p for p in parts if p)
    heading, summary = ("About this exercise", "The record's title, facts, limitations and provenance") if learner else ("About this record", "Facts, limitations and provenance")
    return f"## {heading}\n\n<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


PLATFORMS = ("server", "binder", "hub", "lite")
"""Where a notebook will run: any Jupyter server (the committed notebooks, ``make lab``),
Binder, a JupyterHub, or a JupyterLite site in the browser. Each says only what holds there."""

LOADS = {
    "server": "loads the record and starts the checking process while you read",
    "lite": "loads the record (the checks run in this page's Python, in your browser)",
}
KEEP_WORK = {
    "server": "If this notebook runs on a hosted service (Binder, a JupyterHub), its session can end: keep your work with the panel's download links.",
    "binder": "Binder ends a session after a while without activity, and keeps nothing of it: keep your work with the panel's download links.",
    "hub": "Your notebooks stay in your home folder on this hub between sessions; the panel's download links give you copies to keep or hand in.",
    "lite": (
        "Your notebooks are kept in this browser, for this site only (clearing the site's data erases them): "
        "the panel's download links are the only way to take your work elsewhere."
    ),
}
SAVED = (
    "Every run of an exercise cell (the one with `@fm.exercise(...)`) is saved; calls of `fm.run_checks` and "
    "`fm.try_call` in other cells are not."
)
PROGRESS_WHERE = {
    "server": (
        "They are saved on this machine, in one file that the table below names when you run it: by default "
        "`~/.local/share/failuremap_edu/progress.jsonl`, which everyone who uses this home folder shares. "
        "Set `FAILUREMAP_PROGRESS` before starting Jupyter to choose the file; a relative name, such as "
        "`FAILUREMAP_PROGRESS=failuremap-progress.jsonl`, gives each notebook folder a file of its own. On a hosted service (Binder, a JupyterHub) the session can end: keep your work with the "
        "panel's download links, or run `failuremap-edu export` in a terminal, which writes every run to one file."
    ),
    "binder": (
        "They are saved in this Binder session only, which ends after a while without activity: keep your work with the "
        "panel's download links, or run `failuremap-edu export` in a terminal (*File → New → Terminal*), which writes "
        "every run to one file that you can download from the file browser."
    ),
    "hub": "They are saved in your home folder on this hub, so they stay between sessions; the panel's download links give you copies to hand in.",
    "lite": (
        "They are saved in this browser, for this site only (the file `failuremap-progress.jsonl` in the file browser): "
        "clearing the site's data erases them, and the panel's download links are the only way to take your work elsewhere."
    ),
}


def keep_work(platform: str) -> str:
    """One sentence: where the learner's work is kept on `platform`, and what keeps a copy."""
    return KEEP_WORK[checked_platform(platform)]


def checked_platform(platform: str) -> str:
    """`platform` itself, one of `PLATFORMS`; any other raises ValueError naming them."""
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {', '.join(PLATFORMS)}, got {platform!r}")
    return platform


def notebook_of(cells: Cells):
    """The notebook of `cells`, with the kernelspec and language_info of this Python's kernel."""
    nb = new_notebook(cells.cells)
    nb.metadata = Node(
        kernelspec=Node({"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}), language_info=Node(language_info()),
    )
    return nb


def language_info() -> dict:
    """What the Python kernel reports about itself, so that opening a notebook changes nothing.

    JupyterLab copies the kernel's language_info into the notebook when the kernel
    starts, and marks the notebook modified if that changes anything. The version
    is this interpreter's: a kernel of another Python version still marks it.
    """
    import platform

    return {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": platform.python_version(),
    }


def header(cells: Cells, record: Record, kind: str, title: str) -> None:
    """Add the notebook's title cell and the record's contract."""
    r = record
    cells.markdown(
        f"# {md(title, 300)}\n\n*{kind} · Failure Map record {md(r.id)}*\n\n"
        "Until you run a cell, the output under it is the one stored when this notebook was made, so you can read it before running anything. "
        "*Run → Run All Cells* runs it for you."
    )
    cells.markdown(f"## The contract\n\n{code_span(f'solve({r.contract_signature})', 300)}\n\n{md(r.contract)}")
