"""Each step of a run as one plain-language line, for people: `ask --trace` and the app's steps.

No internal step names, passages named by file or title (not by id). The plain lines (the default
`--trace` and the app's steps) say what happened in words; with `numbers` (`--trace=full`) every
score is shown with the threshold it was compared with. `StepNarrator` keeps what earlier events said (the passages seen,
how many the draft was checked against) so later lines can use it.
"""
from __future__ import annotations

from typing import Sequence

from ..grounding.citations import text_for_matching
from ..answering.origin import REFINED, Origin
from ..events.details import (ChainSelected, FolderQuestion, PipelineStage, QueryExpanded, QueryRefined, RefeedDecision, RefeedDrafts, RefeedFeedback,
                      Reranked, SearchDecision, Trajectory, YesNoCheck)
from ..events.core import (Answer, Decomposed, Detail, Draft, Event, Note, Passage, Reading, Relevance, Retrieved,
                     SelfKnowledge, Started, SubAnswer, SubQuestion)

RESOLVED = {
    "self-knowledge": "from the reader's own knowledge",
    "closed-book": "from the reader's own knowledge",
    "passages": "from the passages it read",
    "parts": "each part of the question from its own passages",
    "fallback": "from the retrieved passages (none was judged relevant)",
    "decomposition": "from the answers to its sub-questions",
    "multi-hop": "from both hops' passages and the answers to its sub-questions",
    "sub-question": "from the passages found for this sub-question",
    "refinement": "revised against retrieved passages",
    "depth-bound": "not answered: the sub-question limit was reached",
    "budget": "stopped at the reader-call limit",
    "folder": "from what the index knows of your files",
}
ACTIONS = {"rewrite": "Rewrote", "decompose": "Split", "disambiguate": "Made precise"}


def short(text: str, width: int = 90) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def passage_name(passage: Passage) -> str:
    """A file's path relative to its indexed folder, whole (`projects/heron.md`, never cut to
    `heron.md`), with its page; or an article's title: what a person recognises."""
    where = with_folder(passage) or passage.title or passage.id
    if passage.page:
        where += f", page {passage.page}"
    if passage.section and passage.section != passage.title:  # one file, several passages: which part
        where += f" › {short(passage.section, 30)}"
    return where


def with_folder(passage: Passage) -> str:
    """The passage's file path; a file at the top of its source named with that folder too
    ("bash/LICENSE", not "LICENSE" from each of three packages). Dumps and passage files (a
    source with a file suffix) name articles: their path is left as it is."""
    path, source = passage.path, passage.source.rstrip("/\\")
    if not path or "/" in path or not source:
        return path
    parts = source.replace("\\", "/").split("/")
    if parts[-1] == path and len(parts) > 1:  # a file added on its own: its source is the file
        return f"{parts[-2]}/{path}" if parts[-2] else path
    if "." in parts[-1]:  # a dump or a passages file: the path is an article's title
        return path
    return f"{parts[-1]}/{path}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def compared(score: float, threshold: float) -> tuple[str, str]:
    """Score and threshold printed with just enough decimals that the printed numbers agree
    with the comparison (never "0.02 < 0.02")."""
    for digits in range(2, 7):
        a, b = f"{score:.{digits}f}", f"{threshold:.{digits}f}"
        if a != b or score >= threshold:
            return a, b
    return a, b


def score_vs(score: float | None, threshold: float | None) -> str:
    if score is None:
        return ""
    if threshold is None:
        return f"score {score:.2f}"
    a, b = compared(score, threshold)
    return f"score {a} {'≥' if score >= threshold else '<'} {b}"


# the answer checks that turn an answer (assistant/checks/), by the mark they leave on it
TURNED_BY = {"yes/no": "its yes/no turned by the reader's odds against its lean to yes",
             "dates": "its pick turned by the dates the two pages give",
             "nationality": "its yes/no decided by the nationalities the two pages give"}


