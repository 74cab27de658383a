"""The Porter stemmer exactly as nltk's ``PorterStemmer()`` (``NLTK_EXTENSIONS`` mode) stems.

Why a port instead of ``import nltk``: ``rouge-score`` stems with nltk's Porter stemmer, and ROUGE
with stemming must give the same tokens. Importing ``nltk.stem.porter`` imports the whole ``nltk``
package (about 1,900 modules, scipy.stats among them, several seconds), which a core lexical metric
should not pay. This module is a faithful port of nltk 3.9+'s algorithm (Apache-2.0, © NLTK
Project), restricted to the default mode; ``tests/evaluators/test_lexical_rouge.py`` checks it
word for word against nltk on a large vocabulary. Results are cached per word.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

_VOWELS = frozenset("aeiou")
_IRREGULAR = {
    "sky": ["sky", "skies"],
    "die": ["dying"],
    "lie": ["lying"],
    "tie": ["tying"],
    "news": ["news"],
    "inning": ["innings", "inning"],
    "outing": ["outings", "outing"],
    "canning": ["cannings", "canning"],
    "howe": ["howe"],
    "proceed": ["proceed"],
    "exceed": ["exceed"],
    "succeed": ["succeed"],
}
_POOL = {form: key for key, forms in _IRREGULAR.items() for form in forms}

Condition = Callable[[str], bool] | None
Rule = tuple[str, str, Condition]


def _is_consonant(word: str, i: int) -> bool:
    if word[i] in _VOWELS:
        return False
    if word[i] == "y":
        negate = False
        while i > 0 and word[i] == "y":
            negate = not negate
            i -= 1
        return (word[i] not in _VOWELS) != negate
    return True


def _consonant_flags(word: str) -> list[bool]:
    flags: list[bool] = []
    for i, ch in enumerate(word):
        if ch in _VOWELS:
            flags.append(False)
        elif ch == "y":
            flags.append(True if i == 0 else not flags[i - 1])
        else:
            flags.append(True)
    return flags


def _measure(stem: str) -> int:
    return "".join("c" if c else "v" for c in _consonant_flags(stem)).count("vc")


def _positive_measure(stem: str) -> bool:
    return _measure(stem) > 0


def _measure_gt_1(stem: str) -> bool:
    return _measure(stem) > 1


def _contains_vowel(stem: str) -> bool:
    return not all(_consonant_flags(stem))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    return (
        len(word) >= 3
        and _is_consonant(word, len(word) - 3)
        and not _is_consonant(word, len(word) - 2)
        and _is_consonant(word, len(word) - 1)
        and word[-1] not in ("w", "x", "y")
    ) or (len(word) == 2 and not _is_consonant(word, 0) and _is_consonant(word, 1))


def _apply_rules(word: str, rules: list[Rule]) -> str:
    for suffix, replacement, condition in rules:
        if suffix == "*d" and _ends_double_consonant(word):
            stem = word[:-2]
            return stem + replacement if condition is None or condition(stem) else word
        if word.endswith(suffix):
            stem = word[: -len(suffix)] if suffix else word
            return stem + replacement if condition is None or condition(stem) else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    return _apply_rules(
        word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)]
    )


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix):
            intermediate = word[: -len(suffix)]
            if _contains_vowel(intermediate):
                break
    else:
        return word
    last = intermediate[-1]
    return _apply_rules(
        intermediate,
        [
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", last, lambda stem: last not in ("l", "s", "z")),
            ("", "e", lambda stem: _measure(stem) == 1 and _ends_cvc(stem)),
        ],
    )


def _step1c(word: str) -> str:
    return _apply_rules(
        word, [("y", "i", lambda stem: len(stem) > 1 and _is_consonant(stem, len(stem) - 1))]
    )


_STEP2: list[Rule] = [
    ("ational", "ate", _positive_measure),
    ("tional", "tion", _positive_measure),
    ("enci", "ence", _positive_measure),
    ("anci", "ance", _positive_measure),
    ("izer", "ize", _positive_measure),
    ("bli", "ble", _positive_measure),
    ("alli", "al", _positive_measure),
    ("entli", "ent", _positive_measure),
    ("eli", "e", _positive_measure),
    ("ousli", "ous", _positive_measure),
    ("ization", "ize", _positive_measure),
    ("ation", "ate", _positive_measure),
    ("ator", "ate", _positive_measure),
    ("alism", "al", _positive_measure),
    ("iveness", "ive", _positive_measure),
    ("fulness", "ful", _positive_measure),
    ("ousness", "ous", _positive_measure),
    ("aliti", "al", _positive_measure),
    ("iviti", "ive", _positive_measure),
    ("biliti", "ble", _positive_measure),
    ("fulli", "ful", _positive_measure),
]


def _step2(word: str) -> str:
    if word.endswith("alli") and _positive_measure(word[:-4]):
        return _step2(word[:-4] + "al")
    rules = [*_STEP2, ("logi", "log", lambda stem: _positive_measure(word[:-3]))]
    return _apply_rules(word, rules)


_STEP3: list[Rule] = [
    ("icate", "ic", _positive_measure),
    ("ative", "", _positive_measure),
    ("alize", "al", _positive_measure),
    ("iciti", "ic", _positive_measure),
    ("ical", "ic", _positive_measure),
    ("ful", "", _positive_measure),
    ("ness", "", _positive_measure),
]

_STEP4: list[Rule] = [
    ("al", "", _measure_gt_1),
    ("ance", "", _measure_gt_1),
    ("ence", "", _measure_gt_1),
    ("er", "", _measure_gt_1),
    ("ic", "", _measure_gt_1),
    ("able", "", _measure_gt_1),
    ("ible", "", _measure_gt_1),
    ("ant", "", _measure_gt_1),
    ("ement", "", _measure_gt_1),
    ("ment", "", _measure_gt_1),
    ("ent", "", _measure_gt_1),
    ("ion", "", lambda stem: _measure(stem) > 1 and stem[-1] in ("s", "t")),
    ("ou", "", _measure_gt_1),
    ("ism", "", _measure_gt_1),
    ("ate", "", _measure_gt_1),
    ("iti", "", _measure_gt_1),
    ("ous", "", _measure_gt_1),
    ("ive", "", _measure_gt_1),
    ("ize", "", _measure_gt_1),
]


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        if _measure(stem) > 1:
            return stem
        if _measure(stem) == 1 and not _ends_cvc(stem):
            return stem
    return word


def _step5b(word: str) -> str:
    return _apply_rules(word, [("ll", "l", lambda stem: _measure(word[:-1]) > 1)])


@lru_cache(maxsize=1 << 18)
def porter_stem(word: str) -> str:
    """Stem ``word`` exactly as ``nltk.stem.porter.PorterStemmer().stem(word)`` does.

    Example:
        >>> [porter_stem(w) for w in ("running", "charges", "dying", "fees", "generalization")]
        ['run', 'charg', 'die', 'fee', 'gener']
    """
    stem = word.lower()
    if stem in _POOL:
        return _POOL[stem]
    if len(word) <= 2:
        return stem
    for step in (_step1a, _step1b, _step1c, _step2):
        stem = step(stem)
    stem = _apply_rules(_apply_rules(stem, _STEP3), _STEP4)
    return _step5b(_step5a(stem))
