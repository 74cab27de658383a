"""What users run, end to end: ``assay evaluate`` against a plain script and against ragas.

Run: ``python benchmarks/bench_evaluate.py [N_ROWS] [--rounds R] [--scaling 1000,10000,100000]``
(default 10,000 rows, 3 rounds; the median round is reported). Writes
benchmarks/results/evaluate.md.

Contenders, each a fresh process per round (wall and CPU of the child, peak RSS), interleaved
round by round so that load from other processes hits all alike:

* ``assay evaluate SUITE -e rouge,bleu,exact_match,token_f1 --out DIR`` (the whole run directory:
  results, leaderboard, analysis and reports);
* a plain pandas + rouge-score + sacrebleu script computing the same values (ROUGE-1/2/L/Lsum
  precision, recall and F with stemming, sentence BLEU-1..4, SQuAD exact match and token F1) and
  writing a CSV; its ROUGE and BLEU values are checked equal to assay's;
* a *tight* plain script: one loop over the JSONL rows computing rouge-score's ROUGE-1/2/L/Lsum
  (stemmed, as assay), one sacrebleu ``sentence_score`` (BLEU-4) and SQuAD exact match and token
  F1 (the official normalisation), then pandas to CSV — what a user who writes it well would run;
  it computes fewer figures than assay (no BLEU-1..3, no corpus BLEU, no intervals, analysis or
  reports); its ROUGE and BLEU-4 values are checked equal to assay's;
* ragas ``evaluate()`` with its non-LLM metrics (ROUGE, BLEU, exact match, string similarity),
  when ragas is importable by this interpreter or by the one named in ``RAGAS_PYTHON`` (ragas pins
  packages that conflict with assay's, so it usually lives in its own virtual environment);
  skipped with the reason otherwise.

Every round uses freshly generated, distinct rows (a different seed per round and contender), so
no cache of any contender can carry work over; the number of distinct rows is stated.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from lexical_data import answer_pairs  # noqa: E402
from results_file import publish  # noqa: E402
from rounds import machine_note  # noqa: E402

EVALUATORS = "rouge,bleu,exact_match,token_f1"

PLAIN_SCRIPT = r"""
import collections, re, string, sys
import pandas as pd
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU

suite, out = sys.argv[1], sys.argv[2]
frame = pd.read_json(suite, lines=True)
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
bleus = [BLEU(max_ngram_order=n, effective_order=True) for n in range(1, 5)]

def normalize(text):
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())

def f1(pred, gold):
    p, g = normalize(pred).split(), normalize(gold).split()
    common = sum((collections.Counter(p) & collections.Counter(g)).values())
    if not p or not g:
        return float(p == g)
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)

rows = []
for case_id, expected, actual in zip(frame["id"], frame["expected_answer"], frame["actual_answer"]):
    row = {"id": case_id}
    for kind, s in scorer.score(expected, actual).items():
        row[f"{kind}_precision"], row[f"{kind}_recall"], row[f"{kind}_f1"] = s
    for n, bleu in enumerate(bleus, 1):
        row[f"bleu{n}"] = bleu.sentence_score(actual, [expected]).score / 100
    row["exact_match"] = float(normalize(actual) == normalize(expected))
    row["token_f1"] = f1(actual, expected)
    rows.append(row)
pd.DataFrame(rows).to_csv(out, index=False)
"""

TIGHT_SCRIPT = r"""
import collections, json, re, string, sys
import pandas as pd
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU

suite, out = sys.argv[1], sys.argv[2]
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
bleu = BLEU(effective_order=True)
PUNCT = set(string.punctuation)
ARTICLES = re.compile(r"\b(a|an|the)\b")

def normalize(text):  # SQuAD v1.1's official normalisation
    text = "".join(ch for ch in text.lower() if ch not in PUNCT)
    return " ".join(ARTICLES.sub(" ", text).split())

rows = []
with open(suite, encoding="utf-8") as handle:
    for line in handle:
        case = json.loads(line)
        expected, actual = case["expected_answer"], case["actual_answer"]
        row = {"id": case["id"]}
        for kind, s in scorer.score(expected, actual).items():
            row[f"{kind}_precision"], row[f"{kind}_recall"], row[f"{kind}_f1"] = s
        row["bleu4"] = bleu.sentence_score(actual, [expected]).score / 100
        p, g = normalize(actual).split(), normalize(expected).split()
        row["exact_match"] = float(p == g)
        common = sum((collections.Counter(p) & collections.Counter(g)).values())
        if not p or not g:
            row["token_f1"] = float(p == g)
        else:
            row["token_f1"] = 0.0 if common == 0 else 2 * common / (len(p) + len(g))
        rows.append(row)
pd.DataFrame(rows).to_csv(out, index=False)
"""

RAGAS_SCRIPT = r"""
import sys, warnings
warnings.filterwarnings("ignore")
import pandas as pd
from ragas import EvaluationDataset, evaluate
from ragas.metrics import BleuScore, ExactMatch, NonLLMStringSimilarity, RougeScore

