"""A file's terms read once for every reader of an index run (namespace/line_terms.py): each line's
terms are what `terms` gives for that line, lines counted as `str.splitlines` counts them."""

from __future__ import annotations

from pathlib import Path

from tenure.namespace.line_terms import LineTerms
from tenure.namespace.terms import terms

TEXT = ("class SessionInterface:\r\n"
        "    def open_session(self, app, request):  # URLs and APIs\r"
        "\f\n"
        "        return self.null_session_class()\u2028"
        "x = 42; urlFor2 = 'throttled requests' + 9lives_left + 3d_model + 2URLs\x85caf\xe9Bar\u2029\x1cend\n"
        "\n"
        "last_line_without_break")


def test_each_lines_terms_are_that_lines_terms_whatever_its_line_break(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(TEXT, encoding="utf-8", newline="")
    code = LineTerms(tmp_path)
    lines = TEXT.splitlines()
    assert code.file("a.py").lines == len(lines)
    for n, line in enumerate(lines):
        assert code.span("a.py", n, n + 1) == sorted(set(terms(line))), line
    assert code.span("a.py", 1, 4) == sorted(set().union(*(terms(line) for line in lines[1:4])))
    assert code.span("a.py", 0, 100) == sorted(set(terms(TEXT)))
    assert code.span("a.py", 3, 1) == []  # (an element whose end comes before its start: none)


def test_a_file_is_read_once_for_all_its_readers(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def retry_policy():\n    pass\n")
    code = LineTerms(tmp_path)
    first = code.span("a.py", 0, 2)
    (tmp_path / "a.py").write_text("def something_else():\n    pass\n")
    assert code.span("a.py", 0, 2) == first == ["pass", "policy", "retry"]
    assert LineTerms(tmp_path).span("a.py", 0, 2) == ["else", "pass", "someth"]


def test_an_unreadable_or_empty_file_has_no_terms(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_text("")
    code = LineTerms(tmp_path)
    assert code.file("missing.py").lines == 0 and code.span("missing.py", 0, 10) == []
    assert code.file("empty.py").lines == 0 and code.span("empty.py", 0, 10) == []


def test_bytes_given_by_the_caller_and_bytes_that_are_not_utf8_read_as_their_decoded_text(tmp_path: Path) -> None:
    data = TEXT.encode() + b"\nbad\xffbytes \xe2\xc2\x85after_a_lone_lead \x85latin_nel\n"
    (tmp_path / "a.py").write_bytes(data)
    text = data.decode("utf-8", "replace")
    by_read, by_given = LineTerms(tmp_path), LineTerms(tmp_path)
    read, given = by_read.file("a.py"), by_given.file("b.py", data)  # (the words index hands its bytes over)
    assert read.lines == given.lines == len(text.splitlines())
    assert [(n, by_read.texts[t]) for n, t in zip(read.line.tolist(), read.term.tolist(), strict=True)] == [
        (n, by_given.texts[t]) for n, t in zip(given.line.tolist(), given.term.tolist(), strict=True)]
    code = LineTerms(tmp_path)
    for n, line in enumerate(text.splitlines()):
        assert code.span("a.py", n, n + 1) == sorted(set(terms(line))), line


def test_the_terms_of_a_name_or_path_are_its_terms_by_id_whether_or_not_the_code_has_its_words(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(TEXT, encoding="utf-8", newline="")
    code = LineTerms(tmp_path)
    code.file("a.py")
    for text in ("SessionInterface", "open_session", "null_session_class", "urlFor2", "2URLs", "src/flask/app Flask",
                 "caf\xe9Bar", "never_seen_before", "self", ""):
        assert [code.texts[t] for t in code.terms_of(text)] == terms(text), text
    assert code.span("a.py", 0, 1) == sorted(set(terms(TEXT.splitlines()[0])))  # (its lines' terms as they were)
