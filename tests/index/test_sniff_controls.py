"""The control-character test that tells decoded binary data from text (extract/sniff.py)."""
import pytest

from index_builder.extract.sniff import MAX_CONTROL_SHARE, control_share


@pytest.mark.parametrize("text", ["plain words\tand tabs\r\nand lines\f\v", "a \x1b[31mred\x1b[0m log line",
                                  "one bell \x07 in a short note", ""])
def test_text_has_no_control_share(text):
    assert control_share(text) == 0.0


def test_controls_and_undecodable_bytes_count_as_in_the_unicode_table():
    text = "ab\x00\x01\x7f\x85\ufffd" + "x" * 3  # C0, DEL, C1, U+FFFD: 5 of 10
    assert control_share(text) == pytest.approx(0.5)
    assert control_share("\u2028\u00a0\u200b" * 10) == 0.0  # separators and spaces are not controls


def test_binary_that_decodes_is_over_the_limit():
    data = bytes(range(256)) * 8
    assert control_share(data.decode("latin-1")) > MAX_CONTROL_SHARE
