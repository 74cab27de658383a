"""Labelling rounds in the store (SQLite and PostgreSQL) and the design of each label read back."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import assay.label.store as store_module
from assay.cli.main import cli
from assay.errors import InvalidInputError
from assay.label.criteria import parse_criteria
from assay.label.migrations import MIGRATIONS
from assay.label.rounds import load_rounds, next_round_number, save_round
from assay.label.sample import draw_round
from assay.label.store import Store
from assay.verdict.labels import evidence_from_store

UNITS = [(f"q{i}", m) for i in range(20) for m in ("a", "b")]


def _label(store: Store, annotator: int, key: tuple[str, str], value: int) -> None:
    with store.transaction() as tx:
        item = tx.fetchone("SELECT id FROM items WHERE case_id = ? AND model = ?", key)
    store.submit(int(item[0]), annotator, {"grounded": value})


def _store(url: str) -> tuple[Store, int]:
    store = Store(url)
    store.migrate()
    store.set_criteria(parse_criteria("grounded"))
    store.sync_items([(c, m, i, "s", False) for i, (c, m) in enumerate(UNITS)])
    ada = store.annotator_for_token(store.add_annotator("ada"))
    assert ada is not None
    return store, int(ada["id"])


def test_rounds_round_trip_and_labels_carry_the_design_of_the_round_that_drew_them(
    db_url: str, tmp_path: Path
) -> None:
    store, ada = _store(db_url)
    _label(store, ada, ("q0", "a"), 1)  # hand-picked before any round: unknown
    known = {("q0", "a")}
    assert next_round_number(store) == 1
    first = draw_round(UNITS, None, 3, "uniform", seed=1, known=known, criterion="grounded")
    saved = save_round(store, first, budget=6, seed=1)
    assert saved.drawn_at and saved.extra == {"budget": 6, "seed": 1}
    with pytest.raises(InvalidInputError, match="next round there is 2"):
        save_round(store, first, budget=6, seed=1)  # a second process drew round 1 meanwhile
    p = {key: 0.9 for key in UNITS}
    second = draw_round(
        UNITS, p, 4, "active", seed=2, number=2, criterion="grounded", floor=0.3, known=known
    )
    save_round(store, second, budget=8, seed=2)
    rounds = load_rounds(store)
    assert [r.number for r in rounds] == [1, 2]
    back = rounds[0]
    assert (back.design, back.criterion, back.scope, back.known) == (
        "uniform",
        "grounded",
        "all",
        frozenset(known),
    )
    assert back.pool_sizes == {"a": 19, "b": 20}
    assert sorted(back.draws, key=str) == sorted(first.draws, key=str)  # serving order differs
    assert (rounds[1].design, rounds[1].floor, rounds[1].sampling) == ("active", 0.3, "successive")
    # a successive round is served in the order drawn within each system (Des Raj reads it)
    for model in ("a", "b"):
        assert [d for d in rounds[1].draws if d.model == model] == [
            d for d in second.draws if d.model == model
        ]
    assert load_rounds(store, ["other"]) == []

    drawn = first.draws[0]
    _label(store, ada, (drawn.case_id, drawn.model), 0)
    evidence = evidence_from_store(tmp_path, {"grounded"}, url=db_url)
    records = evidence.records["grounded"]
    assert records[("q0", "a")].design == "unknown" and records[("q0", "a")].round is None
    record = records[(drawn.case_id, drawn.model)]
    assert (record.design, record.round, record.value) == ("uniform", 1, 0)
    assert record.probability == pytest.approx(1 / back.pool_sizes[drawn.model])
    assert [r.number for r in evidence.rounds] == [1, 2]
    store.close()


def test_an_old_store_migrates_and_keeps_its_labels(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS[:1])
    old = Store(db_url)
    old.migrate()
    old.set_criteria(parse_criteria("grounded"))
    with old.transaction() as tx:  # the items as the first schema held them
        for i, (case_id, model) in enumerate(UNITS):
            tx.execute(
                "INSERT INTO items (case_id, model, priority, stratum, uncertain) "
                "VALUES (?, ?, ?, 's', 0)",
                (case_id, model, i),
            )
    ada = int(old.annotator_for_token(old.add_annotator("ada"))["id"])  # type: ignore[index]
    _label(old, ada, ("q1", "b"), 1)
    _label(old, ada, ("q2", "a"), 0)
    before = old.judgments()
    assert old.schema_version() == 1
    old.close()
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS)

    out = tmp_path / "labels.csv"  # the CLI on the old store: it migrates, the labels stay
    result = CliRunner().invoke(
        cli, ["labels", "export", str(tmp_path), "--db", db_url, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    exported = out.read_text(encoding="utf-8").splitlines()
    assert exported == [
        "id,model,grounded,n_annotators,label,design,round,probability",
        "q1,b,1,1,1,unknown,,",
        "q2,a,0,1,0,unknown,,",
    ]
    evidence = evidence_from_store(tmp_path, {"grounded"}, url=db_url)
    store = Store(db_url)
    assert store.schema_version() == len(MIGRATIONS) >= 2
    assert store.judgments() == before  # values and created_at unchanged
    assert evidence.values("grounded") == {("q1", "b"): 1, ("q2", "a"): 0}
    assert {r.design for r in evidence.records["grounded"].values()} == {"unknown"}
    assert evidence.rounds == [] and load_rounds(store) == []
    assert store.progress(1)["items"] == len(UNITS)  # every old item is still served
    store.close()


def test_a_store_of_schema_2_reads_its_active_rounds_as_drawn_with_replacement(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounds recorded before the sampling scheme was stored (migration 3) drew ``active`` with
    replacement: after the migration they read back as such, draws and repeats intact."""
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS[:2])
    old, _ = _store(db_url)
    p = {key: 0.9 if key[0] == "q1" else 0.5 for key in UNITS}
    drawn = draw_round(
        UNITS, p, 30, "active", seed=3, criterion="grounded", sampling="with-replacement"
    )
    with old.transaction() as tx:  # as the schema-2 code wrote it (no sampling column)
        tx.execute(
            "INSERT INTO rounds (number, criterion, scope, design, drawn_at, floor, budget, seed) "
            "VALUES (1, 'grounded', 'all', 'active', 't', 0.5, 60, 3)"
        )
        for position, d in enumerate(drawn.draws):
            tx.execute(
                "INSERT INTO round_draws (round_id, case_id, model, probability, times, "
                "position) VALUES (1, ?, ?, ?, ?, ?)",
                (d.case_id, d.model, d.probability, d.times, position),
            )
    assert old.schema_version() == 2
    old.close()
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS)
    store = Store(db_url)
    store.migrate()
    assert store.schema_version() == len(MIGRATIONS) == 3
    (back,) = load_rounds(store)
    assert (back.design, back.sampling) == ("active", "with-replacement")
    assert back.draws == drawn.draws and sum(d.times for d in back.draws) == 60
    store.close()
