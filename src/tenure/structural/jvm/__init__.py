"""JVM bytecode and dependency-injection wiring as sources of the code graph (SPEC §2.1)."""
