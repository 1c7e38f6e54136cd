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
