"""Perturbations of what the system sees besides the question's wording: distractor sentences
in the context, out-of-distribution questions, and identical copies for self-consistency."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.data.derived import insert_passages
from assay.params import check, check_choice, check_int
from assay.perturb.base import Perturbation, Variant
from assay.text import split_sentences, words

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_NEGATABLE = re.compile(r"\b(is|are|can|will|does|do|has|have)\b(?! not)", re.IGNORECASE)


def contradict(sentence: str, rng: random.Random) -> str | None:
    """A contradicting version of ``sentence``: its first number changed, else a negation.

    Example:
        >>> contradict("The fee is 12 euros a month.", random.Random(0))
        'The fee is 37 euros a month.'
        >>> contradict("Customers can close the account online.", random.Random(0))
        'Customers cannot close the account online.'
    """
    match = _NUMBER.search(sentence)
    if match:
        value = float(match.group(0).replace(",", ""))
        new = value
        while new == value:
            new = round(value * rng.choice((0.25, 0.5, 2, 2.5, 3, 4)) + rng.randint(1, 9))
        text = str(int(new)) if float(new).is_integer() else str(new)
        return sentence[: match.start()] + text + sentence[match.end() :]
    verb = _NEGATABLE.search(sentence)
    if verb:
        word = verb.group(1)
        negated = "cannot" if word.lower() == "can" else f"{word} not"
        return sentence[: verb.start()] + negated + sentence[verb.end() :]
    return None


class Distractors(Perturbation):
    """Insert misleading or contradictory sentences into the context.

    ``misleading``: sentences from other cases' contexts that share the most words with the
    question (plausible but off-target). ``contradictory``: a sentence of the case's own context
    (or expected answer) with its number changed or its verb negated.

    When the case carries a retrieved context, the child gets that context with the distractors
    inserted and ``metadata["fixed_context"] = True`` (connectors then send it as it is). Without
    one, the distractors go to ``metadata["injected_context"]`` and connectors add them to what
    the system retrieves.

    Example:
        >>> case = TestCase(id="q", question="What is the fee?",
        ...                 retrieved_context=["The fee is 12 euros."])
        >>> [v.update["retrieved_context"] for v in
        ...  Distractors("contradictory", position="last").variants(case, random.Random(0))]
        [['The fee is 12 euros.', 'The fee is 37 euros.']]
    """

    name = "distractors"
    description = "misleading or contradictory sentences inserted into the context"

    def __init__(self, kind: str = "misleading", n: int = 1, position: str = "random") -> None:
        check_choice(kind, ("misleading", "contradictory"), "kind", "Distractors")
        check_int(n, "n", "Distractors")
        check_choice(position, ("first", "last", "random"), "position", "Distractors")
        self.kind = kind
        self.n = n
        self.position = position
        self._pool: list[tuple[str, str, frozenset[str]]] = []

    def prepare(self, cases: Sequence[TestCase]) -> None:
        seen: set[str] = set()
        self._pool = []
        for case in cases:
            for chunk in case.retrieved_context or []:
                for sentence in split_sentences(chunk):
                    if sentence not in seen:
                        seen.add(sentence)
                        self._pool.append((case.id, sentence, frozenset(words(sentence))))

    def _misleading(self, case: TestCase, rng: random.Random) -> list[str]:
        own = set(case.retrieved_context or [])
        own_sentences = {s for chunk in own for s in split_sentences(chunk)}
        question = set(words(case.question or ""))
        candidates = [
            (len(question & bag), sentence)
            for owner, sentence, bag in self._pool
            if owner != case.id and sentence not in own_sentences
        ]
        candidates.sort(key=lambda item: -item[0])
        top = [s for _, s in candidates[: max(self.n * 3, 5)]]
        return rng.sample(top, min(self.n, len(top)))

    def _contradictory(self, case: TestCase, rng: random.Random) -> list[str]:
        sources = [s for chunk in case.retrieved_context or [] for s in split_sentences(chunk)]
        sources += split_sentences(case.expected_answer)
        rng.shuffle(sources)
        out: list[str] = []
        for sentence in sources:
            changed = contradict(sentence, rng)
            if changed and changed not in out:
                out.append(changed)
            if len(out) == self.n:
                break
        return out

    def variants(self, case: TestCase, rng: random.Random) -> list[Variant]:
        found = (self._misleading if self.kind == "misleading" else self._contradictory)(case, rng)
        if not found:
            return []
        return [
            Variant(insert_passages(case, found, self.position, rng), detail={"inserted": found})
        ]


#: Questions far outside any document-grounded assistant's scope.
OOD_QUESTIONS = (
    "What is the capital of Mongolia?",
    "Write a haiku about autumn leaves.",
    "Who won the football world cup in 1998?",
    "How many legs does a spider have?",
    "Can you recommend a good recipe for lasagne?",
    "What is the square root of 1764?",
    "Translate 'good morning' into Japanese.",
    "Which planet has the most moons?",
    "Tell me a joke about penguins.",
    "What's the best way to learn to play the guitar?",
    "Who painted the Mona Lisa?",
    "What will the weather be like in Lisbon tomorrow?",
)


class OutOfDistribution(Perturbation):
    """Replace the question by one outside the system's domain, each such question asked once.

    The child's expected answer, relevant ids and condition no longer apply and are cleared;
    ``labels["expected_behaviour"] = "abstain"`` records what a good system does. An
    out-of-domain question does not depend on its parent, so asking the same one under several
    parents would add copies, not evidence (26 cases from 10 questions would count 26 in the
    abstention bound): each question of ``questions`` goes to one parent, drawn without
    replacement, and parents beyond the number of questions get no out-of-domain child.

    Example:
        >>> ood = OutOfDistribution(questions=["Who painted the Mona Lisa?"])
        >>> ood.prepare([])
        >>> ood.variants(TestCase(id="q", question="Fee?", expected_answer="12"),
        ...              random.Random(0))[0].update["question"]
        'Who painted the Mona Lisa?'
        >>> ood.variants(TestCase(id="q2", question="Rate?"), random.Random(0))
        []
    """

    name = "ood"
    description = "out-of-distribution question (each asked once)"

    def __init__(self, questions: Sequence[str] | None = None) -> None:
        self.questions = list(questions) if questions is not None else list(OOD_QUESTIONS)
        check(bool(self.questions), "questions", "OutOfDistribution", "non-empty", questions)
        self._unused = list(dict.fromkeys(self.questions))

    def prepare(self, cases: Sequence[TestCase]) -> None:
        """Every question unused again (one suite's children ask each once)."""
        self._unused = list(dict.fromkeys(self.questions))

    def variants(self, case: TestCase, rng: random.Random) -> list[Variant]:
        if not self._unused:
            return []
        update = {
            "question": self._unused.pop(rng.randrange(len(self._unused))),
            "expected_answer": None,
            "relevant_ids": None,
            "condition": None,
            "labels": {**case.labels, "expected_behaviour": "abstain"},
        }
        return [Variant(update)]


class Copies(Perturbation):
    """``n`` identical copies of the case, to measure self-consistency across runs.

    Example:
        >>> [v.suffix for v in Copies(3).variants(TestCase(id="q"), random.Random(0))]
        ['1', '2', '3']
    """

    name = "copy"
    description = "identical copies for self-consistency"

    def __init__(self, n: int = 3) -> None:
        check_int(n, "n", "Copies")
        self.n = n

    def variants(self, case: TestCase, rng: random.Random) -> list[Variant]:
        return [Variant({}, suffix=str(i + 1)) for i in range(self.n)]
