"""Episodic memory: what happened when we tried before (SPEC §2.3) — episodes with their outcomes."""
