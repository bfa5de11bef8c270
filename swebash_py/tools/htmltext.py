"""Readable Markdown from an HTML page (markdownify on BeautifulSoup).

Why markdownify: MIT-licensed, well kept, one small dependency tree
(beautifulsoup4 + soupsieve + six) and Markdown that keeps headings, links,
lists, tables and code blocks. html2text is GPL-3.0 (not for an MIT package);
trafilatura extracts the main text best but brings a dozen packages
(htmldate, courlan, justext, dateparser, ...) for a single tool. Both are
imported lazily, on the first fetch of an HTML page.

The page is reduced first: scripts, styles, forms and other non-text parts are
dropped, and when the page has a ``<main>`` or ``<article>`` only that is
kept (the cheap half of "reader mode").
"""

from __future__ import annotations

import re
from typing import Any

DROP = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object",
        "embed", "form", "button", "input", "select", "textarea", "link", "meta")
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def html_to_markdown(raw: bytes, charset: str | None) -> tuple[str, str]:
    """(title, markdown) of an HTML document given as bytes."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(raw, "html.parser", from_encoding=charset)
    title = " ".join(soup.title.get_text().split()) if soup.title else ""
    for tag in soup(DROP):
        tag.decompose()
    root: Any = soup.find("main") or soup.find("article")
    if root is None:  # no main part marked: drop the page's chrome instead
        root = soup.body or soup
        for tag in root.find_all(("nav", "footer", "aside")):
            tag.decompose()
    text = MarkdownConverter(heading_style="ATX", bullets="-", strip=["img"]).convert_soup(root)
    return title, _BLANKS.sub("\n\n", text).strip()
