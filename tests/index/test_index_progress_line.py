"""The index progress line tells the truth (issue 53): it names the phase, takes the rate and the
time left from that phase alone, keeps its clock moving between reports (it reads the clock when
drawn), and the run's last line says where the time went. A fake clock drives it."""
from __future__ import annotations

from assistant.cli.progress import LiveIndexLine
from index_builder.progress import EMBEDDING, FINISHING, LOADING, Progress


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_phases_rates_a_moving_clock_and_the_last_line():
    clock = Clock()
    progress = Progress(total_files=20, total_work=2000, started=clock.now, clock=clock)
    line = LiveIndexLine("files", clock=clock)

    clock.now += 12  # reading: 10 files, 1,000 of 2,000 bytes, 350 passages written in 12 s
    progress.files_done, progress.work_done, progress.passages_done = 10, 1000, 350
    fields = line.feed(progress)
    assert fields["phase"] == "reading files" and fields["rate"] == "29 passages/s"
    assert line.text() == "10/20 files, 350 passages · 29 passages/s · 0:12 · under a minute left"
    clock.now += 7  # no report for 7 s (a slow batch): the clock moves on, the time left counts down
    assert line.text() == "10/20 files, 350 passages · 29 passages/s · 0:19 · under a minute left"

    clock.now += 5
    progress.files_done, progress.work_done, progress.passages_done = 20, 2000, 700
    progress.begin(LOADING)
    fields = line.feed(progress)
    assert fields["phase"] == "loading the embedder" and fields["left"] == "" and fields["rate"] == ""
    clock.now += 50  # loading a model: no rate and no guess, but the clock runs
    assert line.text() == "20/20 files, 700 passages · 1:14"

    progress.embed_total = 700
    progress.begin(EMBEDDING)
    clock.now += 20  # embedding at its own rate (not reading's): 140 in 20 s = 7/s, 560 left = 80 s
    progress.passages_embedded = 140
    fields = line.feed(progress)
    assert fields["phase"] == "embedding" and fields["done"] == "140/700 passages"
    assert fields["rate"] == "7 passages/s" and fields["left"] == "about 1 min left"
    clock.now += 10
    assert line.text() == "140/700 passages · 7 passages/s · 1:44 · about 1 min left"  # 80 - 10 = 70 s
    clock.now += 31
    assert line.text().endswith("2:15 · under a minute left")  # 39 s

    clock.now += 40
    progress.passages_embedded = 700
    line.feed(progress)
    assert line.text() == "700/700 passages · 7 passages/s · 2:55"  # done: no time left shown
    progress.begin(FINISHING)
    clock.now += 2
    assert progress.summary("files") == ("20 files, 700 passages (700 embedded) in 2:57: reading 0:24, "
                                         "loading 0:50, embedding 1:41, finishing 0:02")
    line.feed(progress)
    assert line.summary() == progress.summary("files")


def test_nothing_to_embed_leaves_the_embedding_phases_out_of_the_last_line():
    clock = Clock()
    progress = Progress(total_files=3, started=clock.now, clock=clock)
    clock.now += 3
    progress.files_done = 3
    progress.begin(FINISHING)
    clock.now += 1
    assert progress.summary("files") == "3 files, 0 passages in 0:04: reading 0:03, finishing 0:01"
    assert LiveIndexLine("files").summary() == ""  # before any report
