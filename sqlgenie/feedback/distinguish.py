"""Distinguishing databases: small tables, built from the catalog, on which two
candidate SQLs give different answers (CHASE-SQL / TS-SQL spirit).

Two clusters of candidates differ on the real data, but the real data is too large
for a person (or an LLM) to see *why*. :class:`Distinguisher` builds a few rows per
table that separate them:

1. the tables both queries read (sqlglot, :func:`~sqlgenie.autocorrect.resolve.base_tables`)
   are resolved in the catalog; a table the catalog does not know stops the attempt;
2. for each random seed (at most ``seeds``), every table gets 1..``rows_per_table``
   rows (two more every fourth seed; odd seeds draw half the columns from one or
   two values of their pool, so that values repeat) that **respect the keys**:
   primary-key values are unique (a column merely found unique in the data is
   not: ``count(*)`` against ``count(DISTINCT x)`` hinges on it); a column that references another table of the set (an accepted join
   of the catalog, or a ``column = column`` condition of either query) takes a
   value of one of that table's rows (or NULL when it is nullable). The other
   values come from small pools: the question's **linked values**
   (:mod:`sqlgenie.inference.value_linking`) and the constants the queries compare
   the column with (numbers also one above and below: ``>`` against ``>=``), the
   column's **cached frequent values** (``sqlgenie.value_cache``) and catalog
   profile (common values, min / max), one value of no pool (so that a filter on
   an always-true column has something to filter) and NULL for nullable columns;
3. the rows are written by the **store connection** into a scratch schema
   ``sqlgenie_distinguish_<unix time>_<random>`` (:func:`sqlgenie.autocorrect.dummy.create_scratch_table`,
   parameters and ``psycopg.sql`` identifiers only), both queries are rewritten to
   read the scratch tables (sqlglot) and run by the
   :class:`~sqlgenie.executor.SafeExecutor` (read-only, timeout, rolled back);
4. the first seed on which the results differ
   (:func:`sqlgenie.eval.compare.results_match`) is the evidence: the rows, each
   query's result there;
5. the scratch schema is dropped, whatever happened (its name holds its creation
   time: one left by a process killed mid-build is dropped by the next build an
   hour later, :func:`drop_stale`).

:meth:`Distinguisher.hook` is the ``distinguish=`` hook of
:func:`sqlgenie.feedback.selection.select`: with an LLM provider a **pairwise
judge** (prompt ``prompts/feedback_pairwise_judge.txt``: the question, both SQLs,
the distinguishing rows and both results; asked in both orders, a pick counts only
when the two answers agree) picks one; without an LLM it returns
``None`` (the pick stays the best-supported cluster passing the critic) and the
evidence goes to the review item, so that a reviewer sees why the two differ.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import secrets
import time
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Sequence

import psycopg
from psycopg import sql as pgsql
from sqlglot import exp

from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo, type_family

__all__ = ["Distinguisher", "SCRATCH_PREFIX", "drop_stale", "parse_verdict"]

SCRATCH_PREFIX = "sqlgenie_distinguish_"
#: Cached frequent values taken per column.
CACHED_PER_COLUMN = 5
#: A scratch schema older than this (seconds) was left by a killed process: dropped.
STALE_S = 3600.0
#: Share of NULLs drawn for a nullable column (and a nullable reference).
NULL_SHARE = 0.15
#: On a focused seed, the share of values drawn from the queries' own constants.
FOCUS_SHARE = 0.8
_INT_TYPES = ("smallint", "integer", "bigint", "int", "serial", "bigserial", "smallserial")


@dataclass
class _Table:
    info: TableInfo
    scratch_name: str
    columns: list[ColumnInfo]
    # column name (lower) -> (parent qualified name, parent column name)
    refs: dict[str, tuple[str, str]] = field(default_factory=dict)


def parse_verdict(text: str) -> int | None:
    """The judge's pick: 0 for A, 1 for B, None when the answer names neither."""
    for line in (text or "").splitlines():
        words = re.findall(r"[A-Za-z]+", line)
        if not words:
            continue
        head = [w.upper() for w in words[:3]]
        for w in head:
            if w in ("A", "B"):
                return 0 if w == "A" else 1
        for w in head:
            if w in ("NEITHER", "BOTH", "EITHER", "TIE"):
                return None
    return None


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def _rows_json(rows: Iterable[Sequence[Any]], limit: int = 20) -> list[list[Any]]:
    return [[_jsonable(v) for v in r] for r in list(rows)[:limit]]


