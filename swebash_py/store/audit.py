"""A tool call's audit row, as the local store keeps it (secrets redacted)."""

from __future__ import annotations

from typing import Any

from swebash_py.approvals.audit import CallRecord
from swebash_py.store.privacy import digest, scrub, secret_values


def audit_row(record: CallRecord, session_id: str | None, turn_uid: str | None,
              cwd: str | None) -> dict[str, Any]:
    """The row for ``Store.add_audit``: the command (or path) and the output are
    redacted first; the output's SHA-256 and length are of the redacted text."""
    values = secret_values()
    output = scrub(record.output, values) if record.output is not None else None
    sha, length = digest(output) if output is not None else (None, None)
    description = record.arguments.get("description")  # run_command's, the model's words
    return {"time": record.time, "session_id": session_id, "turn_uid": turn_uid, "cwd": cwd,
            "tool": record.tool, "command": scrub(record.subject, values),
            "decision": record.decision, "allowed": int(record.allowed),
            "exit_code": record.exit_code, "duration_ms": record.duration_ms,
            "output_sha256": sha, "output_length": length, "output": output,
            "description": (scrub(description, values)
                            if isinstance(description, str) else None)}
