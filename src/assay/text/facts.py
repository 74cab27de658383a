"""Checkable facts of a text: content words, numbers, dates, name-like tokens and negations.

Shared by the ``unsupported_facts`` evaluator, the NLI head's lexical features, the hallucination
signals and the conversation metrics, so all of them agree on what a "fact" is and when the
context "supports" it. Tokens are normalised (lower case, Porter stems, digits for number words,
``5,000`` = ``5000``, month names to numbers); a fact is supported when its normalised form
occurs in the context. A figure may be written another way in the context: the month of a
numeric date ("31/03/2026", read day first in an answer, either way in a context) is a month,
a scale word is part of its figure ("1.5 million" = ``1500000``), ordinals match their
words ("1st" and "first") and a compound number word is one figure ("twenty-five"). A
code is one name ("SARS-CoV-2", "PSD2"), and so are capitals with dots ("U.S."). A context's
currency or percent sign supports the words and codes for it ("€" for "euros" and "EUR"), and
its clock times both writings ("9:30", "9.30 am"); an answer's currency sign is a fact ("€50"
for "£50" is unsupported). A figure before a unit of time states a duration, supported in any
unit of its scale ("two weeks" by "14 days"), and ".5" is 0.5. Words that only look like
facts are not: "one" as a pronoun, "may" the verb; a possessive name is the name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from importlib.resources import files

from assay.text.porter import porter_stem
from assay.text.sentences import split_sentences

#: A number (".5" with its leading dot, not after a word: "No.5" is 5) or a word (inner
#: apostrophes kept): the tokens every fact check reads.
TOKEN = re.compile(
    r"(?P<num>(?<![\w.])\.\d+|\d+(?:[.,]\d+)*)|(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*)", re.UNICODE
)
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves may might must shall
    yes us one's it's i'm i've i'd you're we're they're he's she's that's there's let's s t
    per via upon onto within among however therefore thus whether either neither yet
    """.split()  # noqa: SIM905
)
NEGATIONS = frozenset("not no never none nobody nothing nowhere nor without cannot n't".split())  # noqa: SIM905
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "  # noqa: SIM905
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70"}
_NUMBER_WORDS |= {"eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000"}
_MONTHS = {
    name: str(i)
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
KINDS = ("number", "date", "name", "negation", "word")


@dataclass(frozen=True)
class Fact:
    """One checkable token of the answer: its text, kind and normalised key."""

    text: str
    kind: str
    key: str
    sentence: int = 0
    #: The duration a figure before a unit of time states ("dur:min:20160" for "two weeks"),
    #: which also supports it: :func:`duration_key`.
    duration: str = ""


def normalise_number(text: str) -> str:
    """Canonical digits: thousands separators dropped, trailing decimal zeros removed.

    Example:
        >>> normalise_number("5,000"), normalise_number("2.50"), normalise_number("3.0")
        ('5000', '2.5', '3')
        >>> normalise_number(".50") == normalise_number("0.5")
        True
    """
    if text.startswith("."):
        text = "0" + text
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", text):
        text = text.replace(",", "")
    text = text.replace(",", ".") if text.count(",") == 1 and "." not in text else text
    if re.fullmatch(r"\d+\.\d+", text):
        text = text.rstrip("0").rstrip(".")
    return text.lstrip("0") or "0"


@lru_cache(maxsize=65536)
def word_key(lower: str) -> tuple[str, str]:
    """The kind and normalised key of a lower-cased word (months and number words as figures).

    Example:
        >>> word_key("march"), word_key("five"), word_key("never"), word_key("fees")
        (('date', 'month:3'), ('number', 'num:5'), ('negation', 'neg'), ('word', 'fee'))
    """
    if lower in _MONTHS:
        return "date", f"month:{_MONTHS[lower]}"
    if lower in _NUMBER_WORDS:
        return "number", f"num:{_NUMBER_WORDS[lower]}"
    if lower in NEGATIONS or lower.endswith(("n't", "n’t")):
        return "negation", "neg"
    return "word", porter_stem(lower.replace("’", "'"))


def _word_at(words: list[str], position: int) -> str | None:
    """The word at ``position``, None past the end."""
    return words[position] if position < len(words) else None


#: Words after which "one" is a pronoun ("this one", "no one"), not a figure ("a one-year
#: term" and "only one withdrawal" count).
_PRONOUN_ONE_AFTER = frozenset("the this that which every each any no another".split())  # noqa: SIM905


def _pronoun_one(words: list[str], position: int, hyphenated: bool = False) -> bool:
    """Whether the word at ``position`` is "one" used as a pronoun: a figure counts something,
    so it comes before a content word ("one card") or starts a compound ("a one-year term",
    ``hyphenated``); "one should", "having one in place", "day one" and "this one costs"
    count nothing. Without this rule, every such "one" was an unsupported number.

    Example:
        >>> words = "having one in place and one card".split()
        >>> _pronoun_one(words, 1), _pronoun_one(words, 5)
        (True, False)
        >>> _pronoun_one(["the", "one", "year", "rate"], 1, hyphenated=True)
        False
    """
    if words[position] != "one" or hyphenated:
        return False
    after = _word_at(words, position + 1)
    before = words[position - 1] if position > 0 else None
    return after is None or after in STOPWORDS or before in _PRONOUN_ONE_AFTER


#: A numeric date with "/" or "-" ("31/03/2026", "4-3-26"): day, separator, month, year.
_NUMERIC_DATE = re.compile(r"(?<![\d/.-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/-])")
#: Words that scale the figure before them ("1.5 million" = 1500000).
_SCALES = {"thousand": 3, "million": 6, "billion": 9, "bn": 9}
#: Units of time by their size in their scale's base unit: a figure before one states a duration
#: the context may write in another unit ("two weeks" for "14 days", "12 months" for "a year").
#: Months and years are a scale of their own (a month is no fixed number of days).
_DURATION_UNITS = {form: scale for unit, scale in {
    "minute": ("min", 1), "hour": ("min", 60), "day": ("min", 1440), "week": ("min", 10080),
    "fortnight": ("min", 20160), "month": ("mon", 1), "year": ("mon", 12)}.items()
    for form in (unit, f"{unit}s")}
#: Ordinal suffixes ("1st", "2nd") and ordinal words: a context's "first" supports an
#: answer's "1st", its "1st" an answer's "first".
_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
_ORDINALS = {w: str(i) for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split(),  # noqa: SIM905
    start=1)}
