"""neutralize() compiles its escape-sequence patterns only for a text holding one."""

from __future__ import annotations

import subprocess
import sys

import pytest

CODE = ("import sys\nfrom swebash_py.text import sanitize\n"
        "stream = sanitize.StreamNeutralizer()\n"
        "out = sanitize.neutralize(sys.argv[1]) + stream.feed(sys.argv[1]) + stream.finish()\n"
        "print(repr(out), sanitize._compiled.cache_info().currsize)\n")


@pytest.mark.parametrize(("text", "expected"), [
    ("Hello! How can I help?", "'Hello! How can I help?Hello! How can I help?' 0"),
    ("tab\tand\r\nline", "'tab\\tand\\nlinetab\\tand\\nline' 0"),
    ("a\x1b[31mred", "'aredared' 2"),  # the twin: an escape compiles both
])
def test_plain_text_compiles_no_escape_pattern(text: str, expected: str) -> None:
    result = subprocess.run([sys.executable, "-c", CODE, text], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == expected
