"""`python -m tenure.cli`: the CLI, run with the fixed string-hash seed of `tenure.entry` (set here
too when it is not yet: a graph built or updated by `python -m tenure.cli` is then the one `tenure`
builds, and answers stored by either are the answers the other gets). Also how the background
enrichment is started (no console script needed)."""

import sys

from tenure.entry import with_hash_seed

with_hash_seed(["-m", "tenure.cli", *sys.argv[1:]])

from tenure.cli import app  # noqa: E402 — after the seed: the process may be replaced above

app(prog_name="tenure")
