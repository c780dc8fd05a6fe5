"""The project's LLM interface: a chat model when the user configures one, else None (no-LLM mode).

Configured by ``GRAPHKIT_LLM`` (or the CLI's ``--llm``):

- ``ollama:MODEL`` (local Ollama, ``OLLAMA_HOST`` or http://localhost:11434),
- ``openai:MODEL@BASE_URL`` (any OpenAI-compatible server: vLLM, llama.cpp, a hosted endpoint;
  key from ``OPENAI_API_KEY``),
- ``hf:/path/to/model`` (a local transformers causal LM, run in-process),
- ``none`` or unset: no model; every step that would call one falls back deterministically.

Remote endpoints are reached only when named here: nothing is called by default.
"""

from graphkit.llm.chat import ChatModel, FunctionChat, LLMError, from_spec

__all__ = ["ChatModel", "FunctionChat", "LLMError", "from_spec"]
