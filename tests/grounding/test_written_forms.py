"""Numbers as people write them: grouped digits and a k or M, as whole integers only."""
from __future__ import annotations

from assistant.grounding.documents_check import lines_around
from assistant.grounding.written_forms import number_value, number_written


def test_the_forms_of_one_number():
    assert number_value("1,000,000") == number_value("1000000") == 1_000_000
    assert number_value("900 k") == number_value("900k") == number_value("900000") == 900_000
    assert number_value("2M") == 2_000_000
    assert number_value("3.6") is None and number_value("v1.2") is None and number_value("12 kB") is None


def test_a_number_is_found_only_where_it_stands_whole():
    text = "Blocks of 900 k; RFC 1952 of May 1996; 6,000 entries; version 3.6; 12 kB."
    assert number_written(text, 900_000) == "900 k"
    assert number_written(text, 6_000) == "6,000"
    for absent in (6, 96, 1, 3, 12_000):  # inside 1996, 6,000, 3.6; a unit is not k
        assert number_written(text, absent) is None, absent


def test_the_reread_shows_the_lines_where_the_manual_writes_the_number():
    text = " ".join(["filler"] * 200) + " -9 sets the block size to 900 k. " + " ".join(["other"] * 200)
    assert "900 k" in lines_around(text, "900000", "What block size does bzip2 use with -9?", width=10)


def test_an_option_a_groff_pdf_writes_with_a_minus_sign_is_found_and_shown():
    """A man page made into a PDF by groff writes "−i" (U+2212): the answer "-i" is written there,
    and the re-read is shown the lines that hold it."""
    from assistant.events.core import Passage
    from assistant.grounding.documents import ground_documents
    from index_builder.extract.pdf import page_text

    assert page_text("\u2212i identity_file Selects a file") == "-i identity_file Selects a file"
    old_index = [Passage(id="ssh", title="ssh", path="manuals/pdf/ssh.pdf",
                         text="\u22126 Forces ssh to use IPv6 addresses only. \u2212i identity_file Selects a file "
                              "from which the identity (private key) for public key authentication is read.")]
    checked = ground_documents("-i", "Which ssh flag points it at a particular private key file?", old_index)
    assert checked.grounding == "supported" and [p.id for p in checked.cited] == ["ssh"]
    text = " ".join(["filler"] * 100) + " \u2212i identity_file Selects a file " + " ".join(["other"] * 100)
    assert "-i identity_file" in lines_around(text, "-i", "Which ssh flag?", width=5)


def test_a_small_number_a_text_spells_out_is_found_but_one_is_not_read_as_1():
    """examples/docs' handbook: "the Puffin Room ... holds twelve people"; the reader answers "12"."""
    from assistant.events.core import Passage
    from assistant.grounding.documents import ground_documents

    assert number_written("The Puffin Room holds twelve people.", 12) == "twelve"
    assert number_written("Twenty-five seats; twenty five chairs", 25) == "Twenty-five"
    for text, value in (("one of the rooms", 1), ("someone brought eight", 18), ("twenty-five", 20),
                        ("seventeen", 7)):
        assert number_written(text, value) is None, (text, value)
    handbook = [Passage(id="hb", path="handbook.md", text="The third-floor meeting room in Dundee is called the "
                        "Puffin Room and holds twelve people.")]
    question = "How many people does the Puffin Room hold?"
    assert ground_documents("The Puffin Room holds 12 people.", question, handbook).grounding == "supported"
    assert ground_documents("The Puffin Room holds 14 people.", question, handbook).grounding == "not in your documents"
