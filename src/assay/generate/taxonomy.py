"""Question types (a configurable taxonomy) and the TREC coarse answer classes.

A :class:`QueryType` tells the question writer what to write (``instruction``), how many chunks
it draws on (2 for multi-hop), the answer's shape (``free``, ``yes_no``, ``multiple_choice``)
and whether the corpus answers it (``answerable=False`` for negatives). :data:`DEFAULT_TAXONOMY`
holds the six types of the HCAT recipe; :data:`TREC_TAXONOMY` asks for one question per TREC
coarse answer class (Li & Roth 2002: abbreviation, entity, description, human, location, numeric);
:func:`load_taxonomy` reads your own from JSON. Every generated question is also given a TREC
class by :func:`trec_class` (transparent wh-word and head-noun rules), so coverage can be checked
on that axis whatever taxonomy wrote the questions.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError

ANSWER_FORMATS = ("free", "yes_no", "multiple_choice")


@dataclass(frozen=True)
class QueryType:
    """One kind of question to generate."""

    name: str
    instruction: str
    n_chunks: int = 1
    answer_format: str = "free"
    answerable: bool = True

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise InvalidInputError(f"query type name {self.name!r} must be snake_case")
        if self.answer_format not in ANSWER_FORMATS:
            raise InvalidInputError(f"query type {self.name!r}: answer_format must be one of "
                                    f"{ANSWER_FORMATS}; got {self.answer_format!r}")
        if self.n_chunks not in (1, 2):
            raise InvalidInputError(f"query type {self.name!r}: n_chunks must be 1 or 2")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record."""
        return asdict(self)


DEFAULT_TAXONOMY: dict[str, QueryType] = {t.name: t for t in (
    QueryType("factual", "a simple factual question answered by one key fact of the passage, "
              "with a short answer (a number, a name, a condition, a short phrase)"),
    QueryType("multi_hop", "a compound question that needs one fact from PASSAGE 1 and one fact "
              "from PASSAGE 2 to be answered; the answer states both facts", n_chunks=2),
    QueryType("inference", "a question that needs reasoning over the passage's facts (a "
              "comparison, a consequence, a condition applied to a case) rather than a lookup; "
              "the answer gives the conclusion and the facts it rests on"),
    QueryType("yes_no", "a question answered by yes or no; the answer starts with Yes or No "
              "and then states the fact that decides it", answer_format="yes_no"),
    QueryType("multiple_choice", "a question with four options of which exactly one is right "
              "according to the passage; the other options are plausible but wrong",
              answer_format="multiple_choice"),
    QueryType("unanswerable", "a question a customer could plausibly ask on the same subject "
              "as the passage, but which NEITHER the passage NOR any similar document answers "
              "(ask about a detail, product or situation the passage does not mention)",
              answerable=False),
)}

#: The TREC coarse answer classes (Li & Roth 2002) and what their answers are.
TREC_CLASSES: dict[str, str] = {
    "ABBR": "abbreviation: what an abbreviation stands for, or the abbreviation of a term",
    "ENTY": "entity: a thing, product, document, event, method or other named entity",
    "DESC": "description: a definition, description, manner or reason (what is, how, why)",
    "HUM": "human: a person, a group or an organisation",
    "LOC": "location: a place, country, city, branch or address",
    "NUM": "numeric: a number, amount, price, percentage, date, period or duration",
}

TREC_TAXONOMY: dict[str, QueryType] = {
    f"trec_{code.lower()}": QueryType(
        f"trec_{code.lower()}", f"a question whose answer is {text}"
    )
    for code, text in TREC_CLASSES.items()
}


def load_taxonomy(path: str | os.PathLike[str]) -> dict[str, QueryType]:
    """Read a taxonomy from a JSON file: a list of objects with the fields of
    :class:`QueryType` (``name`` and ``instruction`` required).

    Example:
        >>> import tempfile, pathlib, json
        >>> file = pathlib.Path(tempfile.mkdtemp()) / "types.json"
        >>> types = [{"name": "how_to", "instruction": "a how-to question"}]
        >>> _ = file.write_text(json.dumps(types))
        >>> list(load_taxonomy(file))
        ['how_to']
    """
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{file}: not a readable JSON taxonomy ({exc})") from None
    if isinstance(data, Mapping):
        data = [{"name": k, **v} for k, v in data.items()]
    if not isinstance(data, list) or not data:
        raise InvalidInputError(f"{file}: expected a non-empty JSON list of query types")
    out: dict[str, QueryType] = {}
    for row, item in enumerate(data, start=1):
        if not isinstance(item, Mapping) or "name" not in item or "instruction" not in item:
            raise InvalidInputError(f"{file}: row {row}: needs 'name' and 'instruction'")
        unknown = set(item) - set(QueryType.__dataclass_fields__)
        if unknown:
            raise InvalidInputError(f"{file}: row {row}: unknown field(s) {sorted(unknown)}")
        try:
            out[item["name"]] = QueryType(**item)
        except (TypeError, InvalidInputError) as exc:
            raise InvalidInputError(f"{file}: row {row}: {exc}") from None
    return out


