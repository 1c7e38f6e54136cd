"""The quickstart behind ``sqlgenie demo``: from nothing to answered questions.

Stages, each reported with its time:

1. **store** - the embedded PostgreSQL (unless a URL is configured);
2. **demo** - the demo retail warehouse, loaded once and reused afterwards;
3. **onboard** - onboarding of schema ``demo`` (catalog, joins, value caches),
   skipped when the demo tables are unchanged since the last onboarding;
4. **bank** - the seed bank ``example_bank/seeds/demo_bank.json`` (verified
   question -> SQL pairs), imported once (again only when the file changes);
5. **ask** - questions that are *not* in the bank (new values, new phrasings, a
   misspelled value, one the bank cannot answer) answered through ``Asker``:
   no LLM unless one is configured.

A warm second run does no loading, onboarding or import and needs no embedding
model when the questions' templates were embedded before (the ask embedding
cache): a few seconds.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from sqlgenie.config import Settings, get_settings
from sqlgenie.store import connect_store, store_url, target_url

DEMO_SCHEMA = "demo"
SEED_BANK = "seeds/demo_bank.json"

#: Questions the quickstart asks. None of them is in the seed bank: new values, new
#: phrasings, a misspelled / lower-cased value and one question the bank cannot answer.
DEMO_QUESTIONS: tuple[str, ...] = (
    "How many orders were placed in 2023?",
    "Total revenue from stores in Palo Alto",
    "How many units of rockpot headphone were sold?",
    "Which 3 products sold the most units in 2024?",
    "What share of orders were cancelled in 2025?",
    "Give me the number of customers in the Corporate segment",
    "Which employees earn the highest salaries?",
)

ProgressCallback = Callable[[str], None]

_ONBOARD_KEY = "quickstart.demo_onboarded"
_BANK_KEY = "quickstart.seed_bank"


@dataclass
class QuickstartReport:
    store: dict[str, Any]
    demo: dict[str, Any]
    onboarding: dict[str, Any] = field(default_factory=dict)
    bank: dict[str, Any] = field(default_factory=dict)
    answers: list[dict[str, Any]] = field(default_factory=list)  # AskResult.to_dict() of each question
    stage_seconds: dict[str, float] = field(default_factory=dict)
    llm: bool = False
    instructions_file: str | None = None  # domain rules for the LLM prompt (user-editable)


def seed_bank_path():
    """The packaged seed bank file (a JSON list of {question, sql, topic})."""
    return resources.files("example_bank").joinpath(SEED_BANK)


def seed_pairs() -> list[dict[str, str]]:
    return json.loads(seed_bank_path().read_text(encoding="utf-8"))


def _get_setting(conn, key: str) -> Any:
    row = conn.execute("SELECT value FROM sqlgenie.store_settings WHERE key = %s", (key,)).fetchone()
    return row[0] if row else None


def _put_setting(conn, key: str, value: Any) -> None:
    conn.execute(
        "INSERT INTO sqlgenie.store_settings (key, value) VALUES (%s, %s::jsonb)"
        " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
        (key, json.dumps(value)),
    )


def demo_fingerprint(target) -> list[list[Any]]:
    """(table, oid, live rows estimate) of the demo tables: changes when the demo is reloaded."""
    rows = target.execute(
        "SELECT c.relname, c.oid::bigint, c.reltuples::bigint FROM pg_class c"
        " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r' ORDER BY 1",
        (DEMO_SCHEMA,),
    ).fetchall()
    return [list(r) for r in rows]


def ensure_onboarded(settings: Settings, store, target, *, say: ProgressCallback) -> dict[str, Any]:
    """Onboard schema demo unless the catalog already describes these very tables."""
    fingerprint = demo_fingerprint(target)
    known = _get_setting(store, _ONBOARD_KEY)
    tables = store.execute(
        "SELECT count(*) FROM sqlgenie.catalog_tables WHERE schema_name = %s", (DEMO_SCHEMA,)
    ).fetchone()[0]
    if known == fingerprint and tables == len(fingerprint) and tables:
        say("schema demo already onboarded")
        return {"onboarded_now": False, "tables": tables}
    say("onboarding schema demo (profiles, keys, joins, value caches)")
    from onboarding.service import OnboardOptions, onboard_schema

    store.commit()
    results = onboard_schema(DEMO_SCHEMA, settings=settings, options=OnboardOptions(llm=None), store=None, target=None)
    _put_setting(store, _ONBOARD_KEY, demo_fingerprint(target))
    store.commit()
    return {
        "onboarded_now": True,
        "tables": len(results),
        "cached_values": sum(r.cached_values for r in results),
        "accepted_joins": sum(1 for r in results for j in r.joins if j.get("status") == "accepted"),
        "seconds": round(sum(r.seconds for r in results), 2),
    }


def ensure_seed_bank(settings: Settings, store, target, url: str, *, say: ProgressCallback) -> dict[str, Any]:
    """Import the seed bank once (again when the file changes); returns counts."""
    raw = seed_bank_path().read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    pairs = json.loads(raw)
    questions = [p["question"] for p in pairs]
    present = store.execute(
        "SELECT count(DISTINCT question) FROM sqlgenie.bank_examples WHERE question = ANY(%s) AND status = 'verified'",
        (questions,),
    ).fetchone()[0]
    if _get_setting(store, _BANK_KEY) == digest and present == len(set(questions)):
        say(f"seed bank already imported ({present} verified examples)")
        return {"imported_now": False, "pairs": len(pairs), "present": present}
    say(f"importing the seed bank ({len(pairs)} verified question -> SQL pairs)")
    from example_bank.embedder import get_embedder
    from example_bank.importer import BankContext, import_pairs

    ctx = BankContext.load(store, target, url)
    try:
        report = import_pairs(
            ctx, [(i, p["question"], p["sql"]) for i, p in enumerate(pairs, 1)],
            encode=get_embedder(settings.embedding_model).encode, status="verified", source="import",
            model_name=settings.embedding_model, file_name=str(SEED_BANK),
        )
    finally:
        ctx.close()
    if not report.rejected:
        _put_setting(store, _BANK_KEY, digest)
    store.commit()
    return {"imported_now": True, "pairs": len(pairs), "added": report.added, "merged": report.merged,
            "rejected": [r.__dict__ for r in report.rejected], "seconds": round(report.seconds, 2)}


def run_quickstart(
    settings: Settings | None = None,
    *,
    scale: int | None = None,
    reload: bool = False,
    progress: ProgressCallback | None = None,
    demo_progress: Callable[[str, int, int], None] | None = None,
    questions: tuple[str, ...] = DEMO_QUESTIONS,
) -> QuickstartReport:
    """Run every quickstart stage; ``progress`` receives a line per stage."""
    from sqlgenie.demo import DEFAULT_SCALE, demo_summary, load_demo

    settings = settings or get_settings()
    say = progress or (lambda _msg: None)
    stages: dict[str, float] = {}

    t0 = time.perf_counter()
    say("starting the store" + (" (embedded PostgreSQL)" if settings.embedded else ""))
    url = store_url(settings)
    with connect_store(settings) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
    store_info = {"mode": "embedded" if settings.embedded else "external", "server_version": version,
                  "pgdata": str(settings.pgdata_dir) if settings.embedded else None}
    stages["store"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    target = target_url(settings) if settings.target_database_url is not None else url
    summary = demo_summary(target)
    wanted = scale or DEFAULT_SCALE
    loaded_now = False
    if reload or not summary or (scale is not None and summary.get("order_items") != scale):
        say(f"loading the demo warehouse (scale {wanted:,})")
        load_demo(target, scale=wanted, progress=demo_progress)
        summary = demo_summary(target)
        loaded_now = True
    else:
        say("demo warehouse already loaded (use --reload to rebuild it)")
    stages["demo"] = time.perf_counter() - t0
    demo = {"tables": summary, "loaded_now": loaded_now}

    from sqlgenie.store.connection import open_connection

    with connect_store(settings) as store, open_connection(target, autocommit=True) as target_conn:
        t0 = time.perf_counter()
        onboarding = ensure_onboarded(settings, store, target_conn, say=say)
        stages["onboard"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        bank = ensure_seed_bank(settings, store, target_conn, target, say=say)
        stages["bank"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    from sqlgenie.inference.pipeline import Asker

    answers: list[dict[str, Any]] = []
    with Asker.open(settings) as asker:
        llm = asker.provider is not None
        say("asking questions that are not in the bank" + (" (LLM configured)" if llm else " (no LLM)"))
        stages["ask_setup"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for question in questions:
            answers.append(asker.ask(question).to_dict(max_rows=10))
    stages["ask"] = time.perf_counter() - t0
    from sqlgenie.inference.instructions import ensure_instructions_file

    instructions = ensure_instructions_file(settings)
    return QuickstartReport(store=store_info, demo=demo, onboarding=onboarding, bank=bank, answers=answers,
                            stage_seconds=stages, llm=llm, instructions_file=str(instructions))
