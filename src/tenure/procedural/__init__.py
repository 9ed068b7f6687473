"""Procedural memory: the rules that earn their place in the always-loaded instructions, and the
situational procedures that are tools (SPEC §2.4)."""
