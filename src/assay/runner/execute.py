"""Answer a suite with the system under test: concurrency, retries, timeouts, checkpoints."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.case import RUN_TRUNCATED, TRUNCATED_REASON, TestCase
from assay.data.dialogue import Trajectory
from assay.data.samples import repeat_cases
from assay.data.suite import TestSuite
from assay.params import check
from assay.progress import ProgressCallback
from assay.runner.checkpoint import Checkpoint
from assay.runner.connectors.base import Connector, TargetError, TargetResponse
from assay.safety.credentials import redact_text

if TYPE_CHECKING:
    from assay.runner.simulated_user import SimulatedUser

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunSettings:
    """How to call the system under test.

    Args:
        concurrency: requests in flight at once (a bounded thread pool).
        retries: extra tries after a retryable failure (timeouts, 5xx, 429, lost connections).
        timeout_s: per-request time limit.
        backoff_s: wait before the first retry; doubles each retry, with +/-25 % jitter.
        backoff_max_s: upper bound of one wait.
        retry_bad_response: also retry unparseable or wrongly shaped responses.
        max_turns: most user turns of a conversation whose user is simulated (scripted
            conversations send every scripted turn).
        score_truncated: score answers cut at the system's token limit as if complete (they are
            recorded with ``truncated: true`` either way; by default their status is
            ``truncated`` and every evaluator of the answer counts them as unmeasured).
    """

    concurrency: int = 4
    retries: int = 2
    timeout_s: float = 60.0
    backoff_s: float = 0.5
    backoff_max_s: float = 30.0
    retry_bad_response: bool = False
    max_turns: int = 8
    score_truncated: bool = False

    def __post_init__(self) -> None:
        where = "RunSettings"
        check(self.concurrency >= 1, "concurrency", where, "at least 1", self.concurrency)
        check(self.retries >= 0, "retries", where, "0 or more", self.retries)
        check(self.timeout_s > 0, "timeout_s", where, "positive", self.timeout_s)
        check(self.backoff_s >= 0, "backoff_s", where, "0 or more", self.backoff_s)
        check(self.backoff_max_s >= 0, "backoff_max_s", where, "0 or more", self.backoff_max_s)
        check(self.max_turns >= 1, "max_turns", where, "at least 1", self.max_turns)

    def wait_before(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before try number ``attempt + 1`` (``attempt`` >= 1).

        Example:
            >>> RunSettings(backoff_s=1.0).wait_before(3, random.Random(0)) <= 4 * 1.25
            True
        """
        base = min(self.backoff_max_s, self.backoff_s * 2 ** (attempt - 1))
        return base * rng.uniform(0.75, 1.25)


def _unique_inputs(cases: Sequence[TestCase]) -> list[TestCase]:
    seen: dict[str, TestCase] = {}
    for case in cases:
        if case.id in seen:
            if seen[case.id].question != case.question:
                from assay.errors import InvalidInputError

                raise InvalidInputError(
                    f"case id {case.id!r} appears with two different questions; ids must be unique"
                )
            continue
        seen[case.id] = case
    if len(seen) < len(cases):
        logger.warning(
            "%d repeated case ids (answers of other models) asked once", len(cases) - len(seen)
        )
    return list(seen.values())


def _answered(
    case: TestCase,
    name: str,
    response: TargetResponse,
    attempts: int,
    latency: float,
    settings: RunSettings,
) -> TestCase:
    run: dict[str, Any] = {"status": "ok", "attempts": attempts}
    if response.truncated:
        run["truncated"] = True
        if not settings.score_truncated:
            run.update(status=RUN_TRUNCATED, reason=TRUNCATED_REASON)
    if response.usage:
        run["usage"] = response.usage
    update: dict[str, Any] = {
        "model": name,
        "actual_answer": response.answer,
        "latency_s": round(latency, 6),
        "cost_usd": response.cost_usd,
        "metadata": {**case.metadata, "run": run},
    }
    if response.retrieved_context is not None:
        update["retrieved_context"] = response.retrieved_context
        update["context_ids"] = response.context_ids
    if response.tool_calls is not None:  # what was expected of the agent is kept
        expected = case.trajectory or Trajectory()
        update["trajectory"] = expected.model_copy(
            update={"steps": list(response.tool_calls), "final_answer": response.answer}
        )
    return case.model_copy(update=update)


