"""File checkpoints: what each turn changed, so /undo and /rewind can take it back."""
