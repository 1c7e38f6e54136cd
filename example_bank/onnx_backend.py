"""ONNX Runtime inference for the bank's sentence-transformers model (same vectors,
about twice as fast on a CPU as PyTorch eager mode, and no torch import at run time).

The transformer of the sentence-transformers model is exported once with
``torch.onnx.export`` into a cache directory (``SQLGENIE_MODEL_CACHE``, default the
user cache ``~/.cache/sqlgenie/models``; ``scripts/setup.sh`` prepares it with
``python -m example_bank.onnx_backend``), checked against
the PyTorch model on probe sentences (cosine >= :data:`MIN_AGREEMENT`), and then
run by ONNX Runtime with the model's own tokenizer (``tokenizer.json``), mean
pooling and L2 normalisation, exactly as the sentence-transformers pipeline of
all-MiniLM-L6-v2 does (Transformer -> mean Pooling -> Normalize).

Only that pipeline shape is supported; :func:`supported` says whether a model
directory has it, and the embedder falls back to PyTorch otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from sqlgenie.errors import ConfigError

MIN_AGREEMENT = 0.9999  # cosine between ONNX and PyTorch vectors on the probe sentences
PROBES = (
    "How many customers ordered headphones in the west region last week?",
    "[MASK] revenue by [MASK] for the top [MASK] stores",
    "List every airline whose name starts with a vowel, ordered by founding year, and the number of flights "
    "each of them operates from airports in [MASK]",
    "x",
)
_SUPPORTED_MODULES = (
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
)


def _read_json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def supported(model_path: Path) -> bool:
    """True when the model is Transformer -> mean Pooling -> Normalize with a fast
    tokenizer file (the shape this backend reproduces)."""
    modules = _read_json(model_path / "modules.json")
    if not isinstance(modules, list) or tuple(m.get("type") for m in modules) != _SUPPORTED_MODULES:
        return False
    pooling_dir = next((m.get("path") for m in modules if m.get("type", "").endswith("Pooling")), "")
    pooling = _read_json(model_path / pooling_dir / "config.json") or {}
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
    )
    return bool(mean_only) and (model_path / "tokenizer.json").is_file()


def max_seq_length(model_path: Path) -> int:
    config = _read_json(model_path / "sentence_bert_config.json") or {}
    return int(config.get("max_seq_length") or 256)


def fingerprint(model_path: Path) -> str:
    """Identifies the model files (names, sizes, modification times) for the cache."""
    digest = hashlib.sha256(str(model_path.resolve()).encode())
    for file in sorted(p for p in model_path.rglob("*") if p.is_file()):
        stat = file.stat()
        digest.update(f"{file.relative_to(model_path)}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """``SQLGENIE_MODEL_CACHE``, else the user's cache directory (shared by every data
    directory: the export depends only on the model files)."""
    explicit = os.environ.get("SQLGENIE_MODEL_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sqlgenie")) / "models"


def _export(st_model, destination: Path) -> None:
    """Export the transformer of a loaded SentenceTransformer to ``destination``."""
    import torch

    transformer = st_model[0].auto_model.eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = st_model.tokenizer(["an example question"], return_tensors="pt")
    token_type_ids = example.get("token_type_ids", torch.zeros_like(example["input_ids"]))
    axes = {0: "batch", 1: "tokens"}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(transformer),
            (example["input_ids"], example["attention_mask"], token_type_ids),
            str(destination),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "last_hidden_state": axes},
            opset_version=17,
            dynamo=False,
        )


class OnnxSentenceEncoder:
    """Tokenizer + ONNX Runtime session + mean pooling + normalisation."""

    def __init__(self, onnx_file: Path, model_path: Path, *, threads: int = 1) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.onnx_file = onnx_file
        self.tokenizer = Tokenizer.from_file(str(model_path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_seq_length(model_path))
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # No busy-waiting worker threads: on a shared machine they steal the cores they wait for.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self.session.get_inputs()}

    def _run(self, encodings) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def encode(self, texts: list[str], batch_size: int = 32, *, workers: int = 1) -> np.ndarray:
        """Unit vectors for ``texts``; batches group texts of similar token length.
        With ``workers`` > 1, batches run concurrently (``session.run`` is
        thread-safe and releases the GIL), one intra-op thread each."""
        encodings = self.tokenizer.encode_batch(list(texts)) if len(texts) > 1 else [self.tokenizer.encode(texts[0])]
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        chunks = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]

        def run(chunk: list[int]) -> np.ndarray:
            return self._run([encodings[i] for i in chunk])

        if workers > 1 and len(chunks) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=min(workers, len(chunks)), thread_name_prefix="onnx-embed") as pool:
                results = list(pool.map(run, chunks))
        else:
            results = [run(chunk) for chunk in chunks]
        out = np.empty((len(texts), results[0].shape[1]), dtype=np.float32)
        for chunk, vectors in zip(chunks, results):
            out[chunk] = vectors
        return out


def prepare(model_path: Path, *, load_torch_model=None, directory: Path | None = None) -> Path:
    """The verified ONNX file for ``model_path``, exporting it first when the cache
    has none. ``load_torch_model()`` returns the SentenceTransformer (only called to
    export). Raises :class:`ConfigError` when the export does not reproduce PyTorch."""
    directory = directory or cache_dir()
    name = f"{model_path.parent.name}-{model_path.name}-{fingerprint(model_path)}"
    onnx_file = directory / f"{name}.onnx"
    marker = directory / f"{name}.verified.json"
    if onnx_file.is_file() and marker.is_file():
        return onnx_file
    if load_torch_model is None:
        raise ConfigError(f"No exported ONNX model at {onnx_file}.")
    st_model = load_torch_model()
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory, prefix=".export-") as tmp:
        staged = Path(tmp) / "model.onnx"
        _export(st_model, staged)
        reference = st_model.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True)
        candidate = OnnxSentenceEncoder(staged, model_path).encode(list(PROBES))
        agreement = float((reference * candidate).sum(axis=1).min())
        if agreement < MIN_AGREEMENT:
            raise ConfigError(
                f"The ONNX export of {model_path} disagrees with PyTorch (cosine {agreement:.6f}).",
                hint="Set SQLGENIE_EMBEDDING_BACKEND=torch.",
            )
        os.replace(staged, onnx_file)  # atomic: concurrent exporters leave one complete file
    report = {"model": str(model_path), "min_cosine_vs_torch": agreement, "probes": len(PROBES)}
    marker.write_text(json.dumps(report), encoding="utf-8")
    return onnx_file


def main() -> int:
    """``python -m example_bank.onnx_backend [MODEL]``: export and verify the model now
    (setup does this so the first question does not wait for it)."""
    import sys
    import time

    from example_bank.embedder import Embedder, resolve_model_path

    started = time.perf_counter()
    embedder = Embedder(resolve_model_path(sys.argv[1] if len(sys.argv) > 1 else None), backend="auto")
    backend = embedder.backend
    where = f" ({embedder.onnx_file})" if backend == "onnx" else ""
    print(f"embedding backend: {backend}{where} ready in {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
