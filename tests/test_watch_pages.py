"""Pages as watch reads them: HTML to the text a reader sees, and the words claims quote."""

from __future__ import annotations

import pytest

from a2a_kb.diagnostics import Mark
from a2a_kb.records.model import Claim
from a2a_kb.sources.watch import page_text, quoted


def claim(quote: str) -> Claim:
    return Claim(id="page-claim", statement="s", versions=[], source="page", conflicts=[],
                 mark=Mark("claims/x.yaml", 1, 5), quote=quote)


def test_html_becomes_the_text_a_reader_sees() -> None:
    html = (b"<!DOCTYPE html><html><head><title>T</title><style>p{}</style>"
            b"<script>var s = 'the protocol has seven states';</script></head><body>"
            b"<p>The protocol has <b>eight</b>\n  task&nbsp;states.</p>"
            b"<template><p>hidden</p></template></body></html>")
    text = page_text(html)
    assert "The protocol has eight task states." in text  # no-break space made plain
    assert "seven" not in text and "hidden" not in text and "p{}" not in text


def test_text_that_is_not_html_is_kept() -> None:
    assert page_text(b'{"a": "<b>x</b>"}') == '{"a": "<b>x</b>"}'


@pytest.mark.parametrize(("quote", "text", "expected"), [
    ("has seven task states", "Our guide: A2A has seven task states.", None),
    ("has seven task states", "Our guide: A2A has eight task states.", "numbers-changed"),
    ("lists 8 states", "Zuplo lists 9 states now.", "numbers-changed"),
    ("lists 8 states", "Zuplo lists the states.", "quote-gone"),
    ("seven", "eight", "quote-gone"),  # a bare number is no sentence to find again
    ("Two concurrent cancel requests", "two concurrent cancel requests", None),
])
def test_quoted_words(quote: str, text: str, expected: str | None) -> None:
    found = quoted(claim(quote), text)
    assert (found[0] if found else None) == expected
    if expected == "numbers-changed":
        assert found is not None and "the page now says" in found[1]
