"""Conversation state: messages, context window, compaction."""
