"""Fixtures for the engine tests (helpers live in ``synthetic_history``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from swebash_py.engine.messages import Message
from tests.engine.synthetic_history import build_session


@pytest.fixture
def session() -> Callable[..., list[Message]]:
    """``session(turns, seed=0, **turn_kwargs)``: a complete, valid history."""
    return build_session
