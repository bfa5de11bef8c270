"""The agent: the turn loop, the tool executor, approvals and hooks."""