class Distinguisher:
    """Builds distinguishing databases for pairs of SQL (see module doc).

    ``store_url``: the store, where scratch schemas are written and the queries run
    (as the dummy test does); ``catalog``: the target's catalog (tables, keys,
    accepted joins); ``linked``: the question's value links
    (:class:`~sqlgenie.inference.value_linking.ValueLink` or ``(column, value)``
    pairs, ``column`` = ``schema.table.column``); ``cached``: whether to read the
    columns' frequent values from ``sqlgenie.value_cache``; ``llm``: a provider for
    the pairwise judge (``None``: no judge)."""

    def __init__(self, store_url: str, catalog: Catalog, *, question: str = "", linked: Iterable[Any] = (),
                 cached: bool = True, llm: Any = None, seeds: int = 20, rows_per_table: int = 4,
                 timeout_ms: int = 2000, focus: bool = False) -> None:
        self.store_url = store_url
        self.catalog = catalog
        self.question = question
        self.llm = llm
        self.seeds = max(1, int(seeds))
        self.rows_per_table = max(1, int(rows_per_table))
        self.timeout_ms = timeout_ms
        self.cached = cached
        # every third seed, columns the queries compare with constants mostly take those
        # constants: rows that pass all of a query's filters at once (a test suite whose
        # databases never satisfy the gold's conjunction agrees with anything by emptiness)
        self.focus = focus
        self._named: dict[tuple[str, str], list[Any]] = {}
        self.linked: dict[str, list[str]] = {}
        for link in linked:
            column, value = (link.column, link.value) if hasattr(link, "column") else link
            vals = self.linked.setdefault(column.lower(), [])
            if value not in vals:
                vals.append(str(value))
        self.evidence: list[dict[str, Any]] = []  # every distinguish() result, in order
        self._seed = 0
        self._memo: dict[tuple[str, str], dict[str, Any]] = {}

    # --- selection hook -----------------------------------------------------------------

    def hook(self, candidates: Sequence[Any], a: Any, b: Any) -> int | None:
        """``select(..., distinguish=d.hook)``: 0 / 1 when the judge picks, else None."""
        ca, cb = candidates[a.members[0]], candidates[b.members[0]]
        # a candidate transpiled to PostgreSQL keeps that SQL in meta["pg_sql"] (eval select)
        sa, sb = (c.meta.get("pg_sql") or c.sql for c in (ca, cb))
        ev = self.distinguish(sa, sb, labels=(ca.source, cb.source))
        if not ev["distinguished"] or self.llm is None:
            return None
        return self.judge(sa, sb, ev)

    # --- the database ---------------------------------------------------------------------

    def distinguish(self, sql_a: str, sql_b: str, *, labels: tuple[str, str] = ("A", "B")) -> dict[str, Any]:
        """Evidence for the pair: ``distinguished``, ``seed``, ``tries``, ``compared``
        (seeds on which both queries ran), ``distinct_results`` (per query, how many
        different results it gave over those seeds), ``tables``
        (qualified name -> columns, rows), ``results`` (per query: label, sql,
        columns, rows, error) and a ``note``. Never raises for a bad query."""
        key = (sql_a, sql_b)
        if key in self._memo:
            return self._memo[key]
        started = time.perf_counter()
        ev: dict[str, Any] = {"pair": list(labels), "distinguished": False, "seed": None, "tries": 0,
                              "compared": 0, "distinct_results": [0, 0], "tables": {}, "results": [],
                              "note": ""}
        try:
            self._build_and_run(sql_a, sql_b, labels, ev)
        except psycopg.Error as exc:
            ev["note"] = f"building the distinguishing database failed: {str(exc).strip()}"
        ev["ms"] = round((time.perf_counter() - started) * 1000, 1)
        self._memo[key] = ev
        self.evidence.append(ev)
        return ev

    def _build_and_run(self, sql_a: str, sql_b: str, labels: tuple[str, str], ev: dict[str, Any]) -> None:
        from sqlgenie.autocorrect.base import parse_sql
        from sqlgenie.autocorrect.dummy import create_scratch_table, drop_scratch, insert_scratch_rows
        from sqlgenie.errors import SqlGenieError
        from sqlgenie.eval.compare import results_match
        from sqlgenie.eval.gold import has_top_level_order_by
        from sqlgenie.executor import SafeExecutor

        try:
            trees = [parse_sql(sql_a), parse_sql(sql_b)]
        except Exception as exc:
            ev["note"] = f"a query does not parse: {exc}"
            return
        tables, missing = self._tables(trees)
        if missing:
            ev["note"] = f"not in the catalog: {', '.join(missing)} (no distinguishing database built)"
            return
        if not tables:
            ev["note"] = "the queries read no table"
            return
        scratch = f"{SCRATCH_PREFIX}{int(time.time())}_{secrets.token_hex(4)}"
        order = self._order(tables)
        ordered = []
        for tree in trees:
            try:
                ordered.append(has_top_level_order_by(tree.sql(dialect="postgres"), "postgres"))
            except Exception:
                ordered.append(False)
        rewritten = [self._rewrite(t, scratch, tables).sql(dialect="postgres") for t in trees]
        pools = self._pools(tables, _query_literals(self.catalog, trees, tables))
        with psycopg.connect(self.store_url, autocommit=True, connect_timeout=10) as store:
            drop_stale(store)
            try:
                store.execute(pgsql.SQL("CREATE SCHEMA {}").format(pgsql.Identifier(scratch)))
                types: dict[str, list[str]] = {}
                for q in order:
                    t = tables[q]
                    types[q] = create_scratch_table(store, scratch, t.scratch_name,
                                                    [(c.name, c.data_type) for c in t.columns])
                seen_results: list[set] = [set(), set()]
                with SafeExecutor(self.store_url, statement_timeout_ms=self.timeout_ms, row_cap=200) as ex:
                    for seed in range(self.seeds):
                        ev["tries"] = seed + 1
                        self._seed = seed
                        data = self._generate(tables, order, pools, random.Random(seed))
                        for q in order:
                            store.execute(pgsql.SQL("TRUNCATE {}.{}").format(
                                pgsql.Identifier(scratch), pgsql.Identifier(tables[q].scratch_name)))
                            insert_scratch_rows(store, scratch, tables[q].scratch_name, types[q], data[q])
                        outs = []
                        for sql in rewritten:
                            try:
                                run = ex.run(sql, search_path=[scratch, "public"])
                                outs.append(([tuple(r) for r in run.rows], list(run.columns), None))
                            except SqlGenieError as exc:
                                outs.append((None, [], exc.message.replace(f'"{scratch}".', "")
                                             .replace(f"{scratch}.", "")))
                        if any(o[2] for o in outs):
                            ev["note"] = "a query failed on the built rows: " + "; ".join(o[2] for o in outs if o[2])
                            continue
                        ev["compared"] += 1  # seeds on which both queries ran (a test suite's equivalence needs all)
                        for k, o in enumerate(outs):  # how many different results each query gave
                            seen_results[k].add(_result_key(o[0]))
                        ev["distinct_results"] = [len(r) for r in seen_results]
                        if results_match(outs[0][0], outs[1][0], ordered=ordered[0] and ordered[1]):
                            continue
                        ev.update(distinguished=True, seed=seed, note=f"the results differ on seed {seed}")
                        ev["tables"] = {q: {"columns": [c.name for c in tables[q].columns],
                                            "rows": _rows_json(data[q])} for q in order}
                        ev["results"] = [{"label": lab, "sql": sql, "columns": o[1], "rows": _rows_json(o[0]),
                                          "row_count": len(o[0])}
                                         for lab, sql, o in zip(labels, (sql_a, sql_b), outs)]
                        return
                if not ev["note"]:
                    ev["note"] = f"same results on all {ev['tries']} built databases (probably equivalent)"
                else:
                    ev["note"] += f" (no difference in {ev['tries']} tries)"
            finally:
                drop_scratch(store, scratch)

    def _tables(self, trees: Sequence[exp.Expression]) -> tuple[dict[str, _Table], list[str]]:
        from sqlgenie.autocorrect.resolve import base_tables

        tables: dict[str, _Table] = {}
        missing: list[str] = []
        for tree in trees:
            for node in base_tables(tree):
                info = self.catalog.table(node.name, node.db or None)
                if info is None:
                    name = ".".join(p for p in (node.db, node.name) if p)
                    if name not in missing:
                        missing.append(name)
                    continue
                q = info.qualified
                if q not in tables:
                    tables[q] = _Table(info, f"t{len(tables)}_{info.name}"[:60], list(info.columns))
        lower = {q.lower(): q for q in tables}
        for join in self.catalog.accepted_joins():
            src, dst = lower.get(join.from_table.lower()), lower.get(join.to_table.lower())
            if src is None or dst is None or len(join.from_columns) != len(join.to_columns):
                continue
            child, parent, ccols, pcols = src, dst, join.from_columns, join.to_columns
            if not _is_key(tables[dst].info, join.to_columns) and _is_key(tables[src].info, join.from_columns):
                child, parent, ccols, pcols = dst, src, join.to_columns, join.from_columns
            for cc, pc in zip(ccols, pcols):
                if child == parent and cc.lower() == pc.lower():
                    continue
                tables[child].refs.setdefault(cc.lower(), (parent, pc))
        # the queries' own column = column conditions (ON a.x = b.y) hold like references,
        # so that the built rows join at all (a key the catalog has not accepted)
        for tree in trees:
            aliases = _aliases(self.catalog, tree)
            for eq in tree.find_all(exp.EQ):
                left, right = eq.this, eq.expression
                if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
                    continue
                lq, rq = _owner(left, aliases, tables), _owner(right, aliases, tables)
                if lq is None or rq is None or lq == rq:
                    continue
                (cq, cc), (pq, pc) = (lq, left.name), (rq, right.name)
                if not _is_key(tables[rq].info, [right.name]) and _is_key(tables[lq].info, [left.name]):
                    (cq, cc), (pq, pc) = (rq, right.name), (lq, left.name)
                child_cols = {c.name.lower(): c.name for c in tables[cq].columns}
                parent_cols = {c.name.lower(): c.name for c in tables[pq].columns}
                if cc.lower() not in child_cols or pc.lower() not in parent_cols:
                    continue
                if any(p == cq for p, _ in tables[pq].refs.values()):
                    continue  # the other way round already: no cycle of two
                tables[cq].refs.setdefault(cc.lower(), (pq, parent_cols[pc.lower()]))
        return tables, missing

    @staticmethod
    def _order(tables: dict[str, _Table]) -> list[str]:
        """Referenced tables first (a cycle is cut where it closes)."""
        out: list[str] = []
        state: dict[str, int] = {}

        def visit(q: str) -> None:
            if state.get(q):
                return
            state[q] = 1
            for parent, _ in tables[q].refs.values():
                if parent != q and not state.get(parent):
                    visit(parent)
            state[q] = 2
            out.append(q)

        for q in tables:
            visit(q)
        return out

    def _rewrite(self, tree: exp.Expression, scratch: str, tables: dict[str, _Table]) -> exp.Expression:
        from sqlgenie.autocorrect.resolve import base_tables

        out = tree.copy()
        for node in base_tables(out):
            info = self.catalog.table(node.name, node.db or None)
            if info is None:
                continue
            original = node.args["this"].copy()
            node.set("this", exp.to_identifier(tables[info.qualified].scratch_name, quoted=True))
            node.set("db", exp.to_identifier(scratch, quoted=True))
            node.set("catalog", None)
            if not node.alias:
                node.set("alias", exp.TableAlias(this=original))
        return out

    # --- values ---------------------------------------------------------------------------

    def _cached_values(self, tables: dict[str, _Table]) -> dict[int, list[str]]:
        ids = [c.column_id for t in tables.values() for c in t.columns if c.column_id is not None]
        if not self.cached or not ids:
            return {}
        out: dict[int, list[str]] = {}
        try:
            with psycopg.connect(self.store_url, autocommit=True, connect_timeout=10) as conn:
                rows = conn.execute(
                    "SELECT column_id, value FROM (SELECT column_id, value, row_number() OVER"
                    " (PARTITION BY column_id ORDER BY frequency DESC, value) AS n FROM sqlgenie.value_cache"
                    " WHERE column_id = ANY(%s)) v WHERE n <= %s ORDER BY column_id, n",
                    (ids, CACHED_PER_COLUMN),
                ).fetchall()
        except psycopg.Error:
            return {}
        for cid, value in rows:
            out.setdefault(int(cid), []).append(value)
        return out

    def _pools(self, tables: dict[str, _Table], literals: dict[str, list[str]] | None = None
               ) -> dict[tuple[str, str], list[Any]]:
        cached = self._cached_values(tables)
        pools: dict[tuple[str, str], list[Any]] = {}
        self._named = {}
        for q, t in tables.items():
            for c in t.columns:
                named = list(self.linked.get(f"{q}.{c.name}".lower(), []))
                for v in (literals or {}).get(f"{q}.{c.name}".lower(), []):
                    if v not in named:
                        named.append(v)
                raw: list[str] = list(named)
                raw += cached.get(c.column_id, []) if c.column_id is not None else []
                raw += [v for v, _share in c.common_values[:CACHED_PER_COLUMN]]
                raw += [v for v in (c.min_value, c.max_value) if v is not None]
                pools[(q, c.name)] = _typed_pool(c, raw, named)
                if self.focus and named:  # the queries' own constants, typed (not the pool's extras)
                    texts = {_named_text(x) for x in named}
                    self._named[(q, c.name)] = [v for v in _typed_pool(c, named, []) if _named_text(v) in texts]
        return pools

    def _generate(self, tables: dict[str, _Table], order: list[str], pools: dict[tuple[str, str], list[Any]],
                  rng: random.Random) -> dict[str, list[tuple]]:
        data: dict[str, list[tuple]] = {}
        # later seeds: more rows, and half the columns draw from a narrow part of their
        # pool (repeated values: groups, duplicates, HAVING counts, filters that all hit)
        seed_rows = self.rows_per_table + 2 * (self._seed // 4)
        narrow = self._seed % 2 == 1
        focused = self.focus and self._seed % 3 == 2
        for q in order:
            t = tables[q]
            names = [c.name.lower() for c in t.columns]
            pk = [p.lower() for p in t.info.primary_key if p.lower() in names]
            n = rng.randint(1, seed_rows)
            local = {}
            for c in t.columns:
                pool = pools[(q, c.name)]
                if narrow and len(pool) > 2 and rng.random() < 0.5:
                    pool = rng.sample(pool, rng.randint(1, 2))
                local[c.name] = pool
            rows: list[list[Any]] = []
            keys: set[tuple] = set()

            for i in range(n * 4):
                if len(rows) >= n:
                    break
                row: list[Any] = []
                for c in t.columns:
                    name = c.name.lower()
                    ref = t.refs.get(name)
                    if ref is not None and ref[0] != q:
                        parent_rows = data.get(ref[0]) or []
                        pidx = [x.name.lower() for x in tables[ref[0]].columns].index(ref[1].lower()) \
                            if ref[1].lower() in [x.name.lower() for x in tables[ref[0]].columns] else None
                        choices = [r[pidx] for r in parent_rows if pidx is not None and r[pidx] is not None]
                        if c.nullable and name not in pk and (not choices or rng.random() < NULL_SHARE):
                            row.append(None)
                        else:
                            row.append(rng.choice(choices) if choices else None)
                        continue
                    if len(pk) == 1 and name == pk[0]:
                        row.append(_key_value(c, pools[(q, c.name)], len(rows), rng))
                        continue
                    pool = local[c.name]
                    named = self._named.get((q, c.name)) if focused else None
                    if named and rng.random() < FOCUS_SHARE:
                        pool = named
                    if c.nullable and name not in pk and rng.random() < NULL_SHARE:
                        row.append(None)
                    else:
                        row.append(rng.choice(pool) if pool else None)
                if pk:
                    k = tuple(row[names.index(p)] for p in pk)
                    if k in keys or any(v is None for v in k):
                        continue
                    keys.add(k)
                rows.append(row)
            # a reference to the same table: another row's key (or NULL)
            for name, (parent, pcol) in t.refs.items():
                if parent != q or pcol.lower() not in names:
                    continue
                ci, pi = names.index(name), names.index(pcol.lower())
                for row in rows:
                    others = [r[pi] for r in rows if r is not row and r[pi] is not None]
                    row[ci] = rng.choice(others) if others and rng.random() > 0.3 else None
            data[q] = [tuple(r) for r in rows]
        return data

    # --- the judge ------------------------------------------------------------------------

    def judge(self, sql_a: str, sql_b: str, ev: dict[str, Any]) -> int | None:
        """The pairwise LLM judge's pick (0: A, 1: B, None: no pick); kept in ``ev["judge"]``.

        Asked twice, the second time with the two queries swapped: a pick counts only
        when both answers name the same query (a judge that prefers a position, or
        hesitates, leaves the pick to the support)."""
        from prompts import load_prompt
        from sqlgenie.llm import ChatMessage

        template = load_prompt("feedback_pairwise_judge.txt")
        results = ev["results"]
        answers: list[str] = []
        picks: list[int | None] = []
        for order in ((0, 1), (1, 0)):
            sqls = (sql_a, sql_b)
            prompt = template.safe_substitute(
                question=self.question, sql_a=sqls[order[0]], sql_b=sqls[order[1]], tables=render_tables(ev),
                result_a=render_result(results[order[0]]), result_b=render_result(results[order[1]]),
            )
            try:
                response = self.llm.complete([ChatMessage("user", prompt)], stage="feedback_judge", temperature=0.0)
            except Exception as exc:  # a failing judge leaves the pick to the support
                ev["judge"] = {"error": f"{type(exc).__name__}: {exc}", "pick": None, "answers": answers}
                return None
            answers.append(response.text[:500])
            shown = parse_verdict(response.text)
            picks.append(None if shown is None else order[shown])
            if picks[0] is None:
                break  # no pick in the first order: no need to ask again
        pick = picks[0] if len(picks) == 2 and picks[0] == picks[1] else None
        ev["judge"] = {"pick": None if pick is None else "AB"[pick], "answers": answers,
                       "consistent": len(picks) == 2 and picks[0] == picks[1]}
        return pick


def drop_stale(store: psycopg.Connection, *, older_than_s: float = STALE_S) -> list[str]:
    """Drop scratch schemas left by a process killed mid-build (their name holds the
    creation time; one in use is seconds old). Returns the names dropped."""
    from sqlgenie.autocorrect.dummy import drop_scratch

    dropped = []
    now = time.time()
    for (name,) in store.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                 (SCRATCH_PREFIX.replace("_", "\\_") + "%",)).fetchall():
        stamp = name[len(SCRATCH_PREFIX):].split("_", 1)[0]
        if stamp.isdigit() and now - int(stamp) > older_than_s:
            drop_scratch(store, name)
            dropped.append(name)
    return dropped


