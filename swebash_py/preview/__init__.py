"""Command previews: run in an overlay, show the changes, apply or discard them."""
