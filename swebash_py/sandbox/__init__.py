"""The OS sandbox every model command runs in (see ``runner`` for the seam)."""
