"""Writes one onboarded table into the catalog (``sqlgenie.catalog_*`` in the store).

Everything about one table — its row, columns, value cache, join pairs and the
re-resolution of join statuses — is written in **one transaction**: an interrupted
or failed onboarding leaves the previous catalog state intact. Concurrent
onboardings serialize on an advisory lock.

Human decisions survive re-onboarding:

* column fields listed in ``catalog_columns.human_fields`` (synonyms, aggregation,
  mandatory, description) and table fields in ``catalog_tables.human_fields``
  (primary_key, description) are not overwritten (a person's primary key ends when the
  table gets a declared ``PRIMARY KEY`` or loses one of its columns);
* joins decided by a human (``decided_by = 'human'``) keep their status; their
  score, evidence and cost are refreshed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import psycopg

from onboarding.cost import CostModel
from onboarding.indexes import IndexPick
from onboarding.joins import THRESHOLD, Candidate, JoinRow, resolve, worth_storing
from onboarding.keys import KeyPick
from onboarding.profile import ColumnProfile, TableProfile
from onboarding.value_cache import ColumnValues

ONBOARD_LOCK_KEY = 0x73676F6E62  # "sgonb"
COLUMN_HUMAN_FIELDS = ("synonyms", "aggregation", "mandatory", "description", "searchable")
TABLE_HUMAN_FIELDS = ("primary_key", "description")


@dataclass
class ColumnMeta:
    profile: ColumnProfile
    synonyms: list[str]
    aggregation: str
    searchable: bool
    searchable_reason: str
    values: ColumnValues | None = None


@dataclass
class TableOnboarding:
    """Everything computed for one table, ready to be written."""

    profile: TableProfile
    key: KeyPick
    columns: list[ColumnMeta]
    partition: dict[str, Any] | None = None
    index_picks: list[IndexPick] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class WriteResult:
    table_id: int
    columns: int
    cached_values: int
    joins_written: int
    joins: list[dict[str, Any]] = field(default_factory=list)  # pairs involving this table after resolution
    kept_human: list[str] = field(default_factory=list)


def lock(store: psycopg.Connection) -> None:
    """Serialize catalog writers (onboarding, human edits) on one advisory lock."""
    store.execute("SELECT pg_advisory_xact_lock(%s)", (ONBOARD_LOCK_KEY,))


def write_table(
    store: psycopg.Connection,
    ob: TableOnboarding,
    *,
    cost_model: CostModel | None = None,
    threshold: float = THRESHOLD,
) -> WriteResult:
    """Write ``ob`` in one transaction (``store`` must not be inside a failed transaction)."""
    cost_model = cost_model or CostModel()
    with store.transaction():
        lock(store)
        table_id, kept = _upsert_table(store, ob)
        col_ids, kept_cols = _upsert_columns(store, table_id, ob)
        kept += kept_cols
        n_values = _write_value_cache(store, col_ids, ob)
        n_joins = _write_joins(store, table_id, ob, cost_model)
        _resolve_scope(store, table_id, threshold)
        joins = _joins_of(store, table_id)
    return WriteResult(table_id, len(col_ids), n_values, n_joins, joins, kept)


def _upsert_table(store: psycopg.Connection, ob: TableOnboarding) -> tuple[int, list[str]]:
    p = ob.profile
    machine_key = ob.key.evidence.get("inferred_key") or {"columns": ob.key.columns, "source": ob.key.source}
    profile_json = {**p.to_json(), "key_evidence": ob.key.evidence, "machine_key": machine_key,
                    "timings": {k: round(v, 4) for k, v in ob.timings.items()}}
    # a declared PRIMARY KEY, or a person's key naming columns that are gone, ends the person's key
    drop_human_pk = ob.key.source == "declared" or "human_key_dropped" in ob.key.evidence
    row = store.execute(
        """
        INSERT INTO sqlgenie.catalog_tables AS t
            (schema_name, table_name, row_estimate, description, primary_key, pk_source, partition_pick,
             index_picks, profile, options, onboarded_at)
        VALUES (%(schema)s, %(table)s, %(rows)s, %(descr)s, %(pk)s, %(pk_source)s, %(part)s::jsonb,
                %(picks)s::jsonb, %(profile)s::jsonb, %(options)s::jsonb, now())
        ON CONFLICT (schema_name, table_name) DO UPDATE SET
            row_estimate = EXCLUDED.row_estimate,
            description = CASE WHEN 'description' = ANY(t.human_fields) THEN t.description ELSE EXCLUDED.description END,
            primary_key = CASE WHEN 'primary_key' = ANY(t.human_fields) AND NOT %(drop_pk)s
                               THEN t.primary_key ELSE EXCLUDED.primary_key END,
            pk_source = CASE WHEN 'primary_key' = ANY(t.human_fields) AND NOT %(drop_pk)s
                             THEN t.pk_source ELSE EXCLUDED.pk_source END,
            human_fields = CASE WHEN %(drop_pk)s THEN array_remove(t.human_fields, 'primary_key') ELSE t.human_fields END,
            partition_pick = EXCLUDED.partition_pick,
            index_picks = EXCLUDED.index_picks,
            profile = EXCLUDED.profile,
            options = EXCLUDED.options,
            onboarded_at = now()
        RETURNING id, human_fields
        """,
        {
            "schema": p.schema, "table": p.name, "rows": p.row_count, "descr": p.description,
            "pk": ob.key.columns, "pk_source": ob.key.source, "drop_pk": drop_human_pk,
            "part": json.dumps(ob.partition) if ob.partition else None,
            "picks": json.dumps([pk.to_json() for pk in ob.index_picks]),
            "profile": json.dumps(profile_json, default=str), "options": json.dumps(ob.options, default=str),
        },
    ).fetchone()
    return row[0], [f"table.{f}" for f in (row[1] or [])]


def _upsert_columns(store: psycopg.Connection, table_id: int, ob: TableOnboarding) -> tuple[dict[str, int], list[str]]:
    ids: dict[str, int] = {}
    kept: list[str] = []
    pk = set(ob.key.columns)
    for meta in ob.columns:
        c = meta.profile
        row = store.execute(
            """
            INSERT INTO sqlgenie.catalog_columns AS c
                (table_id, column_name, ordinal, data_type, nullable, null_frac, n_distinct, min_value, max_value,
                 synonyms, aggregation, searchable, description, is_unique, profile)
            VALUES (%(tid)s, %(name)s, %(ord)s, %(type)s, %(nullable)s, %(null_frac)s, %(nd)s, %(min)s, %(max)s,
                    %(syn)s, %(agg)s, %(searchable)s, %(descr)s, %(unique)s, %(profile)s::jsonb)
            ON CONFLICT (table_id, column_name) DO UPDATE SET
                ordinal = EXCLUDED.ordinal, data_type = EXCLUDED.data_type, nullable = EXCLUDED.nullable,
                null_frac = EXCLUDED.null_frac, n_distinct = EXCLUDED.n_distinct,
                min_value = EXCLUDED.min_value, max_value = EXCLUDED.max_value,
                is_unique = EXCLUDED.is_unique, profile = EXCLUDED.profile,
                synonyms = CASE WHEN 'synonyms' = ANY(c.human_fields) THEN c.synonyms ELSE EXCLUDED.synonyms END,
                aggregation = CASE WHEN 'aggregation' = ANY(c.human_fields) THEN c.aggregation ELSE EXCLUDED.aggregation END,
                searchable = CASE WHEN 'searchable' = ANY(c.human_fields) THEN c.searchable ELSE EXCLUDED.searchable END,
                description = CASE WHEN 'description' = ANY(c.human_fields) THEN c.description ELSE EXCLUDED.description END
            RETURNING id, human_fields
            """,
            {
                "tid": table_id, "name": c.name, "ord": c.ordinal, "type": c.data_type,
                "nullable": not (c.not_null or c.name in pk and ob.key.source == "declared"),
                "null_frac": c.null_frac, "nd": c.n_distinct, "min": c.min_value, "max": c.max_value,
                "syn": meta.synonyms, "agg": meta.aggregation, "searchable": meta.searchable,
                "descr": c.description, "unique": c.is_unique,
                "profile": json.dumps({**c.to_json(), "searchable_reason": meta.searchable_reason,
                                       "cache_method": meta.values.method if meta.values else None,
                                       "cache_sample_fraction": meta.values.sample_fraction if meta.values else None},
                                      default=str),
            },
        ).fetchone()
        ids[c.name] = row[0]
        kept += [f"{c.name}.{f}" for f in (row[1] or [])]
    store.execute(
        "DELETE FROM sqlgenie.catalog_columns WHERE table_id = %s AND NOT (column_name = ANY(%s))",
        (table_id, list(ids)),
    )
    return ids, kept


def _write_value_cache(store: psycopg.Connection, col_ids: dict[str, int], ob: TableOnboarding) -> int:
    store.execute("DELETE FROM sqlgenie.value_cache WHERE column_id = ANY(%s)", (list(col_ids.values()),))
    human_searchable = {
        r[0]: r[1]
        for r in store.execute(
            "SELECT id, searchable FROM sqlgenie.catalog_columns WHERE id = ANY(%s) AND 'searchable' = ANY(human_fields)",
            (list(col_ids.values()),),
        )
    }
    n = 0
    with store.cursor() as cur:
        with cur.copy("COPY sqlgenie.value_cache (column_id, value, frequency, rank, metric) FROM STDIN") as cp:
            for meta in ob.columns:
                cid = col_ids[meta.profile.name]
                if meta.values is None or human_searchable.get(cid) is False:
                    continue
                seen: set[str] = set()
                for rank, v in enumerate(meta.values.values, 1):
                    if v.value in seen:
                        continue
                    seen.add(v.value)
                    cp.write_row((cid, v.value.replace("\x00", ""), v.frequency, rank, v.metric))
                    n += 1
    return n


def _table_ids(store: psycopg.Connection) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], int]]:
    ids, rows = {}, {}
    for s, t, i, n in store.execute("SELECT schema_name, table_name, id, row_estimate FROM sqlgenie.catalog_tables"):
        ids[(s, t)] = i
        rows[(s, t)] = n
    return ids, rows


def _write_joins(store: psycopg.Connection, table_id: int, ob: TableOnboarding, cost_model: CostModel) -> int:
    ids, rows = _table_ids(store)
    declared = _declared_candidates(store, ob, ids)
    written: set[int] = set()
    for cand in list(ob.candidates) + declared:
        if not worth_storing(cand):
            continue
        f_id, t_id = ids.get(cand.src.table_key), ids.get(cand.dst.table_key)
        if f_id is None or t_id is None:
            continue
        cost = cost_model.cost(rows.get(cand.src.table_key), rows.get(cand.dst.table_key))
        status = "accepted" if cand.decided_by == "declared" else (
            ("accepted" if cand.llm and cand.llm.get("verdict") == "accept" else "rejected") if cand.decided_by == "llm"
            else "proposed")
        jid = store.execute(
            """
            INSERT INTO sqlgenie.catalog_joins AS j
                (from_table_id, from_columns, to_table_id, to_columns, score, evidence, status, decided_by, cost)
            VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s, %s)
            ON CONFLICT (from_table_id, from_columns, to_table_id, to_columns) DO UPDATE SET
                score = EXCLUDED.score, evidence = EXCLUDED.evidence, cost = EXCLUDED.cost, updated_at = now(),
                status = CASE WHEN j.decided_by = 'human' THEN j.status ELSE EXCLUDED.status END,
                decided_by = CASE WHEN j.decided_by = 'human' THEN j.decided_by ELSE EXCLUDED.decided_by END
            RETURNING id
            """,
            (f_id, list(cand.from_columns), t_id, list(cand.to_columns), float(cand.score),
             json.dumps(cand.evidence(), default=str), status, cand.decided_by or "score", cost),
        ).fetchone()[0]
        written.add(jid)
    # pairs involving this table that were not found again: drop them unless a human decided
    store.execute(
        """
        DELETE FROM sqlgenie.catalog_joins
        WHERE (from_table_id = %(t)s OR to_table_id = %(t)s)
          AND decided_by IS DISTINCT FROM 'human' AND NOT (id = ANY(%(keep)s))
        """,
        {"t": table_id, "keep": list(written)},
    )
    return len(written)


def _declared_candidates(store: psycopg.Connection, ob: TableOnboarding, ids: dict[tuple[str, str], int]) -> list[Candidate]:
    """Declared foreign keys between this table and onboarded ones (either direction)."""
    from onboarding.joins import ColumnRef

    out: list[Candidate] = []
    me = (ob.profile.schema, ob.profile.name)

    def ref(schema: str, table: str, col: str) -> ColumnRef:
        return ColumnRef(schema, table, col, "", "other", False, 0)

    fks = [(me, cols, (s, t), rcols) for cols, s, t, rcols in ob.profile.foreign_keys]
    for schema, table, profile in store.execute(
        "SELECT schema_name, table_name, profile FROM sqlgenie.catalog_tables WHERE NOT (schema_name = %s AND table_name = %s)",
        me,
    ):
        for fk in (profile or {}).get("declared_foreign_keys", []):
            if (fk.get("ref_schema"), fk.get("ref_table")) == me:
                fks.append(((schema, table), fk["columns"], me, fk["ref_columns"]))
    for src, cols, dst, rcols in fks:
        if src not in ids and src != me or dst not in ids and dst != me:
            continue
        c = Candidate(ref(src[0], src[1], cols[0]), ref(dst[0], dst[1], rcols[0]), score=1.0,
                      src_columns=tuple(cols), dst_columns=tuple(rcols))
        c.decided_by = "declared"
        c.status = "accepted"
        c.features = {"declared": 1.0}
        c.notes.append("declared FOREIGN KEY constraint")
        out.append(c)
    return out


def _resolve_scope(store: psycopg.Connection, table_id: int, threshold: float) -> None:
    """Re-resolve statuses of every pair in the schemas this table's pairs touch."""
    rows = store.execute(
        """
        WITH touched AS (
            SELECT %(t)s::bigint AS tid
            UNION SELECT from_table_id FROM sqlgenie.catalog_joins WHERE %(t)s IN (from_table_id, to_table_id)
            UNION SELECT to_table_id FROM sqlgenie.catalog_joins WHERE %(t)s IN (from_table_id, to_table_id)
        ), scope AS (
            SELECT DISTINCT schema_name FROM sqlgenie.catalog_tables WHERE id IN (SELECT tid FROM touched)
        )
        SELECT j.id, j.from_table_id, j.from_columns, j.to_table_id, j.to_columns, j.score, j.status, j.decided_by,
               j.evidence->'llm'->>'verdict', j.evidence->'features'
        FROM sqlgenie.catalog_joins j
        JOIN sqlgenie.catalog_tables a ON a.id = j.from_table_id
        WHERE a.schema_name IN (SELECT schema_name FROM scope)
        """,
        {"t": table_id},
    ).fetchall()
    jrows = [
        JoinRow(key=(r[1], tuple(r[2]), r[3], tuple(r[4])), score=float(r[5]), status=r[6], decided_by=r[7],
                join_id=r[0], llm_verdict=r[8],
                features=dict(r[9]) if isinstance(r[9], dict) and "declared" not in r[9] else None)
        for r in rows
    ]
    decided = resolve(jrows, threshold)
    for jr, r in zip(jrows, rows):
        status, by = decided[jr.key]
        rescored = abs(jr.score - float(r[5])) > 1e-6
        if (status, by) != (r[6], r[7]) or rescored:
            store.execute(
                """
                UPDATE sqlgenie.catalog_joins SET status = %s, decided_by = %s, score = %s,
                    evidence = CASE WHEN %s THEN jsonb_set(evidence, '{features}', %s::jsonb) ELSE evidence END,
                    updated_at = now()
                WHERE id = %s
                """,
                (status, by, jr.score, rescored, json.dumps({k: round(v, 4) for k, v in (jr.features or {}).items()}),
                 jr.join_id),
            )


