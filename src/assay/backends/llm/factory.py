"""Build a :class:`Judge` from a spec: an instance, a backend, a callable, a string or a dict.

Strings name a provider and a model (``"openai:gpt-4o-mini"``, ``"ollama:llama3.1"``,
``"vllm:Qwen/Qwen2.5-7B-Instruct"``, ``"llamacpp:smollm2"``, ``"azure:my-deployment"``) or are a
JSON object. Dicts (also what ``--param evaluator.judge='{...}'`` gives) hold backend settings
(``provider``, ``model``, ``base_url``, ``api_key_env``, ``temperature``, ``seed``,
``max_tokens``, ``structured``, ``api_version``, ``headers``) and client settings
(``concurrency``, ``requests_per_minute``, ``tokens_per_minute``, ``max_retries``,
``backoff_base``, ``backoff_max``, ``timeout``, ``cache``, ``prices``). Without a spec the
``ASSAY_JUDGE`` environment variable is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from assay.backends.llm.callable import CallableBackend
from assay.backends.llm.client import Judge
from assay.backends.llm.openai_compat import OpenAICompatBackend
from assay.backends.llm.protocol import JudgeBackend
from assay.errors import BackendError, InvalidInputError

#: Default base URL and key variable per provider.
PROVIDERS: dict[str, tuple[str | None, str | None]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "azure": (None, "AZURE_OPENAI_API_KEY"),
    "ollama": ("http://localhost:11434/v1", None),
    "vllm": ("http://localhost:8000/v1", None),
    "llamacpp": ("http://127.0.0.1:8080/v1", None),
    "openai_compat": (None, "OPENAI_API_KEY"),
}
_CLIENT_KEYS = (
    "concurrency",
    "requests_per_minute",
    "tokens_per_minute",
    "max_retries",
    "backoff_base",
    "backoff_max",
    "timeout",
    "cache",
    "prices",
    "seed_jitter",
)
_BACKEND_KEYS = (
    "model",
    "base_url",
    "api_key_env",
    "temperature",
    "seed",
    "max_tokens",
    "structured",
    "api_version",
    "headers",
)

JudgeSpec = Judge | JudgeBackend | Callable[..., Any] | str | Mapping[str, Any] | None


def make_judge(spec: JudgeSpec = None) -> Judge:
    """Resolve ``spec`` into a ready :class:`Judge`.

    Example:
        >>> judge = make_judge({"provider": "ollama", "model": "llama3.1", "concurrency": 2})
        >>> judge.describe()["base_url"], judge.concurrency
        ('http://localhost:11434/v1', 2)
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
    if isinstance(spec, str):
        return _from_string(spec)
    if isinstance(spec, Mapping):
        return _from_mapping(spec)
    if isinstance(spec, JudgeBackend):
        return Judge(spec)
    if callable(spec):
        return Judge(CallableBackend(spec))
    raise InvalidInputError(
        f"The 'judge' parameter must be a Judge, a backend, a callable, a 'provider:model' string "
        f"or a dict; got {type(spec).__name__} instead."
    )


def _from_string(spec: str) -> Judge:
    text = spec.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"judge spec is not valid JSON: {exc}") from None
        return _from_mapping(data)
    if text == "scripted":
        from assay.backends.llm.scripted import ScriptedJudge

        return Judge(ScriptedJudge())
    provider, sep, model = text.partition(":")
    if not sep or provider not in PROVIDERS or not model:
        raise InvalidInputError(
            f"judge spec {spec!r} must be 'provider:model' with provider one of "
            f"{sorted(PROVIDERS)}, 'scripted', or a JSON object"
        )
    return _from_mapping({"provider": provider, "model": model})


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
    if "model" not in backend_args:
        raise InvalidInputError("a judge spec needs a 'model'")
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
    client_args = {k: data[k] for k in _CLIENT_KEYS if k in data}
    if "seed_jitter" in client_args:
        client_args["seed"] = client_args.pop("seed_jitter")
    return Judge(backend, **client_args)
