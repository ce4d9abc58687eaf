"""The scoreboard web server: static pages, live state over SSE, buttons.

Runs uvicorn in a background thread so that the live loop stays in charge of
the main thread.  It listens on localhost unless told otherwise; on any other
address a token is mandatory (generated and printed when not given) and every
page and API call must carry it as ``?token=`` or an ``X-Board-Token`` /
``Authorization: Bearer`` header.  Static assets (CSS, JS) are public: they
hold nothing about the match.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import secrets
import socket
import threading
import time
from importlib import resources
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sse_starlette.sse import EventSourceResponse

from companion.board.hub import BoardCommand, BoardHub

LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This machine's address on the LAN, for the URL printed to the table.

    Connecting a UDP socket sends nothing; it only asks the kernel which
    interface would be used.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return socket.gethostname()


def new_token() -> str:
    return secrets.token_urlsafe(16)


def parse_typed_text(text: str) -> dict[str, Any]:
    """An event typed on the board: JSON, or the table's short form ("raise 1", "play 2 4C")."""
    try:
        from companion.table.typed import parse_typed
    except ImportError:
        event = json.loads(text)
        if not isinstance(event, dict):
            raise ValueError("a typed event must be a JSON object") from None
        return event
    return parse_typed(text)


def _static_dir() -> Any:
    return resources.files("companion") / "data" / "board"


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


def create_app(hub: BoardHub, token: str | None = None) -> FastAPI:
    """The FastAPI application serving ``hub`` (and ``hub.history_store`` pages)."""

    app = FastAPI(title="Truco companion board", docs_url=None, redoc_url=None, openapi_url=None)
    static = _static_dir()

    @app.middleware("http")
    async def require_token(request: Request, call_next: Any) -> Any:
        if token and not request.url.path.startswith("/static/"):
            given = request.query_params.get("token") or request.headers.get("x-board-token") or ""
            auth = request.headers.get("authorization", "")
            if not given and auth.lower().startswith("bearer "):
                given = auth[7:].strip()
            if not secrets.compare_digest(given.encode(), token.encode()):
                return JSONResponse({"error": "a valid token is required (?token=...)"}, status_code=401)
        return await call_next(request)

    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    def page(name: str) -> HTMLResponse:
        return HTMLResponse((static / name).read_text(encoding="utf-8"),
                            headers={"Cache-Control": "no-store"})

    @app.get("/")
    async def index() -> HTMLResponse:
        return page("index.html")

    @app.get("/history")
    async def history_page() -> HTMLResponse:
        return page("history.html")

    @app.get("/history/{match_id}")
    async def match_page(match_id: int) -> HTMLResponse:
        return page("match.html")

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/api/state")
    async def state() -> Response:
        return Response(_json(hub.snapshot()), media_type="application/json")

    @app.get("/api/stream")
    async def stream(request: Request) -> EventSourceResponse:
        q = hub.subscribe()

        async def events() -> Any:
            try:
                while True:
                    try:
                        snap = await asyncio.wait_for(q.get(), timeout=15)
                    except asyncio.TimeoutError:
                        yield {"event": "ping", "data": "{}"}
                        continue
                    if await request.is_disconnected():
                        break
                    yield {"event": "state", "data": _json(snap)}
            finally:
                hub.unsubscribe(q)

        return EventSourceResponse(events(), ping=15)

    @app.post("/api/command", status_code=202)
    async def command(request: Request) -> dict[str, Any]:
        try:
            body = await request.json()
            event = body.get("event")
            if event is None and isinstance(body.get("text"), str):
                event = parse_typed_text(body["text"])
            index = body.get("index")
            cmd = BoardCommand(action=str(body.get("action")), pending_id=body.get("pending_id"), event=event,
                               index=int(index) if index is not None else None)
        except (ValueError, AttributeError, TypeError) as err:
            raise HTTPException(status_code=400, detail=str(err)) from None
        hub.submit(cmd)
        return {"queued": cmd.action}

    # ------------------------------------------------------------ history pages
    def store() -> Any:
        if hub.history_store is None:
            raise HTTPException(status_code=404, detail="no history store attached to this board")
        return hub.history_store

    @app.get("/api/matches")
    async def matches(player: str | None = None, limit: int = 100) -> Response:
        from companion.history.exchange import match_meta

        rows = await asyncio.to_thread(store().list_matches, player=player, limit=limit)
        data = [{"id": m.id, **match_meta(m, with_events=False)} for m in rows]
        return Response(_json(data), media_type="application/json")

    @app.get("/api/matches/{match_id}")
    async def match_detail(match_id: int) -> Response:
        from companion.history.stats import match_summary
        from companion.history.store import NoSuchMatch

        try:
            data = await asyncio.to_thread(match_summary, store(), match_id)
        except NoSuchMatch as err:
            raise HTTPException(status_code=404, detail=str(err)) from None
        return Response(_json(data), media_type="application/json")

    @app.get("/api/matches/{match_id}/chart.{fmt}")
    async def match_chart(match_id: int, fmt: str) -> Response:
        from companion.history.charts import MEDIA_TYPES, match_score_chart

        if fmt not in MEDIA_TYPES:
            raise HTTPException(status_code=404, detail="png or svg")
        data = await asyncio.to_thread(match_score_chart, store(), match_id, fmt)
        return Response(data, media_type=MEDIA_TYPES[fmt])

    @app.get("/api/stats")
    async def stats_api() -> Response:
        from companion.history.stats import compute_stats

        data = await asyncio.to_thread(compute_stats, store())
        return Response(_json(data.to_dict()), media_type="application/json")

    @app.get("/api/stats/chart.{fmt}")
    async def stats_chart(fmt: str, player: str | None = None) -> Response:
        from companion.history.charts import MEDIA_TYPES, stats_over_time_chart

        if fmt not in MEDIA_TYPES:
            raise HTTPException(status_code=404, detail="png or svg")
        data = await asyncio.to_thread(stats_over_time_chart, store(), fmt, player)
        return Response(data, media_type=MEDIA_TYPES[fmt])

    return app


