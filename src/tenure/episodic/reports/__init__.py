"""Readers of reports and exports that come from outside: untrusted input, streamed."""