_ORDINAL_WORDS = {digits: word for word, digits in _ORDINALS.items()}


#: A letter-led code with a digit, as a run of letters, digits and inner hyphens ("COVID-19",
#: "SARS-CoV-2", "W-8BEN", "PSD2"); its trailing letters-only parts are not part of it.
_CODE = re.compile(r"(?<![A-Za-z0-9-])[A-Za-z][A-Za-z-]*?\d[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")
_DIGIT_PART = re.compile(r"[A-Za-z]*\d[A-Za-z0-9]*")
#: Capitals with dots ("U.S.", "E.U."): the tokens read one letter each, too short for a name.
_DOTTED = re.compile(r"(?<![A-Za-z.])(?:[A-Z]\.){2,}")


#: A currency or percent sign, and the words and codes that write the same thing: a context
#: that writes any of them supports all their keys ("€50" supports "50 euros" and "EUR 50";
#: "5 %" supports "5 per cent").
_SIGN_NAMES = {"€": ("euro", "eur"), "£": ("pound", "gbp"), "$": ("dollar", "usd"),
               "%": ("percent", "cent", "pct")}
_SIGN_KEYS = {sign: frozenset(key for name in names for key in (porter_stem(name), f"name:{name}"))
              for sign, names in _SIGN_NAMES.items()}
#: The currency signs an answer states as a fact (named by their word; a context supports one
#: by the sign, the word or the code).
_CURRENCY_SIGNS = {sign: f"name:{names[0]}" for sign, names in _SIGN_NAMES.items() if sign != "%"}
#: The words that write a sign ("cent" only after "per": "5 cents" is no percentage).
_SIGN_OF_WORD = {form: sign for sign, names in _SIGN_NAMES.items() for name in names
                 if name != "cent" for form in (name, f"{name}s")}
#: What makes "9.30" a clock time when it follows ("9.30 am", "9.30 p.m."; else it may be a
#: price, as in "9.30 a month").
_DAY_HALF = re.compile(r"\s?[ap]\.?m\b", re.IGNORECASE)


