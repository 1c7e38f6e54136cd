"""Connections to the store and the target database.

One-shot CLI calls use plain connections (:func:`connect_store`,
:func:`connect_target`); the long-running server uses :func:`store_pool`.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import psycopg

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import DatabaseConnectionError
from sqlgenie.store import embedded


def store_url(settings: Settings | None = None) -> str:
    """URL of the store; starts the embedded server when no URL is configured."""
    settings = settings or get_settings()
    if settings.database_url is not None:
        return settings.database_url.get_secret_value()
    return embedded.ensure_running(settings.pgdata_dir)


def target_url(settings: Settings | None = None) -> str:
    """URL of the database questions run against (defaults to the store)."""
    settings = settings or get_settings()
    if settings.target_database_url is not None:
        return settings.target_database_url.get_secret_value()
    return store_url(settings)


def open_connection(url: str, *, autocommit: bool = False, **kwargs) -> psycopg.Connection:
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=10, **kwargs)
    except psycopg.OperationalError as exc:
        raise DatabaseConnectionError(f"Cannot connect to the database: {str(exc).strip()}") from exc


@contextmanager
def connect_store(settings: Settings | None = None, *, migrate: bool = True) -> Iterator[psycopg.Connection]:
    """A connection to the store with migrations applied (commit on success)."""
    settings = settings or get_settings()
    url = store_url(settings)
    if migrate:
        from sqlgenie.store.migrations import ensure_migrated

        ensure_migrated(url)
    conn = open_connection(url)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


@contextmanager
def connect_target(settings: Settings | None = None) -> Iterator[psycopg.Connection]:
    """A connection to the target database (no migrations; read-only use)."""
    conn = open_connection(target_url(settings))
    try:
        with conn:
            yield conn
    finally:
        conn.close()


def store_pool(settings: Settings | None = None, *, min_size: int = 1, max_size: int = 10):
    """A psycopg_pool.ConnectionPool on the store for long-running processes."""
    from psycopg_pool import ConnectionPool

    from sqlgenie.store.migrations import ensure_migrated

    url = store_url(settings)
    ensure_migrated(url)
    return ConnectionPool(url, min_size=min_size, max_size=max_size, open=True, kwargs={"connect_timeout": 10})
