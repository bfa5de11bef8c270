"""swebash-py: a terminal AI shell assistant."""

__version__ = "0.1.0"
