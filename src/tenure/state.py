"""Where tenure keeps a project's state: `<root>/.tenure/tenure.db`. A module of its own, so that the
entry point can look before the product is loaded."""

STATE_DIR = ".tenure"
DB_NAME = "tenure.db"
