"""PrimaryOutcomes keeps failing and linked rows as columns: the same findings as a dict of rows."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd

from assay.analyze.findings import PrimaryOutcomes, _FailingRows, _LinkedRows


def test_most_difficult_case_matches_a_tally_per_case_ties_to_the_first() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        rows = [(f"c{rng.randint(0, 8)}", f"m{rng.randint(0, 2)}") for _ in range(rng.randint(1, 60))]
        failing = _FailingRows()
        failing.BUFFER = 7  # several joins of the Arrow columns
        tally: dict[str, tuple[int, set[str]]] = {}
        for case_id, model in rows:
            failing.add(case_id, model)
            count, models = tally.get(case_id, (0, set()))
            tally[case_id] = (count + 1, models | {model})
        case_id, (count, models) = max(tally.items(), key=lambda it: (len(it[1][1]), it[1][0]))
        assert failing.most_difficult() == (case_id, count, sorted(models)), seed


def test_linked_rows_read_back_as_the_rows_kept() -> None:
    rows = [
        {"case_id": "p", "model": "m", "evaluator": "e", "metric": "f1", "value": 0.5,
         "passed": True, "parent_id": None, "perturbation": None, "sample_of": None, "sample": None},
        {"case_id": "p~t", "model": "m", "evaluator": "e", "metric": "f1", "value": None,
         "passed": False, "parent_id": "p", "perturbation": "typos", "sample_of": "x",
         "sample": 2},
    ]  # fmt: skip
    kept = _LinkedRows(["p", "p~t"])
    for row in rows:
        kept.add(row)
    frame = kept.frame()
    texts = frame[list(_LinkedRows.TEXTS)].astype(object)
    assert texts.where(texts.notna(), None).to_dict("records") == [
        {k: row[k] for k in _LinkedRows.TEXTS} for row in rows
    ]
    assert frame["passed"].tolist() == [True, False]
    assert frame["value"].iloc[0] == 0.5 and pd.isna(frame["value"].iloc[1])
    assert frame["sample"].tolist() == [-1, 2]


def test_a_flip_names_its_cases_and_perturbation_as_texts() -> None:
    from assay.analyze.findings import _flips

    outcomes = PrimaryOutcomes({"p", "p~t"})
    base = {"model": "m", "evaluator": "e", "metric": "f1", "primary": True}
    outcomes.add([{**base, "case_id": "p", "passed": True, "value": 0.9},
                  {**base, "case_id": "p~t", "passed": False, "value": 0.1, "parent_id": "p",
                   "perturbation": None}])  # fmt: skip
    (flip,) = _flips(outcomes.linked_frame())
    assert (flip["case_id"], flip["parent_id"], flip["perturbation"]) == ("p~t", "p", None)
    assert "under perturbation (unnamed)" in flip["message"] and "pass → fail" in flip["message"]


def test_parents_are_paired_by_code_as_by_text() -> None:
    from assay.analyze.findings import parent_pairs

    base = {"evaluator": "e", "primary": True, "perturbation": None}
    rows = []
    for model in ("m", "n"):
        for metric in ("f1", "em"):
            for j in (1, 2):  # two samples of a parent and of its perturbed child
                rows.append({**base, "model": model, "metric": metric, "case_id": f"p#sample{j}",
                             "sample_of": "p", "sample": j, "parent_id": None,
                             "passed": (j + len(model)) % 2 == 0, "value": j / 4})
                rows.append({**base, "model": model, "metric": metric, "case_id": f"c#sample{j}",
                             "sample_of": "c", "sample": j, "parent_id": "p", "perturbation": "t",
                             "passed": j == 1, "value": j / 3})
    rows.append({**base, "model": "m", "metric": "f1", "case_id": "orphan", "sample_of": None,
                 "sample": None, "parent_id": "gone", "passed": True, "value": 1.0})
    ids = {r["case_id"] for r in rows} | {"p", "c"}
    outcomes = PrimaryOutcomes(ids, sampled=True)
    outcomes.add(rows)
    by_code = parent_pairs(outcomes.linked_frame(), ["passed", "value"])
    by_text = parent_pairs(pd.DataFrame(rows), ["passed", "value"])
    columns = ["case_id", "model", "metric", "passed", "passed_parent", "value_parent"]
    assert len(by_code) == 8  # each child sample meets the parent's sample of its index
    assert by_code[columns].astype(object).values.tolist() == by_text[columns].values.tolist()


def _joined_pairs(judged: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The reference: each child row joined on texts to its parent's row (pandas merge)."""
    unit = judged["sample_of"].where(judged["sample_of"].notna(), judged["case_id"])
    keys = ["model", "metric", "_unit", "_sample"]
    frame = judged.assign(_unit=unit, _sample=judged["sample"].fillna(-1))
    parents = frame[keys + columns].rename(columns={c: f"{c}_parent" for c in columns})
    children = frame[frame["parent_id"].notna()].assign(_unit=lambda f: f["parent_id"])
    return children.merge(parents, on=keys).drop(columns=["_unit", "_sample"])


def test_parents_are_looked_up_as_a_join_pairs_them() -> None:
    """parent_pairs' lookup by one integer key gives the join's rows, in its order, and a key
    held by two rows falls back to the join (each pairing kept)."""
    from assay.analyze.findings import parent_pairs

    rng = np.random.default_rng(7)
    rows = []
    for i in range(300):
        parent = f"p{i}" if i % 3 else None  # a third are parents, the rest their children
        sampled = i % 5 == 0
        for model in ("m", "n"):
            for metric in ("f1", "em"):
                for j in (1, 2) if sampled else (None,):
                    case = f"c{i}" if j is None else f"c{i}#sample{j}"
                    rows.append({"case_id": case, "model": model, "metric": metric,
                                 "parent_id": parent and f"c{int(i / 3) * 3}",
                                 "sample_of": None if j is None else f"c{i}", "sample": j,
                                 "passed": bool(rng.random() < 0.5), "value": rng.random()})
    frame = pd.DataFrame(rows).sample(frac=1.0, random_state=3).reset_index(drop=True)
    columns = ["case_id", "parent_id", "model", "metric", "passed", "passed_parent",
               "value_parent"]
    looked_up = parent_pairs(frame, ["passed", "value"])
    joined = _joined_pairs(frame, ["passed", "value"])
    assert len(looked_up) > 100
    assert looked_up[columns].values.tolist() == joined[columns].values.tolist()
    repeated = pd.concat([frame, frame.iloc[:5]], ignore_index=True)  # five keys twice
    assert (parent_pairs(repeated, ["passed"])[columns[:-1]].values.tolist()
            == _joined_pairs(repeated, ["passed"])[columns[:-1]].values.tolist())
