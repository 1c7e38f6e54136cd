"""``sqlgenie eval values``: how often value linking finds the literals of gold queries.

For each question of a Spider-layout dataset, the gold query (transpiled to
PostgreSQL) is searched for string literals compared with a column (``=``,
``<>``, ``IN``, ``LIKE`` / ``ILIKE``; aliases resolved by sqlglot's scopes). A
literal *occurs in the data* when the column holds it (equal, or equal after
trimming and case folding; for a ``LIKE`` pattern, some value matches it): only
those count (``literals_in_db``), since no linker can find a value the data does
not hold.

A literal is found at *k* when one span's top-*k* candidates of
:func:`~sqlgenie.inference.value_linking.link_values` hold its column and one of
the stored values it stands for (for a pattern: a value the pattern matches).
``recall_at_1`` / ``recall_at_5`` are over ``literals_in_db``. ``naive_recall_at_5``
is the same for the pruner's own value look-up (:class:`ValueIndex.hits`, the
question's top five hits by strength, no column context), for comparison.

Summary keys: ``questions``, ``literals``, ``literals_in_db``, ``recall_at_1``,
``recall_at_5``, ``naive_recall_at_5``, ``link_ms_p50`` / ``p95`` (linking only; the
pruner's scoring, used as column prior, is timed separately as ``prune_ms_p50``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import sqlglot
from psycopg import sql as pgsql
from sqlglot.errors import SqlglotError

from sqlgenie.config import Settings, get_settings
from sqlgenie.eval.gold_literals import compared_literals
from sqlgenie.eval.tasks import TaskResult

Progress = Callable[[int, int], None]

__all__ = ["GoldLiteral", "gold_literals", "eval_values"]


@dataclass(frozen=True)
class GoldLiteral:
    table: str  # qualified
    column: str
    literal: str
    op: str  # eq | like

    @property
    def key(self) -> str:
        return f"{self.table}.{self.column}"


def gold_literals(gold_sql: str, catalog: Any, *, dialect: str = "sqlite") -> list[GoldLiteral] | None:
    """String literals compared with a column in the gold query; None when it cannot
    be transpiled or parsed."""
    from sqlgenie.eval.gold import TranspileError, transpile_sqlite

    schema = catalog.tables[0].schema if catalog.tables else "public"
    types = {t.name: {c.name: c.data_type for c in t.columns} for t in catalog.tables}
    text = gold_sql
    if dialect == "sqlite":
        try:
            text = transpile_sqlite(gold_sql, types).sql
        except TranspileError:
            return None
    try:
        tree = sqlglot.parse_one(text, read="postgres")
    except SqlglotError:
        return None
    lower_tabs = {t.lower(): t for t in types}
    columns = {t.lower(): {c.lower(): c for c in cols} for t, cols in types.items()}
    out: list[GoldLiteral] = []
    for table, cname, op, lit in compared_literals(tree, columns, unwrap=True, either_side=False):
        g = GoldLiteral(f"{schema}.{lower_tabs[table]}", cname, lit.this, "like" if op in ("LIKE", "ILIKE") else "eq")
        if g not in out:
            out.append(g)
    return out


def stored_values(conn: Any, g: GoldLiteral, limit: int = 50) -> list[str]:
    """Values of the gold column that the literal stands for (see module doc)."""
    schema, table = g.table.split(".", 1)
    col = pgsql.SQL("{}::text").format(pgsql.Identifier(g.column))
    if g.op == "like" and ("%" in g.literal or "_" in g.literal):
        cond = pgsql.SQL("{} ILIKE %s").format(col)
        params: tuple = (g.literal,)
    else:
        cond = pgsql.SQL("({c} = %s OR lower(btrim({c})) = lower(btrim(%s)))").format(c=col)
        params = (g.literal, g.literal)
    q = pgsql.SQL("SELECT DISTINCT {c} FROM {s}.{t} WHERE {cond} LIMIT {n}").format(
        c=col, s=pgsql.Identifier(schema), t=pgsql.Identifier(table), cond=cond, n=pgsql.Literal(limit))
    return [r[0] for r in conn.execute(q, params).fetchall() if r[0] is not None]


def _found(links: Sequence[Any], g: GoldLiteral, stored: set[str], k: int) -> bool:
    key = g.key.lower()
    return any(l.rank <= k and l.column.lower() == key and l.value in stored for l in links)


def eval_values(
    dataset_dir: str | Path | None = None,
    *,
    settings: Settings | None = None,
    questions_file: str | None = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    keys: str = "keep",
    probes: bool = True,
    progress: Progress | None = None,
) -> TaskResult:
    """Run the value-linking evaluation (summary keys in the module doc; one record
    per question with literals)."""
    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.executor import SafeExecutor
    from sqlgenie.inference.eval_schema import _make_pruners, _questions, prepare_catalogs
    from sqlgenie.inference.value_linking import ValueLinker
    from sqlgenie.store import connect_store, open_connection, target_url

    settings = settings or get_settings()
    started = time.perf_counter()
    dataset = open_dataset(dataset_dir if dataset_dir is not None else settings.benchdata_dir / "spider")
    questions, skipped = _questions(dataset, questions_file, dbs, limit)
    needed = {q.db_id for q in questions}
    catalogs = prepare_catalogs(dataset, settings, needed, keys=keys)
    pruners = _make_pruners(catalogs, settings, None)
    url = target_url(settings)
    records: list[dict[str, Any]] = []
    n_lit = n_db = hit1 = hit5 = naive5 = 0
    link_ms: list[float] = []
    prune_ms: list[float] = []
    methods: dict[str, int] = {}
    with connect_store(settings) as store, open_connection(url, autocommit=True) as target, \
            SafeExecutor(url, statement_timeout_ms=settings.statement_timeout_ms) as executor:
        store.commit()
        store.autocommit = True
        linkers = {db: ValueLinker(catalogs[db], store, executor=executor if probes else None) for db in needed}
        for n, q in enumerate(questions):
            catalog = catalogs[q.db_id]
            gold = gold_literals(q.gold_sql, catalog, dialect=q.gold_dialect)
            if progress:
                progress(n + 1, len(questions))
            if not gold:
                continue
            pruner = pruners[q.db_id]
            t0 = time.perf_counter()
            X, _signals, hits = pruner.features(q.question)
            scores = pruner.score(X)
            prior = {k: float(s) for k, s in zip(pruner.col_keys, scores)}
            t1 = time.perf_counter()
            links = linkers[q.db_id].link(q.question, column_scores=prior)
            t2 = time.perf_counter()
            prune_ms.append((t1 - t0) * 1000)
            link_ms.append((t2 - t1) * 1000)
            naive = [h for h in hits][:5]
            rec = {"index": q.index, "db_id": q.db_id, "question": q.question, "literals": []}
            for g in gold:
                n_lit += 1
                stored = set(stored_values(target, g))
                if not stored:
                    rec["literals"].append({"column": g.key, "literal": g.literal, "in_db": False})
                    continue
                n_db += 1
                f1, f5 = _found(links, g, stored, 1), _found(links, g, stored, 5)
                nv = any(h.key.lower() == g.key.lower() and h.value in stored for h in naive)
                hit1 += f1
                hit5 += f5
                naive5 += nv
                m = next((l.method for l in links if l.rank <= 5 and l.column.lower() == g.key.lower()
                          and l.value in stored), None)
                if m:
                    methods[m] = methods.get(m, 0) + 1
                top = [f"{l.span}->{l.column.split('.', 1)[1]}={l.value}@{l.rank}:{l.score}"
                       for l in links if l.rank <= 2][:12]
                rec["literals"].append({"column": g.key, "literal": g.literal, "in_db": True, "at_1": f1,
                                        "at_5": f5, "naive_at_5": nv, "method": m, "links": top})
            records.append(rec)
        probe_queries = sum(l.probe_queries for l in linkers.values())
    pct = (lambda xs, p: round(float(np.percentile(xs, p)), 2) if xs else 0.0)
    summary = {
        "task": "values",
        "questions": len(questions),
        "questions_with_literals": len(records),
        "literals": n_lit,
        "literals_in_db": n_db,
        "recall_at_1": round(hit1 / n_db, 4) if n_db else 0.0,
        "recall_at_5": round(hit5 / n_db, 4) if n_db else 0.0,
        "naive_recall_at_5": round(naive5 / n_db, 4) if n_db else 0.0,
        "methods": methods,
        "probes": probes,
        "probe_queries": probe_queries,
        "link_ms_p50": pct(link_ms, 50),
        "link_ms_p95": pct(link_ms, 95),
        "prune_ms_p50": pct(prune_ms, 50),
        "prune_plus_link_ms_p50": pct([a + b for a, b in zip(prune_ms, link_ms)], 50),
        "databases": len(needed),
        "skipped": len(skipped),
        "seconds": round(time.perf_counter() - started, 2),
    }
    return TaskResult(summary, records + skipped)


def main(argv: list[str] | None = None) -> None:
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m sqlgenie.inference.eval_values")
    ap.add_argument("--dataset", default=None)
    ap.add_argument("--questions", default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--dbs", default=None)
    ap.add_argument("--no-probes", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    res = eval_values(args.dataset, questions_file=args.questions, limit=args.limit,
                      dbs=set(args.dbs.split(",")) if args.dbs else None, probes=not args.no_probes)
    if args.out:
        with open(args.out, "w") as fh:
            for r in res.records:
                fh.write(json.dumps(r, default=str) + "\n")
    print(json.dumps(res.summary))


if __name__ == "__main__":
    main()
