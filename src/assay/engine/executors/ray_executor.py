"""The Ray executor: an evaluator's batches spread over a Ray cluster, results back in order.

Light evaluators (core, no extra) run as Ray *tasks*, one per batch. Model-based evaluators (those
with an extra: embedding, NLI, LM, judge, toxicity, ...) run in a pool of Ray *actors*, each holding
one copy of the evaluator, so a model is loaded once per actor and reused for every batch it
scores. Judges with a rate limit share one limiter across all workers
(:mod:`assay.engine.executors.ray_limits`).

Fault tolerance: a task whose worker dies is retried by Ray (``max_retries``); an actor that dies is
restarted (``max_restarts``) and its pending calls retried (``max_task_retries``). Should a batch
still fail with a system error, the driver submits it again itself (up to ``max_retries`` times),
to a replacement actor when the old one is gone. Results are keyed by batch index and each index is
yielded exactly once, in order, so no case is lost or duplicated.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

from assay.data.case import TestCase
from assay.engine.executors.ray_limits import install_limiters, ray_module, start_limiters
from assay.evaluators.base import Evaluator, ResultBatch
from assay.params import check, check_choice, check_int

logger = logging.getLogger(__name__)

MODES = ("auto", "tasks", "actors")


def init_ray(attempts: int = 3, **options: Any) -> None:
    """``ray.init(**options)`` without the dashboard, retried when a *local* instance times out
    starting (Ray waits a fixed 30 s for its raylet, too little on a loaded machine)."""
    ray = ray_module()
    options.setdefault("include_dashboard", False)
    options.setdefault("log_to_driver", False)
    for attempt in range(1, attempts + 1):
        try:
            ray.init(**options)
            return
        except Exception as exc:
            if "address" in options or "timed out" not in str(exc) or attempt == attempts:
                raise
            logger.warning("ray: local start timed out (attempt %d); retrying", attempt)
            ray.shutdown()


def _evaluate_batch(
    evaluator: Evaluator, index: int, batch: list[TestCase], limiters: dict[str, Any]
) -> tuple[int, ResultBatch]:
    """The body of one Ray task: evaluate one batch with a fresh copy of the evaluator."""
    install_limiters(evaluator, limiters)
    return index, evaluator.evaluate(batch)


class BatchWorker:
    """The body of one pool actor: keeps the current evaluator (and the models it loads) between
    batches. The pool outlives one evaluator: the next evaluator replaces the previous one, so a
    worker process starts once per run and holds one evaluator's models at a time."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.evaluator: Evaluator | None = None

    def evaluate(
        self,
        key: str,
        holder: list[Any],
        limiters: dict[str, Any],
        index: int,
        batch: list[TestCase],
    ) -> tuple[int, ResultBatch]:
        """Evaluate one batch; ``holder`` wraps the evaluator's object reference, fetched (and its
        judges pointed at the shared limiters) only when ``key`` changes."""
        if self.key != key or self.evaluator is None:
            ray = ray_module()

            self.evaluator = None  # let the previous evaluator's models go first
            self.evaluator = ray.get(holder[0])
            install_limiters(self.evaluator, limiters)
            self.key = key
        return index, self.evaluator.evaluate(batch)

    def pid(self) -> int:
        """The worker's process id."""
        import os

        return os.getpid()


