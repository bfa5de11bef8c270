"""What both faces of the front end share, below them: the invocation, the one
builder (composition root), the warm-up, the early prompt, the shell helper's words.

``cli`` (the entry point, the one-shot, the subcommands) sits above ``repl``, and
both above this: the REPL builds its session here and never reaches up to ``cli``.
"""
