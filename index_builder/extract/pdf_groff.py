"""Word breaks PDFium loses in PDFs made by groff (gropdf, e.g. `groff -man -Tpdf`).

gropdf writes a line's word spaces as displacements in a TJ array, and at a change of font it
ends the array with the space's displacement before an empty string: `[(in) -267 (a) -267 ()] TJ
/F36 10 Tf [(not-installed)] TJ`. PDFium drops that last displacement, so it places the next
run right after "a" and reads "in anot-installed". In such a file a change of font between two
letters is taken as a word break. A change inside a word ("\\fIn\\fRth") is rarer: on five man
pages (bash, java, tar, gpic, dpkg) words that groff's own text output does not hold fell from
1,027 to 870, while 47 new ones appeared ("n th"). pypdf and pdfminer.six, tried on dpkg and
tar, left 3 to 70 times as many such words: they split words at gropdf's kerning moves ("pac kage").
"""
from __future__ import annotations

import ctypes


def made_by_groff(metadata: dict) -> bool:
    return str(metadata.get("Producer") or "").lower().startswith("gropdf")


def spaced_text(textpage) -> str:
    """The page's text with a space at each change of font between two letters or digits."""
    import pypdfium2.raw as pdfium_c

    text = textpage.get_text_range()
    if textpage.count_chars() != len(text):  # characters beyond the BMP: indexes do not line up
        return text
    name, flags = ctypes.create_string_buffer(128), ctypes.c_int()
    out, font = [], None
    for index, char in enumerate(text):
        if char.isalnum():
            size = pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, name, len(name), ctypes.byref(flags))
            current = name.raw[:size]
            if font is not None and current != font and out[-1].isalnum():
                out.append(" ")
            font = current
        else:
            font = None
        out.append(char)
    return "".join(out)
