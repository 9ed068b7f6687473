"""Language models behind one interface: an OpenAI-compatible server (OpenAI, vLLM, llama.cpp's
server, LM Studio), Ollama, or the connected MCP client's own model (sampling). Chosen from
`[knowledge.model]` / TENURE_LLM_* (see select.py); none configured is offline mode."""

from tenure.knowledge.providers.base import ChatProvider, Completion, Message, ProviderError
from tenure.knowledge.providers.select import get_chat_provider

__all__ = ["ChatProvider", "Completion", "Message", "ProviderError", "get_chat_provider"]
