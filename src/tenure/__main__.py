"""`python -m tenure`: the `tenure` command (as `python -m tenure.cli`)."""

import sys

from tenure.entry import run_cli

run_cli(sys.argv[1:])