def render_tables(ev: dict[str, Any]) -> str:
    lines = []
    for q, t in ev.get("tables", {}).items():
        lines.append(f"{q} ({', '.join(t['columns'])}):")
        lines += ["  " + ", ".join("NULL" if v is None else repr(v) for v in r) for r in t["rows"]] or ["  (no rows)"]
    return "\n".join(lines)


def render_result(res: dict[str, Any]) -> str:
    head = ", ".join(res.get("columns") or [])
    rows = ["  " + ", ".join("NULL" if v is None else repr(v) for v in r) for r in res.get("rows") or []]
    return "\n".join([f"  ({head})"] + (rows or ["  (no rows)"]))


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike)


def _aliases(catalog: Catalog, tree: exp.Expression) -> dict[str, str]:
    """Table alias (and name) -> qualified name, for the tables of ``tree`` the catalog knows."""
    from sqlgenie.autocorrect.resolve import base_tables

    aliases: dict[str, str] = {}
    for node in base_tables(tree):
        info = catalog.table(node.name, node.db or None)
        if info is not None:
            aliases[node.alias_or_name.lower()] = info.qualified
            aliases.setdefault(node.name.lower(), info.qualified)
    return aliases


def _owner(col: exp.Column, aliases: dict[str, str], tables: dict[str, _Table]) -> str | None:
    """The qualified table of ``col``: its qualifier, else the one table of the set having it."""
    if col.table:
        return aliases.get(col.table.lower())
    owners = [q for q, t in tables.items() if any(c.name.lower() == col.name.lower() for c in t.columns)]
    return owners[0] if len(owners) == 1 else None


