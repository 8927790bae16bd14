"""MuSiQue decompositions as self-contained questions.

MuSiQue writes steps as questions ("Who was the first president of #1 ?") or as relation
triples ("Hello Love >> performer"), with "#N" pointing at the answer of step N. RA-ISF answers
each sub-question on its own, so every step is rewritten as a question that names what "#N"
stands for: "#1 >> country of citizenship" after "Aschenbrödel >> composer" becomes
"What is the country of citizenship of the composer of Aschenbrödel?".
"""
from __future__ import annotations

import re

_REF = re.compile(r"#(\d+)")


def rewrite_decomposition(steps: list[str]) -> list[str]:
    descriptions: list[str] = []
    questions: list[str] = []
    for step in steps:
        step = " ".join(step.split())

        def resolve(text: str) -> str:
            def name(match: re.Match) -> str:
                n = int(match.group(1))
                return descriptions[n - 1] if 1 <= n <= len(descriptions) else match.group(0)
            return _REF.sub(name, text)

        if ">>" in step:
            subject, _, relation = (part.strip() for part in step.partition(">>"))
            subject = resolve(subject)
            descriptions.append(f"the {relation} of {subject}")
            questions.append(f"What is the {relation} of {subject}?")
        else:
            question = resolve(step).rstrip(" ?")
            question = question[:1].upper() + question[1:] + "?"
            descriptions.append(f'the answer to "{question}"')
            questions.append(question)
    return questions
