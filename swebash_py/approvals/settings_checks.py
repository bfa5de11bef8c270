"""The settings whose values are permission rules, and the check of each.

The configuration holds the rules' text; their syntax (and the tool names they
may use) is this layer's, in ``approvals.rules``. ``cli.settings`` hands these
checks to ``config.settings.load_settings(checks=)``, which turns a bad rule
into the one ``config error: FILE: key 'permissions.allow': invalid permission
rule ...`` line at start-up. The parser (and the tools' traits it checks names
against) is imported only when a list has rules: most runs have none.
"""

from __future__ import annotations

from collections.abc import Callable


def _rules(wrap: str = "{}") -> Callable[[list[str]], None]:
    def check(rules: list[str]) -> None:
        if rules:
            from swebash_py.approvals.rules import check_rules

            check_rules(rules, wrap)

    return check


RULE_SETTINGS: dict[str, Callable[[list[str]], None]] = {
    "permissions.allow": _rules(),
    "permissions.deny": _rules(),
    "sandbox.host_allow": _rules("run_command({})"),  # a bare pattern: git:*, make
}
