"""The doors to the user's files: one reader for everything that enters the
model's context (``reader``), one writer for every change to the workspace
(``writer``). Nothing else opens a user file for the model or writes the
workspace."""
