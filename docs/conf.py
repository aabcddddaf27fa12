"""Sphinx configuration: MyST Markdown, the PyData theme, the CLI from argparse, the API from docstrings (``make docs``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

project = "failuremap_edu"
author = "the failuremap_edu authors"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinxarg.ext"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
html_theme = "pydata_sphinx_theme"
html_title = "failuremap_edu"
html_theme_options = {"navigation_with_keys": False}
# Headings get anchors a page can link to as page.md#heading, as the README's sections did.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
# Internal references must resolve (-W turns these warnings into errors).
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(?!failuremap_edu).*")]
autodoc_member_order = "bysource"
autodoc_typehints = "none"