class RayExecutor:
    """Evaluate batches on Ray.

    Args:
        address: Ray cluster address (``"auto"``, ``"ray://head:10001"``, ``"host:6379"``); None
            connects to the cluster in ``RAY_ADDRESS`` if set, else starts a local Ray instance.
            An already initialised Ray (``ray.init`` called by the user) is used as it is.
        num_workers: Actors per model-based evaluator, and about twice as many tasks in flight for
            light ones; None: as many as the cluster's CPUs allow at ``num_cpus`` each.
        num_cpus: CPUs reserved by each task or actor.
        num_gpus: GPUs (fractions allowed) reserved by each pool actor (model-based evaluators).
        mode: ``"auto"`` (actors for evaluators with an extra, tasks otherwise), ``"tasks"`` or
            ``"actors"``.
        max_retries: Retries of a batch whose worker died (Ray's, then the driver's own).
        max_in_flight: Batches submitted ahead of the one the driver writes next; bounds memory.
            None: ``2 * num_workers``.
        resources: Per-evaluator overrides, e.g. ``{"nli_faithfulness": {"num_gpus": 1}}``.
        init_options: Extra keyword arguments for ``ray.init`` (e.g. ``num_cpus``, ``runtime_env``).

    Example:
        >>> RayExecutor(num_workers=2, num_gpus=0.5).describe()["num_gpus"]
        0.5
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        num_workers: int | None = None,
        num_cpus: float = 1.0,
        num_gpus: float = 0.0,
        mode: str = "auto",
        max_retries: int = 3,
        max_in_flight: int | None = None,
        resources: dict[str, dict[str, float]] | None = None,
        init_options: dict[str, Any] | None = None,
    ) -> None:
        check(
            num_workers is None or (isinstance(num_workers, int) and num_workers >= 1),
            "num_workers", "RayExecutor", "a positive integer or None", num_workers,
        )  # fmt: skip
        check(num_cpus >= 0, "num_cpus", "RayExecutor", "a non-negative number", num_cpus)
        check(num_gpus >= 0, "num_gpus", "RayExecutor", "a non-negative number", num_gpus)
        check_choice(mode, MODES, "mode", "RayExecutor")
        check_int(max_retries, "max_retries", "RayExecutor", minimum=0)
        check(
            max_in_flight is None or max_in_flight >= 1,
            "max_in_flight", "RayExecutor", "a positive integer or None", max_in_flight,
        )  # fmt: skip
        self.address = address
        self.num_workers = num_workers
        self.num_cpus = num_cpus
        self.num_gpus = num_gpus
        self.mode = mode
        self.max_retries = max_retries
        self.max_in_flight = max_in_flight
        self.resources = dict(resources or {})
        self.init_options = dict(init_options or {})
        self._owns_ray = False
        self._limiters: dict[str, Any] = {}
        self._pools: dict[str, _ActorPool] = {}
        self._calls = 0

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        """Connect to (or start) Ray unless it is already initialised."""
        ray = ray_module()
        if ray.is_initialized():
            return
        options = dict(self.init_options)
        if self.address is not None:
            options["address"] = self.address
        init_ray(**options)
        self._owns_ray = True
        logger.info("ray: %s", ray.cluster_resources())

    def close(self) -> None:
        """Stop the actor pools and shared limiters; shut Ray down when this executor started it."""
        import sys

        ray = sys.modules.get("ray")
        if ray is None or not ray.is_initialized():
            return
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()
        for actor in self._limiters.values():
            ray.kill(actor)
        self._limiters.clear()
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    def describe(self) -> dict[str, Any]:
        """Settings recorded in the run manifest."""
        return {
            "name": self.name,
            "address": self.address,
            "num_workers": self.num_workers,
            "num_cpus": self.num_cpus,
            "num_gpus": self.num_gpus,
            "mode": self.mode,
            "max_retries": self.max_retries,
            "resources": self.resources,
        }

    # -- mapping ---------------------------------------------------------------------------------
    def uses_actors(self, evaluator: Evaluator) -> bool:
        """Whether ``evaluator`` runs in an actor pool (else one task per batch).

        Example:
            >>> from assay.evaluators import get_evaluator
            >>> ex = RayExecutor()
            >>> ex.uses_actors(get_evaluator("exact_match")), ex.uses_actors(get_evaluator("bias"))
            (False, True)
        """
        if self.mode != "auto":
            return self.mode == "actors"
        return evaluator.extra is not None

    def workers_for(self, evaluator: Evaluator) -> int:
        """How many workers ``evaluator`` gets."""
        if self.num_workers is not None:
            return self.num_workers
        ray = ray_module()

        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        per = self._options(evaluator, actors=False).get("num_cpus") or 1.0
        return max(1, int(cpus // per))

    def _options(self, evaluator: Evaluator, *, actors: bool) -> dict[str, Any]:
        options: dict[str, Any] = {"num_cpus": self.num_cpus}
        if actors and self.num_gpus:
            options["num_gpus"] = self.num_gpus
        options.update(self.resources.get(evaluator.name, {}))
        return options

    def map_batches(
        self, evaluator: Evaluator, batches: Iterable[list[TestCase]]
    ) -> Iterator[tuple[int, list[TestCase], ResultBatch]]:
        """Evaluate every batch on Ray; yield ``(index, batch, results)`` in batch order."""
        self.start()
        ray = ray_module()

        workers = self.workers_for(evaluator)
        limiters = start_limiters(evaluator, self._limiters)
        evaluator_ref = ray.put(evaluator)
        window = self.max_in_flight or 2 * workers
        self._calls += 1
        if self.uses_actors(evaluator):
            options = self._options(evaluator, actors=True)
            pool_key = repr(sorted(options.items()))
            pool = self._pools.get(pool_key)
            if pool is None:
                pool = self._pools[pool_key] = _ActorPool(options, self.max_retries)
            pool.resize(workers)
            dispatch: _Dispatch = _ActorDispatch(
                pool, f"{evaluator.name}#{self._calls}", evaluator_ref, limiters
            )
        else:
            dispatch = _TaskDispatch(
                evaluator_ref, limiters, self._options(evaluator, actors=False), self.max_retries
            )
        try:
            yield from _ordered(dispatch, enumerate(batches), window, self.max_retries)
        finally:
            dispatch.close()


class _Dispatch:
    """Submits one batch to Ray and returns the reference of its ``(index, results)``."""

    def submit(self, index: int, batch: list[TestCase]) -> Any:
        raise NotImplementedError

    def done(self, ref: Any) -> None:
        """Called when the call behind ``ref`` returned."""

    def failed(self, ref: Any) -> None:
        """Called when the call behind ``ref`` died for good (its worker may need replacing)."""

    def close(self) -> None:
        """Release what this evaluator's dispatch holds (pools outlive it)."""