def resolved_phrase(resolved_by: str, revised: bool = True) -> str:
    """How the answer came about, in words; `revised` False when a check left the text as it was."""
    origin = Origin.parse(resolved_by)
    if origin.source.startswith("rq-rag "):
        return f"from the best of the refined-query paths (chosen by {origin.source.removeprefix('rq-rag ')})"
    phrase = RESOLVED.get(origin.source, origin.source.replace("-", " ") or "-")
    if REFINED in origin.turns:
        phrase += ", then revised against a second look-up" if revised else ", then checked against a second look-up"
    return "".join([phrase, *(f", {TURNED_BY[t]}" for t in origin.turns if t in TURNED_BY)])


def no_source(answer: Answer) -> str:
    """The line under an answer that cites nothing though passages were searched: for an answer from
    memory they were found to check it, not read to write it."""
    how = "found to check it" if answer.resolved_by.startswith("self-knowledge") else "read"
    return f"No source: none of the {len(answer.passages_read)} passages {how} holds this answer."


def relevance_summary(verdicts: Sequence[Relevance], numbers: bool = True) -> str:
    """How many passages were kept, and (with `numbers`) why: the judge's bar, and for a ranked
    pool the bounds on how many the reader reads when more or fewer than that reach the bar."""
    kept = sum(v.relevant for v in verdicts)
    thresholds = {v.threshold for v in verdicts if v.threshold is not None}
    head = f"Kept {kept} of {len(verdicts)} passages"
    if not numbers:
        return head if kept else f"{head}: the judge found none of them relevant"
    if len(thresholds) != 1:
        return head
    bar = thresholds.pop()
    shown = f"{bar:.2f}" if round(bar, 2) == bar else f"{bar:.3g}"
    if not any(v.rank_after is not None for v in verdicts):  # yes/no per passage
        return f"{head} (judge score ≥ {shown})"
    above = sum(v.score >= bar for v in verdicts)
    if kept == above:
        return f"{head} (those scoring ≥ {shown})"
    bound = "at least" if kept > above else "at most"
    return f"{head} (the best {kept}: {above} scored ≥ {shown}, and the reader reads {bound} {kept})"


def same_text(a: str, b: str) -> bool:
    return text_for_matching(a) == text_for_matching(b)


