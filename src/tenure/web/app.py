"""The web page's HTTP API: JSON over the Tenure API, and the static page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tenure.api import Tenure
from tenure.memories import MemoriesError
from tenure.web.guard import LoopbackGuard

STATIC = Path(__file__).parent / "static"


class Superseding(msgspec.Struct):
    """The body of a supersede: what is true now."""

    content: str
    title: str | None = None


_superseding = msgspec.json.Decoder(Superseding)  # refuses other shapes, invalid JSON and invalid Unicode


def create_app(tenure: Tenure) -> Starlette:
    memories = tenure.memories

    def index(_: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    def knowledge_map(request: Request) -> JSONResponse:
        return _answer(lambda: memories.knowledge_map(request.query_params.get("level", "module")))

    def review(_: Request) -> JSONResponse:
        return _answer(memories.review)

    def recall(request: Request) -> JSONResponse:
        elements = request.query_params.getlist("element") or None
        return _answer(lambda: memories.recall(request.query_params.get("q", ""), elements=elements, limit=20))

    def memory(request: Request) -> JSONResponse:
        return _answer(lambda: tenure.memory_detail(request.path_params["ref"]))

    def confirm(request: Request) -> JSONResponse:
        return _answer(lambda: memories.confirm(request.path_params["ref"]))

    async def supersede(request: Request) -> JSONResponse:
        try:
            body = _superseding.decode(await request.body())
        except (msgspec.DecodeError, RecursionError) as exc:  # (a RecursionError: unknown fields nested deep)
            return JSONResponse({"error": f"the body must be a JSON object with a `content` string and optionally a "
                                          f"`title` string: {exc}"}, status_code=400)
        return await run_in_threadpool(_answer, lambda: memories.supersede(
            request.path_params["ref"], body.content, title=body.title or None))

    routes = [
        Route("/", index),
        Route("/api/map", knowledge_map),
        Route("/api/review", review),
        Route("/api/recall", recall),
        Route("/api/memory/{ref}", memory),
        Route("/api/memory/{ref}/confirm", confirm, methods=["POST"]),
        Route("/api/memory/{ref}/supersede", supersede, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(LoopbackGuard)])


def _answer(call: Any) -> JSONResponse:
    """The API's answer, or its refusal (which says what to do) as a 400."""
    try:
        return JSONResponse(call())
    except MemoriesError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
