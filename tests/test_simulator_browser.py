"""The task control room in Debian's Chromium, driven by accessible names.

The page is the real one: the site is built once per session (strict) and served on
127.0.0.1, so the simulator runs on the ``api/v1/lifecycle.json`` the build emitted from the
knowledge base. Screenshots land in test-artifacts/simulator/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
PAGE_SOURCE = REPO / "content" / "simulator.md"
SCREENSHOTS = REPO / "test-artifacts" / "simulator"
MARKUP = re.compile(r"<!-- control-room:start -->\n(.*?)<!-- control-room:end -->", re.S)

# The exact labels, with the role each control has.
ControlRole = Literal["spinbutton", "checkbox", "button", "combobox"]
CONTROLS: dict[ControlRole, list[str]] = {
    "spinbutton": [
        "Work units",
        "Seconds per unit",
        "Require input before unit",
        "Require authorization before unit",
        "Fail during unit",
    ],
    "checkbox": ["Reject before execution", "Worker accepts cancellation"],
    "button": [
        "Supply clarification",
        "Authorize",
        "Request cancellation",
        "New follow-up task",
        "Play",
        "Pause",
        "Step",
        "Restart experiment",
    ],
    "combobox": ["Speed", "Specification version"],
}
INSPECTOR = ["Task ID", "Context ID", "State", "Completed units", "Final artifact"]


def control_room_markup() -> str:
    """The HTML block of content/simulator.md, between its two marker comments."""
    match = MARKUP.search(PAGE_SOURCE.read_text(encoding="utf-8"))
    assert match, f"{PAGE_SOURCE} has no control-room:start/end markers"
    return match.group(1)


@pytest.fixture(scope="module")
def site_url(built_site: Path, built_site_url: str) -> str:
    """The built site; its simulator page carries the same markup as content/simulator.md."""
    page = (built_site / "simulator" / "index.html").read_text("utf-8")
    assert control_room_markup().strip() in page, "the built page lost the control-room markup"
    return built_site_url


@pytest.fixture(scope="module")
def browser(chromium: Browser) -> Browser:
    return chromium


def open_room(
    browser: Browser, site_url: str, width: int = 1280, fake_clock: bool = False
) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(5_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    if fake_clock:
        page.clock.install()
    page.goto(site_url + "simulator/")
    expect(page.get_by_role("status")).to_contain_text("Control room ready")
    return page, errors


@pytest.fixture
def room(browser: Browser, site_url: str) -> Iterator[Page]:
    page, errors = open_room(browser, site_url)
    yield page
    page.context.close()
    assert errors == [], f"console errors: {errors}"


# --- small verbs in the reader's terms ---------------------------------------------------


def set_number(page: Page, label: str, value: int) -> None:
    field = page.get_by_role("spinbutton", name=label, exact=True)
    field.fill(str(value))
    field.press("Tab")  # a real blur, so the change event fires as it does for a reader


def button(page: Page, name: str) -> Locator:
    return page.get_by_role("button", name=name, exact=True)


def shown(page: Page, label: str) -> Locator:
    return page.get_by_label(label, exact=True)


def no_gates(page: Page) -> None:
    set_number(page, "Require input before unit", 0)
    set_number(page, "Require authorization before unit", 0)


def step_until_state(page: Page, state: str, limit: int = 60) -> None:
    for _ in range(limit):
        if page.locator("[data-sim-show=state] .a2a-sim__statename").inner_text() == state:
            return
        expect(button(page, "Step")).to_be_enabled()
        button(page, "Step").click()
    raise AssertionError(f"the task never reached {state}")


def step_until_units(page: Page, units: str, limit: int = 60) -> None:
    for _ in range(limit):
        if shown(page, "Completed units").inner_text() == units:
            return
        button(page, "Step").click()
    raise AssertionError(f"the task never reached {units} units")


def state_of(page: Page) -> Locator:
    return page.locator("[data-sim-show=state] .a2a-sim__statename")


def assert_never_resumes(page: Page) -> None:
    for name in ("Supply clarification", "Authorize", "Step", "Play", "Request cancellation"):
        expect(button(page, name)).to_be_disabled()
    expect(button(page, "Supply clarification")).to_have_accessible_description(
        re.compile("never resumes")
    )
    before = state_of(page).inner_text()
    # Even a forced click on a disabled control must not resume the task.
    button(page, "Supply clarification").click(force=True)
    button(page, "Authorize").click(force=True)
    expect(state_of(page)).to_have_text(before)
    expect(button(page, "New follow-up task")).to_be_enabled()


# --- the scenarios -------------------------------------------------------------------


def test_every_control_has_the_seed_label(room: Page) -> None:
    for role, names in CONTROLS.items():
        for name in names:
            expect(room.get_by_role(role, name=name, exact=True)).to_have_count(1)
    for label in INSPECTOR:
        expect(shown(room, label)).to_have_count(1)
    expect(shown(room, "Task ID")).to_have_text("task-1")
    expect(shown(room, "Context ID")).to_have_text("context-1")
    expect(state_of(room)).to_have_text("submitted")
    expect(room.locator("[data-sim-show=state] .a2a-sim__class")).to_have_text("active")


def test_reject_before_execution_ends_rejected_with_nothing(room: Page) -> None:
    room.get_by_role("checkbox", name="Reject before execution", exact=True).check()
    button(room, "Step").click()
    expect(state_of(room)).to_have_text("rejected")
    expect(room.locator("[data-sim-show=state] .a2a-sim__class")).to_have_text("terminal")
    expect(shown(room, "Completed units")).to_have_text("0 of 4")
    expect(shown(room, "Final artifact")).to_have_text(re.compile(r"^None"))
    expect(room.get_by_role("status")).to_contain_text("is now rejected (terminal)")
    assert_never_resumes(room)


def test_fail_during_unit_three_keeps_two_units_and_no_artifact(room: Page) -> None:
    no_gates(room)
    set_number(room, "Fail during unit", 3)
    step_until_state(room, "failed")
    expect(shown(room, "Completed units")).to_have_text("2 of 4")
    expect(shown(room, "Final artifact")).to_have_text(re.compile(r"^None \(failed during unit 3"))
    assert_never_resumes(room)


def test_follow_up_is_a_new_task_in_the_same_context(room: Page) -> None:
    no_gates(room)
    set_number(room, "Fail during unit", 1)
    expect(button(room, "New follow-up task")).to_be_disabled()
    expect(button(room, "New follow-up task")).to_have_accessible_description(
        re.compile("Only after a terminal state")
    )
    step_until_state(room, "failed")
    old_task = shown(room, "Task ID").inner_text()
    old_context = shown(room, "Context ID").inner_text()
    button(room, "New follow-up task").click()
    expect(shown(room, "Task ID")).not_to_have_text(old_task)
    expect(shown(room, "Context ID")).to_have_text(old_context)
    expect(shown(room, "References")).to_have_text(old_task)
    expect(state_of(room)).to_have_text("submitted")
    expect(room.locator("[data-sim-records] li")).to_have_count(1)
    expect(room.get_by_role("status")).to_contain_text(f"referencing {old_task}")


def test_refused_cancellation_leaves_the_task_working(room: Page) -> None:
    no_gates(room)
    room.get_by_role("checkbox", name="Worker accepts cancellation", exact=True).uncheck()
    step_until_units(room, "1 of 4")
    button(room, "Request cancellation").click()
    expect(state_of(room)).to_have_text("working")
    expect(room.get_by_role("status")).to_contain_text("refused cancellation")
    expect(room.locator("[data-sim-trace] li").last).to_contain_text("Refused the cancellation")
    expect(button(room, "Step")).to_be_enabled()


def test_accepted_cancellation_ends_canceled_without_artifact(room: Page) -> None:
    no_gates(room)
    step_until_units(room, "2 of 4")
    button(room, "Request cancellation").click()
    expect(state_of(room)).to_have_text("canceled")
    expect(shown(room, "Completed units")).to_have_text("2 of 4")
    expect(shown(room, "Final artifact")).to_have_text(
        re.compile(r"^None \(canceled after 2 completed unit")
    )
    expect(room.get_by_role("status")).to_contain_text("is now canceled (terminal)")


def test_gates_pause_until_their_own_button(room: Page) -> None:
    # The defaults ask for input before unit 2 and authorization before unit 3.
    step_until_state(room, "input-required")
    expect(room.locator("[data-sim-show=state] .a2a-sim__class")).to_have_text("interrupted")
    expect(room.get_by_role("status")).to_contain_text("Waiting for Supply clarification")
    for name in ("Step", "Play", "Authorize"):
        expect(button(room, name)).to_be_disabled()
    clock = shown(room, "Active time").inner_text()
    button(room, "Authorize").click(force=True)  # the wrong button changes nothing
    expect(state_of(room)).to_have_text("input-required")
    button(room, "Supply clarification").click()
    expect(state_of(room)).to_have_text("working")
    expect(shown(room, "Active time")).to_have_text(clock)

    step_until_state(room, "auth-required")
    expect(button(room, "Supply clarification")).to_be_disabled()
    expect(button(room, "Step")).to_have_accessible_description(re.compile("use Authorize"))
    button(room, "Authorize").click()
    step_until_state(room, "completed")
    expect(shown(room, "Final artifact")).to_have_text("result: 4 illustrative units from task-1")
    shoot(room, "desktop-completed")


def test_seeking_back_and_resuming_discards_the_later_branch(room: Page) -> None:
    no_gates(room)
    set_number(room, "Work units", 3)
    step_until_state(room, "completed")
    records = room.locator("[data-sim-records] li")
    total = records.count()
    room.get_by_role("button", name=re.compile(r"· working · 1\/3 units$")).first.click()
    expect(state_of(room)).to_have_text("working")
    expect(shown(room, "Final artifact")).to_have_text("None yet")
    expect(records).to_have_count(total)
    expect(room.locator("[data-sim-records] .is-later")).not_to_have_count(0)
    expect(room.get_by_role("status")).to_contain_text("Resuming here discards")
    kept = room.locator("[data-sim-records] [aria-current=step]").inner_text()
    index = int(kept.split(".")[0])
    button(room, "Step").click()
    expect(records).to_have_count(index + 1)
    expect(room.locator("[data-sim-records] .is-later")).to_have_count(0)
    expect(room.get_by_role("status")).to_contain_text("Discarded")
    expect(room.locator("[data-sim-records]")).not_to_contain_text("completed")


def test_version_picker_lists_versions_newest_first_in_version_order(room: Page) -> None:
    """The one sort of versions is a2a_kb.records.kb.version_key: the picker lists what it
    orders, newest first (a prerelease just below its release, main on top), as the nav does."""
    from a2a_kb.records.kb import version_key

    picker = room.get_by_role("combobox", name="Specification version", exact=True)
    values = picker.locator("option").evaluate_all("options => options.map(o => o.value)")
    assert "1.0.0-rc" in values and "0.1.0" in values
    assert values == sorted(values, key=version_key, reverse=True)
    assert values.index("1.0.0-rc") == values.index("1.0.0") + 1


def test_version_picker_switches_off_what_an_old_version_lacks(room: Page) -> None:
    room.get_by_role("combobox", name="Specification version", exact=True).select_option("0.1.0")
    gate = room.get_by_role("spinbutton", name="Require authorization before unit", exact=True)
    expect(gate).to_be_disabled()
    expect(gate).to_have_value("0")
    expect(gate).to_have_accessible_description(re.compile("v0.1.0 has no auth-required state"))
    expect(
        room.get_by_role("checkbox", name="Reject before execution", exact=True)
    ).to_be_disabled()
    expect(room.locator("[data-sim-version-notes]")).to_contain_text("No auth-required state")
    step_until_state(room, "input-required")
    shoot(room, "desktop-v0.1.0-input-required")
    button(room, "Supply clarification").click()
    step_until_state(room, "completed")
    room.get_by_role("combobox", name="Specification version", exact=True).select_option("1.0.1")
    expect(gate).to_be_enabled()
    expect(gate).to_have_value("3")


def test_play_runs_until_a_gate_and_waits_there(browser: Browser, site_url: str) -> None:
    page, errors = open_room(browser, site_url, fake_clock=True)
    page.get_by_role("combobox", name="Speed", exact=True).select_option("10")
    button(page, "Play").click()
    expect(button(page, "Pause")).to_be_enabled()
    page.clock.run_for(60_000)
    expect(state_of(page)).to_have_text("input-required")
    expect(button(page, "Play")).to_be_disabled()
    expect(button(page, "Pause")).to_be_disabled()
    expect(page.get_by_role("status")).to_contain_text("is now input-required")
    button(page, "Supply clarification").click()
    button(page, "Play").click()
    page.clock.run_for(60_000)
    expect(state_of(page)).to_have_text("auth-required")
    page.context.close()
    assert errors == [], f"console errors: {errors}"


def test_keyboard_alone_runs_the_room(room: Page) -> None:
    step = button(room, "Step")
    step.focus()
    outline = step.evaluate("e => getComputedStyle(e).outlineStyle")
    assert outline != "none", "a focused control must show a visible outline"
    room.keyboard.press("Enter")
    expect(state_of(room)).to_have_text("working")
    room.keyboard.press("Space")
    room.keyboard.press("Space")
    expect(shown(room, "Completed units")).to_have_text("1 of 4")


def test_phone_width_fits_and_bad_settings_are_named(browser: Browser, site_url: str) -> None:
    page, errors = open_room(browser, site_url, width=375)
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= 375, f"the page scrolls sideways at 375 px ({overflow} px wide)"
    step_until_state(page, "input-required")
    shoot(page, "phone-input-required")
    shoot(page, "phone-viewport", full_page=False)
    set_number(page, "Work units", 0)
    expect(page.get_by_role("status")).to_contain_text("Work units must be a whole number")
    expect(page.get_by_role("spinbutton", name="Work units", exact=True)).to_have_attribute(
        "aria-invalid", "true"
    )
    expect(button(page, "Step")).to_be_disabled()
    page.context.close()
    assert errors == [], f"console errors: {errors}"


def test_unusable_data_is_explained(browser: Browser, site_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.route("**/api/v1/lifecycle.json", lambda route: route.fulfill(json={"schema_version": 99}))
    page.goto(site_url + "simulator/")
    expect(page.get_by_role("alert")).to_contain_text("schema_version is 99")
    expect(page.get_by_role("button", name="Step", exact=True)).to_be_hidden()
    context.close()


def shoot(page: Page, name: str, full_page: bool = True) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page, animations="disabled"
    )
