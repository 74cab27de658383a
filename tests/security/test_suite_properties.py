"""Property-based tests of the suite readers and writers (JSONL, JSON, CSV, Parquet).

* Round trip: any valid suite written in any format reads back equal.
* Rejection: any JSON value on a line, and any bytes in a file, either read as a valid suite or
  raise :class:`~assay.errors.InvalidInputError` naming the file (and the row when there is
  one) — never another exception, never a traceback.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay import TestCase
from assay.data.suite import read_suite, write_suite
from assay.errors import InvalidInputError

_SETTINGS = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Text as users write it: any Unicode but lone surrogates (refused by design, tested below),
# not blank (an empty table cell reads as unset, by design).
_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda s: s.strip() != "")
_number = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), _number, _text)
_json = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(_text, inner, max_size=3)), max_leaves=8)

_case = st.builds(
    TestCase,
    id=_text,
    model=st.one_of(st.none(), _text),
    question=st.one_of(st.none(), _text),
    expected_answer=st.one_of(st.none(), _text),
    actual_answer=st.one_of(st.none(), _text),
    retrieved_context=st.one_of(st.none(), st.lists(_text, min_size=1, max_size=3)),
    topic=st.one_of(st.none(), _text),
    latency_s=st.one_of(st.none(), _number),
    cost_usd=st.one_of(st.none(), _number),
    labels=st.dictionaries(_text, st.one_of(st.integers(0, 5), _text), max_size=2),
    metadata=st.dictionaries(_text, _json, max_size=3),
)


def _unique(cases: list[TestCase]) -> list[TestCase]:
    seen: set[tuple[str, str | None]] = set()
    out = []
    for case in cases:
        if (case.id, case.model) not in seen:
            seen.add((case.id, case.model))
            out.append(case)
    return out


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "parquet"])
@_SETTINGS
@given(cases=st.lists(_case, min_size=1, max_size=4).map(_unique))
def test_any_valid_suite_round_trips(fmt: str, cases: list[TestCase]) -> None:
    with tempfile.TemporaryDirectory(prefix="reliability-hyp-") as folder:
        path = write_suite(cases, Path(folder) / f"suite.{fmt}")
        back = list(read_suite(path))
    assert [c.model_dump() for c in back] == [c.model_dump() for c in cases]


def _read(text: str | bytes, name: str) -> Any:
    with tempfile.TemporaryDirectory(prefix="reliability-hyp-") as folder:
        path = Path(folder) / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            return list(read_suite(path))
        except InvalidInputError as exc:
            assert name in str(exc), str(exc)[:300]
            return exc


@_SETTINGS
@given(record=st.one_of(_json, st.dictionaries(
    st.sampled_from(["id", "question", "actual_answer", "retrieved_context", "latency_s",
                     "cost_usd", "labels", "metadata", "turns", "relevant_ids", "model"]),
    _json, max_size=6)))
def test_any_json_line_reads_or_is_a_named_error(record: Any) -> None:
    line = json.dumps(record, allow_nan=True)
    out = _read('{"id": "ok", "actual_answer": "a"}\n' + line + "\n", "suite.jsonl")
    if isinstance(out, InvalidInputError):
        assert "row 2" in str(out) or "rows" in str(out), str(out)[:300]


@_SETTINGS
@given(data=st.binary(max_size=400), name=st.sampled_from(
    ["suite.jsonl", "suite.json", "suite.csv", "suite.parquet"]))
def test_any_bytes_read_or_are_a_named_error(data: bytes, name: str) -> None:
    _read(data, name)


@_SETTINGS
@given(text=st.text(max_size=200), name=st.sampled_from(["suite.jsonl", "suite.json",
                                                          "suite.csv"]))
def test_any_text_reads_or_is_a_named_error(text: str, name: str) -> None:
    _read(text, name)


SEPARATORS = ["\u2028", "\u2029", "\x85", "\x1c", "\x0b", "\x0c", "\r"]


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "parquet"])
def test_unicode_line_separators_inside_texts_round_trip(tmp_path: Path, fmt: str) -> None:
    """Found by the round-trip property: a raw U+0085 in a JSONL record cut it in two."""
    cases = [TestCase(id=f"c{i}", actual_answer=f"before{sep}after", metadata={f"k{sep}": sep})
             for i, sep in enumerate(SEPARATORS)]
    back = list(read_suite(write_suite(cases, tmp_path / f"suite.{fmt}")))
    assert [c.model_dump() for c in back] == [c.model_dump() for c in cases]


def test_a_checkpoint_keeps_answers_holding_line_separators(tmp_path: Path) -> None:
    """``assay run`` resumes from its checkpoint: a system answer with U+2028 must not be lost."""
    from assay.runner.checkpoint import Checkpoint

    sources = [TestCase(id=f"q{i}", question="Fee?") for i in range(len(SEPARATORS))]
    path = tmp_path / "run.checkpoint.jsonl"
    with Checkpoint(path, target="rag") as log:
        for source, sep in zip(sources, SEPARATORS, strict=True):
            log.append(source, source.model_copy(update={"actual_answer": f"12{sep}euros"}))
    done = Checkpoint(path, target="rag").load(sources)
    assert [done[s.id].actual_answer for s in sources] == [f"12{sep}euros" for sep in SEPARATORS]
