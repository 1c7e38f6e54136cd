"""Bearer-token auth and per-token rate limiting as FastAPI dependencies:
``Depends(role("reviewer"))`` gives the user or answers 401 (no or unknown token),
403 (a role below the one needed) or 429 (over the rate limit)."""

from __future__ import annotations

from typing import Callable

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from sqlgenie.server.users import ROLES, User, hash_token

_bearer = HTTPBearer(auto_error=False, description="A token from `sqlgenie users add NAME --role ROLE`.")


def role(needed: str) -> Callable[..., User]:
    """A dependency admitting users whose role includes ``needed``."""
    if needed not in ROLES:
        raise ValueError(f"unknown role {needed!r}")

    def dependency(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> User:
        state = request.app.state.sqlgenie
        token = credentials.credentials.strip() if credentials is not None else ""
        if not token:
            raise HTTPException(401, "A bearer token is needed: make one with `sqlgenie users add NAME --role asker`.",
                                headers={"WWW-Authenticate": "Bearer"})
        user = state.user_for(token)
        if user is None:
            raise HTTPException(401, "Unknown or revoked token.", headers={"WWW-Authenticate": "Bearer"})
        allowed, wait = state.limiter.allow(hash_token(token))
        if not allowed:
            raise HTTPException(429, f"Rate limit of {state.limiter.per_minute} requests per minute reached.",
                                headers={"Retry-After": str(max(1, round(wait)))})
        if not user.may(needed):
            raise HTTPException(403, f"This needs the {needed} role; {user.name} is {user.role}.")
        request.state.user = user
        return user

    dependency.__name__ = f"require_{needed}"
    return dependency

