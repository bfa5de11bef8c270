"""Settings: the config file, environment and flags merged (``settings``), their
table and errors, the managed policy and the one gate every change goes through,
and our own paths. The lowest layer: it imports nothing of ours above it."""
