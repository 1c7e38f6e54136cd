"""Static safety check for SQL before it reaches a database (defense in depth).

:func:`validate_sql` accepts exactly one read-only query and raises
:class:`~sqlgenie.errors.UnsafeSQLError` (or :class:`~sqlgenie.errors.SQLSyntaxError`)
for anything else. It works in three layers, all on sqlglot's PostgreSQL tokenizer
and parser (never regular expressions over SQL):

1. Tokens: exactly one statement (``;`` tokens outside strings and comments), it
   starts with ``SELECT`` / ``WITH`` / ``VALUES`` / ``TABLE`` / ``(``; no psql
   meta-commands (``\\copy``), no ``U&"..."`` identifiers (sqlglot cannot decode
   them, so they could hide a function name) and no call of a denied function
   (:data:`DENIED_FUNCTIONS`, :data:`DENIED_FUNCTION_PREFIXES`), whatever its
   quoting, case or schema.
2. Tree root: a query (SELECT, UNION/INTERSECT/EXCEPT, VALUES, WITH ... SELECT,
   parenthesized query).
3. Whole tree: every node type must be on an allow-list (:func:`_node_allowed`):
   no DML/DDL anywhere (data-modifying CTEs included), no SELECT INTO, no
   FOR UPDATE/SHARE, no ``Command`` fallbacks, and again no denied function.

The database privileges of the target role and the executor's ``READ ONLY``
transaction (always rolled back) are the real boundary; see docs/safety.md.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from sqlgenie.errors import SQLSyntaxError, UnsafeSQLError

__all__ = [
    "DENIED_FUNCTIONS",
    "DENIED_FUNCTION_PREFIXES",
    "ValidatedSQL",
    "check_sql",
    "denied_reason",
    "is_denied_function",
    "validate_sql",
]

_DIALECT = Postgres()

# --- denied functions -----------------------------------------------------------
# Names are compared lower-cased, without quotes or schema (``pg_catalog.PG_SLEEP``,
# ``"pg_sleep"`` are all ``pg_sleep``). Keep docs/safety.md in sync.

_FILES = "reads or lists files on the database server"
_SESSIONS = "affects other sessions or the server itself"
_STATE = "changes state (sequences, statistics, indexes or transaction ids)"
_DYNAMIC = "runs SQL given as a string, which SQLGenie cannot check"
_REMOTE = "opens a connection outside the read-only transaction"
_LOCKS = "takes advisory locks, which survive a rollback"
_SLEEP = "only waits, holding a connection"
_LARGE_OBJECTS = "reads or writes large objects or server files"
_REPLICATION = "controls replication, WAL or backups"

#: Exact function names (lower case) and why they are denied.
_DENIED_EXACT: dict[str, str] = {
    **dict.fromkeys(
        ["pg_read_file", "pg_read_binary_file", "pg_stat_file", "pg_current_logfile", "pg_show_all_file_settings"],
        _FILES,
    ),
    **dict.fromkeys(
        [
            "pg_terminate_backend", "pg_cancel_backend", "pg_signal_backend", "pg_reload_conf",
            "pg_rotate_logfile", "pg_promote", "pg_create_restore_point", "pg_switch_wal",
            "pg_start_backup", "pg_stop_backup", "pg_export_snapshot", "pg_nextoid",
            "pg_import_system_collations", "pg_log_backend_memory_contexts",
        ],
        _SESSIONS,
    ),
    "set_config": "changes settings (the executor sets timeouts and search_path itself)",  # current_setting is fine
    "nextval": _STATE,
    "setval": _STATE,
    "pg_notify": "sends notifications to other sessions",
    **dict.fromkeys(
        [
            "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema",
            "cursor_to_xml", "cursor_to_xmlschema",
            "table_to_xml", "table_to_xmlschema", "table_to_xml_and_xmlschema",
            "schema_to_xml", "schema_to_xmlschema", "schema_to_xml_and_xmlschema",
            "database_to_xml", "database_to_xmlschema", "database_to_xml_and_xmlschema",
            "ts_stat", "ts_rewrite",
        ],
        _DYNAMIC,
    ),
    "gin_clean_pending_list": _STATE,
    "loread": _LARGE_OBJECTS,
    "lowrite": _LARGE_OBJECTS,
}

#: Name prefixes (lower case) and why every function starting so is denied.
_DENIED_PREFIX: dict[str, str] = {
    "pg_sleep": _SLEEP,  # pg_sleep, pg_sleep_for, pg_sleep_until
    "pg_ls_": _FILES,  # pg_ls_dir, pg_ls_logdir, pg_ls_waldir, ...
    "pg_read_": _FILES,
    "pg_file_": _FILES,  # adminpack: pg_file_write, pg_file_unlink, ...
    "lo_": _LARGE_OBJECTS,  # lo_import, lo_export, lo_get, lo_put, lo_unlink, ...
    "dblink": _REMOTE,  # dblink, dblink_exec, dblink_connect, ...
    "pg_advisory": _LOCKS,
    "pg_try_advisory": _LOCKS,
    "pg_logical": _REPLICATION,
    "pg_replication": _REPLICATION,
    "pg_create_": _REPLICATION,  # pg_create_*_replication_slot, ...
    "pg_drop_": _REPLICATION,
    "pg_copy_": _REPLICATION,
    "pg_sync_": _REPLICATION,
    "pg_backup_": _REPLICATION,
    "pg_wal_replay": _REPLICATION,
    "pg_stat_reset": _STATE,
    "pg_stat_statements_reset": _STATE,
    "pg_clear_": _STATE,  # pg_clear_relation_stats, ... (PostgreSQL 18)
    "pg_restore_": _STATE,  # pg_restore_relation_stats, ...
    "pg_truncate": _STATE,
    "pg_current_xact_id": _STATE,  # assigns a transaction id
    "txid_": _STATE,
    "brin_": _STATE,  # brin_summarize_*: index maintenance
    "binary_upgrade_": _STATE,
    "copy": "looks like a wrapper around COPY (no built-in function is named so)",
}

# Keep docs/safety.md in sync (a test checks it names every entry).
DENIED_FUNCTIONS: frozenset[str] = frozenset(_DENIED_EXACT)
DENIED_FUNCTION_PREFIXES: tuple[str, ...] = tuple(_DENIED_PREFIX)


def _normalize(name: str) -> str:
    return name.strip().strip('"').lower()


def denied_reason(name: str) -> str | None:
    """Why a function of this (unqualified) name is denied, or None when it is allowed.
    Compared lower-cased without quotes: ``"PG_SLEEP"`` and ``pg_sleep`` are the same."""
    name = _normalize(name)
    if name in _DENIED_EXACT:
        return _DENIED_EXACT[name]
    for prefix in sorted(_DENIED_PREFIX, key=len, reverse=True):
        if name.startswith(prefix):
            return _DENIED_PREFIX[prefix]
    return None


def is_denied_function(name: str) -> bool:
    """True when a function of this (unqualified) name must never be called."""
    return denied_reason(name) is not None


# --- node allow-list --------------------------------------------------------------

#: Typed sqlglot functions that never belong in a PostgreSQL read-only query.
_DENIED_TYPED_FUNCTIONS: tuple[type[exp.Expression], ...] = tuple(
    getattr(exp, name) for name in ("NextValueFor", "ReadCSV", "ReadParquet", "ToFile") if hasattr(exp, name)
)

#: Structural nodes of read-only queries (besides functions, operators, predicates).
_ALLOWED_NODE_NAMES = (
    # query structure
    "Select", "Union", "Intersect", "Except", "Subquery", "Values", "With", "CTE", "Recursive",
    "From", "Join", "Table", "TableAlias", "Alias", "Aliases", "Column", "Identifier", "Star",
    "Where", "Group", "Having", "Order", "Ordered", "Limit", "LimitOptions", "Offset", "Fetch", "Distinct",
    "Lateral", "Unnest", "TableSample", "Window", "WindowSpec", "Filter", "WithinGroup",
    "Qualify", "Rollup", "Cube", "GroupingSets", "ColumnDef", "Schema", "Hint",
    "ColumnPosition", "Tuple", "Slice", "Bracket", "Array", "Struct", "Pseudocolumn",
    "Case", "If", "Cast", "TryCast", "Collate", "AtTimeZone", "Interval", "IntervalSpan",
    "DataType", "DataTypeParam", "Var", "Kwarg", "Placeholder", "Parameter",
    "Literal", "Boolean", "Null", "ByteString", "RawString", "HexString", "BitString",
    "National", "UnicodeString", "HeredocString", "Dot", "Paren", "Not", "Neg", "BitwiseNot",
    "In", "Between", "Exists", "Any", "All", "Escape", "IgnoreNulls", "RespectNulls",
    "Operator", "PropertyEQ", "OpenJSONColumnDef", "JSONColumnDef", "JSONSchema",
    "XMLNamespace", "JSONPath",
)
_ALLOWED_NODES: frozenset[type[exp.Expression]] = frozenset(
    getattr(exp, name) for name in _ALLOWED_NODE_NAMES if inspect.isclass(getattr(exp, name, None))
)
#: Whole families that cannot change anything: operators, comparisons, JSON paths.
_ALLOWED_BASES: tuple[type[exp.Expression], ...] = (exp.Binary, exp.Predicate, exp.JSONPathPart)

#: Node types rejected with a specific explanation (checked before the allow-list).
_EXPLAINED: list[tuple[tuple[str, ...], str]] = [
    (("Into",), "SELECT ... INTO creates a table. Remove the INTO clause to read the rows instead."),
    (("Lock",), "FOR UPDATE / FOR SHARE takes row locks. Remove the locking clause."),
    (
        ("Insert", "Update", "Delete", "Merge"),
        "Data-modifying statements ({kind}) are not allowed, not even inside a WITH clause.",
    ),
    (
        ("Create", "Drop", "Alter", "TruncateTable", "Grant", "Revoke", "Comment", "Analyze", "Refresh"),
        "Schema and privilege changes ({kind}) are not allowed.",
    ),
    (("Copy",), "COPY reads or writes files and tables; it is not allowed."),
    (("Command",), "This statement ({detail}) is not a read-only query; it is not allowed."),
    (("Set", "SetItem"), "Changing settings (SET / RESET) is not allowed; the executor sets what it needs."),
    (
        ("Transaction", "Commit", "Rollback"),
        "Transaction control (BEGIN / COMMIT / ROLLBACK) is not allowed; the executor manages the transaction.",
    ),
]
_EXPLAINED_TYPES: list[tuple[tuple[type[exp.Expression], ...], str]] = [
    (tuple(getattr(exp, n) for n in names if inspect.isclass(getattr(exp, n, None))), message)
    for names, message in _EXPLAINED
]

#: Every type :data:`_EXPLAINED_TYPES` names (a node of none of them has no explanation).
_EXPLAINED_ANY: tuple[type[exp.Expression], ...] = tuple(t for types, _ in _EXPLAINED_TYPES for t in types)

_QUERY_START = {TokenType.SELECT, TokenType.WITH, TokenType.VALUES, TokenType.TABLE, TokenType.L_PAREN}


@dataclass(frozen=True)
class ValidatedSQL:
    """Result of :func:`check_sql`: the tree and the exact text to execute."""

    tree: exp.Expression
    text: str  # the user's statement, without a trailing ``;`` or anything after it


def validate_sql(sql: str) -> exp.Expression:
    """Parse ``sql`` (PostgreSQL dialect) and allow only one read-only query.

    Returns the sqlglot tree. Raises :class:`UnsafeSQLError` for anything that could
    change data, settings, locks or the server, or :class:`SQLSyntaxError` when the
    input does not parse (or is empty).
    """
    return check_sql(sql).tree


def check_sql(sql: str) -> ValidatedSQL:
    """Like :func:`validate_sql`, also returning the text the executor runs."""
    if not isinstance(sql, str):
        raise TypeError(f"SQL must be a string, not {type(sql).__name__}")
    if not sql.strip():
        raise SQLSyntaxError("The SQL is empty.", sql=sql, hint="Pass one SELECT statement.")
    tokens = _tokenize(sql)
    if not tokens or all(t.token_type == TokenType.SEMICOLON for t in tokens):
        raise SQLSyntaxError(
            "The SQL contains only comments (or semicolons), no statement.", sql=sql, hint="Pass one SELECT statement."
        )
    statement, end = _single_statement(sql, tokens)
    _check_tokens(sql, statement)
    tree = _parse(sql, tokens)
    _check_root(sql, tree)
    _check_tree(sql, tree)
    return ValidatedSQL(tree=tree, text=sql[:end].strip())


# --- layers ------------------------------------------------------------------------


def _tokenize(sql: str) -> list[Token]:
    try:
        return _DIALECT.tokenize(sql)
    except TokenError as exc:
        raise SQLSyntaxError(
            f"The SQL cannot be read: {_first_line(exc)}",
            sql=sql,
            hint="Look for an unterminated string, quoted identifier, dollar quote or /* comment.",
        ) from exc


def _single_statement(sql: str, tokens: list[Token]) -> tuple[list[Token], int]:
    """Tokens of the only statement and where its text ends; reject several."""
    statements: list[list[Token]] = [[]]
    end = len(sql)
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            if statements[-1]:
                if len(statements) == 1:
                    end = token.start
                statements.append([])
        else:
            statements[-1].append(token)
    statements = [s for s in statements if s]
    if len(statements) > 1:
        starts = ", ".join(s[0].text.upper() for s in statements[:4])
        raise UnsafeSQLError(
            f"Only one statement can run at a time; this input has {len(statements)} ({starts}).",
            sql=sql,
            hint="Send a single SELECT (combine results with UNION or a WITH clause if needed).",
        )
    if tokens[0].token_type == TokenType.SEMICOLON:  # "; SELECT 1": an empty statement first
        raise SQLSyntaxError("The SQL starts with ';'.", sql=sql, hint="Remove the leading semicolon.")
    return statements[0], end


def _check_tokens(sql: str, tokens: list[Token]) -> None:
    first = tokens[0]
    if first.token_type == TokenType.BACKSLASH or any(t.token_type == TokenType.BACKSLASH for t in tokens):
        raise UnsafeSQLError(
            "psql meta-commands (like \\copy or \\i) are not SQL and cannot run here.",
            sql=sql,
            hint="Send plain SQL: one SELECT statement.",
        )
    if first.token_type not in _QUERY_START:
        raise UnsafeSQLError(
            f"Only read-only queries can run; this statement starts with {first.text.upper()!s}.",
            sql=sql,
        )
    for i, token in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if token.token_type == TokenType.HEREDOC_STRING and not _valid_dollar_tag(sql[token.start : token.end + 1]):
            # sqlglot accepts tags PostgreSQL does not ($1a$, $a-b$): PostgreSQL would read
            # the "string" as code, so the two would disagree about what runs.
            raise UnsafeSQLError(
                "Invalid dollar-quote tag: a tag is letters, digits and underscores, not starting with a digit.",
                sql=sql,
                hint="Use $$...$$ or $tag$...$tag$, or a plain '...' string.",
            )
        if (
            token.token_type == TokenType.AMP
            and i > 0
            and tokens[i - 1].token_type == TokenType.VAR
            and tokens[i - 1].text.lower() == "u"
            and tokens[i - 1].end + 1 == token.start
            and nxt is not None
            and nxt.token_type == TokenType.IDENTIFIER
            and nxt.start == token.end + 1
        ):
            raise UnsafeSQLError(
                'Unicode-escape identifiers (U&"...") are not supported.',
                sql=sql,
                hint='Write the identifier with plain characters, quoted if needed ("name").',
            )
        if nxt is not None and nxt.token_type == TokenType.L_PAREN and _is_name_token(token):
            if is_denied_function(token.text):
                raise _denied_function(sql, token.text)


def _valid_dollar_tag(raw: str) -> bool:
    """PostgreSQL's rule for ``$tag$``: empty, or an identifier without ``$``."""
    if not raw.startswith("$"):
        return True
    end = raw.find("$", 1)
    tag = raw[1:end] if end > 0 else ""

    def letter(c: str) -> bool:
        return ("a" <= c.lower() <= "z") or c == "_" or ord(c) >= 0x80

    return tag == "" or (letter(tag[0]) and all(letter(c) or c.isdigit() and c.isascii() for c in tag[1:]))


