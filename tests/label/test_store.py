"""The label store on SQLite and PostgreSQL: migrations, tokens, queue leases, concurrency."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import pytest

from assay.errors import InvalidInputError
from assay.label.criteria import parse_criteria
from assay.label.migrations import MIGRATIONS
from assay.label.store import Store, database_url, hash_token


def _store(url: str, n_items: int = 6) -> Store:
    store = Store(url)
    store.migrate()
    store.set_criteria(parse_criteria("grounded,quality:1-5"))
    store.sync_items([(f"q{i}", "m", i, "b1", False) for i in range(n_items)])
    return store


def test_migrations_apply_once_and_record_their_version(db_url: str) -> None:
    store = _store(db_url)
    store.migrate()  # idempotent
    Store(db_url).migrate()  # a second process
    assert store.schema_version() == len(MIGRATIONS)
    assert len(store.meta("secret") or "") == 64
    with store.transaction() as tx:
        rows = tx.fetchall("SELECT version FROM schema_migrations")
    assert sorted(r[0] for r in rows) == list(range(1, len(MIGRATIONS) + 1))


def test_tokens_are_stored_hashed_and_identify_their_annotator(db_url: str) -> None:
    store = _store(db_url)
    ada, bob = store.add_annotator("ada"), store.add_annotator("bob")
    assert ada != bob
    assert store.annotator_for_token(ada)["name"] == "ada"  # type: ignore[index]
    assert store.annotator_for_token("wrong") is None
    assert store.annotator_for_token("") is None
    with store.transaction() as tx:
        stored = [r[0] for r in tx.fetchall("SELECT token_sha256 FROM annotators")]
    assert ada not in stored and hash_token(ada) in stored
    with pytest.raises(InvalidInputError, match="already exists"):
        store.add_annotator("ada")
    new = store.reset_token("ada")
    assert store.annotator_for_token(ada) is None
    assert store.annotator_for_token(new)["name"] == "ada"  # type: ignore[index]


def test_queue_never_repeats_a_case_and_respects_overlap(db_url: str) -> None:
    store = _store(db_url, n_items=4)
    a = store.annotator_for_token(store.add_annotator("a"))["id"]  # type: ignore[index]
    b = store.annotator_for_token(store.add_annotator("b"))["id"]  # type: ignore[index]
    c = store.annotator_for_token(store.add_annotator("c"))["id"]  # type: ignore[index]
    seen: dict[int, list[int]] = {a: [], b: [], c: []}
    for _ in range(10):
        for who in (a, b, c):
            item = store.next_item(who, overlap=2)
            if item is not None:
                assert store.next_item(who, overlap=2) == item  # the lease is kept until submit
                seen[who].append(item)
                store.submit(item, who, {"grounded": 1, "quality": 4})
    for items in seen.values():
        assert len(items) == len(set(items))  # no case twice for one annotator
    per_item = Counter(i for items in seen.values() for i in items)
    assert sorted(per_item.values()) == [2, 2, 2, 2]  # exactly `overlap` labels per case
    assert store.progress(2) == {
        "items": 4,
        "uncertain": 0,
        "labelled": 4,
        "complete": 4,
        "labels": 8,
    }


def test_queue_follows_priority_and_skips_do_not_count(db_url: str) -> None:
    store = _store(db_url, n_items=3)
    store.sync_items(
        [("q0", "m", 5, "b1", False), ("q1", "m", 0, "b1", True), ("q2", "m", 1, "b1", False)]
    )
    a = store.annotator_for_token(store.add_annotator("a"))["id"]  # type: ignore[index]
    b = store.annotator_for_token(store.add_annotator("b"))["id"]  # type: ignore[index]
    first = store.next_item(a, overlap=1)
    assert store.item(first)["case_id"] == "q1"  # type: ignore[arg-type,index]
    store.submit(first, a, {}, skipped=True)  # type: ignore[arg-type]
    assert store.item(store.next_item(b, overlap=1))["case_id"] == "q1"  # type: ignore[arg-type,index]
    assert store.judgments() == []  # a skip is not a label


def test_submit_is_idempotent_and_committed_immediately(db_url: str) -> None:
    store = _store(db_url)
    a = store.annotator_for_token(store.add_annotator("a"))["id"]  # type: ignore[index]
    item = store.next_item(a, overlap=1)
    assert item is not None
    store.submit(item, a, {"grounded": 0, "quality": 2}, "first")
    store.submit(item, a, {"grounded": 1, "quality": 3}, "second")  # a resubmitted form
    other = Store(db_url)  # another connection / process sees it at once
    rows = other.judgments()
    assert {(r["criterion"], r["value"], r["comment"]) for r in rows} == {
        ("grounded", 1, "second"),
        ("quality", 3, "second"),
    }
    with pytest.raises(InvalidInputError, match="no item"):
        store.submit(10_000, a, {"grounded": 1})


def test_concurrent_annotators_never_exceed_overlap(db_url: str) -> None:
    store = _store(db_url, n_items=12)
    ids = [store.annotator_for_token(store.add_annotator(f"a{k}"))["id"] for k in range(6)]  # type: ignore[index]
    errors: list[BaseException] = []
    taken: list[tuple[int, int]] = []
    lock = threading.Lock()

    def work(who: int) -> None:
        try:
            worker = Store(db_url)  # own connections, as separate server threads would have
            while (item := worker.next_item(who, overlap=2)) is not None:
                worker.submit(item, who, {"grounded": who % 2, "quality": 3})
                with lock:
                    taken.append((item, who))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(who,)) for who in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert len(taken) == len(set(taken))
    counts = Counter(item for item, _ in taken)
    assert len(counts) == 12 and set(counts.values()) == {2}
    assert len(store.judgments()) == 12 * 2 * 2  # two criteria per judgment


def test_a_database_belongs_to_one_run(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'l.sqlite'}")
    store.migrate()
    store.bind_run("a" * 64)
    store.bind_run("a" * 64)
    with pytest.raises(InvalidInputError, match="another run"):
        store.bind_run("b" * 64)


def test_a_criterion_keeps_its_scale(tmp_path: Path) -> None:
    store = _store(f"sqlite:///{tmp_path / 'l.sqlite'}")
    store.set_criteria(parse_criteria("grounded,quality:1-5,safe"))  # adding is fine
    assert [c.spec() for c in store.criteria()] == ["grounded", "quality:1-5", "safe"]
    with pytest.raises(InvalidInputError, match="cannot change"):
        store.set_criteria(parse_criteria("quality:0-3"))


def test_sqlite_uses_wal_and_urls() -> None:
    assert database_url("r", None) == "sqlite:///r/labels.sqlite"
    assert database_url("r", "x.db") == "sqlite:///x.db"
    assert Store("postgresql://u:secret@h/db").safe_url == "postgresql://u@h/db"
    with pytest.raises(InvalidInputError, match="unsupported"):
        Store("mysql://x")


def test_sqlite_journal_is_wal(tmp_path: Path) -> None:
    store = _store(f"sqlite:///{tmp_path / 'l.sqlite'}")
    with store.transaction() as tx:
        assert tx.fetchone("PRAGMA journal_mode")[0] == "wal"


def test_the_app_only_accepts_labels_for_items_leased_to_the_annotator(db_url: str) -> None:
    store = _store(db_url)
    a = store.annotator_for_token(store.add_annotator("a"))["id"]  # type: ignore[index]
    b = store.annotator_for_token(store.add_annotator("b"))["id"]  # type: ignore[index]
    leased = store.next_item(a, overlap=1)
    assert leased is not None
    with store.transaction() as tx:
        others = [r[0] for r in tx.fetchall("SELECT id FROM items WHERE id <> ?", (leased,))]
    with pytest.raises(InvalidInputError, match="was not given to you"):
        store.submit(others[0], a, {"grounded": 1, "quality": 3}, require_lease=True)
    with pytest.raises(InvalidInputError, match="was not given to you"):  # a's item, not b's
        store.submit(leased, b, {"grounded": 1, "quality": 3}, require_lease=True)
    store.submit(leased, a, {"grounded": 1, "quality": 3}, require_lease=True)
    store.submit(leased, a, {"grounded": 0, "quality": 2}, require_lease=True)  # a revision
    assert [j["value"] for j in store.judgments() if j["criterion"] == "grounded"] == [0]
