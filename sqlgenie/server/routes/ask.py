"""``POST /api/ask``: the same JSON as ``sqlgenie ask --json``."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from sqlgenie.server.auth import role
from sqlgenie.server.render import TerminalStyle, render_text
from sqlgenie.server.responses import json_response
from sqlgenie.server.users import User

router = APIRouter(prefix="/api", tags=["ask"])


class AskRequest(BaseModel):
    question: str = Field(..., min_length=1, max_length=4000, examples=["How many orders were placed in 2024?"])
    route: Literal["auto", "match", "think"] = "auto"
    execute: bool = True
    limit: int | None = Field(None, ge=1, description="Return at most N rows (LIMIT N when the query has none).")
    text_rows: bool = Field(False, description="Also return `rows_text`: each value as the CLI prints it.")
    render: TerminalStyle | None = Field(None, description="Also return `rendered`: the answer as `sqlgenie ask`"
                                         " prints it on a terminal of this style (forwarded one-shot asks).")


@router.post("/ask", summary="Answer a question: SQL, rows and explanation (as `sqlgenie ask --json`)")
def ask(body: AskRequest, request: Request, user: User = Depends(role("asker"))):
    state = request.app.state.sqlgenie
    with state.askers.checkout() as asker:
        result = asker.ask(body.question, route=body.route, execute=body.execute, limit=body.limit)
    data = result.to_dict()
    if body.text_rows:
        data["rows_text"] = [["" if v is None else str(v) for v in row] for row in result.rows]
    if body.render is not None:
        data["rendered"] = render_text(data, body.render)
    return json_response(data)
