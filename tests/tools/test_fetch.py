"""web_fetch against pages served from 127.0.0.1, and its address policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.approvals.policy import decide, suggest_rule
from swebash_py.approvals.rules import RuleSet
from swebash_py.errors import ToolFailed
from swebash_py.tools.base import ToolContext, ToolResult
from swebash_py.tools.fetch import MAX_BYTES, WebFetch
from swebash_py.tools.netaddr import is_private
from tests.tools.webpages import BIG, Site


async def fetch(tool: WebFetch, ctx: ToolContext, url: str) -> ToolResult:
    """Preview (the approval question resolves and pins the host), then run."""
    args = tool.Args.parse({"url": url})
    tool.preview(args, ctx)
    return await tool.run(args, ctx)


async def test_html_becomes_markdown_without_scripts(site: Site, ctx: ToolContext) -> None:
    result = await fetch(WebFetch(), ctx, site.url + "/page.html")
    out = result.output
    assert not result.is_error
    assert "Title: The Test Page" in out and "# Hello" in out
    assert "**bold**" in out and "[a link](/next)" in out and "- one" in out
    assert 'print("hi")' in out
    assert "do-not-show" not in out and "color: red" not in out
    assert "Home | About" not in out and "footer text" not in out  # <main> only


async def test_json_passes_through(site: Site, ctx: ToolContext) -> None:
    result = await fetch(WebFetch(), ctx, site.url + "/data.json")
    assert '{"ok": true, "items": [1, 2]}' in result.output
    assert "application/json" in result.output


async def test_a_50_mb_body_is_cut_and_not_downloaded(site: Site, ctx: ToolContext) -> None:
    result = await fetch(WebFetch(), ctx, site.url + "/big")
    assert f"first {MAX_BYTES:,} bytes of {BIG:,}" in result.output
    assert result.metadata["bytes"] == MAX_BYTES and result.metadata["cut"]
    assert len(result.output) < ctx.max_output_chars
    assert site.big_sent < BIG  # the server could not send it all: we hung up


async def test_a_redirect_loop_stops(site: Site, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailed, match="too many redirects"):
        await fetch(WebFetch(), ctx, site.url + "/loop")
    assert len(site.hits) == 6  # the first request and five redirects


async def test_a_redirect_is_followed(site: Site, ctx: ToolContext) -> None:
    result = await fetch(WebFetch(), ctx, site.url + "/to-page")
    assert result.metadata["url"].endswith("/page.html") and "# Hello" in result.output


async def test_binary_is_refused(site: Site, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailed, match=r"image/png.*binary"):
        await fetch(WebFetch(), ctx, site.url + "/img.png")
    with pytest.raises(ToolFailed, match="NUL"):
        await fetch(WebFetch(), ctx, site.url + "/nul.txt")


async def test_http_errors_are_error_results(site: Site, ctx: ToolContext) -> None:
    result = await fetch(WebFetch(), ctx, site.url + "/missing")
    assert result.is_error and "Status: 404" in result.output and "Not here" in result.output


async def test_other_schemes_are_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolFailed, match="only http and https"):
        await fetch(WebFetch(), ctx, "file:///etc/passwd")


async def test_private_address_is_refused_without_the_question(site: Site,
                                                               ctx: ToolContext) -> None:
    """Run without a preview (no question was asked): a loopback host is refused."""
    tool = WebFetch()
    with pytest.raises(ToolFailed, match="needs the user's approval"):
        await tool.run(tool.Args.parse({"url": site.url + "/page.html"}), ctx)
    assert site.hits == []


async def test_the_host_is_resolved_once_and_pinned(site: Site, ctx: ToolContext) -> None:
    """DNS rebinding: a later answer is never used; the request goes where the
    question said, with the name kept in the Host header."""
    answers = [["127.0.0.1"], ["203.0.113.9"]]
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return answers[len(calls) - 1]

    port = site.server_address[1]
    result = await fetch(WebFetch(resolver=resolver), ctx, f"http://rebind.test:{port}/page.html")
    assert "# Hello" in result.output
    assert calls == ["rebind.test"]
    assert site.hits == [("/page.html", f"rebind.test:{port}")]


def test_a_private_address_asks_even_in_yolo_and_with_an_allow_rule(
        ctx: ToolContext, workspace: Path) -> None:
    tool = WebFetch()
    args = tool.Args.parse({"url": "http://127.0.0.1:9/"})
    preview = tool.preview(args, ctx)
    assert preview.must_ask and any("loopback" in w for w in preview.warnings)
    rules = RuleSet.from_lists(["web_fetch"])
    for mode in ("yolo", "ask", "auto-edit"):
        decision = decide(WebFetch.traits(), {"url": args.url}, preview, mode, rules, workspace)
        assert decision.action == "ask" and "private" in decision.reason
    assert suggest_rule(WebFetch.traits(), {"url": args.url}, preview, workspace) is None
    # the twin: a public address follows the mode and the rules
    public = WebFetch(resolver=lambda _h, _p: ["93.184.216.34"])
    pub_preview = public.preview(public.Args.parse({"url": "http://example.test/"}), ctx)
    assert not pub_preview.must_ask
    assert decide(WebFetch.traits(), {}, pub_preview, "yolo", RuleSet(), workspace).action == \
        "allow"
    assert decide(WebFetch.traits(), {}, pub_preview, "ask", rules, workspace).action == "allow"
    assert decide(WebFetch.traits(), {}, pub_preview, "ask", RuleSet(), workspace).action == \
        "ask"


@pytest.mark.parametrize(("address", "private"), [
    ("127.0.0.1", True), ("10.1.2.3", True), ("192.168.0.1", True), ("172.16.5.4", True),
    ("169.254.169.254", True), ("100.64.0.1", True), ("0.0.0.0", True), ("::1", True),
    ("fe80::1", True), ("fc00::1", True), ("::ffff:127.0.0.1", True), ("junk", True),
    ("93.184.216.34", False), ("2606:4700::1111", False)])
def test_address_classes(address: str, private: bool) -> None:
    assert is_private(address) is private


async def test_two_fetches_of_one_host_each_connect_where_their_own_check_looked(
        ctx: ToolContext) -> None:
    """The rebinding of two calls in one turn: call 1 is judged on a public
    answer, call 2 on 127.0.0.1; call 1's request must not use call 2's answer."""
    import httpx

    answers = iter([["93.184.216.34"], ["127.0.0.1"]])
    went: list[str] = []

    def record(request: httpx.Request) -> httpx.Response:
        went.append(request.url.host)
        return httpx.Response(200, text="ok", headers={"content-type": "text/plain"})

    tool = WebFetch(resolver=lambda _h, _p: next(answers), transport=httpx.MockTransport(record))
    first = tool.Args.parse({"url": "http://rebind.test/a"})
    second = tool.Args.parse({"url": "http://rebind.test/b"})
    assert not tool.preview(first, ctx).must_ask  # public: judged by the mode
    assert tool.preview(second, ctx).must_ask  # loopback: asks, saying so
    await tool.run(first, ctx)
    assert went == ["93.184.216.34"]  # not 127.0.0.1: call 2's answer stays call 2's
    await tool.run(second, ctx)  # approved knowing it is loopback
    assert went == ["93.184.216.34", "127.0.0.1"]


async def test_a_second_run_of_one_call_resolves_afresh(ctx: ToolContext) -> None:
    """A resolution serves one request: run again, the host is resolved and
    checked anew (a loopback answer then needs a question)."""
    import httpx

    answers = iter([["93.184.216.34"], ["127.0.0.1"]])
    tool = WebFetch(resolver=lambda _h, _p: next(answers), transport=httpx.MockTransport(
        lambda r: httpx.Response(200, text="ok", headers={"content-type": "text/plain"})))
    args = tool.Args.parse({"url": "http://rebind.test/"})
    tool.preview(args, ctx)
    assert not (await tool.run(args, ctx)).is_error
    with pytest.raises(ToolFailed, match="needs the user's approval"):
        await tool.run(args, ctx)