frame = pd.read_json(sys.argv[1], lines=True)
dataset = EvaluationDataset.from_list(
    [{"user_input": q, "response": a, "reference": e}
     for q, a, e in zip(frame["question"], frame["actual_answer"], frame["expected_answer"])]
)
metrics = [RougeScore(rouge_type="rouge1"), RougeScore(rouge_type="rouge2"),
           RougeScore(rouge_type="rougeL"), BleuScore(), ExactMatch(), NonLLMStringSimilarity()]
result = evaluate(dataset, metrics=metrics, show_progress=False)
result.to_pandas().to_csv(sys.argv[2], index=False)
"""


def write_suite(path: Path, n: int, seed: int) -> int:
    """A JSONL suite of ``n`` rows with distinct ids and questions; returns distinct pairs."""
    pairs = answer_pairs(n, seed=seed)
    with path.open("w", encoding="utf-8") as handle:
        for i, (expected, actual) in enumerate(pairs):
            record = {
                "id": f"s{seed}-q{i}",
                "question": f"Question {i} of round {seed}?",
                "expected_answer": expected,
                "actual_answer": actual,
                "model": "system",
                "topic": f"topic-{i % 12}",
            }
            handle.write(json.dumps(record) + "\n")
    return len(set(pairs))


def measure(command: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    """Run ``command`` in a child process: wall and CPU seconds, peak RSS (MB)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{command[:3]} failed: {stderr[-2000:]}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
    }


def ragas_python() -> tuple[str | None, str]:
    """The interpreter that can import ragas, or None with the reason."""
    candidates = [sys.executable] + (
        [os.environ["RAGAS_PYTHON"]] if "RAGAS_PYTHON" in os.environ else []
    )
    for python in candidates:
        ok = subprocess.run([python, "-c", "import ragas"], capture_output=True).returncode == 0
        if ok:
            version = subprocess.run(
                [python, "-c", "import ragas; print(ragas.__version__)"],
                capture_output=True, text=True,
            ).stdout.strip()  # fmt: skip
            return python, version
    return None, (
        "ragas is not importable here nor by RAGAS_PYTHON (it pins openai and rich versions "
        "that conflict with assay's: python -m venv V && V/bin/pip install ragas==0.4.3 "
        "'langchain-community<0.4' rouge-score sacrebleu rapidfuzz, then RAGAS_PYTHON=V/bin/python)"
    )


def directory_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def assay_command(suite: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "assay.cli.main", "evaluate", str(suite), "-e", EVALUATORS,
            "--out", str(out), "--overwrite"]  # fmt: skip


def report_share(run: Path, wall: float) -> float:
    """Share of the run's wall time (the whole process) spent in analysis and reports, from the
    manifest's per-stage timings."""
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    stages = manifest["stages_s"]
    return (stages["analysis"] + stages.get("reports", 0.0)) / wall


def check_same_values(run: Path, plain_csv: Path) -> bool:
    """assay's ROUGE and BLEU values equal the plain script's (to 1e-12)."""
    import pandas as pd

    ours = pd.read_parquet(run / "results.parquet", columns=["case_id", "metric", "value"])
    wide = ours.pivot(index="case_id", columns="metric", values="value")
    theirs = pd.read_csv(plain_csv).set_index("id")
    columns = [c for c in theirs.columns if c.startswith(("rouge", "bleu"))]
    joined = wide.loc[theirs.index, columns]
    return bool(((joined - theirs[columns]).abs().max() < 1e-12).all())