def _is_name_token(token: Token) -> bool:
    return token.token_type not in (
        TokenType.STRING,
        TokenType.HEREDOC_STRING,
        TokenType.RAW_STRING,
        TokenType.NATIONAL_STRING,
        TokenType.UNICODE_STRING,
        TokenType.BYTE_STRING,
        TokenType.BIT_STRING,
        TokenType.HEX_STRING,
        TokenType.NUMBER,
    )


def _parse(sql: str, tokens: list[Token]) -> exp.Expression:
    try:
        trees = _DIALECT.parser().parse(tokens, sql)  # same tokens the checks above saw
    except ParseError as exc:
        errors = getattr(exc, "errors", None) or []
        detail = errors[0].get("description", "") if errors else _first_line(exc)
        where = ""
        if errors and errors[0].get("line") is not None:
            where = f" (line {errors[0]['line']}, column {errors[0]['col']})"
            if errors[0].get("highlight"):
                where += f" near {errors[0]['highlight']!r}"
        raise SQLSyntaxError(f"The SQL does not parse: {detail}{where}.", sql=sql) from exc
    except TokenError as exc:  # pragma: no cover - tokenized already
        raise SQLSyntaxError(f"The SQL cannot be read: {_first_line(exc)}", sql=sql) from exc
    statements = [t for t in trees if t is not None and not isinstance(t, exp.Semicolon)]
    if len(statements) != 1:  # the token check already counted; keep the parser honest
        raise UnsafeSQLError(
            f"Only one statement can run at a time; the parser found {len(statements)}.",
            sql=sql,
            hint="Send a single SELECT statement.",
        )
    return statements[0]


