"""SQL analysis with sqlglot: parsing, normalisation, skeletons, tables/columns, metrics.

Everything here goes through sqlglot's AST (no regular expressions over SQL).

* :func:`normalize_sql` - canonical PostgreSQL text of a statement (identifiers
  folded as PostgreSQL folds them, whitespace and keyword case canonical). Two
  statements with the same normalised text are the same query; the bank merges
  duplicates on it.
* :func:`sql_skeleton` - the normalised SQL with literal values abstracted to
  ``?`` (``IN (1, 2, 3)`` becomes ``IN (?)``): the *template* of a query. Positional
  ``ORDER BY 2`` / ``GROUP BY 1``, type parameters and date-part units are structure
  and are kept.
* :func:`tables_and_columns` - the tables (CTE names excluded) and the columns
  (``table.column`` when resolvable) a statement uses.
* :func:`extract_metrics` - the (metric, formula, column dependency) tuples of the
  design's section 3.3: each computed projection (aggregate or arithmetic) with its
  name, its formula and the columns it depends on.

:func:`analyze_sql` does all of it on a single parse (the importer's hot path).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from sqlgenie.errors import SQLSyntaxError

PLACEHOLDER = "?"


@dataclass(frozen=True)
class Metric:
    """A computed quantity of a query: ``metric`` is its name, ``formula`` its
    expression (PostgreSQL) and ``columns`` the columns it depends on."""

    metric: str
    formula: str
    columns: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SQLAnalysis:
    """Everything the bank stores about one statement (from a single parse)."""

    sql: str  # PostgreSQL text as given after transpilation (literals kept, formatting canonical)
    normalized: str
    skeleton: str
    tables: list[str]
    columns: list[str]
    metrics: list[Metric]


def parse_sql(sql: str, dialect: str = "postgres") -> exp.Expression:
    """Parse exactly one statement; raise :class:`SQLSyntaxError` otherwise."""
    text = (sql or "").strip()
    if not text:
        raise SQLSyntaxError("The SQL is empty.", sql=sql)
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect) if s is not None]
    except (ParseError, TokenError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SQLSyntaxError(f"The SQL does not parse ({dialect}): {first}", sql=sql) from exc
    except Exception as exc:  # sqlglot raises a few other errors on odd input
        raise SQLSyntaxError(f"The SQL does not parse ({dialect}): {exc}", sql=sql) from exc
    if len(statements) != 1:
        raise SQLSyntaxError(
            f"Expected exactly one SQL statement, found {len(statements)}.",
            sql=sql,
            hint="Give a single query, without several statements separated by ';'.",
        )
    return statements[0]


def sqlite_strings_to_literals(tree: exp.Expression, known_columns: set[str] | None) -> exp.Expression:
    """SQLite reads a double-quoted token that names no column as a string literal
    (Spider's gold SQL relies on it). Rewrite such unqualified quoted "columns" into
    string literals, given the lower-cased column names of the schema."""
    if known_columns is None:
        return tree
    for column in list(tree.find_all(exp.Column)):
        ident = column.this
        if (
            isinstance(ident, exp.Identifier)
            and ident.quoted
            and not column.table
            and ident.name.lower() not in known_columns
        ):
            column.replace(exp.Literal.string(ident.name))
    return tree


def _normalized_tree(tree: exp.Expression) -> exp.Expression:
    return normalize_identifiers(tree.copy(), dialect="postgres")


def _is_structural_literal(node: exp.Literal) -> bool:
    parent = node.parent
    if isinstance(parent, (exp.DataTypeParam, exp.DataType)):
        return True
    # ORDER BY 2 / GROUP BY 1: positional references, not values.
    if isinstance(parent, exp.Ordered) and not node.is_string:
        return True
    if isinstance(parent, exp.Group) and not node.is_string:
        return True
    return node.arg_key == "unit"


def _abstract_literals(tree: exp.Expression) -> exp.Expression:
    """Replace value literals with a placeholder (in place) and collapse value lists."""
    for node in list(tree.find_all(exp.Literal)):
        if _is_structural_literal(node):
            continue
        target: exp.Expression = node
        if isinstance(node.parent, exp.Neg):
            target = node.parent
        target.replace(exp.Var(this=PLACEHOLDER))
    for in_node in list(tree.find_all(exp.In)):
        values = in_node.args.get("expressions") or []
        if len(values) > 1 and all(isinstance(v, exp.Var) and v.name == PLACEHOLDER for v in values):
            in_node.set("expressions", [exp.Var(this=PLACEHOLDER)])
    return tree


def _render(tree: exp.Expression, *, copy: bool = True) -> str:
    """PostgreSQL text; ``copy=False`` lets the generator work on ``tree`` itself (only
    for a tree that is not used afterwards: it saves a deep copy per statement)."""
    return tree.sql(dialect="postgres", normalize_functions="upper", copy=copy)


def normalize_sql(sql: str | exp.Expression, dialect: str = "postgres") -> str:
    """Canonical PostgreSQL text of one statement (literals kept). Texts are remembered
    (:func:`_normalized_text`: the match route normalises the same bank SQL many times)."""
    if isinstance(sql, str):
        return _normalized_text(sql, dialect)
    return _render(_normalized_tree(sql))


def normalized_or_text(sql: str | None) -> str:
    """:func:`normalize_sql` of ``sql``, or the text itself when sqlglot cannot read it (comparing
    two answers: an unreadable one equals only itself)."""
    try:
        return normalize_sql(sql or "")
    except Exception:
        return sql or ""


@functools.lru_cache(maxsize=4096)
def _normalized_text(sql: str, dialect: str) -> str:
    # a fresh parse of our own, used by nothing after: normalized and rendered in place, no copies (perf18)
    return _render(normalize_identifiers(parse_sql(sql, dialect), dialect="postgres"), copy=False)


def sql_skeleton(sql: str | exp.Expression, dialect: str = "postgres") -> str:
    """Normalised SQL with literal values replaced by ``?`` (the query's template)."""
    tree = parse_sql(sql, dialect) if isinstance(sql, str) else sql
    return _render(_abstract_literals(_normalized_tree(tree)), copy=False)  # the copy is ours: the last use of it


def _cte_names(tree: exp.Expression) -> set[str]:
    return {cte.alias_or_name for cte in tree.find_all(exp.CTE)}


def _table_name(table: exp.Table) -> str:
    parts = [p for p in (table.catalog, table.db, table.name) if p]
    return ".".join(parts)


def _tables_and_aliases(tree: exp.Expression) -> tuple[list[str], dict[str, str]]:
    ctes = _cte_names(tree)
    tables: list[str] = []
    aliases: dict[str, str] = {}
    for table in tree.find_all(exp.Table):
        if not table.name or (not table.db and table.name in ctes):
            continue
        if not isinstance(table.this, exp.Identifier):  # table functions such as generate_series()
            continue
        name = _table_name(table)
        if name not in tables:
            tables.append(name)
        aliases[table.alias_or_name] = name
        aliases.setdefault(table.name, name)
    return tables, aliases


def _column_names(node: exp.Expression, aliases: dict[str, str], single_table: str | None) -> list[str]:
    out: list[str] = []
    for column in node.find_all(exp.Column):
        if isinstance(column.this, exp.Star) or not column.name:
            continue
        if column.table:
            owner = aliases.get(column.table)
            name = f"{owner}.{column.name}" if owner else column.name
        elif single_table:
            name = f"{single_table}.{column.name}"
        else:
            name = column.name
        if name not in out:
            out.append(name)
    return out


_NAME_RE = re.compile(r"[^a-z0-9]+")


def _metric_name(expression: exp.Expression) -> str:
    name = _NAME_RE.sub("_", expression.sql(dialect="postgres").lower()).strip("_")
    return name[:63] or "metric"


def _is_computed(expression: exp.Expression) -> bool:
    if isinstance(expression, (exp.Column, exp.Star, exp.Literal)):
        return False
    return bool(expression.find(exp.AggFunc, exp.Binary, exp.Func))


def _metrics(tree: exp.Expression, aliases: dict[str, str], single_table: str | None) -> list[Metric]:
    metrics: list[Metric] = []
    seen: set[str] = set()
    for select in tree.find_all(exp.Select):
        for projection in select.expressions:
            inner = projection.this if isinstance(projection, exp.Alias) else projection
            if not _is_computed(inner):
                continue
            formula = inner.sql(dialect="postgres")
            name = projection.alias if isinstance(projection, exp.Alias) and projection.alias else _metric_name(inner)
            key = f"{name}\x00{formula}"
            if key in seen:
                continue
            seen.add(key)
            metrics.append(Metric(name, formula, _column_names(inner, aliases, single_table)))
    return metrics


def tables_and_columns(sql: str | exp.Expression, dialect: str = "postgres") -> tuple[list[str], list[str]]:
    """Tables (CTEs excluded, ``schema.table`` when qualified) and columns
    (``table.column`` when the owner is known) that one statement uses, lower-cased
    as PostgreSQL folds unquoted identifiers."""
    tree = parse_sql(sql, dialect) if isinstance(sql, str) else sql
    tree = _normalized_tree(tree)
    tables, aliases = _tables_and_aliases(tree)
    single = tables[0] if len(tables) == 1 else None
    return tables, _column_names(tree, aliases, single)


def extract_metrics(sql: str | exp.Expression, dialect: str = "postgres") -> list[Metric]:
    tree = parse_sql(sql, dialect) if isinstance(sql, str) else sql
    tree = _normalized_tree(tree)
    tables, aliases = _tables_and_aliases(tree)
    return _metrics(tree, aliases, tables[0] if len(tables) == 1 else None)


def analyze_sql(
    sql: str | exp.Expression,
    dialect: str = "postgres",
    *,
    known_columns: set[str] | None = None,
) -> SQLAnalysis:
    """Parse once (``dialect``), transpile to PostgreSQL and derive everything the bank
    stores. ``known_columns`` (lower-cased) enables SQLite's double-quoted-string rule.
    PostgreSQL input keeps its own text as ``sql``; other dialects are transpiled."""
    if isinstance(sql, str):
        tree = parse_sql(sql, dialect)
    else:
        tree = sql.copy()
    if dialect == "sqlite":
        tree = sqlite_strings_to_literals(tree, known_columns)
    if dialect == "postgres" and isinstance(sql, str):
        pg_sql = sql.strip()
        if pg_sql.endswith(";"):
            pg_sql = pg_sql[:-1].rstrip()
    else:
        pg_sql = tree.sql(dialect="postgres")
    norm = normalize_identifiers(tree, dialect="postgres")  # in place: the tree is ours
    normalized = _render(norm)
    tables, aliases = _tables_and_aliases(norm)
    single = tables[0] if len(tables) == 1 else None
    columns = _column_names(norm, aliases, single)
    metrics = _metrics(norm, aliases, single)
    skeleton = _render(_abstract_literals(norm), copy=False)  # the last use of the tree
    return SQLAnalysis(pg_sql, normalized, skeleton, tables, columns, metrics)
