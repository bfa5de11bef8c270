"""`ai doctor`: what works here (sandbox, provider keys, paths), and what to fix."""
