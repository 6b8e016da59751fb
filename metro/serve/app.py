"""The routes: the JSON API, the match websocket, and the two pages (lobby, play)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import jinja2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from metro.bots import bot_names, levels
from metro.serve.limits import (
    BOT_BUDGETS,
    MAX_BODY_BYTES,
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_MATCH,
)
from metro.serve.requests import (
    BadRequest,
    action_request,
    invitation,
    json_body,
    match_request,
    message_request,
    seat_token,
    undo_request,
)
from metro.serve.service import MatchService, SeatToken

POLICY_VIOLATION = 1008  # websocket close code: the request broke a rule (a bad token)
TRY_AGAIN_LATER = 1013  # websocket close code: too many connections


@dataclass
class Connections:
    """How many websockets are open over all matches."""

    open: int = 0


def create_app(service: MatchService, hosts: list[str]) -> Starlette:
    """The ASGI application serving `service`'s matches to requests naming one of `hosts`."""
    pages = jinja2.Environment(
        loader=jinja2.PackageLoader("metro.serve", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    connections = Connections()

    async def games(request: Request) -> Response:
        listed = []
        for entry in service.catalog.entries.values():
            game = await service.compiled(entry.name, (), ())
            listed.append(
                {
                    "name": entry.name,
                    "title": game.name,
                    "players": [game.min_players, game.max_players],
                    "variants": list(entry.variants),
                    "expansions": list(entry.expansions),
                    "bots": bot_names(game),
                    "levels": [{"name": n, "bot": b} for n, b in levels(game).items()],
                    "budgets": [
                        {"bot": b.bot, "unit": b.unit, "suffix": b.suffix, "max": b.most}
                        for b in BOT_BUDGETS
                        if b.bot in bot_names(game)
                    ],
                }
            )
        return JSONResponse(listed)

    async def create(request: Request) -> Response:
        asked = match_request(json_body(await _body(request)))
        match_id, seats, invite = await service.create(asked)
        return JSONResponse(
            {
                "match": match_id,
                "seats": [_seat_link(match_id, seat) for seat in seats],
                "spectate": f"/play/{match_id}",
                "invite": None if invite is None else f"/join/{match_id}?code={invite}",
            }
        )

    async def join(request: Request) -> Response:
        code = invitation(json_body(await _body(request)))
        match_id = request.path_params["match_id"]
        return JSONResponse(_seat_link(match_id, await service.join(match_id, code)))

    async def join_page(request: Request) -> Response:
        match = await service.match(request.path_params["match_id"])
        title = match.state.game.name
        html = pages.get_template("join.html.jinja").render(match_id=match.record.id, title=title)
        return HTMLResponse(html)

    async def show(request: Request) -> Response:
        match = await service.match(request.path_params["match_id"])
        viewer = service.viewer(match, request.query_params.get("token"))
        return JSONResponse(service.document(match, viewer))

    async def act(request: Request) -> Response:
        decision = action_request(json_body(await _body(request)))
        return JSONResponse(await service.act(request.path_params["match_id"], decision))

    async def undo(request: Request) -> Response:
        asked = undo_request(json_body(await _body(request)))
        return JSONResponse(await service.undo(request.path_params["match_id"], asked))

    async def play_again(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        token = seat_token(json_body(await _body(request)))
        next_id = await service.play_again(match_id, token)
        return JSONResponse({"match": next_id, "url": f"/play/{next_id}?token={token}"})

    async def say(request: Request) -> Response:
        asked = message_request(json_body(await _body(request)))
        return JSONResponse(await service.say(request.path_params["match_id"], asked))

    async def board(request: Request) -> Response:
        match = await service.match(request.path_params["match_id"])
        viewer = service.viewer(match, request.query_params.get("token"))
        return Response(await service.board(match, viewer), media_type="image/svg+xml")

    async def socket(websocket: WebSocket) -> None:
        try:
            match = await service.match(websocket.path_params["match_id"])
            viewer = service.viewer(match, websocket.query_params.get("token"))
        except BadRequest:
            await websocket.close(POLICY_VIOLATION)
            return
        if connections.open >= MAX_CONNECTIONS or match.connections >= MAX_CONNECTIONS_PER_MATCH:
            await websocket.close(TRY_AGAIN_LATER)
            return
        connections.open += 1
        match.connections += 1
        service.arrive(match, viewer)
        try:
            await websocket.accept()
            await _follow(websocket, service, match, viewer)
        except WebSocketDisconnect:
            pass
        finally:
            connections.open -= 1
            match.connections -= 1
            service.leave(match, viewer)

    async def lobby(request: Request) -> Response:
        return HTMLResponse(pages.get_template("lobby.html.jinja").render())

    async def play(request: Request) -> Response:
        match = await service.match(request.path_params["match_id"])
        service.viewer(match, request.query_params.get("token"))
        html = pages.get_template("play.html.jinja").render(match_id=match.record.id)
        return HTMLResponse(html)

    async def replay(request: Request) -> Response:
        match = await service.match(request.path_params["match_id"])
        viewer = service.viewer(match, request.query_params.get("token"))
        return HTMLResponse(await service.replay(match, viewer))

    async def refused(request: Request, error: Exception) -> Response:
        assert isinstance(error, BadRequest)
        return JSONResponse({"error": error.message}, status_code=error.status)

    return Starlette(
        routes=[
            Route("/", lobby),
            Route("/play/{match_id}", play),
            Route("/replay/{match_id}", replay),
            Route("/api/games", games),
            Route("/api/matches", create, methods=["POST"]),
            Route("/api/matches/{match_id}", show),
            Route("/api/matches/{match_id}/actions", act, methods=["POST"]),
            Route("/api/matches/{match_id}/undo", undo, methods=["POST"]),
            Route("/api/matches/{match_id}/again", play_again, methods=["POST"]),
            Route("/api/matches/{match_id}/chat", say, methods=["POST"]),
            Route("/api/matches/{match_id}/join", join, methods=["POST"]),
            Route("/join/{match_id}", join_page),
            Route("/api/matches/{match_id}/board", board),
            WebSocketRoute("/api/matches/{match_id}/ws", socket),
            Mount("/static", StaticFiles(packages=[("metro.serve", "static")]), name="static"),
        ],
        exception_handlers={BadRequest: refused},
        # A web page elsewhere must not reach a server on this machine by a name of its own
        # (DNS rebinding): requests name one of the server's hosts.
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
    )


def _seat_link(match_id: str, seat: SeatToken) -> dict:
    """A person's seat as a client receives it: its number, its token and its page."""
    return {"seat": seat.seat, "token": seat.token, "url": f"/play/{match_id}?token={seat.token}"}


async def _body(request: Request) -> bytes:
    """The request's JSON body, read no further than the size limit (413 beyond it).

    Only JSON is taken (415 for anything else): a page elsewhere can send a plain form or text
    to this server, but not JSON, without the browser asking the server first (CORS), which it
    never allows.
    """
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise BadRequest(415, "a request body is JSON, sent as application/json")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise BadRequest(413, f"a request body holds at most {MAX_BODY_BYTES} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise BadRequest(413, f"a request body holds at most {MAX_BODY_BYTES} bytes")
    return body


async def _follow(websocket: WebSocket, service: MatchService, match, viewer) -> None:
    """Send the match as `viewer` sees it now and after every change, until the client leaves."""
    listening = asyncio.ensure_future(_until_closed(websocket))
    try:
        while True:
            changed = match.changed
            await websocket.send_text(json.dumps(service.document(match, viewer)))
            waiting = asyncio.ensure_future(service.follow(match, changed))
            done, _ = await asyncio.wait({listening, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if listening in done:
                waiting.cancel()
                return
    finally:
        listening.cancel()


async def _until_closed(websocket: WebSocket) -> None:
    """Read (and ignore) what the client sends, until it disconnects."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
