"""Tools the model may call: files, shell commands, web search."""
