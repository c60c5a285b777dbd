"""The parser's caches (a type's, dictionary's or header's text -> what it parses to; op
names -> their definitions) in one list, so that a benchmark can start each round from
empty caches, as a fresh process parses its file."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CACHES: list[dict[Any, Any]] = []


def text_cache() -> dict[Any, Any]:
    """A new, registered cache."""
    cache: dict[Any, Any] = {}
    _CACHES.append(cache)
    return cache


def clear_parse_caches() -> None:
    """Empty every registered cache."""
    for cache in _CACHES:
        cache.clear()
