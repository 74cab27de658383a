"""Numbered schema migrations of the label store (never edit one that shipped: append).

``{pk}`` stands for the dialect's auto-increment primary key.
"""

from __future__ import annotations

MIGRATIONS: list[list[str]] = [
    [  # 1: initial schema
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE annotators (id {pk}, name TEXT NOT NULL UNIQUE, "
        "token_sha256 TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL)",
        "CREATE TABLE criteria (name TEXT PRIMARY KEY, kind TEXT NOT NULL, "
        "min_value INTEGER NOT NULL, max_value INTEGER NOT NULL, position INTEGER NOT NULL)",
        "CREATE TABLE items (id {pk}, case_id TEXT NOT NULL, model TEXT NOT NULL, "
        "priority INTEGER NOT NULL, stratum TEXT NOT NULL, uncertain INTEGER NOT NULL, "
        "UNIQUE (case_id, model))",
        "CREATE INDEX items_priority ON items (priority)",
        "CREATE TABLE assignments (item_id BIGINT NOT NULL REFERENCES items (id), "
        "annotator_id BIGINT NOT NULL REFERENCES annotators (id), "
        "expires_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (item_id, annotator_id))",
        "CREATE INDEX assignments_annotator ON assignments (annotator_id)",
        "CREATE TABLE judgments (id {pk}, item_id BIGINT NOT NULL REFERENCES items (id), "
        "annotator_id BIGINT NOT NULL REFERENCES annotators (id), skipped INTEGER NOT NULL, "
        "comment TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (item_id, annotator_id))",
        "CREATE INDEX judgments_annotator ON judgments (annotator_id)",
        "CREATE TABLE judgment_values (judgment_id BIGINT NOT NULL REFERENCES judgments (id), "
        "criterion TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (judgment_id, criterion))",
    ],
    [  # 2: labelling rounds drawn by a design (design note 0063)
        "CREATE TABLE rounds (id {pk}, number INTEGER NOT NULL UNIQUE, criterion TEXT NOT NULL, "
        "scope TEXT NOT NULL, design TEXT NOT NULL, drawn_at TEXT NOT NULL, "
        "floor DOUBLE PRECISION NOT NULL, budget INTEGER NOT NULL, seed BIGINT)",
        "CREATE TABLE round_pools (round_id BIGINT NOT NULL REFERENCES rounds (id), "
        "model TEXT NOT NULL, pool_size INTEGER NOT NULL, PRIMARY KEY (round_id, model))",
        "CREATE TABLE round_draws (round_id BIGINT NOT NULL REFERENCES rounds (id), "
        "case_id TEXT NOT NULL, model TEXT NOT NULL, probability DOUBLE PRECISION NOT NULL, "
        "times INTEGER NOT NULL, position INTEGER NOT NULL, "
        "PRIMARY KEY (round_id, case_id, model))",
        "CREATE TABLE round_known (round_id BIGINT NOT NULL REFERENCES rounds (id), "
        "case_id TEXT NOT NULL, model TEXT NOT NULL, PRIMARY KEY (round_id, case_id, model))",
        # items outside every labelled check's scope stay (with their labels) but are not served
        "ALTER TABLE items ADD COLUMN active INTEGER NOT NULL DEFAULT 1",
    ],
    [  # 3: how an active round drew (design note 0063, amendment of 2026-12-07): rounds recorded
        # before drew with replacement; a successive round's draws are served in the order drawn
        "ALTER TABLE rounds ADD COLUMN sampling TEXT NOT NULL DEFAULT 'with-replacement'",
    ],
]
