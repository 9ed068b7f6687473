"""`python -m tenure.cli`: how `tenure.entry` runs the CLI with its hash seed, and how the background
enrichment is started (no console script needed)."""

from tenure.cli import app

app(prog_name="tenure")