def _check_root(sql: str, tree: exp.Expression) -> None:
    node = tree
    while isinstance(node, exp.Subquery):
        node = node.this
    if isinstance(node, (exp.Select, exp.SetOperation, exp.Values)):
        return
    explained = _explain(node)
    raise UnsafeSQLError(
        explained or f"Only read-only queries can run; this statement is a {type(node).__name__.upper()}.",
        sql=sql,
    )


def _check_tree(sql: str, tree: exp.Expression) -> None:
    for node in tree.walk():
        explained = _explain(node)
        if explained:
            raise UnsafeSQLError(explained, sql=sql)
        if isinstance(node, exp.Func):
            if isinstance(node, _DENIED_TYPED_FUNCTIONS):
                raise _denied_function(sql, node.sql_name())
            if isinstance(node, exp.Anonymous) and is_denied_function(node.name):
                raise _denied_function(sql, node.name)
            continue
        if not _node_allowed(node):
            raise UnsafeSQLError(
                f"The query uses a construct SQLGenie does not allow ({type(node).__name__}: "
                f"{_snippet(node)}).",
                sql=sql,
                hint="Rewrite it with plain SELECT features; report it if it is a legitimate read-only construct.",
            )


def _node_allowed(node: exp.Expression) -> bool:
    return type(node) in _ALLOWED_NODES or isinstance(node, _ALLOWED_BASES)


def _explain(node: exp.Expression) -> str | None:
    if not isinstance(node, _EXPLAINED_ANY):
        return None  # most nodes: one check, not one per group (perf18)
    for types, message in _EXPLAINED_TYPES:
        if types and isinstance(node, types):
            detail = _snippet(node)
            return message.format(kind=type(node).__name__.upper(), detail=detail)
    return None


def _denied_function(sql: str, name: str) -> UnsafeSQLError:
    reason = denied_reason(name) or "does not belong in a read-only PostgreSQL query"
    return UnsafeSQLError(
        f"The function {_normalize(name)}() is not allowed: it {reason}.",
        sql=sql,
        hint="Remove the call; docs/safety.md lists the denied functions.",
    )


def _snippet(node: exp.Expression, limit: int = 60) -> str:
    try:
        text = node.sql(dialect=_DIALECT)
    except Exception:  # pragma: no cover - rendering is best effort
        text = type(node).__name__
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
