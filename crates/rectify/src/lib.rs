//! Validate, repair and retry the structured output of language models and agents.
