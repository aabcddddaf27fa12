"""Notebooks (nbformat 4.5) as plain JSON, built and written without importing nbformat.

Importing nbformat imports jsonschema, and with it whatever format checkers are
installed: beside JupyterLab that includes rfc3987-syntax, which compiles some
forty grammars at import, about two thirds of the time `failuremap-edu notebook`
took for one record. The generator's notebooks need none of it: a notebook is a
dict of known fields, and nbformat's file is that dict as JSON with every
multi-line string split into lines. tests/test_notebook.py checks that what
`writes` gives is what ``nbformat.writes`` gives, and that it validates.
"""

from __future__ import annotations

import copy
import json

__all__ = ["Node", "new_code_cell", "new_markdown_cell", "new_notebook", "new_output", "writes"]


class Node(dict):
    """A dict whose keys read and write as attributes too, as nbformat's NotebookNode."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value) -> None:
        self[name] = value

    def __deepcopy__(self, memo):
        return type(self)((k, copy.deepcopy(v, memo)) for k, v in self.items())


def new_notebook(cells: list) -> Node:
    return Node(nbformat=4, nbformat_minor=5, metadata=Node(), cells=list(cells))


def new_markdown_cell(source: str, id: str) -> Node:  # noqa: A002 - nbformat's name for it
    return Node(id=id, cell_type="markdown", source=source, metadata=Node())


def new_code_cell(source: str, id: str) -> Node:  # noqa: A002
    return Node(id=id, cell_type="code", source=source, metadata=Node(), execution_count=None, outputs=[])


def new_output(output_type: str, **fields) -> Node:
    """A display_data or execute_result (`data`, and `execution_count` for a result), or a stream (`name`, `text`)."""
    if output_type == "stream":
        return Node(output_type="stream", name=fields["name"], text=fields["text"])
    output = Node(output_type=output_type, data=Node(fields["data"]), metadata=Node())
    if output_type == "execute_result":
        output.execution_count = fields["execution_count"]
    return output


_SPLIT_MIMES = ("application/javascript", "image/svg+xml")
"""Besides ``text/*``, the mime types whose strings nbformat writes as lists of lines."""


def _split(text):
    return text.splitlines(True) if isinstance(text, str) else text


def writes(nb: dict) -> str:
    """The notebook's file, as ``nbformat.writes`` writes it: keys sorted, indent 1, text split into lines.

    The same strings are split as by nbformat's ``split_lines``: sources, streams' text, and in
    outputs' data the ``text/*`` ones, JavaScript and SVG."""
    nb = copy.deepcopy(nb)
    for cell in nb.get("cells", []):
        cell["source"] = _split(cell.get("source", ""))
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output["text"] = _split(output.get("text", ""))
            data = output.get("data", {})
            for mime in data:
                if mime.startswith("text/") or mime in _SPLIT_MIMES:
                    data[mime] = _split(data[mime])
    return json.dumps(nb, sort_keys=True, indent=1, separators=(",", ": "), ensure_ascii=False)
