"""One mechanism from spec to backend (assay.backends.resolve), across the backend families."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from assay.backends.classify import get_classifier
from assay.backends.embed import get_embedder
from assay.backends.embed.fake import FakeEmbedder
from assay.backends.lm import get_lm
from assay.backends.nli import get_nli
from assay.backends.resolve import BackendFamily, clear_loaded, resolve
from assay.errors import InvalidInputError


def test_every_family_shares_one_cache_and_one_clear(tmp_path: Path) -> None:
    embedder = get_embedder("fake", cache_dir=tmp_path)
    nli, lm = get_nli("fake"), get_lm("fake")
    toxicity, bias = get_classifier("fake", "toxicity"), get_classifier("fake", "bias")
    assert get_embedder(" fake ", cache_dir=tmp_path) is embedder  # normalised spec
    assert embedder.cache is None  # the fake says it is not worth a disk cache
    assert (get_nli("fake"), get_lm("fake")) == (nli, lm)
    assert get_classifier("fake", "toxicity") is toxicity
    assert toxicity is not bias  # the same spec in two families is two backends
    assert toxicity.predict(["idiot"]).categories != bias.predict(["idiot"]).categories
    assert get_embedder("fake", cache_dir=tmp_path / "other") is not embedder  # options key
    clear_loaded()
    assert get_nli("fake") is not nli and get_lm("fake") is not lm
    assert get_embedder("fake", cache_dir=tmp_path) is not embedder
    assert get_classifier("fake", "toxicity") is not toxicity


def test_clear_loaded_closes_what_the_family_says() -> None:
    family = BackendFamily("closing", FakeEmbedder, where="w", expected="e",
                           close=lambda backend: closed.append(backend))
    family.register("fake", lambda argument: FakeEmbedder())
    closed: list[FakeEmbedder] = []
    built = resolve(family, "fake")
    clear_loaded()
    assert closed == [built]


def test_instances_are_returned_or_wrapped_once() -> None:
    nli = get_nli("fake")
    clear_loaded()
    assert get_nli(nli) is nli  # an instance is used as it is, never cached
    raw = FakeEmbedder()
    wrapped = get_embedder(raw)
    assert wrapped.backend is raw and get_embedder(raw) is wrapped
    assert get_embedder(wrapped) is wrapped
    assert get_embedder(FakeEmbedder()) is not wrapped


def test_named_backends_take_an_argument_and_others_go_to_the_fallback() -> None:
    family: BackendFamily[list[str]] = BackendFamily(
        "letters", list, where="get_letters", expected="a spec or a list",
        fallback=lambda spec: ["fallback", spec])
    family.register("abc", lambda argument: list(argument or "abc"))
    assert resolve(family, "abc") == ["a", "b", "c"]
    assert resolve(family, "abc:xy") == ["x", "y"]
    assert resolve(family, "some/model") == ["fallback", "some/model"]
    strict: BackendFamily[list[str]] = BackendFamily("strict", list, where="get_strict",
                                                     expected="e", param="thing")
    strict.register("one", lambda argument: ["1"])
    with pytest.raises(InvalidInputError, match=r"'thing' parameter of get_strict.*one"):
        resolve(strict, "two")
    with pytest.raises(InvalidInputError, match="non-empty spec"):
        resolve(strict, "  ")
    with pytest.raises(InvalidInputError, match="'thing' parameter of get_strict"):
        resolve(strict, 3)


def test_concurrent_callers_build_a_spec_once() -> None:
    built: list[int] = []
    family: BackendFamily[list[int]] = BackendFamily("slow", list, where="w", expected="e")

    def build(argument: str) -> list[int]:
        built.append(1)
        threading.Event().wait(0.05)
        return [len(built)]

    family.register("slow", build)
    results: list[list[int]] = []
    threads = [threading.Thread(target=lambda: results.append(resolve(family, "slow")))
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert built == [1] and all(r is results[0] for r in results)


def test_a_slow_build_holds_up_only_its_own_spec() -> None:
    started, release = threading.Event(), threading.Event()
    family: BackendFamily[list[str]] = BackendFamily("mixed", list, where="w", expected="e")

    def slow(argument: str) -> list[str]:
        started.set()
        assert release.wait(10), "the slow build was never released"
        return ["slow"]

    family.register("slow", slow)
    family.register("fast", lambda argument: ["fast"])
    slow_results: list[list[str]] = []
    waiters = [threading.Thread(target=lambda: slow_results.append(resolve(family, "slow")))
               for _ in range(2)]
    waiters[0].start()
    assert started.wait(10)
    waiters[1].start()  # names the spec being built: waits for that build
    try:
        done = threading.Thread(target=lambda: resolve(family, "fast"))
        done.start()
        done.join(5)
        assert not done.is_alive(), "resolving another spec waited for the slow build"
        assert resolve(family, "fast") == ["fast"] and not slow_results
    finally:
        release.set()
        for waiter in waiters:
            waiter.join(10)
    assert slow_results == [["slow"], ["slow"]] and slow_results[0] is slow_results[1]


def test_a_build_may_resolve_another_spec_and_a_failed_build_is_not_kept() -> None:
    family: BackendFamily[list[str]] = BackendFamily("nested", list, where="w", expected="e")
    family.register("base", lambda argument: ["base"])
    family.register("head", lambda argument: [*resolve(family, "base"), "head"])
    attempts: list[int] = []

    def flaky(argument: str) -> list[str]:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("model file busy")
        return ["flaky"]

    family.register("flaky", flaky)
    assert resolve(family, "head") == ["base", "head"]
    assert resolve(family, "head") is resolve(family, "head")
    with pytest.raises(OSError, match="busy"):
        resolve(family, "flaky")
    assert resolve(family, "flaky") == ["flaky"] and len(attempts) == 2


def test_a_build_straddling_a_clear_is_not_cached_and_is_closed_by_the_next_clear() -> None:
    started, release = threading.Event(), threading.Event()
    closed: list[list[str]] = []
    family: BackendFamily[list[str]] = BackendFamily(
        "straddle", list, where="w", expected="e", close=closed.append)
    builds: list[list[str]] = []

    def build(argument: str) -> list[str]:
        backend = [f"build {len(builds) + 1}"]
        builds.append(backend)
        if len(builds) == 1:  # the first build is held until the clear and a rebuild are done
            started.set()
            assert release.wait(10), "the first build was never released"
        return backend

    family.register("model", build)
    first: list[list[str]] = []
    waited: list[list[str]] = []
    old = threading.Thread(target=lambda: first.append(resolve(family, "model")))
    old.start()
    assert started.wait(10)
    waiter = threading.Thread(target=lambda: waited.append(resolve(family, "model")))
    waiter.start()  # before or after the clear: either way it must end with the rebuild
    try:
        clear_loaded()
        rebuilt = resolve(family, "model")  # a new build, not a wait for the one in progress
        assert rebuilt is builds[1] and not first
    finally:
        release.set()
        old.join(10)
        waiter.join(10)
    assert first == [builds[0]] and first[0] is builds[0]  # its caller still gets its backend
    assert waited[0] is rebuilt and len(builds) == 2
    assert resolve(family, "model") is rebuilt  # the stale build did not overwrite the rebuild
    assert closed == []
    clear_loaded()
    assert sorted(map(id, closed)) == sorted(map(id, builds))  # both closed, each once


def test_unknown_specs_name_the_parameter() -> None:
    with pytest.raises(InvalidInputError, match=r"'classifier' parameter of get_classifier"
                                                r".*profanity-check"):
        get_classifier("perspective", "toxicity")
    with pytest.raises(InvalidInputError, match="'kind' parameter"):
        get_classifier("fake", "sarcasm")
