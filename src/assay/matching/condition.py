"""Evaluation of parsed conditions against a text, with a per-atom account for explanations."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from assay.matching.bounded import DEFAULT_TIMEOUT_S, BoundedPattern
from assay.matching.parser import And, Literal, Node, Not, Regexp, parse, to_text


@dataclass(frozen=True)
class AtomResult:
    """Whether one quoted string or regular expression of a condition matched a text."""

    atom: str
    matched: bool


class Condition:
    """A parsed condition, ready to be evaluated against texts.

    Args:
        source: The condition text.
        ignore_case: Match quoted literals case-insensitively (regular expressions use ``(?i)``).
        engine: Regular-expression engine (see :mod:`assay.matching.bounded`).
        timeout_s: Time limit of each regular-expression search.

    Raises:
        ConditionSyntaxError: When ``source`` does not parse.

    Example:
        >>> cond = Condition('"12 euros" AND NOT regexp("(?i)free")')
        >>> cond.evaluate("The fee is 12 euros."), cond.evaluate("12 euros, or FREE")
        (True, False)
    """

    def __init__(
        self,
        source: str,
        *,
        ignore_case: bool = False,
        engine: str = "regex",
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.source = source
        self.ignore_case = ignore_case
        self.engine = engine
        self.timeout_s = timeout_s
        self.node: Node = parse(source, engine=engine, timeout_s=timeout_s)

    def _atom(self, node: Literal | Regexp, text: str, folded: str | None) -> bool:
        if isinstance(node, Literal):
            if self.ignore_case:
                return node.text.casefold() in (folded or "")
            return node.text in text
        return BoundedPattern(node.pattern, self.engine, self.timeout_s).search(text)

    def _eval(self, node: Node, text: str, folded: str | None) -> bool:
        if isinstance(node, Literal | Regexp):
            return self._atom(node, text, folded)
        if isinstance(node, Not):
            return not self._eval(node.operand, text, folded)
        if isinstance(node, And):
            return all(self._eval(o, text, folded) for o in node.operands)
        return any(self._eval(o, text, folded) for o in node.operands)

    def evaluate(self, text: str) -> bool:
        """Whether ``text`` satisfies the condition (short-circuit evaluation).

        Raises:
            RegexTimeoutError: When a regular expression runs past its time limit.
        """
        folded = text.casefold() if self.ignore_case else None
        return self._eval(self.node, text, folded)

    def atoms(self, text: str) -> list[AtomResult]:
        """Every quoted string and regular expression, in order, with whether it matched.

        Example:
            >>> [(a.atom, a.matched) for a in Condition('"a" OR regexp("b")').atoms("xb")]
            [('"a"', False), ('regexp("b")', True)]
        """
        folded = text.casefold() if self.ignore_case else None
        out: list[AtomResult] = []

        def walk(node: Node) -> None:
            if isinstance(node, Literal | Regexp):
                out.append(AtomResult(to_text(node), self._atom(node, text, folded)))
            elif isinstance(node, Not):
                walk(node.operand)
            else:
                for operand in node.operands:
                    walk(operand)

        walk(self.node)
        return out


@lru_cache(maxsize=2048)
def compile_condition(
    source: str,
    ignore_case: bool = False,
    engine: str = "regex",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Condition:
    """A cached :class:`Condition` (the same condition recurs across the cases of a suite).

    Example:
        >>> compile_condition('"a"') is compile_condition('"a"')
        True
    """
    return Condition(source, ignore_case=ignore_case, engine=engine, timeout_s=timeout_s)
