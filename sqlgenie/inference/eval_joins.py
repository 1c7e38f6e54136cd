"""``sqlgenie eval joins``: the JOIN planner against gold queries (issue 15, item 5).

Every database the questions use is loaded with ``--keys drop`` and onboarded with no
LLM (:func:`onboarding.eval_keys.run_onboarding`, the harness of ``eval fk``), so the
planner sees only keys and joins that onboarding inferred. For each gold query, each
SELECT (the outer one and every subquery) that reads two or more tables is one
*join site*: the planner (:func:`sqlgenie.inference.join_planner.plan_joins`) gets the
site's tables (a table read twice is passed twice) and the question, and its join conditions are compared with the gold's as unordered
column-pair sets (``{t1.a, t2.b}``; every ``column = column`` between two different
tables of the site, in ``ON`` or ``WHERE``). A question is ``join_exact`` when every
site of its gold matches. Questions whose gold joins no two tables are not counted, nor questions on databases
with no rows (onboarding skips them, as in ``eval fk``; ``skipped_empty_db``).

Breakdowns: by number of tables in the largest site, by database, and by kind of
miss (``self_join``: a site reads one table twice and the planner's second copy
joins differently; ``no_gold_condition``: the gold joins a table without any condition (its equalities
leave a table of the site apart, e.g. ``ON T2.actid = T2.actid``);
``unknown_table``; ``unconnected``; ``gold_extra_pairs``: every planned pair is in the
gold, which adds another column equality, a filter such as ``T1.employee_id =
T2.manager_id`` next to the join or a second key column the catalog does not know;
``wrong_pairs``), and by half of the databases (``db_halves``: ``A`` holds the
databases whose id's MD5 is even, ``B`` the others; a rule written while reading one
half's misses is measured on the other).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import traverse_scope

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import InputError
from sqlgenie.eval.datasets import Question, SpiderDataset, open_dataset
from sqlgenie.eval.identifiers import fold_identifier
from sqlgenie.eval.tasks import TaskResult, select_questions

Progress = Callable[[int, int], None]

__all__ = ["JoinSite", "db_half", "eval_joins", "gold_join_sites", "score_site"]


@dataclass
class JoinSite:
    """One SELECT of a gold query reading two or more tables."""

    tables: list[str]  # distinct folded table names, in FROM order
    refs: list[str] = field(default_factory=list)  # every table reference (a table read twice appears twice)
    pairs: set[frozenset[str]] = field(default_factory=set)  # {"t.c", "u.d"} folded
    self_join: bool = False  # a table read twice
    unresolved: int = 0  # column equalities whose tables could not be told


def _columns_by_table(dataset: SpiderDataset, db_id: str) -> dict[str, set[str]]:
    entry = dataset.tables_entry(db_id)
    if entry is None:
        return {}
    return {fold_identifier(t.name): {fold_identifier(c) for c in t.columns} for t in entry.tables}


def gold_join_sites(sql: str, columns: dict[str, set[str]], dialect: str = "sqlite") -> list[JoinSite]:
    """The join sites of ``sql`` (see the module docstring); ``columns``: folded table ->
    folded column names (to place unqualified columns)."""
    tree = sqlglot.parse_one(sql, read=dialect)
    sites = []
    for scope in traverse_scope(tree):
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        aliases: dict[str, str] = {}
        order: list[str] = []
        for alias, source in scope.sources.items():
            if isinstance(source, exp.Table) and source.name:
                aliases[alias.lower()] = fold_identifier(source.name)
        # FROM order of the table references (aliases may repeat a table)
        refs = []
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is not None:
            refs.append(from_.this)
        refs += [j.this for j in select.args.get("joins") or []]
        table_refs = [r for r in refs if isinstance(r, exp.Table) and r.name]
        for r in table_refs:
            name = fold_identifier(r.name)
            if name not in order:
                order.append(name)
        if len(order) < 2:
            continue
        site = JoinSite(order, [fold_identifier(r.name) for r in table_refs], self_join=len(table_refs) > len(order))
        conds = []
        for j in select.args.get("joins") or []:
            if j.args.get("on") is not None:
                conds.append(j.args["on"])
        if select.args.get("where") is not None:
            conds.append(select.args["where"])
        for cond in conds:
            for eq in cond.find_all(exp.EQ):
                if eq.find_ancestor(exp.Select) is not select:
                    continue
                a, b = eq.this, eq.expression
                if not (isinstance(a, exp.Column) and isinstance(b, exp.Column)):
                    continue
                ta, tb = _table_of(a, aliases, order, columns), _table_of(b, aliases, order, columns)
                if ta is None or tb is None:
                    site.unresolved += 1
                    continue
                if ta == tb:
                    continue  # a self-join condition or a same-table filter
                site.pairs.add(frozenset((f"{ta}.{fold_identifier(a.name)}", f"{tb}.{fold_identifier(b.name)}")))
        sites.append(site)
    return sites


def _table_of(col: exp.Column, aliases: dict[str, str], order: list[str], columns: dict[str, set[str]]) -> str | None:
    if col.table:
        t = aliases.get(col.table.lower())
        if t is None and fold_identifier(col.table) in order:
            t = fold_identifier(col.table)
        return t
    name = fold_identifier(col.name)
    owners = [t for t in order if name in columns.get(t, set())]
    return owners[0] if len(owners) == 1 else None


def _gold_connected(site: JoinSite) -> bool:
    """Whether the gold's column equalities connect every table of the site (a table
    joined with no condition, or ``ON T2.actid = T2.actid``, leaves it apart)."""
    tables = set(site.tables)
    if len(tables) < 2:
        return True
    adj: dict[str, set[str]] = {t: set() for t in tables}
    for pair in site.pairs:
        a, b = (p.rsplit(".", 1)[0] for p in sorted(pair))
        if a in adj and b in adj:
            adj[a].add(b)
            adj[b].add(a)
    seen, todo = set(), [next(iter(tables))]
    while todo:
        t = todo.pop()
        if t not in seen:
            seen.add(t)
            todo.extend(adj[t] - seen)
    return seen == tables


def db_half(db_id: str) -> str:
    """``"A"`` when the MD5 of ``db_id`` is even, else ``"B"``: a fixed split of the
    databases into a half to develop rules on and a half held out."""
    return "A" if int(hashlib.md5(db_id.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "B"


def score_site(site: JoinSite, plan, schema: str) -> tuple[bool, str | None, set[frozenset[str]]]:
    """(exact, kind of miss, predicted pairs without the schema) for one site."""
    prefix = schema.lower() + "."
    predicted = {
        frozenset(p[len(prefix):] if p.startswith(prefix) else p for p in pair) for pair in plan.condition_pairs()
    }
    if predicted == site.pairs:
        return True, None, predicted
    if site.self_join:
        kind = "self_join"
    elif not _gold_connected(site):
        kind = "no_gold_condition"
    elif plan.unknown:
        kind = "unknown_table"
    elif plan.unconnected:
        kind = "unconnected"
    elif predicted < site.pairs:
        kind = "gold_extra_pairs"  # every planned pair is the gold's; the gold adds a column equality
    else:
        kind = "wrong_pairs"
    return False, kind, predicted


def eval_joins(
    dataset_dir: str | Path,
    *,
    settings: Settings | None = None,
    questions_file: str | Path | None = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    keep_catalog: bool = False,
    proposed: bool = True,
    rejected: bool = True,
    guess: bool = True,
    use_question: bool = True,
) -> TaskResult:
    """Score the planner on the gold joins of ``questions_file`` (default dev.json)."""
    from onboarding import catalog_writer
    from onboarding.eval_keys import run_onboarding
    from sqlgenie.catalog import load_catalog
    from sqlgenie.inference.join_planner import build_graph, plan_joins
    from sqlgenie.store import connect_store

    settings = settings or get_settings()
    dataset = open_dataset(dataset_dir)
    if not isinstance(dataset, SpiderDataset):
        raise InputError("eval joins needs a Spider-layout dataset (tables.json and gold SQL in SQLite dialect).")
    started = time.perf_counter()
    questions, skipped = select_questions(dataset, questions_file, dbs, limit)
    sites_by_q: dict[int, list[JoinSite]] = {}
    parse_errors = 0
    columns_cache: dict[str, dict[str, set[str]]] = {}
    for q in questions:
        cols = columns_cache.setdefault(q.db_id, _columns_by_table(dataset, q.db_id))
        try:
            sites = gold_join_sites(q.gold_sql, cols)
        except sqlglot.errors.SqlglotError:
            parse_errors += 1
            continue
        if sites:
            sites_by_q[q.index] = sites
    joined = [q for q in questions if q.index in sites_by_q]
    needed = {q.db_id for q in joined}
    if not needed:
        raise InputError("No gold query of the selected questions joins two tables.")
    _, runs, meta = run_onboarding(dataset_dir, settings=settings, dbs=needed, keep_catalog=True)
    onboarded = {r.db_id for r in runs}
    # databases with no rows are not onboarded (as in eval fk): their questions are not scored
    empty = [q for q in joined if q.db_id not in onboarded]
    joined = [q for q in joined if q.db_id in onboarded]
    records: list[dict[str, Any]] = []
    exact = 0
    by_size: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    by_db: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: Counter[str] = Counter()
    by_half: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    sites_total = sites_exact = 0
    statuses: Counter[str] = Counter()
    fan_out_joins = planned_joins = 0
    plan_seconds = 0.0
    with connect_store(settings) as store:
        store.commit()
        store.autocommit = True
        catalogs = {}
        graphs = {}
        for db_id in sorted(needed & onboarded):
            schema = dataset.schema_name(db_id)
            catalogs[db_id] = load_catalog(store, schemas=[schema], search_path=(schema,))
            graphs[db_id] = build_graph(catalogs[db_id], proposed=proposed, rejected=rejected)
        for i, q in enumerate(joined):
            schema = dataset.schema_name(q.db_id)
            sites = sites_by_q[q.index]
            rec: dict[str, Any] = {"index": q.index, "db_id": q.db_id, "question": q.question, "gold_sql": q.gold_sql,
                                   "sites": []}
            ok_all = True
            size = max(len(s.tables) for s in sites)
            kinds = []
            for site in sites:
                t0 = time.perf_counter()
                plan = plan_joins(catalogs[q.db_id], [f"{schema}.{t}" for t in site.refs], guess=guess,
                                  graph=graphs[q.db_id], question=q.question if use_question else None)
                plan_seconds += time.perf_counter() - t0
                ok, kind, predicted = score_site(site, plan, schema)
                for j in plan.joins:
                    planned_joins += 1
                    fan_out_joins += int(j.fans_out)
                    statuses[j.status] += 1
                sites_total += 1
                sites_exact += int(ok)
                if not ok:
                    ok_all = False
                    kinds.append(kind)
                rec["sites"].append({
                    "tables": site.tables, "exact": ok, "miss": kind,
                    "gold": sorted(" = ".join(sorted(p)) for p in site.pairs),
                    "predicted": sorted(" = ".join(sorted(p)) for p in predicted),
                    "plan": plan.render(),
                })
            exact += int(ok_all)
            by_size[size][0] += 1
            by_size[size][1] += int(ok_all)
            by_db[q.db_id][0] += 1
            by_db[q.db_id][1] += int(ok_all)
            by_half[db_half(q.db_id)][0] += 1
            by_half[db_half(q.db_id)][1] += int(ok_all)
            if not ok_all:
                misses[kinds[0]] += 1
            rec["exact"] = ok_all
            rec["tables"] = size
            records.append(rec)
            if progress:
                progress(i + 1, len(joined))
        if not keep_catalog:
            for db_id in needed & onboarded:
                catalog_writer.forget_tables(store, dataset.schema_name(db_id))
    n = len(joined)
    countable = n - misses.get("self_join", 0) - misses.get("no_gold_condition", 0)
    exact_countable = exact  # every exact question is countable (its sites have distinct tables and conditions)
    summary = {
        "task": "joins",
        "questions": n,
        "join_exact": round(exact / n, 4) if n else 0.0,
        "exact": exact,
        "join_exact_expressible": round(exact_countable / countable, 4) if countable else 0.0,
        "expressible": countable,
        "sites": sites_total,
        "site_exact": round(sites_exact / sites_total, 4) if sites_total else 0.0,
        "by_tables": {str(k): {"questions": v[0], "join_exact": round(v[1] / v[0], 4)}
                      for k, v in sorted(by_size.items())},
        "misses": dict(misses.most_common()),
        "db_halves": {k: {"questions": v[0], "exact": v[1], "join_exact": round(v[1] / v[0], 4)}
                      for k, v in sorted(by_half.items())},
        "by_db": {k: {"questions": v[0], "join_exact": round(v[1] / v[0], 4)} for k, v in sorted(by_db.items())},
        "planned_joins": planned_joins,
        "planned_by_status": dict(statuses),
        "fan_out_joins": fan_out_joins,
        "questions_selected": len(questions),
        "questions_without_join": len(questions) - n - parse_errors,
        "parse_errors": parse_errors,
        "skipped": len(skipped),
        "skipped_empty_db": len(empty),
        "dbs": len(needed & onboarded),
        "plan_ms_mean": round(1000 * plan_seconds / max(1, sites_total), 3),
        "onboard_seconds": meta.get("seconds"),
        "seconds": round(time.perf_counter() - started, 2),
        "proposed": proposed,
        "rejected": rejected,
        "guess": guess,
        "question_hints": use_question,
    }
    return TaskResult(summary, records)
