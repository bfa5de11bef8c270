"""Run inside a fresh network namespace (see test_fetch_rebinding.py): a tiny DNS
server on 127.0.0.1:53 whose answers for one name change from query to query,
a "public" web server on 93.184.216.34 (an address of this namespace's own
loopback device: nothing leaves the machine), a loopback service on
127.0.0.1, the scripted provider, and the installed ``ai`` pointed at them.

Prints one JSON object: ai's exit status and output, the hits of each server,
the DNS queries answered and the provider's requests.
"""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakeprovider import FakeProvider, reply_from_dict

PUBLIC = "93.184.216.34"
NAME = "rebind.test"
PORT = 8080


class Dns(threading.Thread):
    """A records for NAME from ``answers`` in turn (the last one repeats);
    AAAA: none; any other name: NXDOMAIN."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(daemon=True)
        self.answers, self.asked = answers, 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 53))

    def run(self) -> None:
        while True:
            packet, peer = self.sock.recvfrom(512)
            self.sock.sendto(self.answer(packet), peer)

    def answer(self, packet: bytes) -> bytes:
        ident = packet[:2]
        end = 12
        labels = []
        while packet[end]:
            labels.append(packet[end + 1:end + 1 + packet[end]].decode())
            end += packet[end] + 1
        question = packet[12:end + 5]
        qtype = struct.unpack("!H", packet[end + 1:end + 3])[0]
        if ".".join(labels).lower() != NAME:
            return ident + struct.pack("!HHHHH", 0x8183, 1, 0, 0, 0) + question
        if qtype != 1:  # AAAA and the rest: the name exists, no such record
            return ident + struct.pack("!HHHHH", 0x8180, 1, 0, 0, 0) + question
        address = self.answers[min(self.asked, len(self.answers) - 1)]
        self.asked += 1
        record = struct.pack("!HHHIH", 0xC00C, 1, 1, 0, 4) + socket.inet_aton(address)
        return ident + struct.pack("!HHHHH", 0x8180, 1, 1, 0, 0) + question + record


def web_server(address: str, body: str, hits: list[str]) -> ThreadingHTTPServer:
    class Page(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            hits.append(self.path)
            data = body.encode()
            self.send_response(200)
            self.send_header("content-type", "text/plain")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer((address, PORT), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(config: dict[str, Any]) -> None:
    dns = Dns(config["answers"])
    dns.start()
    public_hits: list[str] = []
    loopback_hits: list[str] = []
    web_server(PUBLIC, "PUBLIC-PAGE", public_hits)
    web_server("127.0.0.1", "LOOPBACK-SECRET", loopback_hits)
    with FakeProvider() as fp:
        fp.queue(*(reply_from_dict(reply) for reply in config["replies"]))
        argv = [config["ai"], "-m", "openai/x", "--api-base", fp.url, *config["args"]]
        code, out, err = (_answer_in_a_pty(argv, config) if config.get("typed")
                          else _run_piped(argv, config))
        requests = [r.body for r in fp.requests]
    json.dump({"code": code, "stdout": out, "stderr": err,
               "public_hits": public_hits, "loopback_hits": loopback_hits,
               "dns_answers": dns.asked, "requests": requests}, sys.stdout)


def _run_piped(argv: list[str], config: dict[str, Any]) -> tuple[int, str, str]:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=config["cwd"],
                          stdin=subprocess.DEVNULL, timeout=120,
                          start_new_session=True)  # no controlling terminal to ask on
    return done.returncode, done.stdout, done.stderr


def _answer_in_a_pty(argv: list[str], config: dict[str, Any]) -> tuple[int, str, str]:
    """``ai`` on a terminal: each question is answered with the next of ``typed``."""
    import pexpect

    child = pexpect.spawn(argv[0], argv[1:], cwd=config["cwd"], encoding="utf-8",
                          timeout=60, dimensions=(40, 100))
    for answer in config["typed"]:
        child.expect("Allow")
        child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus or 0), child.before or "", ""


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
