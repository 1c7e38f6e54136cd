"""``eval autocorrect``: do-no-harm and repair rates of the chain on Spider dev.

Library function :func:`eval_autocorrect` (the CLI command is a thin wrapper);
it reuses the eval harness — the loader (:func:`sqlgenie.eval.tasks.load_dataset`),
the gold transpiler and runner (:func:`sqlgenie.eval.tasks.run_gold`) and the result
comparison (:func:`sqlgenie.eval.compare.results_match`) — and onboarding to fill
the catalog and value caches of every loaded schema.

**Do no harm.** Every gold query (transpiled to PostgreSQL, run on the loaded copy)
goes through the whole chain with LIMIT and mandatory columns off and without the
dummy test (it changes nothing without an LLM). When the chain changes the SQL, the
new SQL is run and its result compared with the gold result (multiset, ordered when
the gold orders). ``gold_unchanged_rate`` = unchanged results / gold queries that ran.

**Repair.** For every string literal of a gold query compared (``=``, ``<>``,
``IN``) with a searchable column whose cache holds it exactly and that has at least
one letter, up to five perturbations are made — ``case`` (lower case, or upper case
when already lower), ``plural`` (an ``s`` added or removed), ``typo`` (one letter
replaced), ``word`` (a word dropped from a multi-word value, or one added to a
single word) and ``space`` (a trailing space) — skipping those that are themselves
cached values. Each perturbed query goes through the chain; it is *restored* when
the corrected SQL returns the gold result. ``restored_rate`` = restored /
perturbed; ``restored_rate_broken`` counts only perturbations that changed the
result (the others were harmless to begin with).

Deterministic for a given ``seed``.
"""

from __future__ import annotations

import random
import statistics
import string
import time
from dataclasses import dataclass
from typing import Any, Callable

import psycopg
from psycopg import sql as pgsql
from sqlglot import exp

from sqlgenie.autocorrect.base import parse_sql, to_sql
from sqlgenie.autocorrect.chain import run_chain
from sqlgenie.autocorrect.resolve import Resolver
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.autocorrect.values import PgValueMatcher, ValueRequest, _collect_sites
from sqlgenie.catalog import Catalog, load_catalog
from sqlgenie.errors import SqlGenieError

__all__ = ["eval_autocorrect", "perturb", "simple_onboard"]

Progress = Callable[[int, int], None]
Onboard = Callable[[psycopg.Connection, str], None]

PERTURBATION_KINDS = ("case", "plural", "typo", "word", "space")
_ADDED_WORDS = ("Inc", "Group", "City", "Team", "new", "the")


# --- perturbations -----------------------------------------------------------------------------


def perturb(value: str, rng: random.Random) -> list[tuple[str, str]]:
    """``(kind, perturbed)`` for each applicable kind of :data:`PERTURBATION_KINDS`."""
    out: list[tuple[str, str]] = []
    if not any(c.isalpha() for c in value):
        return out
    out.append(("case", value.lower() if value != value.lower() else value.upper()))
    core = value.rstrip()
    if core and core[-1].isalpha():
        if core[-1] in "sS" and len(core) > 3:
            out.append(("plural", core[:-1]))
        else:
            out.append(("plural", core + ("S" if core[-1].isupper() and core.isupper() else "s")))
    letters = [i for i, c in enumerate(value) if c.isalpha() and c.isascii()]
    if len(letters) >= 3:
        i = rng.choice(letters[1:])
        old = value[i]
        new = rng.choice([c for c in string.ascii_lowercase if c != old.lower()])
        out.append(("typo", value[:i] + (new.upper() if old.isupper() else new) + value[i + 1:]))
    words = value.split()
    if len(words) >= 2:
        drop = rng.randrange(len(words))
        out.append(("word", " ".join(w for j, w in enumerate(words) if j != drop)))
    else:
        out.append(("word", f"{value} {rng.choice(_ADDED_WORDS)}"))
    out.append(("space", value + " "))
    return [(k, v) for k, v in out if v != value and v.strip()]


# --- catalog filling ------------------------------------------------------------------------------


