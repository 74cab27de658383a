"""Reading and writing suites; bad input names the file, row and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.data import TestCase, TestSuite, read_suite, write_suite
from assay.data.case import MAX_FIELD_CHARS
from assay.errors import InvalidInputError
from assay.testing import sample_cases


@pytest.mark.parametrize("ext", ["jsonl", "json", "csv", "parquet"])
def test_round_trip_every_format(tmp_path: Path, ext: str) -> None:
    suite = TestSuite(sample_cases())
    path = write_suite(suite, tmp_path / f"suite.{ext}")
    again = read_suite(path)
    expected = [c.model_dump() for c in suite]
    if ext == "csv":  # CSV cannot tell an empty text from a missing one: empty means "not set"
        for record in expected:
            record.update({k: None for k, v in record.items() if v == ""})
    assert [c.model_dump() for c in again] == expected
    assert again.sha256 and len(again.sha256) == 64


def test_unknown_columns_are_kept_in_metadata(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": 1, "question": "q", "channel": "web"}) + "\n")
    case = read_suite(path)[0]
    assert case.id == "1" and case.metadata == {"channel": "web"}


def test_all_invalid_rows_are_reported_with_row_and_field(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    rows = [
        {"id": "a"},
        {"id": "b", "latency_s": "fast"},
        {"question": "no id"},
        {"id": "c", "retrieved_context": "not a list"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(InvalidInputError) as info:
        read_suite(path)
    message = str(info.value)
    assert "3 invalid rows" in message
    assert f"{path}: row 2, field 'latency_s'" in message
    assert f"{path}: row 3, field 'id'" in message
    assert f"{path}: row 4, field 'retrieved_context'" in message


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    with pytest.raises(InvalidInputError, match="holds no test cases"):
        read_suite(path)


def test_invalid_json_line_names_row(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a"}\n{"id": \n')
    with pytest.raises(InvalidInputError, match=r"row 2: invalid JSON"):
        read_suite(path)


def test_invalid_utf8_names_row_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_bytes(b"id,question\n1,ok\n2,caf\xe9\n")
    with pytest.raises(InvalidInputError, match=r"row 3: invalid UTF-8 at byte"):
        read_suite(path)


def test_csv_missing_id_column(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("question,actual_answer\nq,a\n")
    with pytest.raises(InvalidInputError, match=r"row 2, field 'id'"):
        read_suite(path)


def test_csv_bad_json_in_list_column(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text('id,retrieved_context\n1,"[unclosed"\n')
    with pytest.raises(InvalidInputError, match=r"row 2, field 'retrieved_context'"):
        read_suite(path)


def test_very_large_field_is_rejected_clearly(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "x", "actual_answer": "a" * (MAX_FIELD_CHARS + 1)}) + "\n")
    with pytest.raises(InvalidInputError, match=r"row 1, field 'actual_answer'.*limit"):
        read_suite(path)


def test_duplicate_key_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="duplicate case id 'a'"):
        TestSuite([TestCase(id="a", model="m"), TestCase(id="a", model="m")])


def test_repeated_key_in_a_file_is_named_unless_the_keys_are_known_unique(tmp_path: Path) -> None:
    from assay.data.suite import iter_suite

    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b"}\n{"id": "a"}\n')
    with pytest.raises(InvalidInputError, match=r"row 3, field 'id': duplicate case id 'a'"):
        list(iter_suite(path))
    # a run directory's copy was checked when staged: read back without a key register
    read = [case.id for chunk in iter_suite(path, keys_unique=True) for case in chunk]
    assert read == ["a", "b", "a"]
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    with pytest.raises(InvalidInputError, match="holds no test cases"):
        list(iter_suite(empty, keys_unique=True))


def test_unknown_extension(tmp_path: Path) -> None:
    path = tmp_path / "s.xlsx"
    path.write_text("x")
    with pytest.raises(InvalidInputError, match="unknown suite format"):
        read_suite(path)


def test_relevant_ids_accept_list_or_grades() -> None:
    assert TestCase(id="a", relevant_ids=["x", 3]).relevant_ids == {"x": 1.0, "3": 1.0}
    assert TestCase(id="a", relevant_ids={"x": 2}).relevant_ids == {"x": 2.0}
