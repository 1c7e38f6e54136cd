"""A SELECT-only PostgreSQL role for the target database: the real safety boundary.

The validator and the read-only transaction are defense in depth; a role that can
only ``SELECT`` cannot write whatever SQL reaches the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote, urlencode

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from sqlgenie.errors import InputError

__all__ = ["create_reader_role", "reader_url"]


def create_reader_role(
    conn: psycopg.Connection,
    role: str,
    password: str | None,
    schemas: Sequence[str] = ("public",),
) -> list[str]:
    """Create (or update) ``role`` as a LOGIN role that can only read ``schemas``.

    Idempotent: running it again re-applies the grants (and sets the password when
    given). The role gets ``USAGE`` on each schema, ``SELECT`` on all its tables and
    views, and ``SELECT`` on tables created later by the role running this
    (``ALTER DEFAULT PRIVILEGES``). It is NOSUPERUSER, NOCREATEDB, NOCREATEROLE,
    NOREPLICATION, NOBYPASSRLS and defaults to read-only transactions. Privileges the
    role already had elsewhere are not revoked. Refuses superusers and the current
    user. Commits (in its own transaction or savepoint). Returns the schemas granted.
    """
    if not role or not role.strip():
        raise InputError("The role name is empty.", hint="Pass a name, e.g. `sqlgenie db create-reader sqlgenie_reader`.")
    schemas = list(dict.fromkeys(s for s in (schemas or ["public"]) if s)) or ["public"]
    ident = sql.Identifier(role)
    with conn.transaction():
        row = conn.execute(
            "SELECT rolsuper, rolname = current_user OR rolname = session_user FROM pg_roles WHERE rolname = %s",
            (role,),
        ).fetchone()
        if row is not None and (row[0] or row[1]):
            raise InputError(
                f"Refusing to turn {role!r} into a read-only role: it is a superuser or the role you are connected as.",
                hint="Pick a new role name, e.g. sqlgenie_reader.",
            )
        missing = [
            s
            for s in schemas
            if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (s,)).fetchone() is None
        ]
        if missing:
            raise InputError(
                f"Schema(s) {', '.join(missing)} do not exist in this database.",
                hint="List schemas with `sqlgenie sql \"SELECT nspname FROM pg_namespace\"` and pass them with --schema.",
            )
        attrs = sql.SQL("LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS")
        if password is not None:
            attrs = attrs + sql.SQL(" PASSWORD {}").format(sql.Literal(password))
        verb = sql.SQL("ALTER ROLE") if row is not None else sql.SQL("CREATE ROLE")
        conn.execute(sql.SQL("{} {} {}").format(verb, ident, attrs))
        conn.execute(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(ident))
        dbname = conn.execute("SELECT current_database()").fetchone()[0]
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(dbname), ident))
        for schema in schemas:
            s = sql.Identifier(schema)
            conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(s, ident))
            conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(s, ident))
            conn.execute(sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT SELECT ON TABLES TO {}").format(s, ident))
    return schemas


def reader_url(base_url: str, role: str, password: str | None) -> str:
    """``base_url`` (URI or key=value conninfo) rewritten to log in as ``role``, as a URI."""
    params = {k: v for k, v in conninfo_to_dict(base_url).items() if v is not None}
    params.pop("user", None)
    params.pop("password", None)
    host = str(params.pop("host", ""))
    port = params.pop("port", None)
    dbname = str(params.pop("dbname", ""))
    netloc = quote(role, safe="")
    if password is not None:
        netloc += ":" + quote(password, safe="")
    netloc += "@"
    if host and not host.startswith("/") and "," not in host:
        netloc += f"[{host}]" if ":" in host else host
        if port:
            netloc += f":{port}"
    else:
        if host:
            params["host"] = host
        if port:
            params["port"] = port
    query = urlencode({k: str(v) for k, v in params.items()}, safe="/")
    return f"postgresql://{netloc}/{quote(dbname, safe='')}" + (f"?{query}" if query else "")
