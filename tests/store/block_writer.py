"""A subprocess that writes blocks to a session in a loop (for kill -9 and concurrency tests).

Usage: python block_writer.py DB BLOCKS [--wait]
Prints ``READY`` first; with ``--wait`` it then waits for a line on stdin before
opening the store. Prints ``SESSION <id>``, then ``WROTE <n>`` after each block is
committed, and ``DONE`` at the end.
"""

from __future__ import annotations

import json
import sys

from swebash_py.engine.messages import TextBlock, ToolResultBlock, ToolUseBlock
from swebash_py.store import Store


def main() -> None:
    path, blocks = sys.argv[1], int(sys.argv[2])
    print("READY", flush=True)
    if "--wait" in sys.argv:
        sys.stdin.readline()
    store = Store(path)
    sid = store.create_session("test/model", "/tmp")
    print(f"SESSION {sid}", flush=True)
    turn = store.begin_turn(sid, "write many blocks")
    for n in range(blocks):
        kind = n % 3
        call = f"call_{n // 3}"
        if kind == 0:
            block: object = TextBlock(f"text {n}")
        elif kind == 1:
            block = ToolUseBlock(call, "run_command", json.dumps({"command": f"echo {n}"}))
        else:
            block = ToolResultBlock(call, "run_command", f"output {n}")
        store.add_block(turn, block)  # type: ignore[arg-type]
        print(f"WROTE {n + 1}", flush=True)
    store.finish_turn(turn, "stop", 10, 20, None)
    print("DONE", flush=True)


if __name__ == "__main__":
    main()