def _signs_written(chunk: str, words: list[str]) -> set[str]:
    """The signs of :data:`_SIGN_NAMES` that ``chunk`` (its lower-cased ``words``) writes, as a
    sign or in words.

    Example:
        >>> text = "A fee of 5 EUR, or 2 per cent."
        >>> sorted(_signs_written(text, [m.group(0).lower() for m in TOKEN.finditer(text)]))
        ['%', '€']
    """
    signs = {sign for sign in _SIGN_NAMES if sign in chunk}
    for position, word in enumerate(words):
        if word in _SIGN_OF_WORD:
            signs.add(_SIGN_OF_WORD[word])
        elif word == "cent" and position > 0 and words[position - 1] == "per":
            signs.add("%")
    return signs


def _clock_keys(chunk: str, matches: list[re.Match[str]], position: int) -> set[str]:
    """The keys of the other writing of a clock time at the figure ``position``: "9:30" (read
    as the figures 9 and 30) also as 9.30, and "9.30 am" also as 9 and 30. A dotted figure is
    a time only before "am" / "pm", so the price "9.30 euros" does not state 30.

    Example:
        >>> text = "Open 9:30 to 5.30 pm; fee 9.30 a month."
        >>> tokens = list(TOKEN.finditer(text))
        >>> [sorted(_clock_keys(text, tokens, i)) for i in (1, 4, 7)]
        [['num:9.3'], ['num:30', 'num:5'], []]
    """
    match = matches[position]
    hour = match.group(0)
    following = matches[position + 1] if position + 1 < len(matches) else None
    if (following is not None and following.group("num") and following.start() == match.end() + 1
            and chunk[match.end()] == ":" and len(following.group(0)) == 2 and hour.isdigit()):
        return {f"num:{normalise_number(f'{hour}.{following.group(0)}')}"}
    parts = hour.split(".")
    if len(parts) == 2 and len(parts[1]) == 2 and _DAY_HALF.match(chunk, match.end()):
        return {f"num:{normalise_number(part)}" for part in parts}
    return set()


def _joined_names(sentence: str) -> dict[int, tuple[int, str]]:
    """The names of ``sentence`` written across several tokens, by start: ``start -> (end,
    key)``. A code with a digit is one name ("SARS-CoV-4" is not "SARS", "CoV" and the figure
    4, each of which a context about SARS-CoV-2 supports), its key without hyphens or case
    ("Covid19" = "COVID-19"); a lower-case word joined to a figure by a hyphen is not a code
    ("pre-2020", "top-10"). Capitals with dots are a name ("U.S." = "US"; its single letters
    were no fact at all, so "U.K." for "U.S." went unseen).

    Example:
        >>> _joined_names("SARS-CoV-4 and COVID-19-related cases, pre-2020, PSD2, U.S.")
        {0: (10, 'name:sarscov4'), 15: (23, 'name:covid19'), 49: (53, 'name:psd2'), \
55: (59, 'name:us')}
    """
    names: dict[int, tuple[int, str]] = {}
    for m in _CODE.finditer(sentence):  # matches only letter-led runs holding a digit
        parts = m.group(0).split("-")
        last = max(i for i, part in enumerate(parts) if _DIGIT_PART.fullmatch(part))
        first = next(i for i, part in enumerate(parts) if _DIGIT_PART.fullmatch(part))
        if first > 0 and "-".join(parts[:first]).islower():
            continue
        text = "-".join(parts[: last + 1])
        names[m.start()] = (m.start() + len(text), f"name:{text.replace('-', '').lower()}")
    if "." in sentence:
        for m in _DOTTED.finditer(sentence):
            names[m.start()] = (m.end(), f"name:{m.group(0).replace('.', '').lower()}")
    return names


def _date_months(sentence: str) -> dict[int, list[str]]:
    """The month keys of the numeric dates of ``sentence``, by the start of the token that holds
    the month: day first (as in Europe), then month first when the first part can be a month
    ("03/04/2026" may be either; "31/03/2026" is only the 31st of March). An answer's date is
    read day first; a context's supports both readings.

    Example:
        >>> _date_months("Due 31/03/2026 or 03/04/26.")
        {7: ['month:3'], 21: ['month:4', 'month:3']}
    """
    months: dict[int, list[str]] = {}
    if "/" not in sentence and "-" not in sentence:
        return months
    for m in _NUMERIC_DATE.finditer(sentence):
        first, second = int(m.group(1)), int(m.group(3))
        if 1 <= second <= 12:
            months[m.start(3)] = [f"month:{second}"] + (
                [f"month:{first}"] if 1 <= first <= 12 and first != second else [])
    return months


