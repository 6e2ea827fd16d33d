//! The Provider trait, transport retry and the model backends (OpenAI-compatible, Anthropic, command, replay).
