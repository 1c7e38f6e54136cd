"""The FastAPI app: ``create_app()`` (``sqlgenie serve`` runs it with uvicorn).

One long-lived process: the settings, a store connection pool, warm askers and
the embedding model are loaded once by the lifespan and shared by the requests
(:class:`~sqlgenie.server.state.ServerState`). Routes live in :mod:`.routes`.
"""

from __future__ import annotations

import time
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request

from sqlgenie import __version__
from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import SqlGenieError
from sqlgenie.server.responses import json_response, library_error_handler

DESCRIPTION = """SQLGenie's HTTP API: business questions to SQL, rows and an explanation.

Every route but `/api/health` needs `Authorization: Bearer TOKEN`, a token made by
`sqlgenie users add NAME --role asker|reviewer|admin`. Askers ask and give feedback;
reviewers also review and edit the bank; admins also accept or reject joins."""


def create_app(settings: Settings | None = None, *, askers: int | None = None, warm_model: bool = True) -> FastAPI:
    """The app; its lifespan opens the store pool and the askers (``askers``:
    how many, default ``settings.server_askers``)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        from sqlgenie.server.state import ServerState

        app.state.sqlgenie = ServerState(settings or get_settings(), askers=askers, warm_model=warm_model)
        try:
            yield
        finally:
            app.state.sqlgenie.close()

    app = FastAPI(title="SQLGenie", version=__version__, description=DESCRIPTION, lifespan=lifespan)
    app.add_exception_handler(SqlGenieError, library_error_handler)
    cors = (settings or get_settings()).server_cors_origins
    if cors:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=cors, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])

    @app.get("/api/health", tags=["health"], summary="Liveness and which store this server uses (no token)")
    def health(request: Request) -> Any:
        state = request.app.state.sqlgenie
        return json_response({"status": "ok", "service": "sqlgenie", "version": __version__,
                              "store": state.identity, "askers": state.askers.size,
                              "uptime_s": round(time.time() - state.started, 1)})

    from sqlgenie.server.auth import role
    from sqlgenie.server.routes import ask, bank, catalog, feedback, pages
    from sqlgenie.server.users import User

    @app.get("/api/me", tags=["health"], summary="The user behind the token")
    def whoami(user: User = Depends(role("asker"))) -> Any:
        return json_response(user.to_dict())

    for module in (ask, bank, catalog, feedback, pages):
        app.include_router(module.router)
    return app
