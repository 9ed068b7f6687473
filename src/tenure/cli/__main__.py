"""`python -m tenure.cli`: the CLI as the `tenure` command runs it (`tenure.entry`: a fixed
string-hash seed for the command that builds the graph, so that a graph built or updated by either
is the one the other builds, and answers stored by either are the answers the other gets). Also how
the background enrichment is started (no console script needed)."""

import sys

from tenure.entry import run_cli

run_cli(sys.argv[1:])
