"""lab/page_checks_replay.py: the page checks replayed on recorded answers, and a bad results file
said in one line."""
import json

import pytest

from lab.page_checks_replay import main, replay_record

BORN = {"id": "q1", "question": "Who was born earlier, Emma Bull or Virginia Woolf?", "gold": ["Virginia Woolf"],
        "prediction": "Emma Bull", "scores": {"em": 0.0},
        "read": [{"id": "a", "title": "Emma Bull", "text": "Emma Bull (born December 13, 1954) is an author."},
                 {"id": "b", "title": "Virginia Woolf", "text": "Virginia Woolf (25 January 1882 – 1941) was a writer."}]}
SAME = {"id": "q2", "question": "Were Emma Bull and Neil Jordan of the same nationality?", "gold": ["no"],
        "prediction": "unknown", "scores": {"em": 0.0},
        "read": [{"id": "a", "title": "Emma Bull", "text": "Emma Bull (born 1954) is an American author."},
                 {"id": "c", "title": "Neil Jordan", "text": "Neil Jordan (born 1950) is an Irish film director."}]}


def test_each_check_turns_the_answer_it_decides_and_rescores_it():
    new, how = replay_record(BORN)
    assert (how, new["prediction"], new["scores"]["em"]) == ("dates", "Virginia Woolf", 1.0)
    new, how = replay_record(SAME)
    assert (how, new["prediction"], new["scores"]["em"]) == ("nationality", "No", 1.0)
    plain = dict(SAME, question="Who directed The Crying Game?")
    assert replay_record(plain) == (plain, None)


def test_the_script_writes_the_turned_records_and_says_a_bad_file(tmp_path, capsys):
    runs = tmp_path / "run.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in (BORN, SAME)), encoding="utf-8")
    out = tmp_path / "new.jsonl"
    assert main([str(runs), "--out", str(out)]) == 0
    assert "EM 0.0 -> 100.0" in capsys.readouterr().out
    assert [json.loads(line)["prediction"] for line in out.read_text().splitlines()] == ["Virginia Woolf", "No"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main([str(bad)])
    assert "no readable results file" in capsys.readouterr().err
