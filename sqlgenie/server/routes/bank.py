"""The example bank: list, show and search (askers), add (reviewers)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from sqlgenie.server.auth import role
from sqlgenie.server.responses import json_response
from sqlgenie.server.users import User

router = APIRouter(prefix="/api/bank", tags=["bank"])


class BankAddRequest(BaseModel):
    question: str = Field(..., min_length=1)
    sql: str = Field(..., min_length=1)
    dialect: str = "postgres"
    status: str = "verified"


@router.get("", summary="List examples (as `sqlgenie bank list --json`)")
def list_examples(request: Request, status: str | None = None, source: str | None = None, table: str | None = None,
                  limit: int = Query(50, ge=1, le=1000), offset: int = Query(0, ge=0),
                  user: User = Depends(role("asker"))):
    from example_bank.service import list_examples as run

    with request.app.state.sqlgenie.store() as store:
        return json_response(run(store, status=status, source=source, table=table, limit=limit, offset=offset))


@router.get("/search", summary="Examples closest to a question (as `sqlgenie bank search --json`)")
def search(request: Request, q: str = Query(..., min_length=1, description="The question."),
           k: int = Query(5, ge=1, le=50), threshold: float | None = Query(None, ge=0, le=1),
           user: User = Depends(role("asker"))):
    from example_bank.service import search_examples

    state = request.app.state.sqlgenie
    limit = state.settings.match_threshold if threshold is None else threshold
    with state.store_and_target() as (store, target):
        return json_response(search_examples(store, target, q, encode=state.encode, threshold=limit, k=k))


@router.get("/{example_id}", summary="One example (as `sqlgenie bank show --json`)")
def show(example_id: int, request: Request, user: User = Depends(role("asker"))):
    from example_bank.service import show_example

    with request.app.state.sqlgenie.store() as store:
        return json_response(show_example(store, example_id))


@router.post("", summary="Add a verified pair (as `sqlgenie bank add --json`); reviewers", status_code=201)
def add(body: BankAddRequest, request: Request, user: User = Depends(role("reviewer"))):
    from example_bank.service import add_example

    state = request.app.state.sqlgenie
    with state.store_and_target() as (store, target):
        payload = add_example(store, target, state.target_url, body.question, body.sql, encode=state.encode,
                              model_name=state.settings.embedding_model, dialect=body.dialect, status=body.status,
                              source="user")
    state.askers.invalidate()
    return json_response(payload, status_code=201)
