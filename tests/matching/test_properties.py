"""Property-based tests of the condition parser and evaluator (hypothesis)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.matching import (
    And,
    Condition,
    ConditionSyntaxError,
    Literal,
    Node,
    Not,
    Or,
    Regexp,
    parse,
    to_text,
)

_literal_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8
)
_regex = st.sampled_from(
    ["a", "b+", "(?i)ab", r"\d", "^x", "c$", "[ab]{2}", "a|b", r"\bfee\b", "."]
)
_leaf = st.one_of(_literal_text.map(Literal), _regex.map(Regexp))


def _tree(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    return st.one_of(
        children.map(Not),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: Or(tuple(xs))),
    )


_nodes = st.recursive(_leaf, _tree, max_leaves=12)


def _reference(node: Node, text: str) -> bool:
    """Direct semantics with Python's re, as the specification."""
    if isinstance(node, Literal):
        return node.text in text
    if isinstance(node, Regexp):
        return re.search(node.pattern, text) is not None
    if isinstance(node, Not):
        return not _reference(node.operand, text)
    if isinstance(node, And):
        return all(_reference(o, text) for o in node.operands)
    return any(_reference(o, text) for o in node.operands)


@settings(max_examples=200, deadline=None)
@given(_nodes)
def test_render_then_parse_is_identity(node: Node) -> None:
    assert parse(to_text(node)) == node


@settings(max_examples=200, deadline=None)
@given(_nodes, st.text(alphabet='abcx1 \nfeFEAB"\\', max_size=20))
def test_evaluation_matches_python_re_semantics(node: Node, text: str) -> None:
    assert Condition(to_text(node)).evaluate(text) == _reference(node, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='"\'()\\ aANDORNOTregxp("', max_size=40))
def test_arbitrary_input_parses_or_fails_cleanly(text: str) -> None:
    try:
        parse(text)
    except ConditionSyntaxError as exc:
        assert 0 <= exc.position <= len(text)
        assert exc.expected and exc.found
    # any other exception type fails the test


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_unicode_input_parses_or_fails_cleanly(text: str) -> None:
    try:
        parse(text)
    except ConditionSyntaxError as exc:
        assert 0 <= exc.position <= len(text)


@settings(max_examples=200, deadline=None)
@given(_nodes, st.text(alphabet="ab1 ", max_size=10))
def test_de_morgan(node: Node, text: str) -> None:
    a = Condition(to_text(Not(And((node, Literal("a")))))).evaluate(text)
    b = Condition(to_text(Or((Not(node), Not(Literal("a")))))).evaluate(text)
    assert a == b
