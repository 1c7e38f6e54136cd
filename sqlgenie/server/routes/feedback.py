"""Feedback (askers), the review queue (reviewers) and job status: the feedback
library (``sqlgenie.feedback``) does the work; it is imported when first used."""

from __future__ import annotations

import importlib
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BaseModel, Field

from sqlgenie.server.auth import role
from sqlgenie.server.responses import json_response
from sqlgenie.server.users import User

router = APIRouter(prefix="/api", tags=["feedback"])


def _feedback(module: str) -> Any:
    try:
        return importlib.import_module(f"sqlgenie.feedback.{module}")
    except ImportError as exc:
        raise HTTPException(501, f"Feedback is not available in this installation ({exc}).") from exc


def _dict(item: Any) -> Any:
    return item.to_dict() if hasattr(item, "to_dict") else item


class FeedbackRequest(BaseModel):
    ask_id: int = Field(..., description="The id of the answer (`id` in the ask JSON).")
    verdict: Literal["up", "down"]
    comment: str | None = Field(None, max_length=4000)
    sql: str | None = Field(None, max_length=20000, description="A corrected SQL, when you have one.")


class RejectRequest(BaseModel):
    reason: str | None = Field(None, max_length=4000)


@router.post("/feedback", summary="Thumbs up or down on an answer, with a comment or a corrected SQL")
def feedback(body: FeedbackRequest, request: Request, user: User = Depends(role("asker"))):
    service = _feedback("service")
    state = request.app.state.sqlgenie
    with state.store() as store:
        result = service.give_feedback(store, body.ask_id, body.verdict, comment=body.comment, sql=body.sql,
                                       user=user.name, settings=state.settings, encode=state.encode)
    state.askers.invalidate()  # a thumbs-up may have added a bank example
    return json_response(_dict(result))


@router.get("/review", summary="The review queue; reviewers")
def review_list(request: Request, state_: str | None = Query(None, alias="state"), limit: int = Query(100, ge=1, le=1000),
                user: User = Depends(role("reviewer"))):
    review = _feedback("review")
    with request.app.state.sqlgenie.store() as store:
        items = review.list_items(store, state=state_, limit=limit)
    return json_response({"items": [_dict(i) for i in items]})


@router.get("/review/{item_id}", summary="One review item; reviewers")
def review_show(item_id: int, request: Request, user: User = Depends(role("reviewer"))):
    review = _feedback("review")
    with request.app.state.sqlgenie.store() as store:
        item = review.get_item(store, item_id)
    if item is None:
        raise HTTPException(404, f"No review item with id {item_id}.")
    return json_response(_dict(item))


@router.post("/review/{item_id}/accept", summary="Accept a review item (its SQL goes to the bank); reviewers")
def review_accept(item_id: int, request: Request, user: User = Depends(role("reviewer"))):
    review = _feedback("review")
    state = request.app.state.sqlgenie
    with state.store() as store:
        result = review.accept(store, item_id, user=user.name, settings=state.settings, encode=state.encode)
    state.askers.invalidate()
    return json_response(_dict(result))


@router.post("/review/{item_id}/reject", summary="Reject a review item; reviewers")
def review_reject(item_id: int, request: Request, body: RejectRequest | None = None,
                  user: User = Depends(role("reviewer"))):
    review = _feedback("review")
    with request.app.state.sqlgenie.store() as store:
        result = review.reject(store, item_id, user=user.name, reason=body.reason if body else None)
    return json_response(_dict(result))


@router.get("/jobs", summary="Background jobs (feedback regeneration) and their state")
def jobs(request: Request, state_: str | None = Query(None, alias="state"), limit: int = Query(100, ge=1, le=1000),
         user: User = Depends(role("asker"))):
    queue = _feedback("queue")
    with request.app.state.sqlgenie.store() as store:
        items = queue.list_jobs(store, state=state_, limit=limit)
    return json_response({"jobs": [_dict(j) for j in items]})