def duration_key(figure_key: str, unit: str | None) -> str:
    """The duration a figure states before a unit of time, in its scale's base unit; "" when
    ``unit`` is no unit of time. Only a figure with this unit says it: "2 days" is no "14 days",
    while "two weeks" is.

    Example:
        >>> duration_key("num:2", "weeks"), duration_key("num:14", "days")
        ('dur:min:20160', 'dur:min:20160')
        >>> duration_key("num:1", "year"), duration_key("num:2", "cards")
        ('dur:mon:12', '')
    """
    if unit not in _DURATION_UNITS or not figure_key.startswith("num:"):
        return ""
    scale, size = _DURATION_UNITS[unit]
    return f"dur:{scale}:{format((Decimal(figure_key[4:]) * size).normalize(), 'f')}"


def _scaled(number: str, following: str | None) -> str:
    """The key of a figure, scaled by the word after it ("1.5" + "million" -> "num:1500000").

    Example:
        >>> _scaled("1.5", "million"), _scaled("2,000", "euros")
        ('num:1500000', 'num:2000')
    """
    value = normalise_number(number)
    if following in _SCALES:
        value = format(Decimal(value).scaleb(_SCALES[following]).normalize(), "f")
    return f"num:{value}"


_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_UNITS = {w: i for i, w in enumerate("one two three four five six seven eight nine".split(),  # noqa: SIM905
                                    start=1)}


def _without_possessive(lower: str) -> str:
    """A name without its possessive ending: "Samantha's" is Samantha (it was read as a name
    the context never states).

    Example:
        >>> [_without_possessive(name) for name in ("samantha's", "ross’s", "ross")]
        ['samantha', 'ross', 'ross']
    """
    return lower[:-2] if lower.endswith(("'s", "’s")) else lower


def _compound_number(words: list[str], position: int) -> str | None:
    """The value of a tens word followed by a units word ("twenty five", "twenty-five": 25),
    read at the tens word; None elsewhere.

    Example:
        >>> _compound_number(["twenty", "five", "euros"], 0), _compound_number(["twenty"], 0)
        ('25', None)
    """
    if words[position] in _TENS and position + 1 < len(words) and words[position + 1] in _UNITS:
        return str(_TENS[words[position]] + _UNITS[words[position + 1]])
    return None


def _is_month(matches: list[re.Match[str]], position: int) -> bool:
    """Whether a month name is a date here: written with a capital ("in March", not "they may
    march"), except "May" opening a sentence ("May I ask…?"), or next to a figure ("may 5").
    Lower-case "may" was read as the month of May, an unstated date in every "you may".

    Example:
        >>> tokens = list(TOKEN.finditer("You may pay in May or on may 5."))
        >>> [_is_month(tokens, i) for i in (1, 4, 7)]
        [False, True, True]
    """
    token = matches[position].group(0)
    beside_figure = any(0 <= i < len(matches) and matches[i].group("num")
                        for i in (position - 1, position + 1))
    capital = token[0].isupper() and (position > 0 or token.lower() != "may")
    return capital or beside_figure


def _word_reading(matches: list[re.Match[str]], position: int) -> tuple[str, str]:
    """The kind and key of the word token at ``position`` as both an answer and a context read
    it: :func:`word_key`, except that a month name not written as a date is a word.

    Example:
        >>> tokens = list(TOKEN.finditer("You may pay in May."))
        >>> _word_reading(tokens, 1), _word_reading(tokens, 4)
        (('word', 'may'), ('date', 'month:5'))
    """
    lower = matches[position].group(0).lower()
    kind, key = word_key(lower)
    if kind == "date" and not _is_month(matches, position):
        return "word", porter_stem(lower)
    return kind, key


def extract_facts(text: str | None) -> list[Fact]:
    """The checkable facts of ``text``, in order (duplicates kept once). "One" used as a
    pronoun is not a fact (:func:`_pronoun_one`).

    Example:
        >>> [(f.text, f.kind) for f in extract_facts("In May, Anna paid 5,000. Not twice.")][:4]
        [('May', 'date'), ('Anna', 'name'), ('paid', 'word'), ('5,000', 'number')]
        >>> [f.text for f in extract_facts("Keep one card, not the old one.")]
        ['Keep', 'one', 'card', 'not', 'old']
    """
    return facts_of_sentences(split_sentences(text))


