"""Benchmark dataset readers: the Spider layout and the Defog layout.

*Spider layout* (any directory shaped like Spider, including ones never seen):
``tables.json`` (Spider schema format), ``database/<db_id>/<db_id>.sqlite`` and a
questions file: a JSON list of objects with ``question``, ``query`` (SQLite gold SQL)
and ``db_id``; other fields are ignored.

*Defog layout*: ``defog-data/<db>/<db>.sql`` PostgreSQL dumps and CSV questions
(``sql-eval/*.csv``) whose gold SQL uses the ``{a, b}`` / ``;`` alternative notation
(see :mod:`sqlgenie.eval.defog`).

Benchmark data is read in place (``--dataset`` / ``settings.benchdata_dir``), never
copied into the repository.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

from sqlgenie.errors import InputError
from sqlgenie.eval.identifiers import schema_name_for

DatasetKind = Literal["spider", "defog"]


@dataclass(frozen=True)
class Question:
    """One benchmark question. ``index`` is its position in the questions file."""

    index: int
    question: str
    gold_sql: str
    db_id: str
    gold_dialect: Literal["sqlite", "postgres"] = "sqlite"
    category: str | None = None
    instructions: str | None = None
    golds: tuple[str, ...] = ()  # every acceptable gold (PostgreSQL), when the file lists them
    template: str | None = None  # templated sets: "<set>/<template index>"
    label: str | None = None  # bank/test splits: "seen" (template in the bank) or "novel"


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass(frozen=True)
class TableSchema:
    name: str
    columns: tuple[str, ...]
    column_types: tuple[str, ...]
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()


@dataclass(frozen=True)
class SpiderSchema:
    """One database of ``tables.json`` (original names, as in the sqlite file)."""

    db_id: str
    tables: tuple[TableSchema, ...]
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_json(cls, entry: dict) -> SpiderSchema:
        table_names = entry["table_names_original"]
        cols: list[list[str]] = [[] for _ in table_names]
        types: list[list[str]] = [[] for _ in table_names]
        col_ref: dict[int, tuple[int, str]] = {}
        for i, ((t_idx, name), ctype) in enumerate(zip(entry["column_names_original"], entry["column_types"])):
            if t_idx < 0:
                continue
            cols[t_idx].append(name)
            types[t_idx].append(ctype)
            col_ref[i] = (t_idx, name)
        pks: list[list[str]] = [[] for _ in table_names]
        for pk in entry.get("primary_keys", []):
            for c in pk if isinstance(pk, list) else [pk]:
                if c in col_ref:
                    t_idx, name = col_ref[c]
                    pks[t_idx].append(name)
        fks: list[list[ForeignKey]] = [[] for _ in table_names]
        for src, dst in entry.get("foreign_keys", []):
            if src in col_ref and dst in col_ref:
                (st, sc), (dt_, dc) = col_ref[src], col_ref[dst]
                fks[st].append(ForeignKey((sc,), table_names[dt_], (dc,)))
        tables = tuple(
            TableSchema(n, tuple(cols[i]), tuple(types[i]), tuple(pks[i]), tuple(fks[i]))
            for i, n in enumerate(table_names)
        )
        return cls(entry["db_id"], tables, entry)


def _read_json_list(path: Path) -> list:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"Questions file {path} does not exist.", hint="Pass --questions FILE.") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise InputError(f"{path} must hold a JSON list of questions.")
    return data


class SpiderDataset:
    """A directory in the Spider layout."""

    kind: DatasetKind = "spider"
    default_questions = "dev.json"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not (self.root / "tables.json").is_file():
            raise InputError(f"{self.root} has no tables.json; it is not a Spider-layout dataset.")

    @cached_property
    def schemas(self) -> dict[str, SpiderSchema]:
        entries = json.loads((self.root / "tables.json").read_text(encoding="utf-8"))
        return {e["db_id"]: SpiderSchema.from_json(e) for e in entries}

    def db_ids(self) -> list[str]:
        """Every database: those of tables.json plus sqlite files it does not describe."""
        ids = set(self.schemas)
        db_dir = self.root / "database"
        if db_dir.is_dir():
            ids.update(p.name for p in db_dir.iterdir() if (p / f"{p.name}.sqlite").is_file())
        return sorted(ids)

    def sqlite_path(self, db_id: str) -> Path | None:
        path = self.root / "database" / db_id / f"{db_id}.sqlite"
        return path if path.is_file() else None

    def schema_name(self, db_id: str) -> str:
        return schema_name_for(db_id)

    def tables_entry(self, db_id: str) -> SpiderSchema | None:
        return self.schemas.get(db_id)

    def questions_path(self, questions: str | Path | None) -> Path:
        return _resolve(self.root, questions or self.default_questions)

    def questions(self, questions: str | Path | None = None) -> list[Question]:
        path = self.questions_path(questions)
        out = []
        for i, item in enumerate(_read_json_list(path)):
            try:
                out.append(Question(i, item.get("question", ""), item["query"], item["db_id"], "sqlite"))
            except (KeyError, TypeError, AttributeError) as exc:
                raise InputError(f"{path}: question {i} lacks 'query' or 'db_id'.") from exc
        return out


class DefogDataset:
    """A directory in the Defog layout (``defog-data/`` dumps, ``sql-eval/`` CSVs)."""

    kind: DatasetKind = "defog"
    default_questions = "sql-eval/questions_gen_postgres.csv"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not (self.root / "defog-data").is_dir():
            raise InputError(f"{self.root} has no defog-data/ directory; it is not a Defog-layout dataset.")

    def db_ids(self) -> list[str]:
        base = self.root / "defog-data"
        return sorted(p.name for p in base.iterdir() if (p / f"{p.name}.sql").is_file())

    def dump_path(self, db_id: str) -> Path | None:
        path = self.root / "defog-data" / db_id / f"{db_id}.sql"
        return path if path.is_file() else None

    def schema_name(self, db_id: str) -> str:
        """Schema the dump is loaded into (``defog_<db>``, or the dump's own schema)."""
        from sqlgenie.eval.defog import dump_schema

        path = self.dump_path(db_id)
        own = dump_schema(path.read_text(encoding="utf-8")) if path else None
        return own or schema_name_for(db_id, prefix="defog_")

    def questions_path(self, questions: str | Path | None) -> Path:
        return _resolve(self.root, questions or self.default_questions)

    def questions(self, questions: str | Path | None = None) -> list[Question]:
        path = self.questions_path(questions)
        if not path.is_file():
            raise InputError(f"Questions file {path} does not exist.", hint="Pass --questions FILE.")
        if path.suffix.lower() == ".json":
            return _json_questions(path)
        out = []
        with path.open(newline="", encoding="utf-8") as fh:
            for i, row in enumerate(csv.DictReader(fh)):
                if "query" not in row or "db_name" not in row:
                    raise InputError(f"{path}: a Defog questions CSV needs 'query' and 'db_name' columns.")
                out.append(
                    Question(
                        i,
                        row.get("question", ""),
                        row["query"],
                        row["db_name"],
                        "postgres",
                        category=row.get("query_category") or None,
                        instructions=row.get("instructions") or None,
                    )
                )
        return out


def _json_questions(path: Path) -> list[Question]:
    """A JSON questions file on the Defog databases (``sqlgenie eval text2sql-split``):
    ``question``, ``query`` (PostgreSQL), ``db_id`` (or ``db_name``), optional ``golds``
    (every acceptable query), ``template`` and ``label`` (seen / novel)."""
    out = []
    for i, item in enumerate(_read_json_list(path)):
        try:
            db = item.get("db_id") or item["db_name"]
            golds = tuple(str(g) for g in item.get("golds") or ())
            out.append(Question(i, item.get("question", ""), item["query"], db, "postgres",
                                golds=golds, template=item.get("template"), label=item.get("label")))
        except (KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"{path}: question {i} lacks 'query' or 'db_id'.") from exc
    return out


Dataset = SpiderDataset | DefogDataset


def _resolve(root: Path, name: str | Path) -> Path:
    path = Path(name)
    if path.is_absolute() or path.exists():
        return path
    return root / path


def open_dataset(path: str | Path) -> Dataset:
    """Open a dataset directory, detecting its layout."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise InputError(f"Dataset directory {root} does not exist.", hint="Pass --dataset DIR (e.g. ../shared/benchdata/spider).")
    if (root / "tables.json").is_file():
        return SpiderDataset(root)
    if (root / "defog-data").is_dir():
        return DefogDataset(root)
    raise InputError(
        f"{root} is neither a Spider-layout (tables.json, database/) nor a Defog-layout (defog-data/) dataset."
    )


def parse_db_filter(dbs: str | None) -> set[str] | None:
    """``--dbs a,b`` as a set (None: all)."""
    if not dbs:
        return None
    return {d.strip() for d in dbs.split(",") if d.strip()}
