"""Serve the labeling app with uvicorn on loopback (a remote bind must be asked for)."""

from __future__ import annotations

import ipaddress
import logging
import socket

from assay.errors import InvalidInputError, require
from assay.label.project import LabelProject

logger = logging.getLogger(__name__)
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``.

    Example:
        >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
        (True, True, False)
    """
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback ``host`` unless ``allow_remote``.

    Example:
        >>> check_bind("0.0.0.0", False)
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: refusing to listen on '0.0.0.0', which other machines \
can reach: pass --allow-remote to do so on purpose (annotator tokens then travel unencrypted \
unless a TLS proxy sits in front)
    """
    if not is_loopback(host) and not allow_remote:
        raise InvalidInputError(
            f"refusing to listen on {host!r}, which other machines can reach: pass "
            "--allow-remote to do so on purpose (annotator tokens then travel unencrypted "
            "unless a TLS proxy sits in front)"
        )


def allowed_hosts(host: str) -> list[str]:
    """Host names the app answers to (others are refused, against DNS rebinding)."""
    hosts = ["127.0.0.1", "localhost", "::1", "[::1]"]
    if not is_loopback(host):
        hosts = ["*"] if host in ("0.0.0.0", "::") else [*hosts, host, socket.getfqdn(host)]
    return hosts


def serve(
    project: LabelProject, host: str = "127.0.0.1", port: int = 8765, *, allow_remote: bool = False
) -> None:
    """Run the app until interrupted."""
    check_bind(host, allow_remote)
    require("uvicorn", extra="label")
    import uvicorn

    from assay.label.app import create_app

    app = create_app(project, allowed_hosts=allowed_hosts(host))
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
