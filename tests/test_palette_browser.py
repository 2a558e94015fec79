"""The colour-scheme toggle (tooling/a2a_kb/templates/theme/partials), in Chromium: the
scheme follows the reader's system until they pick one, the pick survives a reload, the
toggle answers a click and the Enter key, and the theme's own palette component, whose
start-up restyled the whole page three times, is not on the page."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

STATE = """() => [document.body.getAttribute("data-md-color-scheme"),
  [...document.querySelectorAll("form.kb-palette label")].map(l => !l.hidden),
  getComputedStyle(document.body).backgroundColor]"""
LIGHT = ["default", [True, False], "rgb(255, 255, 255)"]
DARK = ["slate", [False, True]]


@pytest.mark.parametrize(("system", "first", "other"), [("light", LIGHT, DARK), ("dark", DARK, LIGHT)])
def test_the_scheme_follows_the_system_then_the_readers_choice(
    chromium: Any, built_site_url: str, system: str, first: list[Any], other: list[Any]
) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, color_scheme=system)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(built_site_url + "conflicts/", wait_until="networkidle")
        assert page.locator('[data-md-component="palette"]').count() == 0
        assert page.evaluate(STATE)[: len(first)] == first

        page.click("form.kb-palette label:not([hidden])")
        page.wait_for_function("() => !document.body.hasAttribute('data-md-color-switching')")
        assert page.evaluate(STATE)[: len(other)] == other
        page.reload(wait_until="networkidle")  # the choice is kept, whatever the system says
        assert page.evaluate(STATE)[: len(other)] == other
        page.goto(built_site_url + "states/", wait_until="networkidle")  # and on every page
        assert page.evaluate(STATE)[: len(other)] == other

        page.focus("form.kb-palette input:checked")
        page.keyboard.press("Enter")
        page.wait_for_function("() => !document.body.hasAttribute('data-md-color-switching')")
        assert page.evaluate(STATE)[: len(first)] == first
        assert page.evaluate("() => document.activeElement.matches('form.kb-palette input:checked')")
        assert not errors, errors
    finally:
        context.close()
