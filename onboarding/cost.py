"""Join cost model: ``C(T1, T2) = k0 + k1 * (|T1| ln|T1| + |T2| ln|T2|)``.

``|T|`` is the table's row count (estimate) and ``ln`` the natural logarithm (with
``|T| ln|T| = 0`` for ``|T| <= 1``). Costs are in **milliseconds** of estimated
join time, so they can be compared across tables and used to prefer cheap join
paths.

Defaults (:data:`DEFAULT_K0`, :data:`DEFAULT_K1`) were fitted on the development
machine (2 vCPU, PostgreSQL 18, data in memory) and are only a starting point:
``sqlgenie onboard calibrate`` times real hash joins on the target (synthetic tables
of 1k..1M rows in a rolled-back transaction, plus accepted catalog joins up to
:data:`CALIBRATE_MAX_ROWS` rows), fits ``k0`` and ``k1`` by least squares and
stores them in ``sqlgenie.store_settings`` under ``join_cost_model``; every stored
join's cost is then recomputed.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import psycopg
from psycopg import sql

DEFAULT_K0 = 0.25  # ms: fixed overhead of a join (a 1k x 1k hash join here)
DEFAULT_K1 = 5.0e-5  # ms per (row * ln row): least squares over 21 synthetic joins (1k..1M rows), R2 0.86
SETTINGS_KEY = "join_cost_model"
CALIBRATE_SIZES = (1_000, 10_000, 50_000, 100_000, 300_000, 1_000_000)
CALIBRATE_MAX_ROWS = 2_000_000


@dataclass(frozen=True)
class CostModel:
    k0: float = DEFAULT_K0
    k1: float = DEFAULT_K1
    source: str = "default"  # default | calibrated

    def cost(self, rows1: float | None, rows2: float | None) -> float:
        return join_cost(rows1, rows2, self.k0, self.k1)


def nlogn(n: float | None) -> float:
    n = float(n or 0)
    return n * math.log(n) if n > 1 else 0.0


def join_cost(rows1: float | None, rows2: float | None, k0: float = DEFAULT_K0, k1: float = DEFAULT_K1) -> float:
    """``k0 + k1 (|T1| ln|T1| + |T2| ln|T2|)``."""
    return k0 + k1 * (nlogn(rows1) + nlogn(rows2))


def load_model(store: psycopg.Connection) -> CostModel:
    row = store.execute("SELECT value FROM sqlgenie.store_settings WHERE key = %s", (SETTINGS_KEY,)).fetchone()
    if not row:
        return CostModel()
    v = row[0] if isinstance(row[0], dict) else json.loads(row[0])
    try:
        return CostModel(float(v["k0"]), float(v["k1"]), str(v.get("source", "calibrated")))
    except (KeyError, TypeError, ValueError):
        return CostModel()


def save_model(store: psycopg.Connection, model: CostModel, details: dict | None = None) -> None:
    value = {"k0": model.k0, "k1": model.k1, "source": model.source, **(details or {})}
    store.execute(
        "INSERT INTO sqlgenie.store_settings (key, value) VALUES (%s, %s::jsonb)"
        " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
        (SETTINGS_KEY, json.dumps(value)),
    )


def recompute_costs(store: psycopg.Connection, model: CostModel) -> int:
    """Recompute ``catalog_joins.cost`` for every stored pair; returns rows updated."""
    cur = store.execute(
        """
        UPDATE sqlgenie.catalog_joins j
        SET cost = %(k0)s + %(k1)s * (
                CASE WHEN coalesce(a.row_estimate, 0) > 1 THEN a.row_estimate * ln(a.row_estimate) ELSE 0 END
              + CASE WHEN coalesce(b.row_estimate, 0) > 1 THEN b.row_estimate * ln(b.row_estimate) ELSE 0 END)
        FROM sqlgenie.catalog_tables a, sqlgenie.catalog_tables b
        WHERE a.id = j.from_table_id AND b.id = j.to_table_id
        """,
        {"k0": model.k0, "k1": model.k1},
    )
    return cur.rowcount


def fit(samples: Sequence[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Least squares of ``ms = k0 + k1 * x`` with ``x = n1 ln n1 + n2 ln n2`` over
    ``(n1, n2, ms)`` samples; returns (k0, k1, r2). Both coefficients are kept >= 0."""
    xs = [nlogn(a) + nlogn(b) for a, b, _ in samples]
    ys = [float(t) for _, _, t in samples]
    n = len(xs)
    if n < 2:
        raise ValueError("need at least two timings to fit k0 and k1")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    k1 = sxy / sxx if sxx > 0 else 0.0
    k1 = max(k1, 0.0)
    k0 = max(my - k1 * mx, 0.0)
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (k0 + k1 * x)) ** 2 for x, y in zip(xs, ys))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return k0, k1, r2


