"""Onboarded tables and joins: read (askers), accept or reject a join (admins)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query, Request

from sqlgenie.server.auth import role
from sqlgenie.server.responses import json_response
from sqlgenie.server.users import User

router = APIRouter(prefix="/api", tags=["catalog"])


@router.get("/tables", summary="Onboarded tables (as `sqlgenie tables list --json`)")
def tables(request: Request, schema: str | None = None, user: User = Depends(role("asker"))):
    from onboarding.catalog_admin import list_tables

    with request.app.state.sqlgenie.store() as store:
        return json_response({"tables": list_tables(store, schema)})


@router.get("/tables/{name}", summary="One table: columns, keys, joins, values (as `sqlgenie tables show --json`)")
def table(name: str, request: Request, values: int = Query(10, ge=0, le=200), user: User = Depends(role("asker"))):
    from onboarding.catalog_admin import show_table

    with request.app.state.sqlgenie.store() as store:
        return json_response(show_table(store, name, values=values))


@router.get("/joins", summary="Join candidates (as `sqlgenie joins list --json`)")
def joins(request: Request, status: Literal["proposed", "accepted", "rejected"] | None = None,
          table: str | None = None, user: User = Depends(role("asker"))):
    from onboarding.catalog_admin import list_joins, resolve_onboarded

    with request.app.state.sqlgenie.store() as store:
        tid = resolve_onboarded(store, table)[0] if table else None
        return json_response({"joins": list_joins(store, status=status, table_id=tid)})


def _decide(request: Request, join_id: int, status: str):
    from onboarding.catalog_admin import decide_join

    state = request.app.state.sqlgenie
    with state.store() as store:
        row = decide_join(store, join_id, status)
    state.askers.invalidate()
    return json_response(row)


@router.post("/joins/{join_id}/accept", summary="Accept a join (a human decision); admins")
def accept_join(join_id: int, request: Request, user: User = Depends(role("admin"))):
    return _decide(request, join_id, "accepted")


@router.post("/joins/{join_id}/reject", summary="Reject a join (a human decision); admins")
def reject_join(join_id: int, request: Request, user: User = Depends(role("admin"))):
    return _decide(request, join_id, "rejected")
