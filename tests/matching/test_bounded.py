"""Bounded regular expressions: hostile patterns time out instead of hanging a run."""

from __future__ import annotations

import pickle

import pytest

from assay.errors import InvalidInputError
from assay.matching import BoundedPattern, Condition, RegexTimeoutError

HOSTILE = [("(a+)+$", "a" * 5000 + "!"), ("(x+x+)+y", "x" * 5000), ("(a|aa)+$", "a" * 5000 + "b")]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("pattern, text", HOSTILE)
def test_catastrophic_backtracking_times_out(pattern: str, text: str) -> None:
    with pytest.raises(RegexTimeoutError, match=r"timed out after 0\.1 s"):
        BoundedPattern(pattern, timeout_s=0.1).search(text)


@pytest.mark.parametrize("pattern, text", HOSTILE)
def test_re2_engine_is_linear(pattern: str, text: str) -> None:
    pytest.importorskip("re2", reason="google-re2 (assay[safety]) not installed")
    compiled = BoundedPattern(pattern, engine="re2")
    assert compiled.engine == "re2"
    assert compiled.search(text) is False


def test_auto_falls_back_for_backreferences() -> None:
    compiled = BoundedPattern(r"(a)\1", engine="auto")
    assert compiled.engine == "regex" and compiled.search("xaa")


def test_re2_rejects_what_it_cannot_run() -> None:
    pytest.importorskip("re2", reason="google-re2 (assay[safety]) not installed")
    with pytest.raises(InvalidInputError, match="RE2 cannot compile"):
        BoundedPattern(r"(?<=a)b", engine="re2")


def test_python_semantics_inline_flags() -> None:
    assert BoundedPattern("(?i)FEE").search("the fee")
    assert BoundedPattern("(?s)a.b").search("a\nb")
    assert not BoundedPattern("a.b").search("a\nb")


def test_invalid_pattern_and_parameters() -> None:
    with pytest.raises(InvalidInputError, match="invalid regular expression"):
        BoundedPattern("a(")
    with pytest.raises(InvalidInputError, match="'engine' parameter"):
        BoundedPattern("a", engine="pcre")
    with pytest.raises(InvalidInputError, match="'timeout_s' parameter"):
        BoundedPattern("a", timeout_s=0)


def test_pickles() -> None:
    clone = pickle.loads(pickle.dumps(BoundedPattern("a+", timeout_s=0.5)))
    assert clone.search("caa") and clone.timeout_s == 0.5


@pytest.mark.timeout(30)
def test_condition_with_hostile_regex_raises_timeout() -> None:
    cond = Condition('"x" OR regexp("(a+)+$")', timeout_s=0.1)
    with pytest.raises(RegexTimeoutError):
        cond.evaluate("a" * 5000 + "!")
