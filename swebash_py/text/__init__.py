"""Text helpers every layer may use (a base package: stdlib only, nothing of ours):
make untrusted text safe to show in a terminal (``sanitize``), cap long text keeping
its head and its tail (``truncate`` for the model, ``excerpt`` for a question)."""
