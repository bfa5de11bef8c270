"""The team store: a shared PostgreSQL that every host's records go up to.

The local SQLite stays the master copy. Records are queued in its ``outbox``
as they are written; ``uploader`` sends them up in a background thread,
idempotently; ``reads`` answers the team-wide questions (sessions of every
host, another host's session, the audit). Nothing here imports psycopg at
module level: a run without a store URL never loads it.
"""
