"""Describe the bundled banking demo: write ``benchmarks/results/demo.md`` (never typed by hand).

Per simulated model, over the unperturbed cases: answer length, SQuAD token F1 and exact match
against the expected answers, retrieval recall of the grade-2 evidence and hit@1, answers that
contain personal data (email, IBAN, phone or card number), the human labels' means, latency and
cost; and how many perturbed copies changed their answer. Run::

    python scripts/demo_stats.py
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from assay.data.case import TestCase
from assay.data.suite import read_suite
from assay.demo import demo_chunks, demo_suite_path
from assay.evaluators.qa import token_f1
from assay.text import normalize_squad, words

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "demo.md"
PII = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.]+|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,}"
    r"|\+\d{2,3}(?: ?\d{2,4}){3}|\b\d{4} \d{4} \d{4} \d{4}\b"
)


def _mean(cases: Sequence[TestCase], value: Callable[[TestCase], float | None]) -> str:
    values = [v for v in (value(c) for c in cases) if v is not None]
    return f"{statistics.mean(values):.3g}" if values else "—"


def _recall(case: TestCase) -> float | None:
    if not case.relevant_ids:
        return None
    needed = [cid for cid, grade in case.relevant_ids.items() if grade == 2.0]
    return sum(cid in (case.context_ids or []) for cid in needed) / len(needed)


def _hit1(case: TestCase) -> float | None:
    if not case.relevant_ids or not case.context_ids:
        return None
    return float(case.context_ids[0] in case.relevant_ids)


def _label(name: str) -> Callable[[TestCase], float | None]:
    return lambda case: float(case.labels[name]) if name in case.labels else None


COLUMNS: list[tuple[str, Callable[[TestCase], float | None]]] = [
    ("answer words", lambda c: float(len(words(c.actual_answer)))),
    ("token F1", lambda c: token_f1(c.actual_answer or "", c.expected_answer or "")),
    (
        "exact match",
        lambda c: float(
            normalize_squad(c.actual_answer or "") == normalize_squad(c.expected_answer or "")
        ),
    ),
    ("evidence recall@k", _recall),
    ("hit@1", _hit1),
    ("PII leaks", lambda c: float(bool(PII.search(c.actual_answer or "")))),
    ("label correct", _label("correct")),
    ("label grounded", _label("grounded")),
    ("label quality (1-5)", _label("quality")),
    ("latency s", lambda c: c.latency_s),
    ("cost USD", lambda c: c.cost_usd),
]


def render() -> str:
    """The Markdown description of the demo."""
    suite = read_suite(demo_suite_path())
    dialogues = [c for c in suite if c.turns or c.trajectory]
    single = [c for c in suite if not (c.turns or c.trajectory)]
    originals = [c for c in single if c.perturbation is None]
    perturbed = [c for c in single if c.perturbation]
    by_key = {(c.id, c.model): c for c in single}
    parent = {(c.id, c.model): by_key[(c.parent_id or "", c.model)] for c in perturbed}
    n_conversations = len({c.id for c in dialogues if c.turns})
    n_trajectories = len({c.id for c in dialogues if c.trajectory})
    lines = [
        f"Banking demo: {len({c.id for c in originals})} questions × {len(suite.models)} models "
        f"+ {len(perturbed)} perturbed cases + {n_conversations} conversations and "
        f"{n_trajectories} agent trajectories × {len(suite.models)} models = {len(suite)} cases "
        f"over {len(demo_chunks())} chunks of 20 documents; "
        f"{sum(bool(c.labels) for c in suite)} cases carry human labels. "
        "Means over the unperturbed single-turn cases (PII leaks: share of answers).",
        "",
        "| model | " + " | ".join(name for name, _ in COLUMNS) + " | perturbed answers changed |",
        "|---|" + "---|" * (len(COLUMNS) + 1),
    ]
    for model in suite.models:
        mine = [c for c in originals if c.model == model]
        changed = [
            c
            for c in perturbed
            if c.model == model and c.actual_answer != parent[(c.id, model)].actual_answer
        ]
        cells = [_mean(mine, fn) for _, fn in COLUMNS]
        n_perturbed = sum(c.model == model for c in perturbed)
        lines.append(f"| {model} | " + " | ".join(cells) + f" | {len(changed)} / {n_perturbed} |")
    lines += ["", "Reproduce: `python scripts/demo_stats.py`."]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Write :data:`OUT`."""
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
