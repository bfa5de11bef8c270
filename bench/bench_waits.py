"""How long a request waits on a provider that misbehaves, per fault.

Runs the real direct backend (and retry policy) against the loopback fake
provider for each fault, all at once, and prints the seconds until the error.
``--defaults`` uses the shipped settings (connect_timeout 10 s,
stream_idle_timeout 120 s, max_retries 4: the run takes about two minutes);
without it, short test settings (idle 0.5 s, backoff 0.01 s).

Usage: .venv/bin/python bench/bench_waits.py [--defaults] [--backend direct|litellm]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from swebash_py.engine.messages import Message
from swebash_py.errors import ProviderError
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.client import ProviderClient
from swebash_py.provider.retry import RetryPolicy
from tests.fakeprovider import ErrorReply, FakeProvider, Reply

FAULTS = {
    "connection refused": None,
    "HTML 200": [Reply(mode="html")],
    "retry-after: 3600": [ErrorReply(429, headers={"retry-after": "3600"})],
    "503 every time": [ErrorReply(503)] * 6,
    "trickles bytes, no event": [Reply(mode="trickle", delay=0.2)],
    "accepts, never answers": [Reply(mode="silent", stall_seconds=900)],
}


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


async def one(name: str, client: ProviderClient, api_base: str) -> tuple[str, float, str]:
    request = ChatRequest(model="openai/x", messages=[Message.user("hi")], api_base=api_base,
                          api_key="k")
    start = time.monotonic()
    try:
        async for _ in client.stream(request):
            pass
        outcome = "no error?"
    except ProviderError as exc:
        outcome = str(exc)[:90]
    return name, time.monotonic() - start, outcome


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--defaults", action="store_true")
    ap.add_argument("--backend", default="direct")
    args = ap.parse_args()
    servers = []
    jobs = []
    for name, script in FAULTS.items():
        if args.defaults:
            client = ProviderClient(args.backend, RetryPolicy(), connect_timeout=10,
                                    stream_idle_timeout=120)
        else:
            client = ProviderClient(args.backend, RetryPolicy(base_delay=0.01),
                                    connect_timeout=2, stream_idle_timeout=0.5)
        if script is None:
            url = _closed_port()
        else:
            fp = FakeProvider().start()
            fp.queue(*script)
            servers.append(fp)
            url = fp.url
        jobs.append(one(name, client, url))
    try:
        for name, seconds, outcome in await asyncio.gather(*jobs):
            print(f"{name:26} {seconds:7.2f} s  {outcome}")
    finally:
        for fp in servers:
            fp.stop()


if __name__ == "__main__":
    asyncio.run(main())
