"""Model providers: a direct HTTP client for the OpenAI and Anthropic wire
formats, and litellm for everything else. Both yield the same events."""