def _query_literals(catalog: Catalog, trees: Sequence[exp.Expression], tables: dict[str, _Table]
                    ) -> dict[str, list[str]]:
    """Constants the queries compare columns with (``year > 1980``, ``name = 'Kyle'``,
    ``x IN (1, 2)``, ``LIKE '%a%'``), by ``schema.table.column``: rows holding them
    (and, for numbers, one above and below) are the ones such filters split."""
    out: dict[str, list[str]] = {}
    by_column: dict[str, list[str]] = {}
    for q, t in tables.items():
        for c in t.columns:
            by_column.setdefault(c.name.lower(), []).append(q)

    def add(col: exp.Column, lit: exp.Literal, aliases: dict[str, str], like: bool = False) -> None:
        value = lit.this if isinstance(lit.this, str) else str(lit.this)
        if like:
            value = value.replace("%", "").replace("_", " ").strip()
            if not value:
                return
        name = col.name.lower()
        owners = [aliases[col.table.lower()]] if col.table and col.table.lower() in aliases else by_column.get(name, [])
        for q in owners:
            vals = out.setdefault(f"{q}.{name}".lower(), [])
            if value not in vals:
                vals.append(value)

    for tree in trees:
        aliases = _aliases(catalog, tree)
        for pred in tree.find_all(*_COMPARISONS):
            left, right = pred.this, pred.expression
            for col, lit in ((left, right), (right, left)):
                if isinstance(col, exp.Column) and isinstance(lit, exp.Literal):
                    add(col, lit, aliases, like=isinstance(pred, (exp.Like, exp.ILike)))
        for node in tree.find_all(exp.In):
            if isinstance(node.this, exp.Column):
                for lit in node.expressions:
                    if isinstance(lit, exp.Literal):
                        add(node.this, lit, aliases)
        for node in tree.find_all(exp.Between):
            if isinstance(node.this, exp.Column):
                for lit in (node.args.get("low"), node.args.get("high")):
                    if isinstance(lit, exp.Literal):
                        add(node.this, lit, aliases)
    return out


