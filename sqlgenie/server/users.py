"""Server users and bearer tokens (``sqlgenie users add NAME --role ROLE``).

A token is ``sg_`` + 43 URL-safe characters (256 random bits). It is shown once,
when it is made; the store keeps only its SHA-256 (migration 0009), so a leaked
store does not leak tokens. Roles are ordered: an admin may do what a reviewer
may, a reviewer what an asker may.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

import psycopg

from sqlgenie.errors import InputError

ROLES = ("asker", "reviewer", "admin")
_RANK = {role: i for i, role in enumerate(ROLES)}
TOKEN_PREFIX = "sg_"


@dataclass(frozen=True)
class User:
    id: int
    name: str
    role: str

    def may(self, role: str) -> bool:
        """True when this user's role includes ``role`` (admin > reviewer > asker)."""
        return _RANK[self.role] >= _RANK[role]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "role": self.role}


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_role(role: str) -> str:
    if role not in _RANK:
        raise InputError(f"Unknown role {role!r}.", hint="Use one of: " + ", ".join(ROLES) + ".")
    return role


def add_user(store: psycopg.Connection, name: str, role: str) -> tuple[User, str]:
    """Create user ``name`` (or give an existing one a new role) with a new token;
    returns the user and the token (shown once, never stored)."""
    name = (name or "").strip()
    if not name:
        raise InputError("The user name is empty.", hint="e.g. sqlgenie users add alice --role asker")
    check_role(role)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with store.transaction():
        row = store.execute(
            "INSERT INTO sqlgenie.users (name, role) VALUES (%s, %s)"
            " ON CONFLICT (name) DO UPDATE SET role = EXCLUDED.role, disabled_at = NULL RETURNING id",
            (name, role),
        ).fetchone()
        store.execute(
            "INSERT INTO sqlgenie.user_tokens (user_id, token_sha256, prefix) VALUES (%s, %s, %s)",
            (row[0], hash_token(token), token[:8]),
        )
    return User(int(row[0]), name, role), token


def list_users(store: psycopg.Connection) -> list[dict[str, Any]]:
    rows = store.execute(
        "SELECT u.id, u.name, u.role, u.created_at, u.disabled_at,"
        " count(t.id) FILTER (WHERE t.revoked_at IS NULL), max(t.last_used_at)"
        " FROM sqlgenie.users u LEFT JOIN sqlgenie.user_tokens t ON t.user_id = u.id"
        " GROUP BY u.id ORDER BY u.id"
    ).fetchall()
    return [{"id": r[0], "name": r[1], "role": r[2], "created_at": r[3], "disabled": r[4] is not None,
             "active_tokens": r[5], "last_used_at": r[6]} for r in rows]


def remove_user(store: psycopg.Connection, name: str) -> bool:
    """Disable ``name`` and revoke its tokens (its feedback and reviews keep its name)."""
    with store.transaction():
        row = store.execute(
            "UPDATE sqlgenie.users SET disabled_at = now() WHERE name = %s AND disabled_at IS NULL RETURNING id",
            (name,),
        ).fetchone()
        if row is None:
            return False
        store.execute("UPDATE sqlgenie.user_tokens SET revoked_at = now() WHERE user_id = %s AND revoked_at IS NULL",
                      (row[0],))
    return True


def user_for_token(store: psycopg.Connection, token: str) -> User | None:
    """The active user owning ``token``, or None."""
    if not token or not token.startswith(TOKEN_PREFIX):
        return None
    row = store.execute(
        "SELECT u.id, u.name, u.role FROM sqlgenie.user_tokens t JOIN sqlgenie.users u ON u.id = t.user_id"
        " WHERE t.token_sha256 = %s AND t.revoked_at IS NULL AND u.disabled_at IS NULL",
        (hash_token(token),),
    ).fetchone()
    return None if row is None else User(int(row[0]), row[1], row[2])