def _invalid(answered: TestCase) -> str | None:
    """Why an answered case would be rejected by ``assay validate`` (NaN or negative cost, an
    oversized answer...), or None: ``run`` never writes a case the suite reader refuses."""
    from pydantic import ValidationError

    try:
        TestCase.model_validate(answered.model_dump())
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "case"
        return f"{field}: {first['msg']}"
    return None


def _failed(case: TestCase, name: str, error: TargetError, attempts: int) -> TestCase:
    reason = redact_text(str(error))  # an endpoint's URL or reply may carry a credential
    run = {"status": "error", "attempts": attempts, "error_kind": error.kind, "error": reason}
    update = {
        "model": name,
        "actual_answer": None,
        "latency_s": None,
        "cost_usd": None,
        "metadata": {**case.metadata, "run": run},
    }
    return case.model_copy(update=update)


def ask(
    connector: Connector, case: TestCase, settings: RunSettings, rng: random.Random | None = None
) -> TestCase:
    """Answer one case, retrying retryable failures; never raises for a failure of the target.

    The result has ``model`` set to the connector's name and ``metadata["run"]`` recording the
    status (``ok``, ``error``, or ``truncated`` when the system stopped at its token limit), the
    number of tries and, on failure, the error kind and reason.

    Example:
        >>> from assay.runner.connectors import CallableConnector
        >>> done = ask(CallableConnector(str.upper, name="up"), TestCase(id="1", question="hi"),
        ...            RunSettings())
        >>> done.model, done.actual_answer, done.metadata["run"]["status"]
        ('up', 'HI', 'ok')
    """
    rng = rng or random.Random()
    attempt = 0
    while True:
        attempt += 1
        started = time.perf_counter()
        try:
            response = connector.answer(case, settings.timeout_s)
        except TargetError as exc:
            error = exc
        except Exception as exc:  # a bug in a user callable must not end the run
            error = TargetError(f"{type(exc).__name__}: {exc}", kind="exception", retryable=False)
        else:
            answered = _answered(
                case, connector.name, response, attempt, time.perf_counter() - started, settings
            )
            problem = _invalid(answered)
            if problem is None:
                return answered
            error = TargetError(f"invalid reply: {problem}", kind="bad_response", retryable=False)
        retryable = error.retryable or (
            settings.retry_bad_response and error.kind == "bad_response"
        )
        if not retryable or attempt > settings.retries:
            logger.info("case %s failed after %d tries: %s", case.id, attempt, error)
            return _failed(case, connector.name, error, attempt)
        pause = settings.wait_before(attempt, rng)
        if error.retry_after_s is not None:
            pause = max(pause, min(error.retry_after_s, settings.backoff_max_s))
        logger.debug("case %s: %s; retrying in %.2f s", case.id, error, pause)
        time.sleep(pause)


