"""The result rows of a fixed sample, as the engine's scoring loop produced them before the
columnar result batches (design note 0036): ``tests/golden/result_rows.jsonl.gz``.

The golden file was written by ``python tests/engine/golden_rows.py`` with the per-case
implementation (commit 1fd937b); ``test_golden_rows.py`` checks that every row, value, reason,
explanation and detail is still identical. Do not regenerate it to make a failing test pass.

Regenerated once, for an intended change of the facts rule (session 14, design note 0053):
lower-case "may" (the modal verb) is no longer the month of May, so 8 demo answers have one
supported date fact fewer in ``unsupported_facts`` (40 rows: shares recomputed, a numbers share
with no figure left skipped, explanations counting one fact fewer); every other row was
checked identical before regenerating.

Regenerated a second time, for the ordinal suffix (session 15): "75th" is the figure 75, no
longer also a word "th", so demo answer q19 (faithful) has one supported fact fewer (5 rows of
``unsupported_facts``: the facts share and the explanation's count); every other row was
checked identical before regenerating.

Token F1 and text matching took the seed documents' formulas as their defaults (issue 47); the
golden rows keep checking the earlier forms, now named parameters (``EVALUATORS`` gives them).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

from assay.data.case import TestCase
from assay.data.suite import read_suite
from assay.engine.executors import LocalExecutor
from assay.engine.score import resolve_evaluators, score
from assay.evaluators.base import Evaluator

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "result_rows.jsonl.gz"
DEMO = Path(__file__).resolve().parents[2] / "src" / "assay" / "demo" / "suite.jsonl"

#: Evaluators without an optional extra, with parameters that take other code paths.
EVALUATORS: list[tuple[str, dict[str, Any]]] = [
    ("abstention", {}),
    ("agent_sanity", {}),
    ("attack_success", {}),
    ("bleu", {}),
    ("classification", {}),
    ("conversation", {}),
    ("encoding_guardrail", {}),
    ("exact_match", {}),
    ("json_schema", {}),
    ("lexical_groundedness", {}),
    ("looping", {}),
    ("pii_leakage", {}),
    ("retrieval", {}),
    ("rouge", {}),
    ("secrets_leakage", {}),
    ("self_consistency", {}),
    ("text_matching", {"scope": "answer"}),  # the earlier default
    ("text_statistics", {}),
    ("token_f1", {"normalization": "squad", "counting": "multiset"}),  # the earlier default
    ("trajectory", {}),
    ("unsupported_facts", {}),
]
#: Other parameters of the evaluators this work made columnar, each in a run of its own.
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("bleu", {"lowercase": True, "smooth_method": "floor"}),
    ("bleu", {"ngram_weights": "individual", "smooth_method": "add-k", "smooth_value": 2}),
    ("bleu", {"smooth_method": "none"}),
    ("retrieval", {"k": 3, "precision": "k", "report_ks": (1, 2, 50)}),
    ("retrieval", {"id_match": "document"}),
    ("retrieval", {"id_match": "text"}),
    ("rouge", {"use_stemmer": False, "beta": 1.2}),
    ("rouge", {"tokenizer": "unicode"}),
    ("rouge", {"tokenizer": "rouge_score"}),
]


def edge_cases() -> list[TestCase]:
    """Cases the demo lacks: several lines, several references, other scripts, empty and
    missing texts, repeated / unjudged / misaligned retrieval ids."""
    texts = [
        ("The fee is 4.50 euros.\nIt is waived above 1,200 euros.",
         "The fee is waived above 1,200 euros.\nOtherwise it is 4.50 euros a month."),
        ("Плата 12 евро в месяц.", "Плата составляет 12 евро."),
        ("手续费是十二欧元", "手续费十二欧元"),
        ("", "Something"),
        ("Something", ""),
        ("a a a a b b", "a b a b a b a"),
        ("It's 3.5%-ish, naïve café & co. <b>bold</b> 1,000-2,000", "3.5 % ish; naive cafe & co."),
        ("   ", "..."),
    ]
    cases = [
        TestCase(id=f"edge{i}", model=f"m{i % 2}", expected_answer=e, actual_answer=a)
        for i, (e, a) in enumerate(texts)
    ]
    cases.append(TestCase(id="multi", model="m0", actual_answer="The fee is 12 euros.",
                          expected_answer=["It costs 12 euros.", "The fee is 12 euros a month."]))
    cases.append(TestCase(id="no-answer", model="m1", expected_answer="x"))
    cases += [
        TestCase(id="dup", model="m0", context_ids=["a", "b", "a", "c", "b", "d"],
                 relevant_ids={"a": 1, "d": 3, "z": 2}),
        TestCase(id="unjudged", model="m0", context_ids=["a"], relevant_ids={"a": 0}),
        TestCase(id="misaligned", model="m1", context_ids=["a", "b"], retrieved_context=["x"],
                 relevant_ids={"a": 1}),
        TestCase(id="miss", model="m1", context_ids=["q", "r"], relevant_ids={"s": 1}),
        TestCase(id="docs", model="m1", context_ids=["faq::3", "stdtypes::0", "faq::1"],
                 relevant_ids={"stdtypes.md#2": 1, "stdtypes.md#5": 2, "faq.md#0": 1}),
        TestCase(id="texts", model="m0", retrieved_context=["The fee is 12 euros.", "Other."],
                 relevant_context=["fee is 12 euros", "nothing"]),
    ]
    return cases


def sample() -> list[TestCase]:
    """The fixed sample: every third case of the demo suite and :func:`edge_cases`."""
    return list(read_suite(DEMO))[::3] + edge_cases()


def rows_of(evaluators: list[Evaluator], cases: list[TestCase]) -> list[dict[str, Any]]:
    """Result rows of ``cases`` through the engine's scoring loop (batches of 64)."""
    rows: list[dict[str, Any]] = []
    scored = score([cases], evaluators, n_cases=len(cases), thresholds={"bleu1": 0.5},
                   sinks=[rows.extend], executor=LocalExecutor(), batch_size=64)
    rows.append({"corpus": {f"{m}|{k}": v for (m, k), v in sorted(scored.corpus_values.items())}})
    return rows


def current_rows() -> list[dict[str, Any]]:
    """The rows the current code gives for the fixed sample, every configuration in turn."""
    cases = sample()
    params = {name: given for name, given in EVALUATORS if given}
    out = rows_of(resolve_evaluators([name for name, _ in EVALUATORS], params), cases)
    for name, params in VARIANTS:
        out += rows_of(resolve_evaluators([name], {name: params}), cases)
    return out


def canonical(rows: list[dict[str, Any]]) -> list[str]:
    """One JSON text per row (floats as their repr, so equality is bit-for-bit)."""
    return [json.dumps(row, sort_keys=True, ensure_ascii=False) for row in rows]


def read_golden() -> list[str]:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


if __name__ == "__main__":
    lines = canonical(current_rows())
    GOLDEN.parent.mkdir(exist_ok=True)
    with gzip.GzipFile(GOLDEN, "wb", mtime=0) as raw:
        raw.write(("\n".join(lines) + "\n").encode("utf-8"))
    print(f"wrote {len(lines):,} rows to {GOLDEN}", file=sys.stderr)
