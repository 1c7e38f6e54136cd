"""Cost-aware admission of tables into the pruner's join tree (real MiniLM; the scores are
given, so what is tested is the selection)."""

from __future__ import annotations

import numpy as np
import pytest

from sqlgenie.catalog import Catalog, ColumnInfo, JoinInfo, TableInfo
from sqlgenie.inference import table_admission
from sqlgenie.inference.join_paths import JoinGraph
from sqlgenie.inference.pruning import SchemaPruner


@pytest.fixture(scope="module")
def embedder():
    from example_bank.embedder import get_embedder

    return get_embedder()


def _table(name: str, *cols: str) -> TableInfo:
    return TableInfo("s", name, tuple(ColumnInfo(c, "integer" if c.endswith("id") else "text") for c in cols), (cols[0],))


# singer -- performance -- concert: concert is two joins (and one table in between) away
CATALOG = Catalog(
    (
        _table("singer", "singer_id", "name", "country"),
        _table("performance", "performance_id", "singer_id", "concert_id"),
        _table("concert", "concert_id", "theme", "year"),
        _table("song", "song_id", "singer_id", "title"),
    ),
    (
        JoinInfo("s.performance", ("singer_id",), "s.singer", ("singer_id",), 0.9, "accepted", 0.5),
        JoinInfo("s.performance", ("concert_id",), "s.concert", ("concert_id",), 0.9, "accepted", 0.5),
        JoinInfo("s.song", ("singer_id",), "s.singer", ("singer_id",), 0.9, "accepted", 0.5),
    ),
)


@pytest.fixture()
def pruner(embedder):
    return SchemaPruner(CATALOG, embedder=embedder, threshold=0.3)


def _select(pruner: SchemaPruner, given: dict[str, float], *, named: str | None = None):
    scores = np.full(len(pruner.cols), 0.01, dtype=np.float32)
    for key, v in given.items():
        scores[pruner.col_keys.index(f"s.{key}")] = v
    n = len(pruner.cols)
    table = np.zeros(n, dtype=np.float32)
    if named:
        table[[i for i, (t, _c) in enumerate(pruner.cols) if t.name == named]] = 1.0
    signals = {"embedding": np.zeros(n), "lexical": np.zeros(n), "table": table, "value": np.zeros(n),
               "example": np.zeros(n)}
    kept = pruner.select("q", scores, signals, [], 0.3).kept_columns()
    return {f"{t.split('.')[1]}.{c}" for t, c in kept}


def test_weak_far_table_does_not_pay_for_its_join_path(pruner, monkeypatch):
    given = {"singer.name": 0.95, "singer.country": 0.9, "concert.theme": 0.35}
    monkeypatch.setattr(table_admission, "MARGIN", 0.0)  # the rule off: concert comes with its path
    before = _select(pruner, given)
    assert {"concert.theme", "performance.singer_id", "performance.concert_id"} <= before
    monkeypatch.setattr(table_admission, "MARGIN", 0.1)
    monkeypatch.setattr(table_admission, "BETWEEN", 8.0)
    after = _select(pruner, given)
    assert after == {"singer.name", "singer.country"}
    # the same column with strong evidence still brings its table and the path
    strong = _select(pruner, {**given, "concert.theme": 0.999})
    assert {"concert.theme", "performance.concert_id", "singer.singer_id"} <= strong
    # a table the question names is never refused
    named = _select(pruner, given, named="concert")
    assert {"concert.theme", "concert.concert_id", "performance.concert_id"} <= named


def test_a_near_table_pays_less_than_a_far_one(pruner, monkeypatch):
    monkeypatch.setattr(table_admission, "MARGIN", 0.1)
    monkeypatch.setattr(table_admission, "BETWEEN", 8.0)
    # one join away (song.singer_id, singer.singer_id: 2 columns, nothing in between): admitted
    near = _select(pruner, {"singer.name": 0.95, "song.title": 0.45})
    assert {"song.title", "song.singer_id"} <= near
    # two joins away with the same score: refused
    far = _select(pruner, {"singer.name": 0.95, "concert.theme": 0.45})
    assert not any(k.startswith("concert.") for k in far)


def test_connect_in_order_admit_hook():
    joins = CATALOG.joins
    graph = JoinGraph.from_joins(joins)
    seen = []

    def admit(table, path):
        seen.append((table, [(j.from_table, j.to_table) for j in path]))
        return table != "s.concert"

    tree = graph.connect_in_order(["s.singer", "s.concert", "s.song"], admit=admit)
    assert tree.refused == {"s.concert"} and tree.tables == {"s.singer", "s.song"}
    assert seen[0] == ("s.concert", [("s.performance", "s.singer"), ("s.performance", "s.concert")])
    plain = graph.connect_in_order(["s.singer", "s.concert", "s.song"])
    assert plain.refused == frozenset() and "s.performance" in plain.tables