def facts_of_sentences(sentences: Sequence[str]) -> list[Fact]:
    """The checkable facts of text already split into ``sentences`` (a fact's ``sentence`` is
    its index there), as :func:`extract_facts` reads them.

    Example:
        >>> [(f.text, f.sentence) for f in facts_of_sentences(["Anna paid.", "Bob paid."])]
        [('Anna', 0), ('paid', 0), ('Bob', 1)]
    """
    facts: dict[str, Fact] = {}
    for index, sentence in enumerate(sentences):
        matches = list(TOKEN.finditer(sentence))
        words = [m.group(0).lower() for m in matches]
        months = _date_months(sentence)
        joined = _joined_names(sentence)
        joined_end = -1
        for position, match in enumerate(matches):
            token = match.group(0)
            following = _word_at(words, position + 1)
            after_number = position > 0 and bool(matches[position - 1].group("num"))
            if match.start() in joined:
                joined_end, key = joined[match.start()]
                fact = Fact(sentence[match.start():joined_end], "name", key, index)
            elif match.start() < joined_end:
                continue  # read with its name
            elif after_number and words[position] in _ORDINAL_SUFFIXES:
                continue  # read with its figure: "30th"
            elif match.group("num"):
                if match.start() in months:  # a date's month: "03" of "31/03/2026" is March
                    fact = Fact(token, "date", months[match.start()][0], index)
                else:
                    key = _scaled(token, following)
                    fact = Fact(token, "number", key, index, duration_key(key, following))
            elif after_number and words[position] in _SCALES:
                continue  # read with its figure: "1.5 million"
            elif position > 0 and _compound_number(words, position - 1):
                continue  # read with its tens: "twenty-five"
            elif compound := _compound_number(words, position):
                written = sentence[match.start():matches[position + 1].end()]
                fact = Fact(written, "number", f"num:{compound}", index,
                            duration_key(f"num:{compound}", _word_at(words, position + 2)))
            elif _pronoun_one(words, position, sentence[match.end():match.end() + 1] == "-"):
                continue
            else:
                lower = token.lower()
                kind, key = _word_reading(matches, position)
                if kind == "word":
                    if lower in STOPWORDS or len(lower) < 2:
                        continue
                    if position > 0 and token[0].isupper():
                        kind = "name"
                        key = f"name:{_without_possessive(lower)}"
                fact = Fact(token, kind, key, index,
                            duration_key(key, following) if kind == "number" else "")
            dedup = {"word": f"w:{fact.key}", "negation": f"neg@{index}"}.get(fact.kind, fact.key)
            facts.setdefault(dedup, fact)
        for sign in _CURRENCY_SIGNS:
            if sign in sentence:  # "€50" for "£50": the figure matches, the currency does not
                facts.setdefault(f"sign:{sign}", Fact(sign, "name", _CURRENCY_SIGNS[sign], index))
    return list(facts.values())


def context_keys(chunks: Sequence[str] | None) -> frozenset[str]:
    """Every normalised key the context supports (names match case-insensitively).

    Example:
        >>> keys = context_keys(["Anna paid 5,000 euros in March."])
        >>> {"euro", "month:3", "name:anna", "num:5000"} <= keys
        True
    """
    keys: set[str] = set()
    for chunk in chunks or []:
        for readings in _date_months(chunk).values():
            keys.update(readings)
        keys.update(key for _, key in _joined_names(chunk).values())  # and their parts
        matches = list(TOKEN.finditer(chunk))
        words = [m.group(0).lower() for m in matches]
        for sign in _signs_written(chunk, words):
            keys.update(_SIGN_KEYS[sign])
        for position, match in enumerate(matches):
            token = match.group(0)
            if match.group("num"):
                following = _word_at(words, position + 1)
                figure = _scaled(token, following)
                keys.update({f"num:{normalise_number(token)}", figure,
                             duration_key(figure, following)})
                keys.update(_clock_keys(chunk, matches, position))
                if following in _ORDINAL_SUFFIXES and token in _ORDINAL_WORDS:
                    keys.add(porter_stem(_ORDINAL_WORDS[token]))  # "1st" supports "first"
                continue
            lower = token.lower()
            if lower in _ORDINALS:
                keys.add(f"num:{_ORDINALS[lower]}")  # "first" supports "1st"
            if compound := _compound_number(words, position):
                keys.add(f"num:{compound}")
                keys.add(duration_key(f"num:{compound}", _word_at(words, position + 2)))
            kind, key = _word_reading(matches, position)
            if kind == "number" or lower in ("a", "an"):  # "a week" states 7 days
                keys.add(duration_key(key if kind == "number" else "num:1",
                                      _word_at(words, position + 1)))
            if kind == "word" and lower not in STOPWORDS and not lower.endswith("ly"):
                keys.add(f"{_PREDICATE}{key}")
            keys.add(key)
            keys.add(f"name:{_without_possessive(lower)}")
            if kind != "word":
                keys.add(porter_stem(lower))
    keys.discard("")  # no duration
    return frozenset(keys)


