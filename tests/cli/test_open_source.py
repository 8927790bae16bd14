"""Sources one can open from the terminal: each source line is an OSC 8 link on a terminal (plain
text when piped), and `assistant open N` opens the n-th source of the last answer at its place."""
from __future__ import annotations

from helpers.cli_run import cli, one_error_line  # noqa: F401  (cli: a fixture)

from assistant.cli import open_source
from assistant.cli.render import answer_block
from assistant.events.core import Answer, Passage


def _sources(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "heron.md").write_text("# Projects\n\nIntro.\n\n## Heron\n\nMira leads Heron.\n")
    (folder / "report.pdf").write_bytes(b"%PDF-1.4 not really")
    return [Passage(id="a", text="Mira leads Heron.", source=str(folder), path="heron.md", section="Projects > Heron"),
            Passage(id="b", text="Budget.", source=str(folder), path="report.pdf", page=3),
            Passage(id="c", text="Ada.", title="Ada Lovelace", path="Ada Lovelace", source="/dumps/wiki.xml.bz2")]


def test_sources_are_links_to_the_file_at_its_line_or_page(tmp_path):
    answer = Answer(text="Mira.", citations=_sources(tmp_path))
    shown = answer_block(answer, link=open_source.linked)
    heron = (tmp_path / "notes" / "heron.md").resolve()
    assert f"\x1b]8;;file://" in shown and f"{heron}\x1b\\heron.md:5\x1b]8;;\x1b\\" in shown  # its heading's line
    assert "report.pdf#page=3\x1b\\report.pdf, page 3\x1b]8;;\x1b\\" in shown
    assert "[3] Ada Lovelace" in shown  # an article of a dump: no file, no link
    assert "\x1b]8" not in answer_block(answer)  # piped: plain text


def test_open_n_opens_the_last_answers_source_at_its_place(tmp_path, monkeypatch, cli):
    monkeypatch.setenv("EDITOR", "vi")
    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}" if name in ("vi", "xdg-open") else None)
    ran = []
    monkeypatch.setattr(open_source.subprocess, "run", lambda command, check: ran.append(command))
    monkeypatch.setattr(open_source.subprocess, "Popen", lambda command, **kw: ran.append(command))
    assert "no answer yet" in one_error_line(cli("open", "1"))
    open_source.remember(tmp_path / "data", Answer(text="Mira.", citations=_sources(tmp_path)))
    code, out, _ = cli("open", "1")
    assert code == 0 and ran[-1] == ["vi", "+5", str(tmp_path / "notes" / "heron.md")]  # at its heading
    code, out, _ = cli("open", "2")
    assert code == 0 and ran[-1][0] == "xdg-open" and "page 3" in out
    assert "no file of its own" in one_error_line(cli("open", "3"))
    assert "from 1 to 3" in one_error_line(cli("open", "4"))
