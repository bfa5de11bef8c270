"""Baseline: read an OpenAI chat-completions SSE stream with only the standard library.

Usage: python bench/stdlib_reader.py http://127.0.0.1:PORT  (text to stdout; on
stderr ``STREAM <seconds> <characters>``, timed from the request to the last byte).
"""

from __future__ import annotations

import http.client
import json
import sys
import time
from urllib.parse import urlsplit


def main(url: str) -> None:
    start = time.perf_counter()
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    conn.request("POST", "/chat/completions", json.dumps(body),
                 {"content-type": "application/json"})
    count = 0
    for line in conn.getresponse():
        if line.startswith(b"data: ") and not line.startswith(b"data: [DONE]"):
            choices = json.loads(line[6:])["choices"]
            if choices and (text := choices[0]["delta"].get("content")):
                sys.stdout.write(text)
                count += len(text)
    sys.stdout.flush()
    print(f"STREAM {time.perf_counter() - start:.4f} {count}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
