"""The comments and docstrings of the indexed code, with the symbol each sits in and the name an
assignment's comment is about; a `#` inside a string is no comment."""

from __future__ import annotations

import re
from pathlib import Path

from tenure.api import Tenure
from tenure.namespace.comments import comments_matching, symbols_naming

PY = '''"""Settlement (ADR-0003)."""

MAX_RETRIES = 3  # see ADR-0003
NOT_A_CITATION = "ADR-0004 in a string"


class Service:
    # ADR-0005: one service per clearing house
    @staticmethod
    def submit(trade):
        """Idempotent (ADR-0006)."""
        def inner():
            return MAX_RETRIES  # ADR-0007 inside a closure is its function's
        return inner()
'''

TS = '''/** Client of the ledger (ADR-0008) */
export const TIMEOUT_MS = 3000;
export function send(): number { return TIMEOUT_MS; }
'''


def test_comments_and_docstrings_sit_in_their_symbols_and_name_what_they_assign(tmp_path: Path) -> None:
    (tmp_path / "pay").mkdir()
    (tmp_path / "pay" / "__init__.py").write_text("")
    (tmp_path / "pay" / "settlement.py").write_text(PY)
    (tmp_path / "client.ts").write_text(TS)
    with Tenure.open(tmp_path, discover=False) as t:
        t.index()
        found = {re.search(r"ADR-\d+", c.text).group(): (c.kind, c.fqn, c.assigns)
                 for c in comments_matching(t.db, tmp_path, ["pay/settlement.py", "client.ts"], re.compile(r"ADR-\d+"))}
        readers = {s.fqn for s in symbols_naming(t.db, tmp_path, "pay/settlement.py", ["MAX_RETRIES"])["MAX_RETRIES"]}
    assert found["ADR-0003"] == ("comment", "pay.settlement", "MAX_RETRIES")
    assert "ADR-0004" not in found  # a string that is no docstring
    assert found["ADR-0005"] == ("comment", "pay.settlement.Service.submit", "")  # above it, past its decorator
    assert found["ADR-0006"] == ("docstring", "pay.settlement.Service.submit", "")
    assert found["ADR-0007"][1] == "pay.settlement.Service.submit"
    assert found["ADR-0008"][0] == "comment" and found["ADR-0008"][2] == "TIMEOUT_MS"
    assert readers == {"pay.settlement.Service.submit"}
