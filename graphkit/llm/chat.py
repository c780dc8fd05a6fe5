"""Chat models behind one small protocol, built on LangChain's chat model classes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Protocol

from graphkit.errors import BadInputError, GraphkitError


class LLMError(GraphkitError):
    """The configured model could not be reached or failed; callers fall back to no-LLM results."""


class ChatModel(Protocol):
    name: str

    def complete(self, prompt: str, system: str | None = None) -> str:
        """The model's text answer to one prompt."""


@dataclass
class FunctionChat:
    """A chat model from a plain function ``(system, prompt) -> text``: for offline experiments and
    for tests of how answers are parsed (a real model's answers cannot be pinned)."""

    fn: Callable[[str | None, str], str]
    name: str = "function"

    def complete(self, prompt: str, system: str | None = None) -> str:
        return self.fn(system, prompt)


@dataclass
class LangChainChat:
    """Any LangChain ``BaseChatModel`` (ChatOllama, ChatOpenAI...)."""

    model: object
    name: str

    def complete(self, prompt: str, system: str | None = None) -> str:
        from langchain_core.messages import HumanMessage, SystemMessage

        messages = ([SystemMessage(system)] if system else []) + [HumanMessage(prompt)]
        try:
            answer = self.model.invoke(messages)
        except Exception as exc:  # network, timeout, server error: the caller falls back
            raise LLMError(f"the LLM {self.name} failed ({type(exc).__name__})",
                           fix="check the endpoint in GRAPHKIT_LLM, or run without an LLM") from exc
        content = answer.content
        return content if isinstance(content, str) else "".join(str(c) for c in content)


@dataclass
class LocalTransformersChat:
    """A causal language model from a local Hugging Face folder (``hf:/path/to/model``), run with
    transformers on this machine: nothing leaves it. Loaded on first use."""

    path: str
    name: str
    temperature: float = 0.0
    max_tokens: int = 512
    _model: object = None
    _tok: object = None

    def complete(self, prompt: str, system: str | None = None) -> str:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            if self._model is None:
                self._tok = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
                self._model = AutoModelForCausalLM.from_pretrained(self.path, local_files_only=True)
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
            if getattr(self._tok, "chat_template", None):
                text = self._tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            else:
                text = (system + "\n\n" if system else "") + prompt + "\n\nSUMMARY:"
            inputs = self._tok(text, return_tensors="pt")
            with torch.inference_mode():
                out = self._model.generate(**inputs, max_new_tokens=self.max_tokens, do_sample=self.temperature > 0,
                                           temperature=self.temperature if self.temperature > 0 else None)
            answer = self._tok.decode(out[0][inputs["input_ids"].shape[1]:], skip_special_tokens=True)
            return answer if getattr(self._tok, "chat_template", None) else "SUMMARY:" + answer
        except (OSError, ValueError, RuntimeError) as exc:
            raise LLMError(f"the local model {self.path} failed ({type(exc).__name__})",
                           fix="check the folder holds a transformers causal LM") from exc


def from_spec(spec: str | None = None, *, temperature: float = 0.0, max_tokens: int = 512,
              timeout_s: float = 60.0) -> ChatModel | None:
    """Build the configured model, or None for no-LLM mode. Raises BadInputError on a bad spec."""
    spec = (spec if spec is not None else os.environ.get("GRAPHKIT_LLM", "")).strip()
    if not spec or spec.lower() == "none":
        return None
    provider, _, rest = spec.partition(":")
    try:
        if provider == "ollama" and rest:
            from langchain_ollama import ChatOllama

            base = os.environ.get("OLLAMA_HOST", "http://localhost:11434")
            return LangChainChat(ChatOllama(model=rest, base_url=base, temperature=temperature,
                                            num_predict=max_tokens, client_kwargs={"timeout": timeout_s}), spec)
        if provider == "openai" and rest:
            from langchain_openai import ChatOpenAI

            model, _, base_url = rest.partition("@")
            return LangChainChat(ChatOpenAI(model=model, base_url=base_url or None, temperature=temperature,
                                            max_tokens=max_tokens, timeout=timeout_s, max_retries=1,
                                            api_key=os.environ.get("OPENAI_API_KEY", "not-needed")), spec)
        if provider == "hf" and rest:
            return LocalTransformersChat(rest, spec, temperature, max_tokens)
    except ImportError as exc:
        raise GraphkitError(f"GRAPHKIT_LLM={spec!r} needs the package {exc.name}",
                            fix="pip install 'graphkit[llm]'") from exc
    raise BadInputError(f"GRAPHKIT_LLM={spec!r} is not a model spec",
                        fix="use ollama:MODEL, openai:MODEL@BASE_URL, hf:/path/to/local/model or none")
