"""The join's answer (SPEC §2.6): one question, every store asked through its own API, one answer
packed to a token budget. It sits above the stores and below `Tenure` (ARCHITECTURE.md)."""