def _joins_of(store: psycopg.Connection, table_id: int) -> list[dict[str, Any]]:
    return [
        {
            "id": r[0], "from": f"{r[1]}.{r[2]}", "from_columns": r[3], "to": f"{r[4]}.{r[5]}", "to_columns": r[6],
            "score": round(float(r[7]), 4), "status": r[8], "decided_by": r[9], "cost": r[10],
        }
        for r in store.execute(
            """
            SELECT j.id, a.schema_name, a.table_name, j.from_columns, b.schema_name, b.table_name, j.to_columns,
                   j.score, j.status, j.decided_by, j.cost
            FROM sqlgenie.catalog_joins j
            JOIN sqlgenie.catalog_tables a ON a.id = j.from_table_id
            JOIN sqlgenie.catalog_tables b ON b.id = j.to_table_id
            WHERE %s IN (j.from_table_id, j.to_table_id)
            ORDER BY (j.status = 'accepted') DESC, j.score DESC, j.id
            """,
            (table_id,),
        )
    ]


# --- human edits -------------------------------------------------------------------------------------


def set_join_status(store: psycopg.Connection, join_id: int, status: str) -> dict[str, Any] | None:
    """A human decision on one pair (accepted / rejected); re-resolves its scope."""
    if status not in ("accepted", "rejected", "proposed"):
        raise ValueError(status)
    with store.transaction():
        lock(store)
        row = store.execute(
            "UPDATE sqlgenie.catalog_joins SET status = %s, decided_by = %s, updated_at = now() WHERE id = %s"
            " RETURNING from_table_id",
            (status, "human" if status != "proposed" else "score", join_id),
        ).fetchone()
        if row is None:
            return None
        _resolve_scope(store, row[0], THRESHOLD)
    return {"id": join_id, "status": status}


def forget_tables(store: psycopg.Connection, schema: str, tables: list[str] | None = None) -> int:
    """Remove tables (and their columns, values and joins) from the catalog."""
    with store.transaction():
        lock(store)
        cur = store.execute(
            "DELETE FROM sqlgenie.catalog_tables WHERE schema_name = %s AND (%s::text[] IS NULL OR table_name = ANY(%s::text[]))",
            (schema, tables, tables),
        )
        return cur.rowcount
