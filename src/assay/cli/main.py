"""Entry point of the ``assay`` command: the click group and command registration."""

from __future__ import annotations

import importlib
import logging
import pkgutil
import sys

import click

from assay._version import __version__
from assay.errors import AssayError
from assay.safety.credentials import redact_text


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="assay")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
def cli(verbose: int) -> None:
    """assay: explainable, reproducible, human-calibrated testing of LLM and RAG systems."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:  # no credential reaches a log line
        handler.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))


class RedactingFormatter(logging.Formatter):
    """A log formatter that redacts credentials (tracebacks included) from every line."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record with every credential replaced (see :func:`redact_text`)."""
        return redact_text(super().format(record))


def _add_commands() -> None:
    """Add every module of :mod:`assay.cli` that defines a click ``command`` (one per module)."""
    import assay.cli as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        command = getattr(module, "command", None)
        if isinstance(command, click.Command):
            cli.add_command(command)


_add_commands()


def main() -> None:
    """Run the CLI; assay's own errors print as one clear line and exit with status 2."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        redacted = click.ClickException(redact_text(exc.format_message()))
        if isinstance(exc, click.UsageError):  # keep the usage line and the hint
            redacted = click.UsageError(redacted.message, exc.ctx)
        redacted.show()
        sys.exit(exc.exit_code)
    except AssayError as exc:
        click.echo(f"error: {redact_text(str(exc))}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