def content_stems(sentence: str) -> frozenset[str]:
    """Porter stems of the non-stopword words of a sentence.

    Example:
        >>> sorted(content_stems("The fees were not waived."))
        ['fee', 'not', 'waiv']
    """
    return frozenset(
        porter_stem(m.group(0).lower())
        for m in TOKEN.finditer(sentence)
        if m.group("word") and m.group(0).lower() not in STOPWORDS
    )


def is_negated(sentence: str) -> bool:
    """Whether a sentence holds a negation word."""
    return any(
        word_key(m.group(0).lower())[0] == "negation"
        for m in TOKEN.finditer(sentence)
        if m.group("word")
    )


def negation_supported(
    answer_sentence: str, context: Sequence[tuple[frozenset[str], bool]]
) -> bool:
    """Whether the context sentence most similar to ``answer_sentence`` (Jaccard of content
    stems; the first one on ties) is negated too.

    Example:
        >>> texts = ["The fee is not waived.", "Cards are free."]
        >>> ctx = [(content_stems(s), is_negated(s)) for s in texts]
        >>> negation_supported("Fees are never waived.", ctx)
        True
        >>> negation_supported("Cards are not free.", ctx)
        False
    """
    stems = content_stems(answer_sentence)
    best, best_score = None, -1.0
    for candidate, negated in context:
        union = len(stems | candidate)
        score = len(stems & candidate) / union if union else 0.0
        if score > best_score:
            best, best_score = negated, score
    return bool(best)


def fact_supported(fact: Fact, keys: frozenset[str]) -> bool:
    """Whether the context keys hold this fact (a name also by its stem).

    Example:
        >>> fact_supported(extract_facts("Anna")[0], context_keys(["anna paid"]))
        True
    """
    if fact.kind == "name":
        return fact.key in keys or porter_stem(fact.text.lower()) in keys
    return fact.key in keys or (bool(fact.duration) and fact.duration in keys)


#: Prefix of the context keys of content words that can carry an antonym (stop words and
#: "-ly" adverbs cannot).
_PREDICATE = "pred:"


@lru_cache(maxsize=1)
def _antonym_table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    listed = files("assay.text").joinpath("data/antonyms.tsv").read_text("utf-8")
    for line in listed.splitlines():
        if line and not line.startswith("#"):
            a, b = line.split("\t")
            table.setdefault(a, set()).add(b)
            table.setdefault(b, set()).add(a)
    return {stem: frozenset(others) for stem, others in table.items()}


def antonyms(stem: str) -> frozenset[str]:
    """The stems WordNet 3.0 lists as direct antonyms of ``stem`` (``data/antonyms.tsv``, built
    by ``scripts/build_antonyms.py``).

    Example:
        >>> sorted(antonyms(porter_stem("increase")))
        ['decreas']
    """
    return _antonym_table().get(stem, frozenset())


def contradicted_by_antonym(fact: Fact, keys: frozenset[str]) -> bool:
    """Whether a content word is absent from the context while its antonym is there (a swapped
    predicate: "sales increased" against a context that only says they decreased). The
    antonym must be there as a content word: not a stop word ("have", the auxiliary, is no
    antonym of "lack") and not an adverb ("actually" shares its stem with "actual", the
    antonym of "potential").

    Example:
        >>> keys = context_keys(["Sales decreased in May."])
        >>> [f.text for f in extract_facts("Sales increased.") if contradicted_by_antonym(f, keys)]
        ['increased']
        >>> keys = context_keys(["We actually have the budget."])
        >>> [f.text for f in extract_facts("A potential lack.") if contradicted_by_antonym(f, keys)]
        []
    """
    return fact.kind == "word" and fact.key not in keys and any(
        f"{_PREDICATE}{antonym}" in keys for antonym in antonyms(fact.key))