def simple_onboard(conn: psycopg.Connection, schema: str, *, max_distinct: int = 5000) -> None:
    """Minimal catalog for a schema when onboarding is not available: every table and
    column, text columns with at most ``max_distinct`` distinct values searchable with
    all their values cached. (A fallback for the evaluation only.)"""
    with conn.transaction():
        conn.execute("DELETE FROM sqlgenie.catalog_tables WHERE schema_name = %s", (schema,))
        tables = conn.execute(
            "SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm') ORDER BY c.relname",
            (schema,),
        ).fetchall()
        for oid, table in tables:
            tid = conn.execute(
                "INSERT INTO sqlgenie.catalog_tables (schema_name, table_name) VALUES (%s, %s) RETURNING id",
                (schema, table),
            ).fetchone()[0]
            cols = conn.execute(
                "SELECT attname, format_type(atttypid, atttypmod), attnum FROM pg_attribute"
                " WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                (oid,),
            ).fetchall()
            for name, typ, ordinal in cols:
                ident = pgsql.SQL("{}.{}").format(pgsql.Identifier(schema), pgsql.Identifier(table))
                is_text = typ.startswith(("text", "character", "varchar", "char"))
                distinct = None
                values: list[tuple[str, int]] = []
                if is_text:
                    rows = conn.execute(
                        pgsql.SQL("SELECT {c}, count(*) FROM {t} WHERE {c} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1"
                                  " LIMIT %s").format(c=pgsql.Identifier(name), t=ident),
                        (max_distinct + 1,),
                    ).fetchall()
                    distinct = len(rows)
                    values = [(r[0], r[1]) for r in rows] if 0 < len(rows) <= max_distinct else []
                cid = conn.execute(
                    "INSERT INTO sqlgenie.catalog_columns (table_id, column_name, ordinal, data_type, searchable,"
                    " n_distinct) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                    (tid, name, ordinal, typ, bool(values), distinct),
                ).fetchone()[0]
                if values:
                    with conn.cursor() as cur:
                        cur.executemany(
                            "INSERT INTO sqlgenie.value_cache (column_id, value, frequency) VALUES (%s, %s, %s)",
                            [(cid, v, f) for v, f in values],
                        )


def _onboarding_filler() -> Onboard | None:
    """Onboarding's ``onboard_schema`` (issue 4) as a filler, when it is installed:
    no LLM, no index measurements (the catalog and value caches are what matter here)."""
    try:
        from onboarding.service import OnboardOptions, onboard_schema
    except ImportError:
        return None

    def fill(conn: psycopg.Connection, schema: str) -> None:
        onboard_schema(schema, target=conn, store=conn, options=OnboardOptions(llm=None, measure_indexes=False))

    return fill


# --- the task ---------------------------------------------------------------------------------------


@dataclass
class _Counts:
    perturbed: int = 0
    restored: int = 0
    broken: int = 0
    restored_broken: int = 0