@dataclass
class Calibration:
    model: CostModel
    r2: float
    samples: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def _execution_ms(conn: psycopg.Connection, query: sql.Composable) -> float:
    plan = conn.execute(sql.SQL("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ") + query).fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return float(plan[0]["Execution Time"])


def calibrate(
    target: psycopg.Connection,
    joins: Sequence[tuple[str, str, Sequence[str], int, str, str, Sequence[str], int]] = (),
    *,
    sizes: Sequence[int] = CALIBRATE_SIZES,
    repeats: int = 3,
    progress: Callable[[int, int], None] | None = None,
) -> Calibration:
    """Time joins on the target and fit the model. ``target`` in autocommit mode.

    ``joins``: real pairs ``(schema1, table1, cols1, rows1, schema2, table2, cols2, rows2)``
    (from the catalog), timed when both sides have at most :data:`CALIBRATE_MAX_ROWS` rows.
    Synthetic pairs use temporary tables in a transaction that is rolled back.
    """
    started = time.perf_counter()
    samples: list[dict] = []
    pairs = [(a, b) for a in sizes for b in sizes if a <= b]
    real = [j for j in joins if j[3] <= CALIBRATE_MAX_ROWS and j[7] <= CALIBRATE_MAX_ROWS][:20]
    total = len(pairs) + len(real)
    done = 0
    try:
        with target.transaction(force_rollback=True):
            target.execute("SET LOCAL statement_timeout = '300s'")
            target.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            for n in sorted(set(sizes)):
                t = sql.Identifier(f"sg_cal_{n}")
                target.execute(sql.SQL("CREATE TEMP TABLE {} ON COMMIT DROP AS SELECT g AS k, md5(g::text) AS pad FROM generate_series(1, {}) g").format(t, sql.Literal(n)))
                target.execute(sql.SQL("ANALYZE {}").format(t))
            for a, b in pairs:
                q = sql.SQL("SELECT count(*) FROM {} x JOIN {} y ON x.k = y.k").format(
                    sql.Identifier(f"sg_cal_{a}"), sql.Identifier(f"sg_cal_{b}"))
                ms = min(_execution_ms(target, q) for _ in range(repeats))
                samples.append({"rows1": a, "rows2": b, "ms": round(ms, 3), "kind": "synthetic"})
                done += 1
                if progress:
                    progress(done, total)
    except psycopg.Error as exc:
        samples.append({"error": f"synthetic joins skipped: {str(exc).strip().splitlines()[0]}"})
    for s1, t1, c1, n1, s2, t2, c2, n2 in real:
        cond = sql.SQL(" AND ").join(
            sql.SQL("x.{} = y.{}").format(sql.Identifier(a), sql.Identifier(b)) for a, b in zip(c1, c2)
        )
        q = sql.SQL("SELECT count(*) FROM {}.{} x JOIN {}.{} y ON {}").format(
            sql.Identifier(s1), sql.Identifier(t1), sql.Identifier(s2), sql.Identifier(t2), cond)
        try:
            with target.transaction(force_rollback=True):
                target.execute("SET LOCAL statement_timeout = '120s'")
                ms = min(_execution_ms(target, q) for _ in range(repeats))
        except psycopg.Error:
            continue
        samples.append({"rows1": n1, "rows2": n2, "ms": round(ms, 3), "kind": "catalog", "join": f"{s1}.{t1} -> {s2}.{t2}"})
        done += 1
        if progress:
            progress(done, total)
    points = [(s["rows1"], s["rows2"], s["ms"]) for s in samples if "ms" in s]
    k0, k1, r2 = fit(points)
    return Calibration(CostModel(k0, k1, "calibrated"), r2, samples, time.perf_counter() - started)
