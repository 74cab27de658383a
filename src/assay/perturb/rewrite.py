"""Word-level rewrites of the question: contractions and colloquial (chat-style) language."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from assay.params import check_choice
from assay.perturb.text import TextPerturbation

CONTRACTIONS = {
    "do not": "don't", "does not": "doesn't", "did not": "didn't", "is not": "isn't",
    "are not": "aren't", "was not": "wasn't", "were not": "weren't", "cannot": "can't",
    "can not": "can't", "will not": "won't", "would not": "wouldn't", "should not": "shouldn't",
    "could not": "couldn't", "have not": "haven't", "has not": "hasn't", "had not": "hadn't",
    "what is": "what's", "where is": "where's", "who is": "who's", "how is": "how's",
    "that is": "that's", "there is": "there's", "it is": "it's", "i am": "i'm",
    "you are": "you're", "we are": "we're", "they are": "they're", "i have": "i've",
    "i would": "i'd", "i will": "i'll", "let us": "let's",
}  # fmt: skip
_EXPANSIONS = {v: k for k, v in CONTRACTIONS.items() if k != "can not"}
SLANG = {
    "you": "u", "your": "ur", "you're": "ur", "are": "r", "please": "pls", "because": "cuz",
    "going to": "gonna", "want to": "wanna", "got to": "gotta", "thanks": "thx",
    "thank you": "ty", "okay": "ok", "to be honest": "tbh", "i don't know": "idk",
    "by the way": "btw", "before": "b4", "people": "ppl", "really": "rly", "what": "wut",
}  # fmt: skip
_OPENERS = ("hey, ", "quick q: ", "so ", "um, ", "yo, ", "hi, ")


def _pattern(phrases: list[str]) -> re.Pattern[str]:
    ordered = sorted(phrases, key=len, reverse=True)
    return re.compile(
        r"(?<![\w'])(" + "|".join(re.escape(p) for p in ordered) + r")(?![\w'])", re.IGNORECASE
    )


def _keep_case(original: str, new: str) -> str:
    if original.isupper() and len(original) > 1:
        return new.upper()
    if original[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def replace_phrases(text: str, table: dict[str, str]) -> str:
    """Replace whole-word phrases (case-insensitive, first letter's case kept).

    Example:
        >>> replace_phrases("What is it? I do not know.", CONTRACTIONS)
        "What's it? I don't know."
    """
    pattern = _pattern(list(table))
    lookup = {k.lower(): v for k, v in table.items()}
    return pattern.sub(lambda m: _keep_case(m.group(0), lookup[m.group(0).lower()]), text)


@dataclass(eq=False, repr=False)
class Contractions(TextPerturbation):
    """Contract (``do not`` → ``don't``) or expand (``don't`` → ``do not``) the question.

    Example:
        >>> import random
        >>> Contractions("expand").transform("What's the fee? I can't see it.", random.Random(0))
        'What is the fee? I cannot see it.'
    """

    name = "contractions"
    description = "contracted or expanded forms"

    direction: str = "contract"
    field: str = "question"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice(self.direction, ("contract", "expand"), "direction", "Contractions")

    def transform(self, text: str, rng: random.Random) -> str:
        return replace_phrases(text, CONTRACTIONS if self.direction == "contract" else _EXPANSIONS)


@dataclass(eq=False, repr=False)
class Colloquial(TextPerturbation):
    """Chat-style rewrite: contractions, slang (``you`` → ``u``), lower case, an opener.

    Example:
        >>> import random
        >>> Colloquial().transform("Can you tell me what is the fee, please?", random.Random(0))
        "um, can u tell me what's the fee, pls?"
    """

    name = "colloquial"
    description = "colloquial chat-style language"

    opener: bool = True
    lowercase: bool = True
    field: str = "question"

    def transform(self, text: str, rng: random.Random) -> str:
        out = replace_phrases(replace_phrases(text, CONTRACTIONS), SLANG)
        if self.lowercase:
            out = out.lower()
        if self.opener:
            out = rng.choice(_OPENERS) + out
        return out