def _rate(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _same(runner, sql: str, schema: str, gold_rows: list, ordered: bool) -> tuple[bool, str | None]:
    from sqlgenie.eval.compare import results_match

    outcome = runner.run(sql, schema)
    if not outcome.ok:
        return False, outcome.error_text()
    return results_match(gold_rows, outcome.rows, ordered=ordered), None


def eval_autocorrect(
    dataset: Any,
    url: str,
    *,
    dbs: set[str] | None = None,
    limit: int | None = None,
    settings: AutocorrectSettings | None = None,
    seed: int = 0,
    timeout_ms: int = 10_000,
    onboard: Onboard | None = None,
    reonboard: bool = False,
    progress: Progress | None = None,
    records: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Do-no-harm and repair metrics of the chain (see module doc) on a Spider-layout
    ``dataset`` loaded into the database at ``url`` (store and target). ``records``
    receives one dict per changed gold query and per perturbation."""
    from sqlgenie.eval.gold import has_top_level_order_by
    from sqlgenie.eval.runners import PostgresRunner
    from sqlgenie.eval.tasks import load_dataset, run_gold, select_questions
    from sqlgenie.store.migrations import ensure_migrated

    started = time.perf_counter()
    base = (settings or AutocorrectSettings()).without_defaults().model_copy(update={"dummy_test": False})
    questions, skipped = select_questions(dataset, None, dbs, limit)
    needed = {q.db_id for q in questions}
    ensure_migrated(url)
    load_dataset(dataset, url, dbs=needed)

    if onboard is not None:
        filler, catalog_source = onboard, getattr(onboard, "__name__", "custom")
    else:
        filler = _onboarding_filler()
        catalog_source = "onboarding" if filler is not None else "simple_onboard"
        filler = filler or simple_onboard
    catalogs: dict[str, Catalog] = {}
    conn = psycopg.connect(url, autocommit=True)
    runner = PostgresRunner(url, timeout_ms=timeout_ms)
    try:
        onboard_started = time.perf_counter()
        for db_id in sorted(needed):
            schema = dataset.schema_name(db_id)
            have = conn.execute("SELECT count(*) FROM sqlgenie.catalog_tables WHERE schema_name = %s",
                                (schema,)).fetchone()[0]
            if reonboard or not have:
                filler(conn, schema)
            catalogs[db_id] = load_catalog(conn, schemas=[schema], search_path=(schema,))
        onboard_seconds = time.perf_counter() - onboard_started
        matcher = PgValueMatcher(conn, base)

        gold_ok = gold_errors = unchanged = changed_sql = missing = unchanged_existing = 0
        chain_ms: list[float] = []
        kinds = {k: _Counts() for k in PERTURBATION_KINDS}
        total = _Counts()
        for n, q in enumerate(questions):
            schema = dataset.schema_name(q.db_id)
            catalog = catalogs[q.db_id]
            gold = run_gold(dataset, q, runner)
            if not gold.sqls or not gold.outcomes or not gold.outcomes[0].ok:
                gold_errors += 1
                if progress:
                    progress(n + 1, len(questions))
                continue
            gold_sql, gold_rows = gold.sqls[0], gold.outcomes[0].rows
            ordered = has_top_level_order_by(gold_sql, "postgres")
            gold_ok += 1
            has_missing = _has_missing_literal(gold_sql, catalog, matcher, base)
            missing += has_missing
            t0 = time.perf_counter()
            result = run_chain(gold_sql, catalog, matcher, base, q.question)
            chain_ms.append((time.perf_counter() - t0) * 1000.0)
            same, error = True, None
            if result.sql == gold_sql:
                unchanged += 1
            else:
                changed_sql += 1
                same, error = _same(runner, result.sql, schema, gold_rows, ordered)
                unchanged += same
            if not has_missing:
                unchanged_existing += same
            if result.sql != gold_sql:
                if records is not None:
                    records.append({"kind": "gold", "index": q.index, "db_id": q.db_id, "same_result": same,
                                    "missing_literal": has_missing, "error": error, "gold": gold_sql, "corrected": result.sql,
                                    "changes": [c.to_dict() for c in result.changes]})
            # repair
            rng = random.Random(f"{seed}:{q.index}")
            for lit_path, literal in _cached_literals(gold_sql, catalog, matcher, base):
                for kind, text in perturb(literal, rng):
                    tree = parse_sql(gold_sql)
                    node = _at_path(tree, lit_path)
                    node.set("this", text)
                    ref_key = _exact_cached(tree, node, catalog, matcher, base)
                    if ref_key is None:  # the perturbed text is a cached value itself: not an error
                        continue
                    perturbed_sql = to_sql(tree)
                    broken_same, _ = _same(runner, perturbed_sql, schema, gold_rows, ordered)
                    fixed = run_chain(perturbed_sql, catalog, matcher, base, q.question)
                    restored, error = _same(runner, fixed.sql, schema, gold_rows, ordered)
                    for counts in (kinds[kind], total):
                        counts.perturbed += 1
                        counts.restored += restored
                        if not broken_same:
                            counts.broken += 1
                            counts.restored_broken += restored
                    if records is not None:
                        records.append({"kind": f"perturb:{kind}", "index": q.index, "db_id": q.db_id,
                                        "literal": literal, "perturbed": text, "restored": restored,
                                        "perturbation_changed_result": not broken_same, "error": error,
                                        "corrected": fixed.sql, "changes": [c.to_dict() for c in fixed.changes]})
            if progress:
                progress(n + 1, len(questions))
    finally:
        runner.close()
        conn.close()
    return {
        "task": "autocorrect",
        "dataset": getattr(dataset, "kind", "spider"),
        "questions": len(questions),
        "skipped": len(skipped),
        "gold_errors": gold_errors,
        "evaluated": gold_ok,
        "gold_changed_sql": changed_sql,
        "gold_unchanged": unchanged,
        "gold_unchanged_rate": _rate(unchanged, gold_ok),
        "gold_missing_literal": missing,
        "gold_unchanged_rate_existing_values": _rate(unchanged_existing, gold_ok - missing),
        "perturbed": total.perturbed,
        "restored": total.restored,
        "restored_rate": _rate(total.restored, total.perturbed),
        "perturbed_broken": total.broken,
        "restored_broken": total.restored_broken,
        "restored_rate_broken": _rate(total.restored_broken, total.broken),
        "by_kind": {k: {"perturbed": c.perturbed, "restored": c.restored, "restored_rate": _rate(c.restored, c.perturbed),
                        "broken": c.broken, "restored_broken": c.restored_broken}
                    for k, c in kinds.items()},
        "chain_ms_p50": round(statistics.median(chain_ms), 3) if chain_ms else None,
        "chain_ms_p95": round(sorted(chain_ms)[int(0.95 * (len(chain_ms) - 1))], 3) if chain_ms else None,
        "catalog_source": catalog_source,
        "onboard_seconds": round(onboard_seconds, 3),
        "seed": seed,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _path(node: exp.Expression) -> tuple:
    """Position of ``node`` in its tree (arg keys and list indexes from the root)."""
    steps = []
    while node.parent is not None:
        parent = node.parent
        value = parent.args.get(node.arg_key)
        if isinstance(value, list):
            steps.append((node.arg_key, next(i for i, v in enumerate(value) if v is node)))
        else:
            steps.append((node.arg_key, None))
        node = parent
    return tuple(reversed(steps))


def _at_path(tree: exp.Expression, path: tuple) -> exp.Expression:
    node = tree
    for key, index in path:
        value = node.args[key]
        node = value[index] if index is not None else value
    return node


def _cached_literals(sql: str, catalog: Catalog, matcher: PgValueMatcher,
                     settings: AutocorrectSettings) -> list[tuple[tuple, str]]:
    """(path, text) of string literals compared by =, <>, IN with a searchable column
    whose cache holds them exactly."""
    try:
        tree = parse_sql(sql)
    except SqlGenieError:
        return []
    resolver = Resolver(tree, catalog)
    if not resolver.ok:
        return []
    out = []
    for site in _collect_sites(tree, resolver):
        if site.kind not in ("eq", "neq", "in"):
            continue
        for lit in site.literals:
            [m] = matcher.lookup(site.ref, [ValueRequest(lit.this)], settings)
            if m.exact and m.cached_count != 0:
                out.append((_path(lit), lit.this))
    return out


def _has_missing_literal(sql: str, catalog: Catalog, matcher: PgValueMatcher, settings: AutocorrectSettings) -> bool:
    """Whether the query compares a searchable column (=, <>, IN) with a string that is
    not one of its cached values (a filter on a value absent from the data)."""
    try:
        tree = parse_sql(sql)
    except SqlGenieError:
        return False
    resolver = Resolver(tree, catalog)
    if not resolver.ok:
        return False
    for site in _collect_sites(tree, resolver):
        if site.kind in ("eq", "neq", "in"):
            matches = matcher.lookup(site.ref, site.requests, settings)
            if any(not m.exact for m in matches):
                return True
    return False


def _exact_cached(tree: exp.Expression, node: exp.Expression, catalog: Catalog, matcher: PgValueMatcher,
                  settings: AutocorrectSettings) -> str | None:
    """The column key when ``node``'s new text is NOT a cached value (a real error), else None."""
    resolver = Resolver(tree, catalog)
    for site in _collect_sites(tree, resolver):
        if any(lit is node for lit in site.literals):
            [m] = matcher.lookup(site.ref, [ValueRequest(node.this)], settings)
            return None if m.exact else site.ref.key
    return None