def run_target(
    suite: TestSuite | Sequence[TestCase],
    connector: Connector,
    *,
    settings: RunSettings | None = None,
    checkpoint: str | Path | None = None,
    retry_errors: bool = False,
    progress: ProgressCallback | None = None,
    seed: int = 0,
    user: SimulatedUser | None = None,
    repeats: int = 1,
) -> list[TestCase]:
    """Answer every case of ``suite`` with ``connector``; return the answered cases in order.

    Failures of the target are recorded per case (``actual_answer`` unset, the reason in
    ``metadata["run"]``); nothing is dropped. With ``checkpoint``, each finished case is appended
    to that file and made durable before the next is counted, and cases already there are not
    asked again, so a killed run resumes where it stopped.

    Conversation cases (scripted user turns, or a scenario for a simulated user) are run turn by
    turn by :func:`~assay.runner.conversation.converse`, concurrently with the other cases; each
    completed turn is checkpointed, and an interrupted conversation resumes from its last
    completed turn.

    Args:
        suite: the cases (questions; any answers they hold are replaced).
        connector: the system under test.
        settings: concurrency, retries, timeouts and back-off.
        checkpoint: path of the checkpoint file (created when absent).
        retry_errors: on resume, ask again cases that finished with an error.
        progress: called as ``progress(name, done, total)``.
        seed: seeds the back-off jitter.
        user: the simulated user, for conversation cases that have a scenario and no user turns.
        repeats: ask every case this many times, for a non-deterministic system: each answer is
            a linked sample ``{id}#sample{j}`` (see :func:`~assay.data.samples.repeat_cases`),
            checkpointed and resumed like any case.

    Raises:
        InvalidInputError: when a case needs a simulated user and none is given.

    Example:
        >>> from assay.runner.connectors import CallableConnector
        >>> cases = [TestCase(id=str(i), question=f"q{i}") for i in range(3)]
        >>> [c.actual_answer for c in run_target(cases, CallableConnector(str.upper))]
        ['Q0', 'Q1', 'Q2']
    """
    from assay.runner.conversation import converse, is_conversation, needs_simulator

    settings = settings or RunSettings()
    inputs = repeat_cases(_unique_inputs(list(suite)), repeats)
    simulated = [c.id for c in inputs if needs_simulator(c)]
    if simulated and user is None:
        from assay.errors import InvalidInputError

        raise InvalidInputError(
            f"{len(simulated)} case(s) ({', '.join(simulated[:3])}"
            f"{', ...' if len(simulated) > 3 else ''}) have a scenario and no user turns: their "
            "user is simulated by the judge LLM; give one (assay run --judge, or $ASSAY_JUDGE)"
        )
    log = Checkpoint(checkpoint, target=connector.name) if checkpoint is not None else None
    finished = log.load(inputs) if log is not None else {}
    partial = log.partial if log is not None else {}
    if retry_errors:
        finished = {
            k: v for k, v in finished.items() if v.metadata.get("run", {}).get("status") == "ok"
        }
    pending = [case for case in inputs if case.id not in finished]
    if finished:
        logger.info("resuming: %d of %d cases already finished", len(finished), len(inputs))
    total, done = len(inputs), len(finished)
    task = f"run {connector.name}"
    if progress is not None:
        progress(task, done, total)
    lock = threading.Lock()
    rngs = threading.local()
    stopping = threading.Event()  # set on the way out: conversations stop between turns

    def work(case: TestCase) -> TestCase:
        if not hasattr(rngs, "rng"):
            with lock:
                rngs.rng = random.Random(f"{seed}-{threading.get_ident()}")
        if not is_conversation(case):
            return ask(connector, case, settings, rngs.rng)

        def on_turn(so_far: TestCase) -> None:
            if log is not None:
                log.append(case, so_far, partial=True)

        return converse(
            connector,
            case,
            settings,
            rngs.rng,
            user=user,
            resume=partial.get(case.id),
            on_turn=on_turn,
            stop=stopping,
        )

    if log is not None:
        log.__enter__()
    try:
        pool = ThreadPoolExecutor(settings.concurrency, thread_name_prefix="assay-run")
        try:
            queue = iter(pending)
            in_flight: dict[Future[TestCase], TestCase] = {}

            def top_up() -> None:
                while len(in_flight) < 2 * settings.concurrency:
                    nxt = next(queue, None)
                    if nxt is None:
                        return
                    in_flight[pool.submit(work, nxt)] = nxt

            top_up()
            while in_flight:
                finished_now, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished_now:
                    source = in_flight.pop(future)
                    result = future.result()
                    if log is not None:
                        log.append(source, result)
                    finished[source.id] = result
                    done += 1
                    if progress is not None:
                        progress(task, done, total)
                top_up()
        finally:  # on an interrupt, do not start queued cases nor further conversation turns
            stopping.set()
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if log is not None:
            log.__exit__(None, None, None)
        connector.close()
    return [finished[case.id] for case in inputs]