class StepNarrator:
    """One readable line per event; remembers passages by id for the later lines that name them."""

    def __init__(self, numbers: bool = False):
        self.numbers = numbers  # scores and thresholds beside the words (--trace=full)
        self.passages: dict[str, Passage] = {}
        self.checked_against = 0  # passages of the last feedback retrieval
        self.revised = True  # False once a check kept the same text
        self.judged_relevant: set[str] = set()  # passages a judge kept: only those are "relevant"

    def name_of(self, passage_id: str) -> str:
        known = self.passages.get(passage_id)
        return passage_name(known) if known else passage_id

    def line(self, event: Event) -> str | None:
        handler = getattr(self, f"_{event.type}", None)
        return handler(event) if handler else None

    def _started(self, e: Started) -> str:
        return f"Question: {e.question}  (strategy {e.strategy})"

    def _self_knowledge(self, e: SelfKnowledge) -> str:
        # the score comes early: a narrow pane cuts the end of a line
        score = f" ({score_vs(e.score, e.threshold)})" if self.numbers else ""
        if e.knows:
            return f"Known from memory{score}: answering without looking up"
        return f"Not known from memory{score}: looking it up"

    def _retrieved(self, e: Retrieved) -> str:
        for p in e.passages:
            self.passages.setdefault(p.id, p)
        return f"Looked up {len(e.passages)} passages for “{short(e.query, 70)}”"

    def _relevance(self, e: Relevance) -> str:
        mark = "✓" if e.relevant else "✗"
        if e.relevant:
            self.judged_relevant.add(e.passage_id)
        name = self.name_of(e.passage_id)
        score = score_vs(e.score, e.threshold) if self.numbers else ""
        if e.rank_after is None:
            return f"{mark} {name}" + (f" ({score})" if score else "")
        moved = ("" if e.rank_before is None else " (same as the search)" if e.rank_before == e.rank_after
                 else f" (search: {ordinal(e.rank_before)})")
        return f"{mark} {name}: judged {ordinal(e.rank_after)}{moved}" + (f", {score}" if score else "")

    def _decomposed(self, e: Decomposed) -> str:
        if not e.sub_questions:
            return "Could not split the question into sub-questions"
        return f"Split the question into {len(e.sub_questions)} sub-questions"

    def _sub_question(self, e: SubQuestion) -> str:
        return f"Sub-question {e.index + 1}: {e.question}"

    def _sub_answer(self, e: SubAnswer) -> str:
        return f"Sub-answer: “{short(e.answer, 80)}” ({resolved_phrase(e.resolved_by)})"

    def _reading(self, e: Reading) -> str:
        """What the reader reads, with how many of them the judge kept, so that the count agrees
        with "Kept 4 of 43 passages" above and "Answered from 5 passages" below."""
        n = len(e.passages)
        if not n:
            return "Writing the answer from the reader's memory"
        kept = sum(pid in self.judged_relevant for pid in e.passages)
        why = f" (the {kept} kept and {n - kept} more the search ranked first)" if 0 < kept < n else ""
        names = [self.name_of(pid) for pid in e.passages]
        listed = ", ".join(names[:3]) + (f" and {n - 3} more" if n > 3 else "")
        return f"Reading {n} passage{'s' if n != 1 else ''}{why} to write the answer: {listed}"

    def _draft(self, e: Draft) -> str:
        n = len(e.citations)
        basis = e.basis
        if basis in ("closed-book", "self-knowledge", "closed-book draft"):
            what = "Answered from memory"
        elif basis == "sampled draft":
            what = "Sampled another answer from memory"
        elif basis == "passages":
            judged = n and all(pid in self.judged_relevant for pid in e.citations)
            what = f"Answered from {n} {'relevant' if judged else 'retrieved'} passage{'s' if n != 1 else ''}"
        elif basis == "fallback":
            what = f"Answered from all {n} retrieved passages (none was judged relevant)"
        elif basis == "decomposition":
            what = "Answered from the sub-answers"
        elif basis == "refinement":
            what = f"Revised the answer with {n} passages"
        elif basis.startswith("trajectory"):
            what = f"Answered along the path {basis.removeprefix('trajectory').strip()}"
        else:
            what = f"Answered ({basis})"
        confidence = f" (confidence {e.avg_prob:.2f})" if e.avg_prob is not None and self.numbers else ""
        return f"{what}{confidence}: “{short(e.text, 80)}”"

    def _note(self, e: Note) -> str:
        return "Note: " + e.message[:1].upper() + e.message[1:]

    def _answer(self, e: Answer) -> str:
        return (f"Answer: {e.marked_text or e.text or '(no answer)'} — "
                f"{resolved_phrase(e.resolved_by, self.revised)}, {e.seconds:.1f} s")

    def _detail(self, e: Detail) -> str:
        if isinstance(e, PipelineStage):
            self.revised = True
            return f"Step {e.stage}: {e.summary}"
        if isinstance(e, RefeedDrafts):
            listed = "; ".join((f"(confidence {x.avg_prob:.2f}) " if self.numbers else "") + f"“{short(x.text, 50)}”"
                               for x in e.drafts)
            return f"Checking {'the draft' if len(e.drafts) == 1 else f'{len(e.drafts)} drafts'}: {listed}"
        if isinstance(e, RefeedFeedback):
            self.checked_against = len(e.passages)
            return f"Gathered {self.checked_against} passages to check the draft against"
        if isinstance(e, RefeedDecision):
            return self._decision(e)
        if isinstance(e, SearchDecision):
            verdict = "search the index" if e.search else "answer without searching"
            return f"Decided to {verdict}" + (f" ({score_vs(e.p_search, 0.5)})" if self.numbers else "")
        if isinstance(e, QueryRefined):
            return f"{ACTIONS.get(e.action, 'Refined')} the query: “{short(e.query, 70)}”"
        if isinstance(e, Trajectory):
            route = " > ".join(s["action"] for s in e.steps)
            chosen = " — chosen" if e.chosen else ""
            score = f" ({e.selection} score {e.score:.2f})" if self.numbers else ""
            return f"Path {e.index + 1} ({route}): “{short(e.answer, 50)}”{score}{chosen}"
        if isinstance(e, QueryExpanded):
            chosen = e.expansions[e.chosen].text if e.expansions else ""
            return f"Expanded the question (best of {len(e.expansions)} by {e.by}): “{short(chosen, 60)}”"
        if isinstance(e, Reranked):
            kept = ", ".join(self.name_of(pid) for pid in e.kept)
            return f"Reranked {len(e.before)} passages; reading {kept}"
        if isinstance(e, ChainSelected):
            return chain_line(e)
        if isinstance(e, FolderQuestion):  # its summary names the files found, whole
            return e.summary
        if isinstance(e, YesNoCheck) and not self.numbers:
            return yes_no_line(e)
        return short(e.summary, 120)

    def _decision(self, e: RefeedDecision) -> str:
        draft, refined = e.draft, e.refined
        checked = f"Checked the draft against {self.checked_against} passages"
        if same_text(draft.text, refined.text):
            self.revised = False
            return f"{checked}; the revision says the same, so the answer stands"
        kept_revision = e.kept == "refined"
        if not e.ensemble:
            return f"{checked}; kept the revision (the comparison is off)"
        s_new, s_old = refined.support or 0.0, draft.support or 0.0
        if e.rule == "support" and s_new != s_old:
            which = "revision" if kept_revision else "draft"
            self.revised = kept_revision
            why = f" (best passage holding it: {max(s_new, s_old):.2f} > {min(s_new, s_old):.2f})" if self.numbers else ""
            return f"{checked}; kept the {which} because the judge backs it more{why}"
        p_new, p_old = refined.avg_prob, draft.avg_prob
        if kept_revision:
            why = f" (confidence {p_new:.2f} ≥ {p_old:.2f})" if self.numbers else ""
            return f"{checked}; kept the revision because the reader is at least as sure of it{why}"
        self.revised = False
        why = f"confidence {p_old:.2f} > {p_new:.2f} for " if self.numbers else "over "
        return f"{checked}; kept the draft because the reader is surer of it ({why}“{short(refined.text, 40)}”)"


def yes_no_line(e: YesNoCheck) -> str:
    """The yes/no check in words: whether the reader leans to yes here more than it does on any
    question (its measured lean), without the log-odds."""
    outcome = f"Kept “{e.answer}”" if e.decided == e.answer else f"“{e.answer}” became “{e.decided}”"
    leaning = "more" if e.decided == "Yes" else "less"
    return f"{outcome}: the reader leans to yes here {leaning} than it does on any question"


def chain_line(e: ChainSelected) -> str:
    """"Read as a chain: hop 1 “A” (search); hop 2 “B” (named in “A”, hop 1 search); then “C”"."""
    hops = []
    for h in e.hops:
        how = [f"linked to “{short(h.bridge, 40)}”"] if h.bridge else []
        how.append("the first search" if h.found_by == "pool" else f"the {h.found_by}")
        name = f"“{short(h.title, 50)}”"
        hops.append(f"hop {h.hop} {name} ({', '.join(how)})" if h.in_chain else f"then {name}")
    searched = f" after {e.searches} hop search{'es' * (e.searches != 1)}" if e.searches else ""
    return f"Read as a chain{searched}: " + "; ".join(hops)
