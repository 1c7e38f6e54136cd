"""Dummy testing: run the SQL on tiny copies of its tables, never on the target.

For each real table the query reads (not CTEs), :class:`DummyTester`

1. resolves it on the **target** (``to_regclass`` with the query's search path)
   and reads its column types and fewer than 10 rows (``LIMIT dummy_rows``) in a
   read-only transaction;
2. creates a scratch schema ``sqlgenie_dummy_<random>`` in the **store** holding
   one table per referenced table with the same column types (a type unknown to the
   store becomes ``text``) and the sampled rows;
3. rewrites the query's table references (sqlglot) to the scratch tables — keeping
   the old name as the alias, so qualified columns still resolve — and runs it with
   the :class:`~sqlgenie.executor.SafeExecutor` on the store (validation, read-only,
   timeout, always rolled back);
4. drops the scratch schema, whatever happened.

A table that does not exist on the target is reported right away. When the run
fails and an LLM provider is given, a correction agent (prompt
``prompts/autocorrect_fix.txt``) gets the query, the error and the tables' columns,
and its answer is tested the same way (``dummy_llm_attempts`` rounds); otherwise,
or when the agent fails too, the error is reported.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Sequence

import psycopg
from psycopg import sql as pgsql
from sqlglot import exp

from sqlgenie.autocorrect.base import Change, parse_sql, to_sql
from sqlgenie.autocorrect.errors import DummyTestError
from sqlgenie.autocorrect.resolve import base_tables
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.errors import SqlGenieError, SQLError, UnknownIdentifierError

__all__ = ["DummyOutcome", "DummyTester", "create_scratch_table", "drop_scratch", "extract_sql",
           "insert_scratch_rows"]

NAME = "dummy_test"
SCRATCH_PREFIX = "sqlgenie_dummy_"


@dataclass
class DummyOutcome:
    ok: bool
    tree: exp.Expression
    changes: list[Change] = field(default_factory=list)
    error: SqlGenieError | None = None
    tables: list[str] = field(default_factory=list)  # target tables copied (schema.table)
    attempts: int = 1


@dataclass
class _Copy:
    node: exp.Table
    schema: str
    name: str
    columns: list[tuple[str, str]]
    rows: list[tuple]


def extract_sql(text: str) -> str:
    """The SQL of an LLM answer: the first ```sql block, else any ``` block, else the text."""
    for fence in ("```sql", "```SQL", "```postgresql", "```"):
        start = text.find(fence)
        if start >= 0:
            body = text[start + len(fence):]
            end = body.find("```")
            return (body[:end] if end >= 0 else body).strip().rstrip(";").strip()
    return text.strip().rstrip(";").strip()


class DummyTester:
    """Runs queries on sampled copies (see module doc). ``llm`` enables the correction agent."""

    def __init__(
        self,
        store_url: str,
        target_url: str | None = None,
        *,
        settings: AutocorrectSettings | None = None,
        search_path: Sequence[str] | None = None,
        llm: Any = None,
    ) -> None:
        self.store_url = store_url
        self.target_url = target_url or store_url
        self.settings = settings or AutocorrectSettings()
        self.search_path = list(search_path) if search_path else None
        self.llm = llm
        self.runs = 0

    # --- public ---------------------------------------------------------------------------

    def check(self, tree: exp.Expression, *, question: str | None = None) -> DummyOutcome:
        """Test ``tree``; with an LLM, try to repair a failure. Never raises SqlGenieError."""
        outcome = self._test(tree)
        if outcome.ok or self.llm is None or self.settings.dummy_llm_attempts == 0:
            return outcome
        current, error = tree, outcome.error
        for attempt in range(1, self.settings.dummy_llm_attempts + 1):
            try:
                fixed = self._ask_llm(current, error, outcome.tables, question)
            except SqlGenieError as exc:
                outcome.error = DummyTestError(
                    f"{error.message if error else 'The dummy test failed'} (the correction agent failed: {exc.message})",
                    sql=to_sql(tree),
                )
                return outcome
            retry = self._test(fixed)
            if retry.ok:
                change = Change(NAME, to_sql(tree), to_sql(fixed),
                                f"LLM correction after the dummy test failed: {error.message if error else ''}")
                return DummyOutcome(True, fixed, [change], None, retry.tables, attempt + 1)
            current, error = fixed, retry.error
        outcome.attempts = self.settings.dummy_llm_attempts + 1
        outcome.error = error
        return outcome

    # --- one test ------------------------------------------------------------------------

    def _test(self, tree: exp.Expression) -> DummyOutcome:
        self.runs += 1
        tree = tree.copy()
        try:
            copies = self._sample(tree)
        except SqlGenieError as exc:
            return DummyOutcome(False, tree, error=exc)
        except psycopg.Error as exc:
            return DummyOutcome(False, tree, error=DummyTestError(f"Sampling the tables failed: {exc}".strip()))
        tables = [f"{c.schema}.{c.name}" for c in copies]
        scratch = SCRATCH_PREFIX + secrets.token_hex(6)
        try:
            with psycopg.connect(self.store_url, autocommit=True, connect_timeout=10) as store:
                self._create(store, scratch, copies)
                try:
                    rewritten = self._rewrite(tree, scratch, copies)
                    error = self._run(rewritten, scratch)
                finally:
                    drop_scratch(store, scratch)
        except psycopg.Error as exc:
            return DummyOutcome(False, tree, error=DummyTestError(f"Preparing the dummy copies failed: {exc}".strip()),
                                tables=tables)
        if error is not None:
            return DummyOutcome(False, tree, error=self._unscratch(error, scratch, copies), tables=tables)
        return DummyOutcome(True, tree, tables=tables)

    def _sample(self, tree: exp.Expression) -> list[_Copy]:
        copies: list[_Copy] = []
        nodes = base_tables(tree)
        if not nodes:
            return copies
        with psycopg.connect(self.target_url, autocommit=False, connect_timeout=10) as conn:
            conn.execute("SET TRANSACTION READ ONLY")
            conn.execute("SELECT set_config('statement_timeout', %s, true)", (str(self.settings.dummy_timeout_ms),))
            if self.search_path:
                conn.execute(
                    pgsql.SQL("SET LOCAL search_path TO {}").format(
                        pgsql.SQL(", ").join(pgsql.Identifier(s) for s in self.search_path)
                    )
                )
            seen: dict[int, tuple[str, str, list, list]] = {}
            for node in nodes:
                parts = [p for p in (node.catalog, node.db, node.name) if p]
                name_text = ".".join(pgsql.Identifier(_fold(p, node)).as_string(conn) for p in parts)
                row = conn.execute(
                    "SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    " WHERE c.oid = to_regclass(%s)",
                    (name_text,),
                ).fetchone()
                if row is None:
                    raise UnknownIdentifierError(
                        f"Unknown table or view {'.'.join(parts)} (found by the dummy test; the query was not run).",
                        sql=to_sql(tree),
                    )
                oid, schema, name = row
                if oid not in seen:
                    columns = conn.execute(
                        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
                        " WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                        (oid,),
                    ).fetchall()
                    rows = conn.execute(
                        pgsql.SQL("SELECT * FROM {}.{} LIMIT {}").format(
                            pgsql.Identifier(schema), pgsql.Identifier(name),
                            pgsql.Literal(int(self.settings.dummy_rows)),
                        )
                    ).fetchall()
                    seen[oid] = (schema, name, columns, rows)
                schema, name, columns, rows = seen[oid]
                copies.append(_Copy(node, schema, name, [(c[0], c[1]) for c in columns], [tuple(r) for r in rows]))
            conn.rollback()
        return copies

    def _scratch_name(self, copy: _Copy, index: dict[str, str]) -> str:
        key = f"{copy.schema}.{copy.name}"
        if key not in index:
            index[key] = f"t{len(index)}_{copy.name}"[:60]
        return index[key]

    def _create(self, store: psycopg.Connection, scratch: str, copies: list[_Copy]) -> None:
        store.execute(pgsql.SQL("CREATE SCHEMA {}").format(pgsql.Identifier(scratch)))
        index: dict[str, str] = {}
        done: set[str] = set()
        for copy in copies:
            table = self._scratch_name(copy, index)
            if table in done:
                continue
            done.add(table)
            types = create_scratch_table(store, scratch, table, copy.columns)
            insert_scratch_rows(store, scratch, table, types, copy.rows)

    def _rewrite(self, tree: exp.Expression, scratch: str, copies: list[_Copy]) -> exp.Expression:
        index: dict[str, str] = {}
        out = tree.copy()
        # base_tables() on the copy yields the same nodes in the same order.
        nodes = base_tables(out)
        for node, copy in zip(nodes, copies):
            original = node.args["this"].copy()
            node.set("this", exp.to_identifier(self._scratch_name(copy, index), quoted=True))
            node.set("db", exp.to_identifier(scratch, quoted=True))
            node.set("catalog", None)
            if not node.alias:
                node.set("alias", exp.TableAlias(this=original))
        return out

    def _run(self, tree: exp.Expression, scratch: str) -> SqlGenieError | None:
        from sqlgenie.executor import SafeExecutor

        with SafeExecutor(self.store_url, statement_timeout_ms=self.settings.dummy_timeout_ms, row_cap=100) as ex:
            try:
                ex.run(to_sql(tree), search_path=[scratch, "public"])
            except SqlGenieError as exc:
                return exc
        return None

    @staticmethod
    def _unscratch(error: SqlGenieError, scratch: str, copies: list[_Copy]) -> SqlGenieError:
        """Put the real table names back into the error message."""
        message = error.message.replace(f'"{scratch}".', "").replace(f"{scratch}.", "")
        index: dict[str, str] = {}
        for copy in copies:
            key = f"{copy.schema}.{copy.name}"
            if key not in index:
                index[key] = f"t{len(index)}_{copy.name}"[:60]
                message = message.replace(index[key], key)
        cls = type(error) if isinstance(error, SQLError) else DummyTestError
        try:
            out = cls(f"{message} (found by the dummy test on sampled copies)", hint=error.hint)
        except TypeError:
            out = DummyTestError(message, hint=error.hint)
        for attr in ("identifier", "kind"):
            if hasattr(error, attr):
                setattr(out, attr, getattr(error, attr))
        return out

    # --- correction agent -------------------------------------------------------------------

    def _ask_llm(self, tree: exp.Expression, error: SqlGenieError | None, tables: list[str],
                 question: str | None) -> exp.Expression:
        from prompts import load_prompt
        from sqlgenie.executor import validate_sql
        from sqlgenie.llm import ChatMessage

        schema_lines = self._schema_lines(tables)
        prompt = load_prompt("autocorrect_fix.txt").safe_substitute(
            question=question or "", schema="\n".join(schema_lines) or "(unknown)", sql=to_sql(tree),
            error=error.message if error else "",
        )
        system = load_prompt("autocorrect_fix_system.txt").safe_substitute()
        response = self.llm.complete([ChatMessage("user", prompt)], system=system, stage="autocorrect")
        text = extract_sql(response.text)
        validate_sql(text)
        return parse_sql(text)

    def _schema_lines(self, tables: list[str]) -> list[str]:
        if not tables:
            return []
        lines = []
        try:
            with psycopg.connect(self.target_url, autocommit=True, connect_timeout=10) as conn:
                for qualified in dict.fromkeys(tables):
                    schema, _, name = qualified.partition(".")
                    cols = conn.execute(
                        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute a"
                        " JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                        " WHERE n.nspname = %s AND c.relname = %s AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                        (schema, name),
                    ).fetchall()
                    lines.append(f"{qualified}: " + ", ".join(f"{c} {t}" for c, t in cols))
        except psycopg.Error:
            return [f"{t}" for t in tables]
        return lines


# --- scratch tables (shared with sqlgenie.feedback.distinguish) ------------------------------


def create_scratch_table(store: psycopg.Connection, scratch: str, table: str,
                         columns: Sequence[tuple[str, str]]) -> list[str]:
    """``CREATE TABLE scratch.table`` with ``columns`` (name, type); a type the store
    does not know becomes ``text``. Returns the types used, column by column."""
    known = {
        t: ok for t, ok in store.execute(
            "SELECT t, to_regtype(t) IS NOT NULL FROM unnest(%s::text[]) AS q(t)",
            ([c[1] for c in columns],),
        ).fetchall()
    } if columns else {}
    types = [typ if known.get(typ) else "text" for _name, typ in columns]
    defs = [pgsql.SQL("{} {}").format(pgsql.Identifier(name), pgsql.SQL(typ))
            for (name, _t), typ in zip(columns, types)]
    store.execute(
        pgsql.SQL("CREATE TABLE {}.{} ({})").format(
            pgsql.Identifier(scratch), pgsql.Identifier(table), pgsql.SQL(", ").join(defs)
        )
    )
    return types


def insert_scratch_rows(store: psycopg.Connection, scratch: str, table: str, types: Sequence[str],
                        rows: Sequence[tuple]) -> None:
    """Insert ``rows`` (parameters, never literals) into ``scratch.table``."""
    if not rows or not types:
        return
    insert = pgsql.SQL("INSERT INTO {}.{} VALUES ({})").format(
        pgsql.Identifier(scratch), pgsql.Identifier(table),
        pgsql.SQL(", ").join(pgsql.Placeholder() for _ in types),
    )
    with store.cursor() as cur:
        cur.executemany(insert, [tuple(_plain(v, t) for v, t in zip(r, types)) for r in rows])


def drop_scratch(store: psycopg.Connection, scratch: str) -> None:
    store.execute(pgsql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(pgsql.Identifier(scratch)))


def _fold(part: exp.Identifier | str, node: exp.Table) -> str:
    """PostgreSQL folding of one name part of a table node (unquoted -> lower case)."""
    for ident in (node.args.get("catalog"), node.args.get("db"), node.args.get("this")):
        if isinstance(ident, exp.Identifier) and ident.name == part:
            return ident.name if ident.quoted else ident.name.lower()
    return str(part).lower()


def _plain(value: Any, type_name: str) -> Any:
    """A value read from the target, ready to insert into a column of ``type_name``."""
    if type_name in ("json", "jsonb") and value is not None:
        from psycopg.types.json import Json, Jsonb

        return Jsonb(value) if type_name == "jsonb" else Json(value)
    if type_name == "text" and value is not None and not isinstance(value, str):
        return str(value)  # a type the store does not know: its text form
    return value