class _TaskDispatch(_Dispatch):
    def __init__(
        self, evaluator_ref: Any, limiters: dict[str, Any], options: dict[str, Any], retries: int
    ) -> None:
        ray = ray_module()

        self.evaluator_ref = evaluator_ref
        self.limiters = limiters
        self.remote = ray.remote(max_retries=retries, retry_exceptions=False, **options)(
            _evaluate_batch
        )

    def submit(self, index: int, batch: list[TestCase]) -> Any:
        return self.remote.remote(self.evaluator_ref, index, batch, self.limiters)


class _ActorPool:
    """Long-lived :class:`BatchWorker` actors sharing one set of resource options."""

    def __init__(self, options: dict[str, Any], retries: int) -> None:
        ray = ray_module()

        self.cls = ray.remote(max_restarts=retries, max_task_retries=retries, **options)(
            BatchWorker
        )
        self.actors: list[Any] = []

    def resize(self, size: int) -> None:
        ray = ray_module()

        while len(self.actors) < size:
            self.actors.append(self.cls.remote())
        while len(self.actors) > size:
            ray.kill(self.actors.pop(), no_restart=True)

    def replace(self, actor: Any) -> None:
        ray = ray_module()

        if actor in self.actors:
            self.actors[self.actors.index(actor)] = self.cls.remote()
            ray.kill(actor, no_restart=True)

    def close(self) -> None:
        ray = ray_module()

        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors.clear()


class _ActorDispatch(_Dispatch):
    """Sends each batch of one evaluator to the least busy actor of a pool."""

    def __init__(self, pool: _ActorPool, key: str, evaluator_ref: Any, limiters: dict[str, Any]):
        self.pool = pool
        self.key = key
        self.holder = [evaluator_ref]  # nested: Ray passes the reference, not the value
        self.limiters = limiters
        self.busy: dict[Any, int] = {}
        self.owner: dict[Any, Any] = {}

    def submit(self, index: int, batch: list[TestCase]) -> Any:
        actor = min(self.pool.actors, key=lambda a: self.busy.get(a, 0))
        ref = actor.evaluate.remote(self.key, self.holder, self.limiters, index, batch)
        self.busy[actor] = self.busy.get(actor, 0) + 1
        self.owner[ref] = actor
        return ref

    def done(self, ref: Any) -> None:
        actor = self.owner.pop(ref, None)
        if actor is not None:
            self.busy[actor] -= 1

    def failed(self, ref: Any) -> None:
        actor = self.owner.pop(ref, None)
        if actor is not None and actor in self.pool.actors:
            logger.warning("ray: a pool actor failed for good; replacing it")
            self.pool.replace(actor)


def _ordered(
    dispatch: _Dispatch,
    batches: Iterator[tuple[int, list[TestCase]]],
    window: int,
    retries: int,
) -> Iterator[tuple[int, list[TestCase], ResultBatch]]:
    """Keep up to ``window`` batches in flight; yield results strictly in batch order.

    A batch whose call fails with a Ray system error (dead worker or actor, lost object) after
    Ray's own retries is resubmitted, at most ``retries`` times; a result is accepted once per
    batch index, so nothing is lost or duplicated.
    """
    ray = ray_module()
    from ray.exceptions import RayError, RayTaskError

    pending: dict[Any, int] = {}  # ref -> batch index
    held: dict[int, list[TestCase]] = {}  # batches submitted, not yet yielded
    finished: dict[int, ResultBatch] = {}
    attempts: dict[int, int] = {}
    next_out = 0
    exhausted = False
    while True:
        while not exhausted and len(held) < window:
            item = next(batches, None)
            if item is None:
                exhausted = True
                break
            index, batch = item
            held[index] = batch
            attempts[index] = 1
            pending[dispatch.submit(index, batch)] = index
        while next_out in finished:
            yield next_out, held.pop(next_out), finished.pop(next_out)
            next_out += 1
        if not pending:  # then every submitted batch was yielded above
            if exhausted:
                return
            continue
        ready, _ = ray.wait(list(pending), num_returns=1)
        ref = ready[0]
        index = pending.pop(ref)
        try:
            got_index, results = ray.get(ref)
        except RayTaskError:
            raise  # the evaluator itself raised: not a worker failure, do not retry
        except RayError as exc:
            dispatch.failed(ref)
            if attempts[index] > retries:
                raise
            attempts[index] += 1
            logger.warning("ray: batch %d failed (%s); resubmitting", index, type(exc).__name__)
            pending[dispatch.submit(index, held[index])] = index
            continue
        dispatch.done(ref)
        if got_index != index or len(results) != len(held[index]):
            raise RuntimeError(f"ray: batch {index} came back malformed")
        finished.setdefault(index, results)
