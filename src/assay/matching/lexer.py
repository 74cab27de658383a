"""Tokens of the condition language (see :mod:`assay.matching.parser` for the grammar)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from assay.errors import ConditionSyntaxError

#: Conditions longer than this are rejected before lexing.
MAX_CONDITION_CHARS = 100_000


class Kind(StrEnum):
    """Token kinds."""

    STRING = "string"
    REGEXP = "regexp"
    AND = "AND"
    OR = "OR"
    NOT = "NOT"
    LPAREN = "("
    RPAREN = ")"
    WORD = "word"
    CHAR = "character"
    END = "end of condition"


_KEYWORDS = {"and": Kind.AND, "or": Kind.OR, "not": Kind.NOT, "regexp": Kind.REGEXP}
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t"}


@dataclass(frozen=True)
class Token:
    """A token: its kind, its position in the condition and, for strings, raw and decoded text.

    ``raw`` is the text between the quotes exactly as written (used for regular expressions, so
    ``\\d`` stays ``\\d``); ``value`` decodes the escapes ``\\\\``, ``\\"``, ``\\'``, ``\\n`` and
    ``\\t`` and keeps any other backslash as written (used for quoted literals).
    """

    kind: Kind
    position: int
    text: str
    value: str = ""
    raw: str = ""


def _decode(raw: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw) and raw[i + 1] in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[raw[i + 1]])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def tokenize(condition: str) -> list[Token]:
    """Split a condition into tokens (the last one is ``END``).

    Words that are not keywords become ``WORD`` tokens and other characters ``CHAR`` tokens, so
    the parser can say what it expected in their place.

    Raises:
        ConditionSyntaxError: On an unterminated string or a condition that is too long.

    Example:
        >>> [t.kind.value for t in tokenize('"a" and not regexp("b+")')]
        ['string', 'AND', 'NOT', 'regexp', '(', 'string', ')', 'end of condition']
    """
    if len(condition) > MAX_CONDITION_CHARS:
        raise ConditionSyntaxError(
            condition[:200], 0, f"at most {MAX_CONDITION_CHARS:,} characters",
            f"{len(condition):,} characters",
        )  # fmt: skip
    tokens: list[Token] = []
    i, n = 0, len(condition)
    while i < n:
        ch = condition[i]
        if ch.isspace():
            i += 1
        elif ch in "\"'":
            j = i + 1
            while j < n and condition[j] != ch:
                j += 2 if condition[j] == "\\" else 1
            if j >= n:
                raise ConditionSyntaxError(
                    condition, i, f"a closing {ch} for the string opened here", "end of condition"
                )
            raw = condition[i + 1 : j]
            tokens.append(Token(Kind.STRING, i, condition[i : j + 1], _decode(raw), raw))
            i = j + 1
        elif ch == "(":
            tokens.append(Token(Kind.LPAREN, i, ch))
            i += 1
        elif ch == ")":
            tokens.append(Token(Kind.RPAREN, i, ch))
            i += 1
        elif ch.isalpha() or ch == "_":
            j = i
            while j < n and (condition[j].isalnum() or condition[j] == "_"):
                j += 1
            word = condition[i:j]
            tokens.append(Token(_KEYWORDS.get(word.lower(), Kind.WORD), i, word))
            i = j
        else:  # the parser reports it with what it expected there
            tokens.append(Token(Kind.CHAR, i, ch))
            i += 1
    tokens.append(Token(Kind.END, n, ""))
    return tokens
