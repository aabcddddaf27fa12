"""The exercise panel's folded parts (downloads, the comparison, hints, the playground): made when first opened.

Until a part is opened its widgets are stand-ins (plain namespaces) that the
panel's `update` writes to like any widget; `build_part` makes the real widgets
with those values and wires them, and `place_parts` puts each open part right
after its button. A first run then opens one button per part in the browser,
not every widget of every part.
"""

from __future__ import annotations

from html import escape

__all__ = ["PARTS", "PART_WIDGETS", "build_part", "place_parts"]

PARTS = {
    "downloads": ("Keep your work: downloads", "Download your solve and your results (made when opened)"),
    "compare": ("Compared with the record's broken and attempt", "Your results beside the record's broken and attempt"),
    "hints": ("Hints", "Hints for your latest run, one at a time"),
    "playground": ("Playground: try any inputs", "Call solve on inputs you type"),
}
"""The panel's folded parts: a button each (its title, its tooltip), their widgets made when first opened."""
PART_WIDGETS = {"downloads": ("downloads", "export_link"), "compare": ("compare",), "hints": ("next_hint", "hide_hints", "hints"),
                 "playground": ("inputs", "outputs")}
"""The widgets `update` sets, by the part they belong to (stand-ins until the part is opened)."""


def place_parts(panel) -> None:
    """The root's children: each open part's widgets right after its button (one state message for the root)."""
    children = []
    for child in panel.root.children:
        if any(child in widgets for widgets in panel._opened.values()):
            continue
        children.append(child)
        for name, fold in panel.folds.items():
            if child is fold and name in panel._shown_parts:
                children += panel._opened[name]
    panel.root.children = tuple(children)


def build_part(panel, name: str) -> tuple:
    """The part's widgets, made now with the values `update` left on their stand-ins, and wired to the panel."""
    import ipywidgets as w

    from ._panel import PLAYGROUND_HELP, PLAYGROUND_NAME, _html, playground_contract

    html, row, button = panel._make["html"], panel._make["row"], panel._make["button"]
    e = panel.exercise
    was = {attr: getattr(panel, attr) for attr in PART_WIDGETS[name]}
    heading = html(_html(f"<h4>{escape(PARTS[name][0])}</h4>"))
    if name == "downloads":
        panel.downloads = html(panel._download_links() if e.runs and not e.running else was["downloads"].value)
        # Everything you ran, one file to hand in without a terminal: made when asked (it reads the whole progress
        # log, so building it on every run would cost more with every run).
        panel.export = button("Export everything you ran", "A .json of every run of every exercise, to hand in")
        panel.export_link = html(was["export_link"].value)
        panel.export.on_click(panel._on_export)
        return (panel.downloads, *([row([panel.export]), panel.export_link] if e.log_progress else []))
    if name == "compare":
        panel.compare = html(was["compare"].value)
        return heading, panel.compare
    if name == "hints":
        panel.next_hint = button("Show next hint", "Reveal one more hint", was["next_hint"].disabled)
        panel.hide_hints = button("Hide hints", "Hide all hints again", was["hide_hints"].disabled)
        panel.hints = html(was["hints"].value)
        panel.next_hint.on_click(panel._on_next_hint)
        panel.hide_hints.on_click(panel._on_hide_hints)
        return heading, row([panel.next_hint, panel.hide_hints]), panel.hints
    # Named by its label, which only a screen reader meets (the sighted see "solve(" and ")" around the box).
    panel.inputs = w.Text(description=PLAYGROUND_NAME, continuous_update=True, layout=w.Layout(width="auto", flex="1 1 12em", min_width="0"),
                         placeholder=was["inputs"].placeholder)
    panel.inputs.add_class("fm-named-box")
    panel.outputs = html(was["outputs"].value)
    panel.inputs.observe(panel._on_inputs, names="value")
    return (heading, html(_html(f'<p class="fm-muted">{escape(PLAYGROUND_HELP)} {escape(playground_contract(e.record.contract))}</p>')),
            row([html(_html('<code aria-hidden="true">solve(</code>')), panel.inputs, html(_html('<code aria-hidden="true">)</code>'))]),
            panel.outputs)
