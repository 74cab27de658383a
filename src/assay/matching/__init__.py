"""Text conditions: a boolean language over quoted strings and bounded regular expressions.

Example:
    >>> Condition('"fee" AND NOT regexp("(?i)free")').evaluate("The fee is 3 euros")
    True
"""

from assay.matching.bounded import BoundedPattern, RegexTimeoutError
from assay.matching.condition import AtomResult, Condition, compile_condition
from assay.matching.lexer import ConditionSyntaxError, tokenize
from assay.matching.parser import And, Literal, Node, Not, Or, Regexp, parse, to_text

__all__ = [
    "And",
    "AtomResult",
    "BoundedPattern",
    "Condition",
    "ConditionSyntaxError",
    "Literal",
    "Node",
    "Not",
    "Or",
    "RegexTimeoutError",
    "Regexp",
    "compile_condition",
    "parse",
    "to_text",
    "tokenize",
]
