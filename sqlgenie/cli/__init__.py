"""The ``sqlgenie`` command: a thin layer over the library."""

from __future__ import annotations

import sys

import typer

from sqlgenie import __version__
from sqlgenie.cli import (
    ask_cmd,
    bank_cmd,
    config_cmd,
    correct_cmd,
    db,
    demo_cmd,
    eval_bank_cmd,
    eval_cmd,
    eval_critic_cmd,
    eval_joins_cmd,
    eval_keys_cmd,
    eval_retrieval_cmd,
    eval_schema_cmd,
    eval_select_cmd,
    eval_values_cmd,
    feedback_cmd,
    link_cmd,
    llm_cmd,
    onboard_cmd,
    serve_cmd,
    sql_cmd,
)
from sqlgenie.cli.common import err_console
from sqlgenie.errors import SqlGenieError

app = typer.Typer(
    name="sqlgenie",
    help="SQLGenie turns business questions into correct, efficient SQL over PostgreSQL.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("ask")(ask_cmd.ask)
app.add_typer(db.app, name="db")
app.add_typer(config_cmd.app, name="config")
app.command("sql")(sql_cmd.sql)
app.add_typer(demo_cmd.app, name="demo")
app.add_typer(onboard_cmd.onboard_app, name="onboard")
app.add_typer(onboard_cmd.tables_app, name="tables")
app.add_typer(onboard_cmd.joins_app, name="joins")
app.add_typer(onboard_cmd.columns_app, name="columns")
app.command("correct")(correct_cmd.correct)
app.command("link")(link_cmd.link)
app.add_typer(bank_cmd.app, name="bank")
eval_keys_cmd.register(eval_cmd.app)
eval_joins_cmd.register(eval_cmd.app)
eval_cmd.app.command("bank")(eval_bank_cmd.bank)
eval_cmd.app.command("text2sql-split")(eval_bank_cmd.text2sql_split)
eval_cmd.app.command("retrieval")(eval_retrieval_cmd.retrieval)
eval_cmd.app.command("schema")(eval_schema_cmd.schema)
eval_cmd.app.command("values")(eval_values_cmd.values)
eval_cmd.app.command("critic")(eval_critic_cmd.critic)
eval_cmd.app.command("select")(eval_select_cmd.select)
app.add_typer(eval_cmd.app, name="eval")
app.add_typer(llm_cmd.app, name="llm")
app.command("serve")(serve_cmd.serve)
app.add_typer(serve_cmd.users_app, name="users")
app.command("mcp")(serve_cmd.mcp)
feedback_cmd.register(app)


def _first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, on one line."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    end = paragraph.find(". ")
    return paragraph[: end + 1] if end > 0 else paragraph


def _short_helps(typer_app: typer.Typer) -> None:
    """Command lists show one sentence per command: a docstring's first paragraph keeps
    its line breaks in rich help, which cut the list's lines mid-sentence."""
    for info in typer_app.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if info.short_help is None and doc:
            info.short_help = _first_sentence(doc)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _short_helps(group.typer_instance)


_short_helps(app)


def _version(value: bool) -> None:
    if value:
        print(f"sqlgenie {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """SQLGenie turns business questions into correct, efficient SQL over PostgreSQL."""


def main() -> None:
    """Entry point: run the app, turning SqlGenieError into a clear message and exit code."""
    try:
        app()  # standalone mode: click reports usage errors itself
    except SqlGenieError as exc:
        err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False)
        if exc.hint:
            err_console.print(f"[dim]hint:[/] {exc.hint}", highlight=False)
        sys.exit(exc.exit_code)