class BoardServer:
    """A running board (uvicorn in a daemon thread)."""

    def __init__(self, hub: BoardHub, host: str, port: int, token: str | None) -> None:
        import uvicorn

        self.hub = hub
        self.host = host
        self.token = token
        config = uvicorn.Config(create_app(hub, token), host=host, port=port, log_level="warning",
                                timeout_graceful_shutdown=1, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="companion-board", daemon=True)
        self.port = port

    def start(self, timeout: float = 15.0) -> str:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive():
                raise OSError(f"the board could not listen on {self.host}:{self.port}")
            if time.monotonic() > deadline:
                raise TimeoutError("the board server did not start")
            time.sleep(0.02)
        for server in getattr(self._server, "servers", []):
            for sock in server.sockets:
                self.port = sock.getsockname()[1]
                break
        return self.url

    @property
    def url(self) -> str:
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = lan_address()
        if ":" in host:
            host = f"[{host}]"
        base = f"http://{host}:{self.port}/"
        return base + (f"?token={self.token}" if self.token else "")

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)


def start_board(hub: BoardHub, host: str = "127.0.0.1", port: int = 8765,
                token: str | None = None) -> str:
    """Serve ``hub`` in a background thread; returns the URL to open (token included).

    ``port=0`` picks a free port.  A host other than loopback always gets a
    token: the given one, or a fresh random one.  The running server is kept
    as ``hub.server`` (``hub.server.stop()`` shuts it down).
    """
    if not is_loopback(host) and not token:
        token = new_token()
    server = BoardServer(hub, host, port, token)
    url = server.start()
    hub.server = server  # type: ignore[attr-defined]
    return url
