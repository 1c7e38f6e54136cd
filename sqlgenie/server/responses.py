"""JSON responses with the same encoding as the CLI's ``--json`` (Decimals as
numbers, dates as ISO strings), and typed library errors as HTTP errors."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from sqlgenie.errors import (
    DatabaseConnectionError,
    InputError,
    LLMError,
    SQLError,
    SqlGenieError,
    StoreError,
    UnknownTableError,
)


def dumps(data: Any) -> str:
    """The exact text ``print_json`` writes (without its newline)."""
    from sqlgenie.jsonable import to_jsonable

    return json.dumps(to_jsonable(data), ensure_ascii=False, default=str)


def json_response(data: Any, status_code: int = 200) -> Response:
    return Response(dumps(data), status_code=status_code, media_type="application/json")


def error_status(exc: SqlGenieError) -> int:
    if isinstance(exc, UnknownTableError) or (isinstance(exc, InputError) and exc.message.startswith("No ")):
        return 404
    if isinstance(exc, (InputError, SQLError)):  # the request's question, SQL or options
        return 400
    if isinstance(exc, DatabaseConnectionError):
        return 503
    if isinstance(exc, LLMError):
        return 502
    if isinstance(exc, StoreError):
        return 500
    return 422


async def library_error_handler(_request: Request, exc: SqlGenieError) -> JSONResponse:
    return JSONResponse({"detail": exc.message, "hint": exc.hint, "error": type(exc).__name__},
                        status_code=error_status(exc))
