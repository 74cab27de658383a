"""The labelling loop by design through the CLI: assess → labels sample → label → assess."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.demo import demo_suite_path
from assay.errors import InvalidInputError
from assay.label.project import LabelProject
from assay.label.rounds import load_rounds
from assay.label.store import Store
from assay.verdict import assess, parse_plan
from assay.verdict.labels import evidence_from_store, label_evidence

SYSTEMS = ("faithful", "hallucinating", "terse")
PLAN = """
[run]
suite = "{suite}"
evaluators = ["token_f1"]
[labels]
source = {source}
[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["token_f1"]
scope = "original"
min_pass_rate = 0.8
[[check]]
dimension = "qa"
name = "overlap rule"
metrics = ["token_f1"]
threshold = 0.2
min_pass_rate = 0.5
"""


def _assess(out: Path, source: str = '["suite", "store"]') -> Path:
    plan_path = out.parent / f"{out.name}.toml"
    plan_path.write_text(PLAN.format(suite=demo_suite_path(), source=source), encoding="utf-8")
    result = CliRunner().invoke(cli, ["assess", str(plan_path), "--out", str(out)])
    assert result.exit_code in (0, 1, 3), result.output
    return plan_path


@pytest.fixture(scope="module")
def assessed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample") / "assessment"
    _assess(out)
    return out


def _in_scope(assessed: Path) -> set[tuple[str, str]]:
    """The units of the labelled check, as the last assessment's per-case verdicts list them."""
    with (assessed / "verdict_cases.csv").open(encoding="utf-8") as handle:
        rows = [
            r
            for r in csv.DictReader(handle)
            if r["check"] == "correct answers" and r.get("state") != "out of scope"
        ]
    return {(r["case_id"], r["model"]) for r in rows}


def _suite_labelled(assessed: Path) -> set[tuple[str, str]]:
    from assay.data import read_suite

    units = _in_scope(assessed)
    return {
        (c.id, str(c.model))
        for c in read_suite(demo_suite_path()).cases
        if "correct" in c.labels and (c.id, str(c.model)) in units
    }


def test_sample_draws_rounds_into_the_assessments_one_store(assessed: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli, ["labels", "sample", str(assessed), "--budget", "12", "--seed", "5"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("round 1: active, criterion correct, scope original, checks ")
    units, labelled = _in_scope(assessed), _suite_labelled(assessed)
    pool = {s: sum(m == s for _, m in units - labelled) for s in SYSTEMS}
    known = {s: sum(m == s for _, m in labelled) for s in SYSTEMS}
    assert min(pool.values()) > 20 and min(known.values()) > 20
    for system in SYSTEMS:
        expected = f"/ {pool[system]} in pool ({known[system]} labelled before)"
        assert any(line.startswith(f"  {system}: ") and expected in line for line in lines), (
            result.stdout
        )
    # an active round foresees its best saving per system from the calibrated P(PASS) (≥ 1: the
    # floor's mixture never does worse than uniform)
    foreseen = re.findall(r"at best (\d+\.\d\d)× fewer labels than uniform", result.stdout)
    assert len(foreseen) == len(SYSTEMS) and all(float(x) >= 1.0 for x in foreseen), result.stdout
    assert not (assessed / "run" / "labels.sqlite").exists()
    store = Store(f"sqlite:///{assessed / 'labels.sqlite'}")
    (first,) = load_rounds(store)
    assert (first.design, first.criterion, first.scope, first.floor) == (
        "active",
        "correct",
        "original",
        0.5,
    )
    assert first.extra == {"budget": 12, "seed": 5}
    assert first.pool_sizes == pool
    assert Counter(d.model for d in first.draws for _ in range(d.times)) == dict.fromkeys(
        SYSTEMS, 4
    )
    assert first.known == frozenset(labelled)
    assert not {(d.case_id, d.model) for d in first.draws} & labelled
    assert all(0.5 / pool[d.model] <= d.probability < 1 for d in first.draws)
    assert {(d.case_id, d.model) for d in first.draws} <= units

    result = runner.invoke(
        cli,
        ["labels", "sample", str(assessed / "run"), "--budget", "7", "--design", "uniform"],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("round 2: uniform")
    assert "at best" not in result.stdout
    second = load_rounds(store)[1]
    assert sorted(Counter(d.model for d in second.draws).values()) == [2, 2, 3]
    assert {d.probability for d in second.draws} == {1 / pool[s] for s in SYSTEMS}
    assert second.extra["seed"] is not None  # a fresh seed, recorded

    # add-annotator on the assessment or its run: the same store the app and sample use
    for target, name in ((assessed, "ada"), (assessed / "run", "bob")):
        result = runner.invoke(cli, ["labels", "add-annotator", str(target), name])
        assert result.exit_code == 0, result.output
    assert [a["name"] for a in store.annotators()] == ["ada", "bob"]
    assert not (assessed / "run" / "labels.sqlite").exists()
    store.close()


def test_the_app_serves_round_draws_first_and_only_cases_a_labelled_check_reads(
    assessed: Path,
) -> None:
    runner = CliRunner()
    if not load_rounds(Store(f"sqlite:///{assessed / 'labels.sqlite'}")):
        test_sample_draws_rounds_into_the_assessments_one_store(assessed)
    store = Store(f"sqlite:///{assessed / 'labels.sqlite'}")
    project = LabelProject(assessed / "run", store, overlap=1)
    assert store.progress(1)["items"] == len(_in_scope(assessed))  # perturbed ones: unread
    rounds = load_rounds(store)
    drawn = list(dict.fromkeys((d.case_id, d.model) for r in rounds for d in r.draws))
    annotator = store.annotator_for_token(store.reset_token("ada"))
    assert annotator is not None
    served = []
    for _ in range(len(drawn) + 3):
        item_id = store.next_item(annotator["id"], overlap=1)
        assert item_id is not None
        item = store.item(item_id)
        assert item is not None
        served.append((item["case_id"], item["model"]))
        store.submit(item_id, annotator["id"], {"correct": 1})
    assert served[: len(drawn)] == drawn
    assert project.round_of[drawn[0]] == "round 1 · active"
    assert served[len(drawn)] not in project.round_of  # then REVIEW and the rest: no round

    evidence = evidence_from_store(assessed / "run", {"correct"})
    records = evidence.records["correct"]
    by_round = Counter((r.design, r.round) for r in records.values())
    assert by_round[("unknown", None)] == 3
    assert sum(n for (design, _), n in by_round.items() if design != "unknown") == len(drawn)
    first = rounds[0]
    draw = first.draws[0]
    record = records[(draw.case_id, draw.model)]
    assert (record.design, record.round, record.probability) == ("active", 1, draw.probability)

    plan = parse_plan(
        PLAN.format(suite=demo_suite_path(), source='["suite", "store"]'),
    )
    merged = label_evidence(plan, [], assessed / "run")
    assert [r.number for r in merged.rounds] == [1, 2]

    out = assessed / "labels.csv"
    result = runner.invoke(cli, ["labels", "export", str(assessed), "--out", str(out)])
    assert result.exit_code == 0, result.output
    with out.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {"design", "round", "probability"} <= set(rows[0])
    row = next(r for r in rows if (r["id"], r["model"]) == (draw.case_id, draw.model))
    assert (row["design"], row["round"], float(row["probability"])) == (
        "active",
        "1",
        pytest.approx(draw.probability),
    )
    assert sum(r["design"] == "unknown" for r in rows) == 3
    store.close()

    again = assess(plan, assessed)  # the loop closes: assess reads the store's labels
    assert again.verdicts["correct answers"].table["source"].eq("human").sum() >= len(drawn)


def test_sample_refuses_what_it_cannot_draw_for(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "no-store"
    _assess(out, source='"suite"')

    def refused(*args: str) -> str:
        result = runner.invoke(cli, ["labels", "sample", *args, "--budget", "5"])
        assert isinstance(result.exception, InvalidInputError), result.output
        return str(result.exception)

    assert "does not read the labeling app's store" in refused(str(out))
    out = tmp_path / "with-store"
    _assess(out)
    assert "reads no human label" in refused(str(out), "--check", "overlap rule")
    assert "no check named 'x'" in refused(str(out), "--check", "x")
    assert "not an assessment" in refused(str(tmp_path))


def test_labels_survive_a_reassessment_that_replaces_the_run(tmp_path: Path) -> None:
    """A plan whose evaluators change makes assess replace ASSESSMENT/run: the store is beside it."""
    runner = CliRunner()
    out = tmp_path / "assessment"
    plan_path = _assess(out)
    result = runner.invoke(cli, ["labels", "sample", str(out), "--budget", "3", "--seed", "1"])
    assert result.exit_code == 0, result.output
    store = Store(f"sqlite:///{out / 'labels.sqlite'}")
    LabelProject(out / "run", store, overlap=1)
    ada = store.annotator_for_token(store.add_annotator("ada"))
    assert ada is not None
    item = store.next_item(ada["id"], overlap=1)
    assert item is not None
    store.submit(item, ada["id"], {"correct": 0})
    store.close()
    text = plan_path.read_text(encoding="utf-8").replace('["token_f1"]', '["token_f1", "rouge"]', 1)
    plan_path.write_text(text, encoding="utf-8")
    result = runner.invoke(cli, ["assess", str(plan_path), "--out", str(out)])
    assert result.exit_code in (0, 1, 3), result.output
    assert "rouge" in (out / "run" / "results.csv").read_text(encoding="utf-8")  # a new run
    evidence = evidence_from_store(out / "run", {"correct"})
    assert len(evidence.values("correct")) == 1 and [r.number for r in evidence.rounds] == [1]


def test_a_store_left_in_the_run_is_used_and_two_stores_are_refused(
    assessed: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from assay.label.assessment import label_store_dir

    home = tmp_path / "old"
    (home / "run").mkdir(parents=True)
    (home / "verdict.json").write_text("{}", encoding="utf-8")
    (home / "run" / "labels.sqlite").write_bytes(b"")
    assert label_store_dir(home) == home / "run"
    assert "left by an older assay" in caplog.text
    (home / "labels.sqlite").write_bytes(b"")
    with pytest.raises(InvalidInputError, match="holds two label stores"):
        label_store_dir(home / "run")


def test_one_round_per_criterion_and_scope(tmp_path: Path) -> None:
    out = tmp_path / "two-scopes"
    plan_path = _assess(out)
    text = plan_path.read_text(encoding="utf-8") + (
        '[[check]]\ndimension = "robustness"\nname = "correct everywhere"\nlabel = "correct"\n'
        'metrics = ["token_f1"]\nscope = "all"\nmin_pass_rate = 0.7\n'
    )
    plan_path.write_text(text, encoding="utf-8")
    assert CliRunner().invoke(cli, ["assess", str(plan_path), "--out", str(out)]).exit_code != 2
    result = CliRunner().invoke(cli, ["labels", "sample", str(out), "--budget", "6"])
    assert result.exit_code == 0, result.output
    heads = [line for line in result.stdout.splitlines() if line.startswith("round")]
    assert [h.split(",")[2].strip() for h in heads] == ["scope original", "scope all"]
    assert heads[0].startswith("round 1: ") and heads[1].startswith("round 2: ")
    result = CliRunner().invoke(
        cli, ["labels", "sample", str(out), "--budget", "6", "--check", "correct everywhere"]
    )
    assert result.stdout.startswith(
        "round 3: active, criterion correct, scope all, checks correct everywhere"
    )


def test_the_app_on_a_fresh_assessment_asks_what_its_labelled_checks_read(tmp_path: Path) -> None:
    out = tmp_path / "fresh"
    _assess(out)
    store = Store(f"sqlite:///{out / 'labels.sqlite'}")
    project = LabelProject(out / "run", store)
    assert [c.spec() for c in project.criteria] == ["correct"]  # not the default 'grounded'
    assert store.progress(1)["items"] == len(_in_scope(out))
    store.close()
