"""The condition parser: grammar, precedence, escapes, errors with position and expected token."""

from __future__ import annotations

import pytest

from assay.matching import (
    And,
    Condition,
    ConditionSyntaxError,
    Literal,
    Not,
    Or,
    Regexp,
    parse,
    to_text,
    tokenize,
)
from assay.matching.parser import MAX_DEPTH


def test_precedence_not_and_or() -> None:
    assert parse('"a" OR "b" AND NOT "c"') == Or(
        (Literal("a"), And((Literal("b"), Not(Literal("c")))))
    )
    assert parse('("a" OR "b") AND "c"') == And((Or((Literal("a"), Literal("b"))), Literal("c")))
    assert parse('NOT NOT "a"') == Not(Not(Literal("a")))


def test_keywords_case_insensitive_and_single_quotes() -> None:
    assert parse("'a' and not REGEXP('b')") == And((Literal("a"), Not(Regexp("b"))))


def test_escapes_literals_decoded_regex_raw() -> None:
    assert parse(r'"say \"hi\" \\ \d"') == Literal('say "hi" \\ \\d')
    assert parse(r'regexp("\d+\.\d{2}")') == Regexp(r"\d+\.\d{2}")


def test_evaluation_semantics() -> None:
    cond = Condition('"12 euros" AND NOT regexp("(?i)\\bfree\\b")')
    assert cond.evaluate("It costs 12 euros.")
    assert not cond.evaluate("12 euros, or Free")
    assert Condition('regexp("^fee$")').evaluate("fee\n")  # re.search: $ before a final newline
    assert not Condition('"Fee"').evaluate("fee")
    assert Condition('"Fee"', ignore_case=True).evaluate("FEE")


@pytest.mark.parametrize(
    "condition, position, expected, found",
    [
        ('"a" AND', 7, 'a quoted string, regexp("…"), NOT or "("', "end of condition"),
        ('"a" "b"', 4, "AND, OR or the end of the condition", "'\"b\"'"),
        ('("a" OR "b"', 11, 'AND, OR or ")" closing the "(" at position 0', "end of condition"),
        ('regexp "a"', 7, '"(" after regexp', "'\"a\"'"),
        ("regexp(a)", 7, "a quoted regular expression", None),
        ('"a" AND fee', 8, None, "the word 'fee' (quote literal text)"),
        ('"abc', 0, 'a closing " for the string opened here', "end of condition"),
        ('"a" & "b"', 4, None, "the character '&'"),
        ("", 0, 'a quoted string, regexp("…"), NOT or "("', "end of condition"),
        ('regexp("a(")', 7, "a valid regular expression", None),
        (")", 0, 'a quoted string, regexp("…"), NOT or "("', "')'"),
    ],
)
def test_syntax_errors_name_position_and_expected(condition, position, expected, found) -> None:
    with pytest.raises(ConditionSyntaxError) as info:
        parse(condition)
    err = info.value
    assert err.position == position
    if expected is not None:
        assert err.expected == expected
    if found is not None:
        assert err.found == found
    assert f"position {position}" in str(err)
    caret_line = str(err).splitlines()[-1]
    assert caret_line.index("^") - 2 == position  # caret under the offending character


def test_nesting_is_bounded() -> None:
    deep = "(" * (MAX_DEPTH + 1) + '"a"' + ")" * (MAX_DEPTH + 1)
    with pytest.raises(ConditionSyntaxError, match="levels of NOT and parentheses"):
        parse(deep)
    ok = "(" * MAX_DEPTH + '"a"' + ")" * MAX_DEPTH
    assert parse(ok) == Literal("a")
    with pytest.raises(ConditionSyntaxError):
        parse("NOT " * 10_000 + '"a"')


def test_round_trip_rendering() -> None:
    text = '"a" AND ("b" OR NOT regexp("c+")) OR NOT ("d" AND "e")'
    assert parse(to_text(parse(text))) == parse(text)


def test_atoms_report_every_leaf() -> None:
    atoms = Condition('"a" AND NOT ("b" OR regexp("c"))').atoms("a c")
    assert [(a.atom, a.matched) for a in atoms] == [
        ('"a"', True),
        ('"b"', False),
        ('regexp("c")', True),
    ]


def test_tokens_positions() -> None:
    tokens = tokenize('  "x"  OR  regexp("y")')
    assert [t.position for t in tokens] == [2, 7, 11, 17, 18, 21, 22]