def compare(n: int, rounds: int, tmp: Path) -> tuple[list[list[str]], list[str]]:
    ragas, ragas_note = ragas_python()
    times: dict[str, list[dict[str, float]]] = {"assay": [], "tight": [], "plain": [], "ragas": []}
    notes: list[str] = []
    same = True
    distinct = 0
    shares = []
    for r in range(rounds):
        for name in ("assay", "tight", "plain", "ragas"):
            if name == "ragas" and ragas is None:
                continue
            seed = 1000 * (r + 1) + len(name)
            suite = tmp / f"{name}-{r}.jsonl"
            distinct = write_suite(suite, n, seed)
            out = tmp / f"{name}-{r}"
            if name == "assay":
                result = measure(assay_command(suite, out))
                shares.append(report_share(out, result["wall"]))
                # the same rows through the plain script, to check the values (not timed)
                subprocess.run(
                    [sys.executable, "-c", PLAIN_SCRIPT, str(suite), str(tmp / "check.csv")],
                    check=True,
                )
                same = same and check_same_values(out, tmp / "check.csv")
                subprocess.run(
                    [sys.executable, "-c", TIGHT_SCRIPT, str(suite), str(tmp / "tight.csv")],
                    check=True,
                )
                same = same and check_same_values(out, tmp / "tight.csv")
                shutil.rmtree(out)
            elif name in ("tight", "plain"):
                script = TIGHT_SCRIPT if name == "tight" else PLAIN_SCRIPT
                result = measure([sys.executable, "-c", script, str(suite), str(out) + ".csv"])
            else:
                assert ragas is not None
                result = measure([ragas, "-c", RAGAS_SCRIPT, str(suite), str(out) + ".csv"])
            times[name].append(result)
            print(f"round {r + 1} {name}: {result}", flush=True)
    # The median round of each contender by wall time (its CPU and RSS from that same round).
    best = {k: sorted(v, key=lambda x: x["wall"])[(len(v) - 1) // 2] for k, v in times.items() if v}
    labels = {
        "assay": f"`assay evaluate -e {EVALUATORS}` (whole run directory)",
        "tight": "tight plain script: one loop per row (rouge-score, one sacrebleu "
        "`sentence_score`, SQuAD EM/F1), pandas to CSV",
        "plain": "plain pandas + rouge-score + sacrebleu script writing a CSV (same values)",
        "ragas": f"ragas {ragas_note} `evaluate()` with its non-LLM metrics" if ragas else "",
    }
    rows = []
    for name, result in best.items():
        rows.append(
            [
                labels[name],
                f"{result['wall']:.1f}",
                f"{result['cpu']:.1f}",
                f"{result['rss_mb']:.0f}",
                f"{result['wall'] / best['assay']['wall']:.2f}×",
                f"{result['cpu'] / best['assay']['cpu']:.2f}×",
            ]
        )
    if ragas is None:
        notes.append(f"ragas skipped: {ragas_note}.")
    notes.append(
        f"{n:,} rows per contender and round ({distinct:,} distinct answer pairs; ids and "
        f"questions all distinct; fresh rows every round). assay's ROUGE and BLEU values equal "
        f"both plain scripts': {'yes' if same else 'NO'}. Share of assay's wall time in "
        f"analysis and reports: "
        f"{', '.join(f'{s:.0%}' for s in shares)}."
    )
    return rows, notes


def scaling(sizes: list[int], tmp: Path) -> list[list[str]]:
    rows = []
    for n in sizes:
        suite = tmp / f"scale-{n}.jsonl"
        distinct = write_suite(suite, n, seed=7 + n)
        out = tmp / f"scale-{n}"
        result = measure(assay_command(suite, out))
        share = report_share(out, result["wall"])
        csv_mb = (out / "results.csv").stat().st_size / 1e6 if (out / "results.csv").exists() else 0
        suite_mb = suite.stat().st_size / 1e6
        rows.append(
            [
                f"{n:,}",
                f"{distinct:,}",
                f"{result['wall']:.1f}",
                f"{result['cpu']:.1f}",
                f"{result['rss_mb']:.0f}",
                f"{directory_mb(out):.1f}",
                f"{(out / 'suite.parquet').stat().st_size / 1e6:.1f} (of {suite_mb:.1f})",
                f"{csv_mb:.1f}",
                f"{share:.0%}",
            ]
        )
        print(f"scaling {n}: {rows[-1]}", flush=True)
        shutil.rmtree(out)
        suite.unlink()
    return rows


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)] + [
        "| " + " | ".join(r) + " |" for r in rows
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scaling", default="", help="comma-separated sizes, e.g. 1000,10000")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="assay-bench-evaluate-") as name:
        tmp = Path(name)
        rows, notes = compare(args.n, args.rounds, tmp)
        sizes = [int(s) for s in args.scaling.split(",") if s]
        scale = scaling(sizes, tmp) if sizes else []
    load_after = os.getloadavg()
    command = f"python benchmarks/bench_evaluate.py {args.n} --rounds {args.rounds}" + (
        f" --scaling {args.scaling}" if sizes else ""
    )
    lines = [
        "# End to end: `assay evaluate` against plain scripts and ragas",
        "",
        f"Generated by `{command}`. Python {platform.python_version()}; "
        f"{machine_note(load_before[0], load_after[0])} (the benchmark's own process counts "
        "in the load after; wall times rise with other work, CPU seconds are the steadier "
        "figure). Each contender runs in a "
        f"fresh process; the median of {args.rounds} interleaved rounds by wall time (lower "
        "median for an even count), its CPU and RSS from the same round.",
        "",
        *table(
            ["contender", "wall (s)", "CPU (s)", "peak RSS (MB)", "wall / assay", "CPU / assay"],
            rows,
        ),
        "",
        *notes,
    ]
    if scale:
        lines += [
            "",
            "## Scaling (`assay evaluate`, same evaluators, one run each)",
            "",
            "Distinct rows at every size (ids, questions and answer pairs generated per size). "
            "Peak RSS: the child process's maximum resident set. *Analysis + reports*: their "
            "seconds in the run's manifest (`stages_s`) over the process's wall time.",
            "",
            *table(
                [
                    "cases",
                    "distinct answer pairs",
                    "wall (s)",
                    "CPU (s)",
                    "peak RSS (MB)",
                    "run directory (MB)",
                    "suite copy (MB, of the JSONL)",
                    "results.csv (MB)",
                    "analysis + reports",
                ],
                scale,
            ),
        ]
    publish(HERE / "results" / "evaluate.md", lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
