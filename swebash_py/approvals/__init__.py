"""Deciding whether a tool call runs: rules, policy, remembered answers, the approver."""
