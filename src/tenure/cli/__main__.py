"""`python -m tenure.cli`: the background enrichment is started this way (no console script needed)."""

from tenure.cli import app

app()
