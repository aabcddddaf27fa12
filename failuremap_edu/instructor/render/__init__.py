"""The class report's renderers: `_report` (text, one HTML page, a heatmap) and `_need` (who needs help: rows, a table, a live page, CSV)."""
