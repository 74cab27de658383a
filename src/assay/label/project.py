"""A labeling project: a run directory, its label store, criteria and queue.

The queue is rebuilt when the calibrator file appears or changes or a labelling round is drawn
(checked at most every few seconds), so a calibrator fitted or a round drawn while annotators work
re-orders the queue without a restart. For the run of an assessment only the cases a labelled
check reads (for one of the criteria asked) are offered.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError
from assay.fileio import sha256_file
from assay.label.assessment import load_scope
from assay.label.criteria import Criterion
from assay.label.queue import (
    build_queue,
    calibrator_path,
    choose_metric,
    item_table,
    uncertain_cases,
)
from assay.label.rounds import load_rounds, next_round_number
from assay.label.store import Store
from assay.report.case_texts import read_cases
from assay.report.drilldown import drilldown
from assay.rundir import CALIBRATED_FILE, SUITE_FILE, load_run
from assay.rundir.suite_copy import suite_copy

logger = logging.getLogger(__name__)
_TEXT_KEYS = ("sentence", "text", "claim", "chunk")
_SCORE_KEYS = ("score", "value", "probability", "entailment", "support", "similarity", "overlap")


class LabelProject:
    """Everything the web app needs about one run being labelled.

    Args:
        run_dir: a run directory written by ``assay evaluate`` (needs ``results.parquet``).
        store: the label store (migrated here).
        criteria: criteria to judge; None keeps those already recorded (default: the criteria
            the labelled checks of the run's assessment read, else grounded).
        overlap: labels wanted per case (each from a different annotator).
        metric: metric whose score bins stratify the queue (default: the calibrator's, else the
            most-measured primary metric).
        calibrator: calibrator file (default ``RUN_DIR/calibration/calibrator.json``).
        n_bins: score bins; seed: order inside strata.
        show_machine: show machine scores, verdicts, evidence and score bins beside the label
            form (review work). Off by default: labels that calibrate a metric must not be
            anchored on that metric.
    """

    def __init__(
        self,
        run_dir: str | Path,
        store: Store,
        criteria: list[Criterion] | None = None,
        *,
        overlap: int = 2,
        metric: str | None = None,
        calibrator: str | Path | None = None,
        n_bins: int = 5,
        seed: int = 0,
        show_machine: bool = False,
    ) -> None:
        self.run_dir = Path(run_dir)
        self.show_machine = show_machine
        run = load_run(self.run_dir)  # a complete, unaltered run only
        copy = suite_copy(self.run_dir)
        if copy is None:
            raise InvalidInputError(f"{self.run_dir}: no {SUITE_FILE} (re-run 'assay evaluate')")
        if overlap < 1:
            raise InvalidInputError(f"overlap must be at least 1; got {overlap}")
        self.store = store
        self.overlap = overlap
        self.metric_option = metric
        self.calibrator_option = calibrator
        self.n_bins = n_bins
        self.seed = seed
        self.results = run.results
        store.migrate()
        store.bind_run(sha256_file(copy))
        self.scope = load_scope(self.run_dir)
        if criteria is not None:
            store.set_criteria(criteria)
        elif not store.criteria():
            from assay.label.criteria import parse_criteria

            planned = [] if self.scope is None else self.scope.checks()
            # an assessment: the criteria its labelled checks read (binary), else grounded
            labels = ",".join(dict.fromkeys(str(c.label) for c in planned)) or None
            store.set_criteria(parse_criteria(labels))
        self.criteria = criteria or store.criteria()
        #: (case id, model) → the round that drew it, e.g. ``round 2 · active``
        self.round_of: dict[tuple[str, str], str] = {}
        entries = drilldown(self.results, read_cases(self.run_dir), max_cases=10**9)["entries"]
        self.entries = {(e["case_id"], e["model"]): e for e in entries}
        self.metric: str | None = None
        self.calibrated = False
        self._lock = threading.Lock()
        self._calibrator_stamp: Any = None
        #: seconds between checks of the calibrator file
        self.check_interval_s = 2.0
        self._checked = 0.0
        self.refresh_queue(force=True)

    def _stamp(self) -> tuple[Path | None, float | None, int]:
        path = calibrator_path(self.run_dir, self.calibrator_option)
        parquet = self.run_dir / CALIBRATED_FILE
        target = path if path is not None else (parquet if parquet.is_file() else None)
        rounds = next_round_number(self.store)
        try:
            return target, (target.stat().st_mtime if target is not None else None), rounds
        except OSError:
            return target, None, rounds

    def _in_scope(self, items: Any) -> Any:
        """The items a labelled check reads for one of the criteria (all without a plan)."""
        if self.scope is None:
            return items
        names = [c.name for c in self.criteria]
        keys = set(self.scope.units(self.scope.checks(names)))
        if not keys:
            logger.warning(
                "no labelled check of the assessment reads %s: every case is offered",
                ", ".join(names),
            )
            return items
        wanted = [(c, m) in keys for c, m in zip(items["case_id"], items["model"], strict=True)]
        logger.info("queue: %d of %d cases are read by a labelled check", sum(wanted), len(items))
        return items[wanted].reset_index(drop=True)

    def _round_draws(self) -> list[tuple[str, str]]:
        """The draws of every round for the criteria asked, round by round in serving order."""
        names = [c.name for c in self.criteria]
        rounds = load_rounds(self.store)
        other = sorted({r.criterion for r in rounds} - set(names))
        if other:
            logger.warning(
                "rounds were drawn for %s, which is not being labelled (--criteria): their cases "
                "are not served first",
                ", ".join(other),
            )
        first: list[tuple[str, str]] = []
        self.round_of = {}
        for drawn in (r for r in rounds if r.criterion in names):
            for draw in drawn.draws:
                key = (draw.case_id, draw.model)
                first.append(key)
                self.round_of.setdefault(key, f"round {drawn.number} · {drawn.design}")
        return first

    def refresh_queue(self, *, force: bool = False) -> bool:
        """Rebuild the queue if the calibrator changed (or ``force``); True when rebuilt."""
        with self._lock:
            if not force and time.monotonic() - self._checked < self.check_interval_s:
                return False
            self._checked = time.monotonic()
            stamp = self._stamp()
            if not force and stamp == self._calibrator_stamp:
                return False
            self._calibrator_stamp = stamp
            path = calibrator_path(self.run_dir, self.calibrator_option)
            try:
                flags, cal_metrics = uncertain_cases(self.results, self.run_dir, path)
            except InvalidInputError as exc:
                logger.warning("calibrator not used for the queue: %s", exc)
                flags, cal_metrics = {}, []
            preferred = [m for m in (self.metric_option, *cal_metrics) if m]
            self.metric = choose_metric(self.results, preferred)
            self.calibrated = bool(flags)
            queue = build_queue(
                self._in_scope(item_table(self.results, self.metric)),
                flags,
                n_bins=self.n_bins,
                seed=self.seed,
                first=self._round_draws(),
            )
            self.store.sync_items([e.row() for e in queue])
            logger.info(
                "queue: %d cases, %d drawn by rounds first, %d uncertain next, binned by %s",
                len(queue),
                len(self.round_of),
                sum(e.uncertain for e in queue),
                self.metric,
            )
            return True

    def view(self, case_id: str, model: str) -> dict[str, Any]:
        """What the labeling page shows for one case: texts, the answer split around its least
        grounded sentence, and per-sentence evidence tables."""
        entry = self.entries.get((case_id, model))
        if entry is None:
            raise InvalidInputError(f"case {case_id!r} / model {model!r} is not in the run")
        least = None
        evidence = []
        for ev in entry["evidence"]:
            details = ev.get("details") if isinstance(ev.get("details"), dict) else {}
            candidate = details.get("least_grounded_sentence") or details.get("least_grounded")
            if isinstance(candidate, dict):
                candidate = candidate.get("sentence") or candidate.get("text")
            if least is None and isinstance(candidate, str) and candidate:
                least = candidate
            evidence.append({**ev, "sentences": sentence_rows(details)})
        answer = entry.get("answer") or ""
        split = _split_answer(answer, least)
        metrics = [m for m in entry["metrics"] if m.get("primary")]
        return {**entry, "answer_parts": split, "evidence": evidence, "primary": metrics}


def _split_answer(answer: str, sentence: str | None) -> list[tuple[str, bool]]:
    """The answer as ``(text, highlighted)`` parts, the least grounded sentence highlighted.

    Example:
        >>> _split_answer("A. B. C.", "B.")
        [('A. ', False), ('B.', True), (' C.', False)]
    """
    if sentence:
        probe = sentence[:-1] if sentence.endswith("…") else sentence
        at = answer.find(probe)
        if at >= 0 and probe:
            end = at + len(probe)
            return [(answer[:at], False), (answer[at:end], True), (answer[end:], False)]
    return [(answer, False)]


def sentence_rows(details: Any) -> list[dict[str, Any]]:
    """``[{"text", "score"}]`` from the first list of sentence-like objects in ``details``.

    Example:
        >>> sentence_rows({"sentences": [{"sentence": "a", "score": 0.25}]})
        [{'text': 'a', 'score': 0.25}]
    """
    if not isinstance(details, dict):
        return []
    for value in details.values():
        if not isinstance(value, list) or not value or not isinstance(value[0], dict):
            continue
        rows = []
        for item in value[:200]:
            if not isinstance(item, dict):
                continue
            text = next((item[k] for k in _TEXT_KEYS if isinstance(item.get(k), str)), None)
            score = next(
                (item[k] for k in _SCORE_KEYS if isinstance(item.get(k), int | float)), None
            )
            if text is not None:
                rows.append({"text": text, "score": score})
        if rows:
            return rows
    return []
