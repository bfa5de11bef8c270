"""The user-facing edge shared by one-shot and the REPL: questions, answers."""