def _result_key(rows: Sequence[Sequence[Any]]) -> tuple:
    """A result as an order-free, hashable value (to count a query's different results)."""
    from sqlgenie.eval.compare import normalize_rows

    return tuple(sorted(repr(r) for r in normalize_rows(rows)))


def _named_text(v: Any) -> str:
    """A constant compared across types (``2016`` the number and ``'2016'`` the text)."""
    if isinstance(v, Decimal):
        return format(v.normalize(), "f") if v == v.to_integral_value() else str(v)
    return str(v)


def _is_key(info: TableInfo, columns: Sequence[str]) -> bool:
    if info.primary_key and [c.lower() for c in info.primary_key] == [c.lower() for c in columns]:
        return True
    if len(columns) == 1:
        col = info.column(columns[0])
        return bool(col is not None and col.is_unique)
    return False


def _is_int(c: ColumnInfo) -> bool:
    return c.data_type.lower().startswith(_INT_TYPES)


def _number(c: ColumnInfo, text: str) -> Any:
    try:
        d = Decimal(str(text).strip())
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite():
        return None
    if _is_int(c):
        return int(d) if d == d.to_integral_value() else None
    return d


def _temporal(c: ColumnInfo, text: str) -> Any:
    t = c.data_type.lower()
    s = str(text).strip()
    try:
        if t.startswith("date"):
            return dt.date.fromisoformat(s[:10])
        if t.startswith("timestamp"):
            v = dt.datetime.fromisoformat(s)
            if "with time zone" in t and v.tzinfo is None:
                v = v.replace(tzinfo=dt.timezone.utc)
            if "with time zone" not in t and v.tzinfo is not None:
                v = v.replace(tzinfo=None)
            return v
    except ValueError:
        if s[:4].isdigit() and len(s) == 4:  # a linked year
            year = int(s)
            return dt.date(year, 6, 15) if t.startswith("date") else dt.datetime(year, 6, 15, 12, 0)
        return None
    return None