def resolve_types(
    types: Iterable[str] | None, taxonomy: Mapping[str, QueryType] | None = None
) -> list[QueryType]:
    """The requested query types; ``"trec"`` expands to the six TREC types; ``None`` gives the
    whole taxonomy.

    Example:
        >>> [t.name for t in resolve_types(["factual", "yes_no"])]
        ['factual', 'yes_no']
        >>> len(resolve_types(["trec"]))
        6
    """
    known = {**DEFAULT_TAXONOMY, **TREC_TAXONOMY, **(taxonomy or {})}
    if types is None:
        return list((taxonomy or DEFAULT_TAXONOMY).values())
    out: list[QueryType] = []
    for name in types:
        names = list(TREC_TAXONOMY) if name == "trec" else [name]
        for one in names:
            if one not in known:
                raise InvalidInputError(
                    f"unknown query type {one!r}; known: {', '.join(sorted(known))}, trec"
                )
            if known[one] not in out:
                out.append(known[one])
    if not out:
        raise InvalidInputError("no query type requested")
    return out


# -- the TREC coarse classifier ---------------------------------------------------------------
_NUM_HEADS = (  # noqa: SIM905
    "number amount price cost fee fees charge charges rate rates percentage percent interest "
    "limit limits balance sum total age year years date dates day days month months week weeks "
    "hour hours minute minutes time period duration deadline maximum minimum max min size "
    "length distance temperature speed value salary income threshold frequency count quantity "
    "apr deposit deposits payment payments"
).split()
_HUM_HEADS = (  # noqa: SIM905
    "person people who customer customers company companies bank banks organisation "
    "organization organisations organizations team employee employees staff member members "
    "authority regulator owner owners holder holders officer manager provider lender agency "
    "adviser advisor individual individuals partner partners body group"
).split()
_LOC_HEADS = (  # noqa: SIM905
    "country countries city cities place places location locations address branch branches "
    "state states region regions area areas continent town street office offices site "
    "website"
).split()
_ABBR = re.compile(r"\b(stand for|stands for|abbreviat\w*|acronym|short for|full form)\b")
_WH_HEAD = re.compile(r"^(?:what|which)\s+(?:is\s+|are\s+|was\s+|were\s+)?(?:the\s+|a\s+|an\s+)?"
                      r"((?:\w+\s+){0,2}\w+)")


def trec_class(question: str) -> str:
    """The TREC coarse answer class of a question, by wh-word and head-noun rules.

    ``how many / how much / when / what + numeric head noun`` → NUM; ``who / which person,
    company`` → HUM; ``where / which country, branch`` → LOC; ``stand for / abbreviation`` → ABBR;
    ``why / how / what is / define / describe`` and yes/no questions → DESC; other ``what / which
    + noun`` → ENTY.

    Example:
        >>> [trec_class(q) for q in ["How much is the monthly fee?", "Who can open an account?",
        ...  "Where can I withdraw cash for free?", "What does IBAN stand for?",
        ...  "Why is the fee never waived?", "Which card should a student choose?"]]
        ['NUM', 'HUM', 'LOC', 'ABBR', 'DESC', 'ENTY']
    """
    q = " ".join(question.lower().replace("?", " ").split())
    q = re.sub(r"^(according to [^,]+,|in [^,]{0,40},|under [^,]{0,40},)\s*", "", q)
    if _ABBR.search(q):
        return "ABBR"
    if re.match(r"^how (many|much|long|often|old|far|big|large|high|low|soon|early|late)\b", q):
        return "NUM"
    if re.match(r"^(when|what time|what year|what date|by when|until when|since when)\b", q):
        return "NUM"
    if re.match(r"^(who|whom|whose)\b", q):
        return "HUM"
    if re.match(r"^(where|from where|to where)\b", q):
        return "LOC"
    if re.match(r"^(why|how)\b", q):
        return "DESC"
    if re.match(r"^(define|describe|explain)\b", q) or re.search(r"\bwhat does .+ mean\b", q):
        return "DESC"
    match = _WH_HEAD.match(q)
    if match:
        head = match.group(1).split()
        if any(w in _NUM_HEADS for w in head):
            return "NUM"
        if any(w in _HUM_HEADS for w in head):
            return "HUM"
        if any(w in _LOC_HEADS for w in head):
            return "LOC"
        if re.match(r"^what (is|are|was|were) (the |a |an )?\w+( \w+)?$", q):
            return "DESC"  # "what is X": a definition
        if re.match(r"^what (happens|should|can|must|do|does|did|will|would)\b", q):
            return "DESC"
        return "ENTY"
    return "DESC"


def trec_counts(questions: Sequence[str]) -> dict[str, int]:
    """Number of questions per TREC class (every class listed, zeros included).

    Example:
        >>> trec_counts(["How many cards?", "Who pays?"])["NUM"]
        1
    """
    counts = dict.fromkeys(TREC_CLASSES, 0)
    for question in questions:
        counts[trec_class(question)] += 1
    return counts
