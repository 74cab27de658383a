"""Regular expressions whose matching time is bounded.

A condition's ``regexp("…")`` comes from test data that may be careless or hostile: a pattern such
as ``(a+)+$`` backtracks exponentially in Python's :mod:`re`. Two engines bound the work:

* ``"regex"`` (default): the `regex` package, which accepts Python's :mod:`re` syntax with the same
  ``re.search`` semantics (inline flags such as ``(?i)`` included) and aborts a search after
  ``timeout_s`` seconds.
* ``"re2"``: Google's RE2 (``pip install google-re2``), linear-time by construction but without
  backreferences or look-around, and with small semantic differences (e.g. ``$`` and ``\\d``).

``"auto"`` uses RE2 when it is installed and accepts the pattern, and the `regex` engine otherwise.
See docs/design/0003-bounded-regex.md for the choice.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from assay.errors import InvalidInputError, RegexTimeoutError

#: The accepted engine names.
ENGINES = ("regex", "re2", "auto")
#: Default time limit of one search, in seconds.
DEFAULT_TIMEOUT_S = 1.0


class BoundedPattern:
    """A compiled pattern whose :meth:`search` is bounded in time.

    Args:
        pattern: A Python-syntax regular expression.
        engine: ``"regex"``, ``"re2"`` or ``"auto"`` (see the module docstring).
        timeout_s: Time limit of one search with the ``regex`` engine.

    Raises:
        InvalidInputError: When the pattern does not compile (or RE2 rejects it under ``"re2"``).

    Example:
        >>> BoundedPattern(r"(?i)\\bfee\\b").search("The FEE is 3 euros")
        True
        >>> BoundedPattern("(a+)+$", timeout_s=0.05).search("a" * 5000 + "!")
        Traceback (most recent call last):
        ...
        assay.errors.RegexTimeoutError: regular expression '(a+)+$' timed out after 0.05 s
    """

    def __init__(
        self, pattern: str, engine: str = "regex", timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        from assay.params import check, check_choice

        check_choice(engine, ENGINES, "engine", "BoundedPattern")
        check(timeout_s > 0, "timeout_s", "BoundedPattern", "a positive number", timeout_s)
        self.pattern = pattern
        self.timeout_s = timeout_s
        self._compiled: Any
        self.engine = engine
        if engine in ("re2", "auto"):
            compiled = _compile_re2(pattern, required=engine == "re2")
            if compiled is not None:
                self._compiled, self.engine = compiled, "re2"
                return
            self.engine = "regex"
        self._compiled = _compile_regex(pattern)

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text`` (``re.search`` semantics).

        Raises:
            RegexTimeoutError: When the ``regex`` engine runs past ``timeout_s``.
        """
        if self.engine == "re2":
            return self._compiled.search(text) is not None
        try:
            return self._compiled.search(text, timeout=self.timeout_s) is not None
        except TimeoutError:
            raise RegexTimeoutError(
                f"regular expression {self.pattern!r} timed out after {self.timeout_s:g} s"
            ) from None

    def __reduce__(self) -> tuple[Any, ...]:
        return (BoundedPattern, (self.pattern, self.engine, self.timeout_s))


@lru_cache(maxsize=4096)
def _compile_regex(pattern: str) -> Any:
    import regex

    try:
        return regex.compile(pattern, flags=regex.VERSION0)
    except (regex.error, ValueError, OverflowError) as exc:
        raise InvalidInputError(f"invalid regular expression {pattern!r}: {exc}") from None


@lru_cache(maxsize=4096)
def _compile_re2(pattern: str, required: bool) -> Any:
    try:
        import re2
    except ImportError:
        if required:
            from assay.errors import require

            require("re2", extra="safety", package="google-re2")
        return None
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except Exception as exc:  # re2 raises its own error type
        if required:
            raise InvalidInputError(
                f"RE2 cannot compile {pattern!r} (no backreferences or look-around): {exc}"
            ) from None
        return None
