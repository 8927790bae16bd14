"""Two short answers that are one answer written two ways (assistant/grounding/agreement.py): what
the re-read compares the reader's answer with what it reads in the lines itself."""
from __future__ import annotations

from assistant.grounding.agreement import same_answer, written_as_one

MD5SUM = "-b, --binary read in binary mode -c, --check read checksums from the FILEs and check them"


def test_the_same_answer_written_another_way_agrees():
    assert same_answer("--locale-provider", "locale-provider")
    assert same_answer("9.1", "GNU coreutils 9.1")
    assert same_answer("Mike Parker", "Mike Parker, Richard M. Stallman")
    assert same_answer("900000", "900 k")
    assert same_answer("−i", "-i")  # groff's minus sign
    assert same_answer("-b", "--binary", MD5SUM)  # two names of one option, side by side


def test_another_fact_or_no_answer_does_not_agree():
    assert not same_answer("-s", "-d")
    assert not same_answer("-b", "-bz")
    assert not same_answer("--binary", "--check", MD5SUM)  # both in the passage, not one option
    assert not same_answer("-b", "--binary")  # no passage to say they are one option
    assert not same_answer("6", "6,000")
    assert not same_answer("bug-tar@gnu.org", "none")
    assert not same_answer("3.0", "Not stated in the text")
    assert not same_answer("", "3.0")


def test_names_written_side_by_side_are_one_option():
    assert written_as_one(MD5SUM, "-c", "--check")
    assert not written_as_one(MD5SUM, "-b", "--check")
