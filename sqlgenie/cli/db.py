"""``sqlgenie db``: the store database (embedded by default)."""

from __future__ import annotations

from typing import Any

import typer

from sqlgenie.cli.common import JSON_OPTION, console, print_json
from sqlgenie.config import get_settings, mask_secret
from sqlgenie.store import connect_store, embedded, store_url
from sqlgenie.store.migrations import applied_versions

app = typer.Typer(help="Manage the store database: the embedded PostgreSQL by default.", no_args_is_help=True)


def server_report() -> dict[str, Any]:
    """Start the store if needed and describe it (used by ``db status``)."""
    settings = get_settings()
    url = store_url(settings)  # starts the embedded server when needed
    report: dict[str, Any] = {"mode": "embedded" if settings.embedded else "external", "url": mask_secret("database_url", url)}
    if settings.embedded:
        st = embedded.status(settings.pgdata_dir)
        report.update(pgdata=str(st.pgdata), pid=st.pid, log_file=str(st.log_file), running=st.running)
    with connect_store(settings) as conn:
        report["server_version"] = conn.execute("SHOW server_version").fetchone()[0]
        report["extensions"] = dict(
            conn.execute("SELECT extname, extversion FROM pg_extension WHERE extname IN ('vector','pg_trgm')").fetchall()
        )
        report["migrations"] = applied_versions(conn)
        report["database"] = conn.execute("SELECT current_database()").fetchone()[0]
    report["running"] = True
    return report


@app.command("status")
def status(as_json: bool = JSON_OPTION) -> None:
    """Start the store if it is not running, apply migrations, and report it.

    Example: sqlgenie db status --json
    """
    report = server_report()
    if as_json:
        print_json(report)
        return
    console.print(f"[bold green]store running[/] ({report['mode']}) PostgreSQL {report['server_version']}")
    for key in ("url", "database", "pgdata", "pid", "log_file", "extensions", "migrations"):
        if key in report:
            console.print(f"  {key:<10} {report[key]}")


@app.command("start")
def start(as_json: bool = JSON_OPTION) -> None:
    """Start the embedded server (no-op when it runs or a URL is configured).

    Example: sqlgenie db start
    """
    status(as_json=as_json)


@app.command("stop")
def stop(as_json: bool = JSON_OPTION) -> None:
    """Stop the embedded server (data is kept under the data directory).

    Example: sqlgenie db stop
    """
    settings = get_settings()
    if not settings.embedded:
        msg = "A store URL is configured (SQLGENIE_DATABASE_URL); SQLGenie does not stop external servers."
        print_json({"stopped": False, "reason": msg}) if as_json else console.print(msg)
        return
    stopped = embedded.stop(settings.pgdata_dir)
    if as_json:
        print_json({"stopped": stopped, "pgdata": str(settings.pgdata_dir)})
    else:
        console.print("embedded server stopped" if stopped else "embedded server was not running")


@app.command("create-reader")
def create_reader(
    role: str = typer.Argument(..., help="Name of the role to create (or update if it exists)."),
    password: str | None = typer.Option(
        None, "--password", help="Password for the role (default: a random one is generated and printed)."
    ),
    schemas: list[str] | None = typer.Option(
        None, "--schema", "-s", help="Schema the role may read; repeat for several (default: public)."
    ),
    as_json: bool = JSON_OPTION,
) -> None:
    """Create a SELECT-only login role on the target database and print its URL.

    Run it as a role allowed to create roles and grant on the tables (e.g. the owner).
    Put the printed URL in SQLGENIE_TARGET_DATABASE_URL so generated SQL runs with
    read-only privileges: the real safety boundary (see docs/safety.md).

    Example: sqlgenie db create-reader sqlgenie_reader --schema public --schema sales
    """
    import secrets

    from sqlgenie.executor.roles import create_reader_role, reader_url
    from sqlgenie.store import open_connection
    from sqlgenie.store.connection import target_url

    url = target_url(get_settings())
    generated = password is None
    if generated:
        password = secrets.token_urlsafe(18)
    with open_connection(url, autocommit=True) as conn:
        granted = create_reader_role(conn, role, password, schemas or ["public"])
    new_url = reader_url(url, role, password)
    if as_json:
        print_json({"role": role, "schemas": granted, "url": new_url, "password_generated": generated})
        return
    console.print(f"read-only role {role!r} ready (SELECT on schemas: {', '.join(granted)})", markup=False)
    if generated:
        console.print("A random password was generated; it is part of the URL below (store it safely).", markup=False)
    console.print("Set this to run generated SQL as that role:", markup=False)
    console.print(f"SQLGENIE_TARGET_DATABASE_URL={new_url}", markup=False, highlight=False, soft_wrap=True)
