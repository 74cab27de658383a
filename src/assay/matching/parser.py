"""A recursive-descent parser of text conditions into a small AST.

Grammar (keywords are case-insensitive; ``NOT`` binds tighter than ``AND``, which binds tighter
than ``OR``)::

    condition := or_expr END
    or_expr   := and_expr ("OR" and_expr)*
    and_expr  := not_expr ("AND" not_expr)*
    not_expr  := "NOT" not_expr | atom
    atom      := STRING | "regexp" "(" STRING ")" | "(" or_expr ")"

A ``STRING`` in double or single quotes is a literal that must occur in the text (substring
test); inside ``regexp(…)`` it is a Python regular expression searched with ``re.search``
semantics, inline flags such as ``(?i)`` included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from assay.errors import InvalidInputError
from assay.matching.bounded import BoundedPattern
from assay.matching.lexer import ConditionSyntaxError, Kind, Token, tokenize

#: Parentheses and NOT may nest at most this deep.
MAX_DEPTH = 100
_ATOM_START = 'a quoted string, regexp("…"), NOT or "("'


@dataclass(frozen=True)
class Literal:
    """A quoted string that must occur in the text."""

    text: str
    position: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True)
class Regexp:
    """A regular expression that must match somewhere in the text."""

    pattern: str
    position: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True)
class Not:
    """Negation."""

    operand: Node


@dataclass(frozen=True)
class And:
    """Conjunction of two or more operands."""

    operands: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    """Disjunction of two or more operands."""

    operands: tuple[Node, ...]


Node: TypeAlias = Literal | Regexp | Not | And | Or


class _Parser:
    def __init__(self, condition: str, engine: str, timeout_s: float) -> None:
        self.condition = condition
        self.tokens = tokenize(condition)
        self.index = 0
        self.depth = 0
        self.engine = engine
        self.timeout_s = timeout_s

    @property
    def token(self) -> Token:
        return self.tokens[self.index]

    def fail(self, expected: str) -> ConditionSyntaxError:
        token = self.token
        if token.kind is Kind.END:
            found = "end of condition"
        elif token.kind is Kind.WORD:
            found = f"the word {token.text!r} (quote literal text)"
        elif token.kind is Kind.CHAR:
            found = f"the character {token.text!r}"
        else:
            found = repr(token.text)
        return ConditionSyntaxError(self.condition, token.position, expected, found)

    def expect(self, kind: Kind, expected: str) -> Token:
        if self.token.kind is not kind:
            raise self.fail(expected)
        token = self.token
        self.index += 1
        return token

    def parse(self) -> Node:
        if self.token.kind is Kind.END:
            raise self.fail(_ATOM_START)
        node = self.or_expr()
        self.expect(Kind.END, "AND, OR or the end of the condition")
        return node

    def or_expr(self) -> Node:
        return self.joined(self.and_expr, Kind.OR, Or)

    def and_expr(self) -> Node:
        return self.joined(self.not_expr, Kind.AND, And)

    def joined(
        self, operand: Callable[[], Node], kind: Kind, node: Callable[[tuple[Node, ...]], Node]
    ) -> Node:
        """Operands separated by the operator ``kind``, as one ``node`` (a lone operand as is)."""
        operands = [operand()]
        while self.token.kind is kind:
            self.index += 1
            operands.append(operand())
        return operands[0] if len(operands) == 1 else node(tuple(operands))

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"at most {MAX_DEPTH} levels of NOT and parentheses")

    def not_expr(self) -> Node:
        if self.token.kind is Kind.NOT:
            self.index += 1
            self.nested()
            node: Node = Not(self.not_expr())
            self.depth -= 1
            return node
        return self.atom()

    def atom(self) -> Node:
        token = self.token
        if token.kind is Kind.STRING:
            self.index += 1
            return Literal(token.value, token.position)
        if token.kind is Kind.REGEXP:
            self.index += 1
            self.expect(Kind.LPAREN, '"(" after regexp')
            string = self.expect(Kind.STRING, "a quoted regular expression")
            try:
                BoundedPattern(string.raw, self.engine, self.timeout_s)
            except InvalidInputError as exc:
                raise ConditionSyntaxError(
                    self.condition, string.position, "a valid regular expression", str(exc)
                ) from None
            self.expect(Kind.RPAREN, '")" closing regexp(')
            return Regexp(string.raw, string.position)
        if token.kind is Kind.LPAREN:
            self.index += 1
            self.nested()
            node = self.or_expr()
            self.depth -= 1
            self.expect(Kind.RPAREN, f'AND, OR or ")" closing the "(" at position {token.position}')
            return node
        raise self.fail(_ATOM_START)


def parse(condition: str, *, engine: str = "regex", timeout_s: float = 1.0) -> Node:
    """Parse a condition into its AST; regular expressions are compiled to check them.

    Raises:
        ConditionSyntaxError: With the position, what was expected and what was found.

    Example:
        >>> parse('"fee" AND NOT regexp("(?i)free")')
        And(operands=(Literal(text='fee'), Not(operand=Regexp(pattern='(?i)free'))))
        >>> try:
        ...     parse('"fee" AND')
        ... except ConditionSyntaxError as exc:
        ...     print(exc.position, exc.expected, "|", exc.found)
        9 a quoted string, regexp("…"), NOT or "(" | end of condition
    """
    return _Parser(condition, engine, timeout_s).parse()


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_text(node: Node) -> str:
    """Render an AST as condition text that parses back to an equal AST.

    Example:
        >>> to_text(parse('"a" and ("b" or not regexp("c+"))'))
        '"a" AND ("b" OR NOT regexp("c+"))'
    """
    if isinstance(node, Literal):
        return _quote(node.text)
    if isinstance(node, Regexp):
        quote = "'" if '"' in node.pattern else '"'
        return f"regexp({quote}{node.pattern}{quote})"
    if isinstance(node, Not):
        inner = to_text(node.operand)
        return f"NOT ({inner})" if isinstance(node.operand, And | Or) else f"NOT {inner}"
    joiner = " AND " if isinstance(node, And) else " OR "
    return joiner.join(
        f"({to_text(o)})" if isinstance(o, And | Or) else to_text(o) for o in node.operands
    )
