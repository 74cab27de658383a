"""Build a :class:`Judge` from a spec: an instance, a backend, a callable, a string or a dict.

Strings name a provider and a model (``"openai:gpt-4o-mini"``, ``"ollama:llama3.1"``,
``"vllm:Qwen/Qwen2.5-7B-Instruct"``, ``"llamacpp:smollm2"``, ``"azure:my-deployment"``), the
scripted test judge (``"scripted"``) or are a JSON object. Dicts (also what
``--param evaluator.judge='{...}'`` gives) hold backend settings (``provider``, and the keyword
arguments of :class:`~assay.backends.llm.OpenAICompatBackend` but the key itself: ``model``,
``base_url``, ``api_key_env``, ``temperature``, ``seed``, ``max_tokens``, ``structured``,
``api_version``, ``headers``) and client settings (the keys of
:data:`~assay.backends.llm.client.CLIENT_SETTINGS`: ``concurrency``, ``requests_per_minute``,
``tokens_per_minute``, ``max_retries``, ``backoff_base``, ``backoff_max``, ``timeout``,
``cache``, ``prices``, ``seed_jitter``). Without a spec the ``ASSAY_JUDGE`` environment variable
is read.

A string or dict spec is built once per process (:mod:`assay.backends.resolve`, keyed by the
spec, a dict by its canonical JSON) and each caller gets a :meth:`Judge.session` of it.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from assay.backends.llm.callable import CallableBackend
from assay.backends.llm.client import CLIENT_SETTINGS, Judge
from assay.backends.llm.openai_compat import OpenAICompatBackend
from assay.backends.llm.protocol import JudgeBackend
from assay.backends.resolve import BackendFamily, resolve
from assay.errors import BackendError, InvalidInputError
from assay.safety.credentials import redact_text

#: Default base URL and key variable per provider.
PROVIDERS: dict[str, tuple[str | None, str | None]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "azure": (None, "AZURE_OPENAI_API_KEY"),
    "ollama": ("http://localhost:11434/v1", None),
    "vllm": ("http://localhost:8000/v1", None),
    "llamacpp": ("http://127.0.0.1:8080/v1", None),
    "openai_compat": (None, "OPENAI_API_KEY"),
}
#: Client settings by their key in a spec.
_CLIENT_KEYS = {key: name for name, key in CLIENT_SETTINGS.items()}
#: The backend's settings in a spec: its keyword arguments, but never the key itself.
_BACKEND_KEYS = tuple(p for p in inspect.signature(OpenAICompatBackend).parameters
                      if p != "api_key")

JudgeSpec = Judge | JudgeBackend | Callable[..., Any] | str | Mapping[str, Any] | None


def _scripted(argument: str) -> Judge:
    """The deterministic scripted judge (:mod:`assay.backends.llm.scripted`), free of charge."""
    from assay.backends.llm.scripted import ScriptedJudge

    return Judge(ScriptedJudge(), prices={"scripted": (0.0, 0.0)}, concurrency=2)


def _provider(provider: str) -> Callable[[str], Judge]:
    return lambda model: _from_mapping({"provider": provider, "model": model})


def _json_object(spec: str) -> Judge:
    """A JSON object spec; anything else is not a judge spec."""
    if not spec.startswith("{"):
        raise InvalidInputError(
            f"judge spec {redact_text(spec)!r} must be 'provider:model' with provider one of "
            f"{sorted(PROVIDERS)}, 'scripted', or a JSON object"
        )
    try:
        data = json.loads(spec)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"judge spec is not valid JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"judge spec {redact_text(spec)!r} must be a JSON object")
    return _from_mapping(data)


JUDGES: BackendFamily[Judge] = BackendFamily(
    "judge", Judge, where="make_judge", expected="a Judge or a judge spec",
    fallback=_json_object)
JUDGES.register("scripted", _scripted)
for _name in PROVIDERS:
    JUDGES.register(_name, _provider(_name))


def make_judge(spec: JudgeSpec = None) -> Judge:
    """Resolve ``spec`` into a ready :class:`Judge`.

    A :class:`Judge` is returned as is; a backend or a callable gets a new judge; a string or a
    dict is built once per process and shared: each call returns a new :meth:`Judge.session`
    (its own counters) on the same backend, cache and rate limiter.

    Example:
        >>> judge = make_judge({"provider": "ollama", "model": "llama3.1", "concurrency": 2})
        >>> judge.describe()["base_url"], judge.concurrency
        ('http://localhost:11434/v1', 2)
        >>> again = make_judge({"concurrency": 2, "model": "llama3.1", "provider": "ollama"})
        >>> again.backend is judge.backend, again.stats is judge.stats
        (True, False)
        >>> make_judge("scripted").model
        'scripted'
    """
    if isinstance(spec, Judge):
        return spec
    if spec is None:
        env = os.environ.get("ASSAY_JUDGE")
        if not env:
            raise BackendError(
                "no judge configured: pass judge=... (e.g. 'openai:gpt-4o-mini' or a dict with "
                "base_url and model) or set the ASSAY_JUDGE environment variable"
            )
        spec = env
    if isinstance(spec, str) and spec.strip().startswith("{"):
        # a JSON spec is keyed like the same dict; invalid JSON is reported when built
        with contextlib.suppress(json.JSONDecodeError):
            spec = json.loads(spec)
    if isinstance(spec, Mapping):
        try:
            canonical = json.dumps(spec, sort_keys=True)  # the cache key
        except TypeError:  # a setting given as an object (a PriceTable, a JudgeCache)
            return _from_mapping(spec)
        spec = canonical
    if isinstance(spec, str):
        return resolve(JUDGES, spec).session()
    if isinstance(spec, JudgeBackend):
        return Judge(spec)
    if callable(spec):
        return Judge(CallableBackend(spec))
    raise InvalidInputError(
        f"The 'judge' parameter must be a Judge, a backend, a callable, a 'provider:model' string "
        f"or a dict; got {type(spec).__name__} instead."
    )


def _from_mapping(spec: Mapping[str, Any]) -> Judge:
    data = dict(spec)
    provider = data.pop("provider", "openai_compat")
    if provider not in PROVIDERS:
        raise InvalidInputError(
            f"unknown judge provider {provider!r}; use one of {sorted(PROVIDERS)}"
        )
    unknown = set(data) - set(_CLIENT_KEYS) - set(_BACKEND_KEYS)
    if unknown:
        raise InvalidInputError(f"unknown judge setting(s) {sorted(unknown)}")
    default_url, default_key_env = PROVIDERS[provider]
    backend_args = {k: data[k] for k in _BACKEND_KEYS if k in data}
    if not backend_args.get("model"):
        raise InvalidInputError(
            "a judge spec needs a 'model' (a string spec: 'provider:model', e.g. "
            "'openai:gpt-4o-mini')")
    if provider == "azure":
        backend_args.setdefault("base_url", os.environ.get("AZURE_OPENAI_ENDPOINT"))
        backend_args.setdefault("api_version", os.environ.get("OPENAI_API_VERSION", "2024-06-01"))
        if not backend_args.get("base_url"):
            raise InvalidInputError("an azure judge needs 'base_url' or AZURE_OPENAI_ENDPOINT")
    elif default_url is not None:
        backend_args.setdefault("base_url", default_url)
    if "base_url" not in backend_args:
        raise InvalidInputError("a judge spec needs a 'base_url'")
    backend_args.setdefault("api_key_env", default_key_env)
    model = backend_args.pop("model")
    base_url = backend_args.pop("base_url")
    backend = OpenAICompatBackend(model, base_url, **backend_args)
    return Judge(backend, **{_CLIENT_KEYS[k]: v for k, v in data.items() if k in _CLIENT_KEYS})
