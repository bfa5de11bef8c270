"""The team store's costs, against a throwaway PostgreSQL cluster (same run).

Prints: upload latency per block (a block committed locally -> its row visible
on the server, background uploader, median and p95 over N blocks); the time to
upload 10,000 waiting records (``ai sync``'s drain); and the one-shot start-up
with a store URL as a ratio to the same one-shot without one.
Run: .venv/bin/python bench/bench_team.py [--blocks N] [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.common import AI, SHORT_ANSWER, home_env, start_provider, timed  # noqa: E402
from swebash_py.engine.messages import TextBlock  # noqa: E402
from swebash_py.store import Store  # noqa: E402
from swebash_py.team.host import current_host  # noqa: E402
from swebash_py.team.outbox import Outbox  # noqa: E402
from swebash_py.team.uploader import Uploader, drain, open_checked  # noqa: E402
from tests.team.pgserver import start_cluster  # noqa: E402


def latency(url: str, home: Path, blocks: int) -> list[float]:
    import psycopg

    store = Store(home / "lat" / "sessions.db")
    uploader = Uploader(store.path, url, current_host(home / "lat"), upload_output=False,
                        on_problem=lambda m: print("problem:", m))
    store.on_queued = uploader.notify
    uploader.start()
    sid = store.create_session("m", "/w")
    turn = store.begin_turn(sid, "q")
    uploader.wait_idle(10)
    samples = []
    with psycopg.connect(url, autocommit=True) as watch:
        for i in range(blocks):
            start = time.perf_counter()
            store.add_block(turn, TextBlock(f"block {i}"))
            while not watch.execute("SELECT 1 FROM turn_blocks WHERE text = %s",
                                    (f"block {i}",)).fetchone():
                pass
            samples.append(time.perf_counter() - start)
    uploader.close()
    store.close()
    return samples


def bulk(url: str, home: Path, records: int) -> float:
    data = home / "bulk"
    with Store(data / "sessions.db") as store:
        sid = store.create_session("m", "/w")
        made = 1
        while made < records:
            turn = store.begin_turn(sid, "question")
            for _ in range(8):
                store.add_block(turn, TextBlock("an answer of a few words " * 8))
            store.finish_turn(turn, "stop", 10, 10)
            made += 10
    outbox = Outbox(data / "sessions.db", current_host(data), upload_output=False)
    waiting = outbox.waiting()
    conn = open_checked(url)
    start = time.perf_counter()
    sent = drain(conn, outbox)
    took = time.perf_counter() - start
    conn.close()
    outbox.close()
    print(f"upload {sent:,} waiting records   {took:7.2f} s  "
          f"({sent / took:,.0f} records/s; {waiting:,} were waiting)")
    return took


def startup(url: str, home: Path, runs: int) -> None:
    env = home_env(home / "ai")
    env.pop("SWEBASH_STORE_URL", None)
    server, provider = start_provider(SHORT_ANSWER, home)
    try:
        question = [AI, "-m", "openai/x", "--api-base", provider, "is 8080 busy?"]
        without = timed(question, runs, env)
        with_url = timed(question, runs, {**env, "SWEBASH_STORE_URL": url})
    finally:
        server.terminate()
    print(f"one-shot without a store URL  {without * 1000:7.1f} ms")
    print(f"one-shot with a store URL     {with_url * 1000:7.1f} ms  "
          f"ratio {with_url / without:.2f}x (uploads included)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--blocks", type=int, default=200)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    cluster = start_cluster()
    try:
        db = cluster.new_database()
        open_checked(cluster.url("swebash_owner", db)).close()
        url = cluster.url("alice", db)
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            samples = latency(url, home, args.blocks)
            ms = sorted(s * 1000 for s in samples)
            print(f"upload latency per block      median {statistics.median(ms):6.1f} ms, "
                  f"p95 {ms[int(len(ms) * 0.95) - 1]:6.1f} ms (goal < 2000 ms; {len(ms)} blocks)")
            bulk(url, home, args.records)
            startup(url, home, args.runs)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
