"""The labeling web application (Starlette, Jinja2 with autoescape, no external assets).

Security: every page but the login form needs the annotator's token (an HttpOnly, SameSite=Strict
cookie set by logging in with it); every POST needs a same-origin ``Origin`` and, once logged in,
a CSRF token derived from the server secret and the annotator's token; unknown ``Host`` headers
are refused (DNS rebinding); a strict Content-Security-Policy allows only the app's own script
and style. Submitted labels are committed before the response is sent.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from assay.errors import InvalidInputError, require

require("starlette", extra="label")

from jinja2 import Environment, PackageLoader, select_autoescape  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.concurrency import run_in_threadpool  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.middleware.base import BaseHTTPMiddleware  # noqa: E402
from starlette.middleware.trustedhost import TrustedHostMiddleware  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402

from assay.label.agreement import agreement  # noqa: E402
from assay.label.project import LabelProject  # noqa: E402
from assay.label.store import hash_token  # noqa: E402

logger = logging.getLogger(__name__)
COOKIE = "assay_label_token"
MAX_COMMENT = 5000
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_env = Environment(
    loader=PackageLoader("assay.label", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def csrf_token(secret: str, token: str) -> str:
    """The CSRF token of a logged-in annotator (HMAC of their token hash under the server secret).

    Example:
        >>> len(csrf_token("s", "t"))
        64
    """
    return hmac.new(secret.encode(), f"csrf:{hash_token(token)}".encode(), "sha256").hexdigest()


class _SecurityHeaders(BaseHTTPMiddleware):
    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if request.method == "POST" and not _same_origin(request):
            return PlainTextResponse("cross-origin request refused", status_code=403)
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = _CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "same-origin"  # Origin stays on our POSTs
        response.headers["Cache-Control"] = "no-store"
        return response


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin or origin == "null":
        return False
    host = request.headers.get("host", "")
    return urlsplit(origin).netloc == host


def _render(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_env.get_template(name).render(**context), status_code=status)


def create_app(project: LabelProject, *, allowed_hosts: list[str] | None = None) -> Starlette:
    """The ASGI application serving ``project``."""
    store = project.store
    secret = store.meta("secret") or ""

    def current(request: Request) -> tuple[dict[str, Any] | None, str]:
        token = request.cookies.get(COOKIE, "")
        return store.annotator_for_token(token), token

    def base_context(annotator: dict[str, Any] | None, token: str) -> dict[str, Any]:
        return {
            "annotator": annotator,
            "csrf": csrf_token(secret, token) if annotator else "",
            "run": project.run_dir.name,
        }

    async def index(request: Request) -> Response:
        annotator, _ = await run_in_threadpool(current, request)
        if annotator is None:
            return _render("login.html.j2", error=None, annotator=None, run=project.run_dir.name)
        return RedirectResponse("/label", status_code=303)

    async def login(request: Request) -> Response:
        form = await request.form()
        token = str(form.get("token", "")).strip()
        annotator = await run_in_threadpool(store.annotator_for_token, token)
        if annotator is None:
            return _render(
                "login.html.j2",
                403,
                error="Unknown token.",
                annotator=None,
                run=project.run_dir.name,
            )
        response = RedirectResponse("/label", status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
        return response

    async def logout(request: Request) -> Response:
        annotator, token = await run_in_threadpool(current, request)
        form = await request.form()
        if annotator is not None and not _csrf_ok(str(form.get("csrf", "")), token):
            return PlainTextResponse("invalid CSRF token", status_code=403)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    def _csrf_ok(given: str, token: str) -> bool:
        return hmac.compare_digest(given, csrf_token(secret, token))

    def _page(annotator: dict[str, Any], token: str, error: str | None = None) -> Response:
        project.refresh_queue()
        item_id = store.next_item(annotator["id"], overlap=project.overlap)
        context = base_context(annotator, token)
        counts = {a["name"]: a for a in store.annotators()}.get(annotator["name"], {})
        if item_id is None:
            return _render("done.html.j2", **context, mine=counts)
        item = store.item(item_id)
        assert item is not None
        view = project.view(item["case_id"], item["model"])
        return _render(
            "label.html.j2",
            422 if error else 200,
            **context,
            item=item,
            case=view,
            criteria=project.criteria,
            error=error,
            mine=counts,
            metric=project.metric,
            show_machine=project.show_machine,
            round_label=project.round_of.get((item["case_id"], item["model"])),
            any_round=bool(project.round_of),
        )

    def signed_in(
        render: Callable[[dict[str, Any], str], Response],
    ) -> Callable[[Request], Awaitable[Response]]:
        """A page for a signed-in annotator, rendered off the event loop; anyone else is sent to
        the login page."""

        async def page(request: Request) -> Response:
            annotator, token = await run_in_threadpool(current, request)
            if annotator is None:
                return RedirectResponse("/", status_code=303)
            return await run_in_threadpool(render, annotator, token)

        return page

    async def label_submit(request: Request) -> Response:
        annotator, token = await run_in_threadpool(current, request)
        if annotator is None:
            return PlainTextResponse("a valid annotator token is required", status_code=401)
        form = await request.form()
        if not _csrf_ok(str(form.get("csrf", "")), token):
            return PlainTextResponse("invalid CSRF token", status_code=403)
        try:
            item_id = int(str(form.get("item_id", "")))
        except ValueError:
            return PlainTextResponse("bad item id", status_code=400)
        skipped = form.get("action") == "skip"
        comment = str(form.get("comment", ""))[:MAX_COMMENT]
        values: dict[str, int] = {}
        missing = []
        for criterion in project.criteria:
            raw = str(form.get(f"c_{criterion.name}", ""))
            if raw.lstrip("-").isdigit() and int(raw) in criterion.values:
                values[criterion.name] = int(raw)
            elif not skipped:
                missing.append(criterion.name)
        if missing:
            return await run_in_threadpool(
                _page, annotator, token, f"Choose a value for: {', '.join(missing)}."
            )
        try:
            await run_in_threadpool(
                store.submit,
                item_id,
                annotator["id"],
                {} if skipped else values,
                comment,
                skipped=skipped,
                require_lease=True,
            )
        except InvalidInputError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        return RedirectResponse("/label", status_code=303)

    def _progress(annotator: dict[str, Any], token: str) -> Response:
        return _render(
            "progress.html.j2",
            **base_context(annotator, token),
            counts=store.progress(project.overlap),
            overlap=project.overlap,
            annotators=store.annotators(),
            agreement=agreement(store.judgments(), project.criteria),
            metric=project.metric,
            calibrated=project.calibrated,
            store_url=store.safe_url,
        )

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    static = Path(__file__).with_name("static")
    hosts = allowed_hosts or ["127.0.0.1", "localhost", "::1", "[::1]"]
    return Starlette(
        routes=[
            Route("/", index),
            Route("/login", login, methods=["POST"]),
            Route("/logout", logout, methods=["POST"]),
            Route("/label", signed_in(_page), methods=["GET"]),
            Route("/label", label_submit, methods=["POST"]),
            Route("/progress", signed_in(_progress)),
            Route("/healthz", health),
            Mount("/static", StaticFiles(directory=static), name="static"),
        ],
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
            Middleware(_SecurityHeaders),
        ],
    )
