"""A JSONL passage row whose text is not a string is counted as a bad line, not a crash
(the hostile sweep: "unexpected AttributeError: 'dict' object has no attribute 'strip'")."""
import io

from index_builder.passages import PassageSummary, read_jsonl


def test_rows_with_non_text_fields_are_bad_lines():
    lines = ['{"id": "1", "title": "A", "text": "first passage"}',
             '{"id": "2", "title": "B", "text": {"nested": "dict"}}',
             '{"id": "3", "title": 7, "text": ["a", "list"]}',
             '{"id": "4", "title": "D", "text": "fourth passage"}']
    summary = PassageSummary()
    records = list(read_jsonl(io.StringIO("\n".join(lines)), summary))
    assert [r.text for r in records] == ["first passage", "fourth passage"]
    assert summary.bad_lines == 2
