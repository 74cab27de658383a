"""Sanity checks of a judge's output, per judge evaluator and model, as problems.

A small or misconfigured judge can return the same verdict for every case, fail to produce a
parseable reply for a third of them, or reward long answers; its mean then looks precise ("pass,
CI [1, 1]") while measuring nothing. These checks read the run's result rows (streamed, a few
numbers per case) and report:

* ``judge_constant_output`` (high): every parsed case got the same score (at least
  :data:`MIN_CASES` cases);
* ``judge_parse_failures`` (medium above :data:`PARSE_WARN`, high above :data:`PARSE_HIGH`): the
  share of judged cases whose reply could not be parsed;
* ``judge_verbosity_bias`` (medium): the score follows the answer's length (Spearman
  |rho| >= :data:`VERBOSITY_RHO`, p < 0.01, at least :data:`MIN_CASES_VERBOSITY` cases), a
  bias known from LLM-as-judge studies; legitimate when longer answers really are more complete,
  so human labels decide.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from assay.rundir.records import Finding, ResultRow

MIN_CASES = 10
MIN_CASES_VERBOSITY = 20
PARSE_WARN = 0.05
PARSE_HIGH = 0.20
VERBOSITY_RHO = 0.5


@dataclass
class _Tally:
    values: list[float] = field(default_factory=list)
    words: list[int] = field(default_factory=list)
    errors: int = 0
    parse_failures: int = 0


def _parse_failure(details: Any) -> bool:
    if isinstance(details, str):
        try:
            details = json.loads(details)
        except ValueError:
            return False
    return isinstance(details, dict) and details.get("parse_failure") is True


class JudgeOutputs:
    """Collects the primary-metric rows of judge evaluators; :meth:`problems` checks them.

    Args:
        judge_evaluators: names of the run's judge evaluators.
        answer_words: words in each case's answer, by case id (for the verbosity check).

    Example:
        >>> outputs = JudgeOutputs({"judge_qa"}, {str(i): i for i in range(12)})
        >>> outputs.add([{"case_id": str(i), "model": "m", "evaluator": "judge_qa",
        ...               "metric": "qa", "primary": True, "status": "ok", "value": 1.0,
        ...               "details": "{}"} for i in range(12)])
        >>> [p["kind"] for p in outputs.problems()]
        ['judge_constant_output']
    """

    def __init__(self, judge_evaluators: set[str], answer_words: Mapping[str, int]) -> None:
        self.judge_evaluators = judge_evaluators
        self.answer_words = answer_words
        self.tallies: dict[tuple[str, str, str], _Tally] = {}

    def add(self, rows: list[ResultRow]) -> None:
        """Take a batch of result rows (other evaluators and metrics are ignored)."""
        for row in rows:
            if not row["primary"] or row["evaluator"] not in self.judge_evaluators:
                continue
            key = (row["evaluator"], row["model"], row["metric"])
            tally = self.tallies.setdefault(key, _Tally())
            if row["status"] == "ok" and row["value"] is not None:
                tally.values.append(float(row["value"]))
                tally.words.append(self.answer_words.get(row["case_id"], 0))
            elif row["status"] == "error":
                tally.errors += 1
                tally.parse_failures += _parse_failure(row.get("details"))

    def problems(self) -> list[Finding]:
        """The problems found, per (evaluator, model, metric)."""
        out: list[dict[str, Any]] = []
        for (evaluator, model, metric), tally in self.tallies.items():
            where = {"model": model, "evaluator": evaluator, "metric": metric}
            who = f"Model {model or '(unnamed)'}: judge evaluator {evaluator}"
            out += _parse_problem(who, where, tally)
            constant = _constant_problem(who, where, tally)
            out += constant
            if not constant:
                out += _verbosity_problem(who, where, tally)
        return cast(list[Finding], out)  # each has kind, severity, message and evidence


def _parse_problem(who: str, where: dict[str, Any], tally: _Tally) -> list[dict[str, Any]]:
    judged = len(tally.values) + tally.errors
    if not judged or tally.parse_failures / judged <= PARSE_WARN:
        return []
    rate = tally.parse_failures / judged
    return [{
        "kind": "judge_parse_failures",
        "severity": "high" if rate > PARSE_HIGH else "medium",
        **where,
        "message": (f"{who}: {rate:.0%} of the judge's replies could not be parsed "
                    f"({tally.parse_failures} of {judged} cases); the score rests on the other "
                    f"{len(tally.values)} cases only, which may not be a random subset. Use a "
                    "stronger judge or structured output (structured='json_schema')."),
        "evidence": {"parse_failures": tally.parse_failures, "judged": judged,
                     "rate": round(rate, 4)},
    }]


def _constant_problem(who: str, where: dict[str, Any], tally: _Tally) -> list[dict[str, Any]]:
    if len(tally.values) < MIN_CASES or len(set(tally.values)) > 1:
        return []
    value = tally.values[0]
    return [{
        "kind": "judge_constant_output",
        "severity": "high",
        **where,
        "message": (f"{who}: every one of the {len(tally.values)} parsed cases scored "
                    f"{value:.3g}. A judge that gives one verdict to everything does not "
                    "discriminate; its mean and interval measure nothing until human labels "
                    "show it agrees with people."),
        "evidence": {"n_ok": len(tally.values), "value": value},
    }]


def _verbosity_problem(who: str, where: dict[str, Any], tally: _Tally) -> list[dict[str, Any]]:
    if len(tally.values) < MIN_CASES_VERBOSITY or len(set(tally.words)) < 3:
        return []
    from scipy.stats import spearmanr

    rho, p_value = spearmanr(tally.words, tally.values)
    if not (math.isfinite(rho) and abs(rho) >= VERBOSITY_RHO and p_value < 0.01):
        return []
    direction = "longer" if rho > 0 else "shorter"
    return [{
        "kind": "judge_verbosity_bias",
        "severity": "medium",
        **where,
        "message": (f"{who}: scores follow the answer's length (Spearman rho {rho:.2f}, "
                    f"p {p_value:.2g}, {len(tally.values)} cases): {direction} answers score "
                    "higher. Possible verbosity bias; check against human labels."),
        "evidence": {"rho": round(float(rho), 4), "p_value": float(p_value),
                     "n_ok": len(tally.values)},
    }]
