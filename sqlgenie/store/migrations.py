"""Versioned migrations: plain SQL files ``NNNN_name.sql`` in ``store/migrations/``,
applied in order inside one transaction under an advisory lock and recorded in
``sqlgenie.schema_migrations``. Re-running is a no-op; concurrent runs serialize.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg
from psycopg import errors as pg_errors

from sqlgenie.errors import MigrationError, MissingExtensionError

# Arbitrary constant key for pg_advisory_xact_lock ("sqlgenie" in ASCII, truncated).
MIGRATION_LOCK_KEY = 0x73716C67656E
REQUIRED_EXTENSIONS = ("vector", "pg_trgm")
_FILE_RE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_checked_urls: set[str] = set()


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available_migrations() -> list[Migration]:
    folder = resources.files("sqlgenie.store").joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = _FILE_RE.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"Duplicate migration versions in package: {versions}")
    return found


def ensure_extensions(conn: psycopg.Connection) -> None:
    """CREATE EXTENSION IF NOT EXISTS for each required extension, with a clear
    error naming what is missing when the role may not create it."""
    for ext in REQUIRED_EXTENSIONS:
        installed = conn.execute("SELECT 1 FROM pg_extension WHERE extname = %s", (ext,)).fetchone()
        if installed:
            continue
        available = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s", (ext,)).fetchone()
        if not available:
            raise MissingExtensionError(
                f"PostgreSQL extension '{ext}' is not installed on the store server.",
                hint=f"Install it on the server (package for '{ext}'), or unset SQLGENIE_DATABASE_URL "
                "to use the embedded server, which bundles pgvector and pg_trgm.",
            )
        try:
            with conn.transaction():
                conn.execute(f'CREATE EXTENSION IF NOT EXISTS "{ext}"')
        except pg_errors.InsufficientPrivilege as exc:
            raise MissingExtensionError(
                f"The store role may not create extension '{ext}': {exc}",
                hint=f"Ask an administrator to run: CREATE EXTENSION {ext};  in the store database.",
            ) from exc


def migrate(conn: psycopg.Connection) -> list[Migration]:
    """Apply pending migrations; returns those applied. ``conn`` must not be in a transaction."""
    applied_now: list[Migration] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
        ensure_extensions(conn)
        conn.execute("CREATE SCHEMA IF NOT EXISTS sqlgenie")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS sqlgenie.schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {row[0] for row in conn.execute("SELECT version FROM sqlgenie.schema_migrations")}
        for migration in available_migrations():
            if migration.version in done:
                continue
            try:
                with conn.transaction():
                    conn.execute(migration.sql)
            except psycopg.Error as exc:
                raise MigrationError(
                    f"Migration {migration.version:04d}_{migration.name} failed: {str(exc).strip()}",
                    hint="Nothing was applied. Report this with the server version (`sqlgenie db status`).",
                ) from exc
            conn.execute(
                "INSERT INTO sqlgenie.schema_migrations (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
            applied_now.append(migration)
    return applied_now


def applied_versions(conn: psycopg.Connection) -> list[int]:
    exists = conn.execute("SELECT to_regclass('sqlgenie.schema_migrations')").fetchone()[0]
    if exists is None:
        return []
    return [row[0] for row in conn.execute("SELECT version FROM sqlgenie.schema_migrations ORDER BY version")]


def ensure_migrated(url: str) -> None:
    """Migrate the store at ``url`` once per process (cheap after the first call)."""
    if url in _checked_urls:
        return
    from sqlgenie.store.connection import open_connection

    with open_connection(url, autocommit=True) as conn:
        # Compare sets, not maxima: a migration numbered below one already applied
        # (branches landing in another order) must still run.
        if {m.version for m in available_migrations()} - set(applied_versions(conn)):
            migrate(conn)
    _checked_urls.add(url)