def _typed_pool(c: ColumnInfo, raw: list[str], linked: list[str]) -> list[Any]:
    """Distinct values for column ``c`` (see module doc, step 2)."""
    fam = type_family(c.data_type)
    out: list[Any] = []

    def add(v: Any) -> None:
        if v is not None and v not in out:
            out.append(v)

    if fam == "numeric":
        for text in raw:
            add(_number(c, text))
        for text in linked:  # one above and below a number the question names (> against >=)
            v = _number(c, text)
            if v is not None:
                add(v + 1)
                add(v - 1)
        for v in (0, 1, 2):
            add(v if _is_int(c) else Decimal(v))
    elif fam == "text":
        for text in raw:
            add(str(text))
        add(f"other {c.name}")
    elif fam == "temporal":
        for text in raw:
            add(_temporal(c, text))
        if not out:
            for s in ("2020-01-01", "2021-06-15 12:00:00"):
                add(_temporal(c, s))
    elif fam == "boolean":
        out = [True, False]
    else:
        for text in raw:
            add(str(text))
    return out


def _key_value(c: ColumnInfo, pool: list[Any], i: int, rng: random.Random) -> Any:
    """A primary-key value for row ``i`` (uniqueness is checked by the caller)."""
    fam = type_family(c.data_type)
    if fam == "numeric":
        return rng.choice(pool) if pool and rng.random() < 0.5 else (i + 1 + rng.randint(0, 2) * 10)
    if fam == "text":
        return rng.choice(pool) if pool and rng.random() < 0.5 else f"{c.name}_{i + 1}"
    return rng.choice(pool) if pool else None
