"""The specification format and the field-path selector."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.agents.checks import field_problems
from assay.agents.selector import parse_path, select
from assay.agents.spec import ArtifactSpec, FieldRule, file_type, load_spec
from assay.errors import InvalidInputError

SPEC = {
    "artifacts": [
        {"path": "report.json", "fields": [{"path": "title", "non_empty": True},
                                           {"path": "items[*].id", "type": "integer"}]},
        {"path": "tables/*.csv", "columns": ["id", "value"], "min_rows": 1},
        {"path": "figures/", "min_files": 1},
        {"path": "notes.md", "required": False},
    ],
    "chat": {"required": True, "min_messages": 2},
}


def test_selector_paths() -> None:
    doc = {"a": {"b.c": [1, 2]}, "items": [{"id": 1}, {"id": 2, "tags": ["x"]}], "m": {"k": 3}}
    assert select(doc, "a['b.c'][-1]") == [("a.b.c[-1]", 2)]
    assert select(doc, "$.items[*].id") == [("items[0].id", 1), ("items[1].id", 2)]
    assert select(doc, "items[1].tags[0]") == [("items[1].tags[0]", "x")]
    assert select(doc, "m.*") == [("m.k", 3)]
    assert select(doc, "items[*].tags") == [("items[1].tags", ["x"])]
    assert select(doc, "nothing.here") == []
    assert select([1, 2], "[0]") == [("[0]", 1)]
    for bad in ("", "a..b", "a[x]", "a[", "__import__('os')"):
        with pytest.raises(InvalidInputError):
            parse_path(bad)


def test_field_rules() -> None:
    doc = {"status": "done", "n": 3, "flag": True, "title": " ", "tags": []}
    assert field_problems(FieldRule("status", equals="done"), doc) == []
    assert field_problems(FieldRule("n", type="number", min=1, max=2), doc) == [
        "field n should be <= 2; got 3"]
    assert field_problems(FieldRule("flag", type="integer"), doc) == [
        "field flag should be of type integer; got True"]  # booleans are not numbers
    assert field_problems(FieldRule("title", non_empty=True), doc) == ["field title is empty"]
    assert field_problems(FieldRule("tags", min_items=1), doc) == [
        "field tags should have at least 1 item(s)"]
    assert field_problems(FieldRule("status", pattern="^d.ne$"), doc) == []
    assert field_problems(FieldRule("absent"), doc) == ["required field absent is missing"]
    assert field_problems(FieldRule("absent", required=False), doc) == []


def test_spec_from_dict_and_defaults() -> None:
    spec = ArtifactSpec.from_dict(SPEC)
    kinds = [(r.path, r.kind, r.required) for r in spec.artifacts]
    assert kinds == [("report.json", "file", True), ("tables/*.csv", "file", True),
                     ("figures", "folder", True), ("notes.md", "file", False)]
    assert spec.artifacts[1].is_glob and spec.artifacts[1].columns == ("id", "value")
    assert spec.chat.required and spec.chat.min_messages == 2
    assert ArtifactSpec.from_dict(None) == ArtifactSpec()
    assert file_type("a/b.YML") == "yaml" and file_type("x.bin") == "any"


@pytest.mark.parametrize(("data", "message"), [
    ({"artifact": []}, "unknown key(s) ['artifact']"),
    ({"artifacts": [{"path": "a.json", "feilds": []}]}, "unknown key(s) ['feilds']"),
    ({"artifacts": [{"path": "../x.json"}]}, "must be relative"),
    ({"artifacts": [{"path": "/etc/passwd"}]}, "must be relative"),
    ({"artifacts": [{"path": "a.json", "type": "exe"}]}, "type must be one of"),
    ({"artifacts": [{"path": "a.json", "required": "yes"}]}, "'required' must be bool"),
    ({"artifacts": [{"path": "a.json", "min_rows": True}]}, "'min_rows' must be int"),
    ({"artifacts": [{"path": "a.json", "fields": [{"path": "a", "pattern": "("}]}]},
     "invalid pattern"),
    ({"artifacts": [{"path": "a.json", "fields": [{"path": "a", "type": "str"}]}]},
     "type must be one of"),
    ({"chat": {"min_messages": "2"}}, "'min_messages' must be int"),
    ([1, 2], "must be a mapping"),
])
def test_bad_specs_name_the_problem(data: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=None) as info:
        ArtifactSpec.from_dict(data)
    assert message in str(info.value)


def test_load_spec_from_json_yaml_toml(tmp_path: Path) -> None:
    (tmp_path / "spec.json").write_text(json.dumps(SPEC))
    (tmp_path / "spec.yaml").write_text(
        "artifacts:\n"
        "  - path: report.json\n"
        "    fields:\n"
        "      - {path: title, non_empty: true}\n"
        "      - {path: 'items[*].id', type: integer}\n"
        "  - {path: tables/*.csv, columns: [id, value], min_rows: 1}\n"
        "  - {path: figures/, min_files: 1}\n"
        "  - {path: notes.md, required: false}\n"
        "chat: {required: true, min_messages: 2}\n"
    )
    (tmp_path / "spec.toml").write_text(
        "[[artifacts]]\npath = 'report.json'\n"
        "fields = [{path = 'title', non_empty = true}, {path = 'items[*].id', type = 'integer'}]\n"
        "[[artifacts]]\npath = 'tables/*.csv'\ncolumns = ['id', 'value']\nmin_rows = 1\n"
        "[[artifacts]]\npath = 'figures/'\nmin_files = 1\n"
        "[[artifacts]]\npath = 'notes.md'\nrequired = false\n"
        "[chat]\nrequired = true\nmin_messages = 2\n"
    )
    expected = ArtifactSpec.from_dict(SPEC)
    for name in ("spec.json", "spec.yaml", "spec.toml"):
        assert load_spec(name, tmp_path) == expected, name
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(InvalidInputError, match="cannot parse the specification"):
        load_spec(tmp_path / "broken.json")
    with pytest.raises(InvalidInputError, match="not found"):
        load_spec("missing.toml", tmp_path)
