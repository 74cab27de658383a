"""A command-line program as the system under test (one process per case)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from assay.data.case import TestCase
from assay.params import check, check_choice
from assay.runner.connectors.base import TargetError, TargetResponse, case_variables, map_response
from assay.runner.mapping import render


class CommandConnector:
    """Run a program per case; its standard output is the answer (text) or a JSON response.

    Args:
        command: the argument list; items may hold ``{{placeholders}}`` (no shell is involved,
            so a question cannot inject shell syntax).
        name: the system's name.
        stdin: optional template written to the program's standard input (a value that is not
            text, such as ``{{messages}}``, the chat history, is written as JSON).
        output: ``"text"`` (stdout, stripped, is the answer) or ``"json"`` (mapped with
            ``response``).
        response: response mapping for ``output="json"``.
        env: extra environment variables.

    Example:
        >>> import sys
        >>> program = [sys.executable, "-c", "print('hi ' + input())"]
        >>> c = CommandConnector(program, stdin="{{question}}")
        >>> c.answer(TestCase(id="1", question="there"), timeout_s=20).answer
        'hi there'
    """

    def __init__(
        self,
        command: list[str],
        *,
        name: str = "command",
        stdin: str | None = None,
        output: str = "text",
        response: dict[str, str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        check(
            isinstance(command, list)
            and bool(command)
            and all(isinstance(c, str) for c in command),
            "command",
            "CommandConnector",
            "a non-empty list of strings",
            command,
        )
        check_choice(output, ("text", "json"), "output", "CommandConnector")
        self.command = command
        self.name = name
        self.stdin = stdin
        self.output = output
        self.response = response
        self.env = env

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Run the program once (see :class:`Connector`)."""
        import os

        variables = case_variables(case)
        argv = [str(render(part, variables) or "") for part in self.command]
        text_in = render(self.stdin, variables) if self.stdin is not None else None
        if text_in is not None and not isinstance(text_in, str):  # e.g. "{{messages}}": JSON
            text_in = json.dumps(text_in, ensure_ascii=False)
        env = {**os.environ, **self.env} if self.env else None
        try:
            done = subprocess.run(
                argv,
                input=str(text_in) if text_in is not None else None,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise TargetError(
                f"program gave no answer within {timeout_s:g} s", kind="timeout", retryable=True
            ) from None
        except OSError as exc:
            raise TargetError(
                f"cannot start {argv[0]!r}: {exc}", kind="exception", retryable=False
            ) from None
        if done.returncode != 0:
            raise TargetError(
                f"program exited with status {done.returncode}: {done.stderr.strip()[-200:]!r}",
                kind="exit_status",
                retryable=False,
            )
        if self.output == "text":
            return TargetResponse(answer=done.stdout.strip())
        try:
            data: Any = json.loads(done.stdout)
        except json.JSONDecodeError:
            raise TargetError(
                f"program output is not JSON: {done.stdout[:120]!r}",
                kind="bad_response",
                retryable=False,
            ) from None
        return map_response(data, self.response)

    def close(self) -> None:
        """Nothing to release."""
