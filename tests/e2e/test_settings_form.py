"""The home form checks its numbers before sending, in the page's language, and says so
when a choice becomes unavailable (Icelandic start, then the triangle grid); with scripts
off, the server's reason is in the page's language too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.e2e


def choose(page: Page, name: str, value: str) -> None:
    page.locator("label", has=page.locator(f'input[name="{name}"][value="{value}"]')).click()


def test_the_form_checks_ranges_in_finnish(browser: Browser, server_url: str) -> None:
    page = browser.new_context().new_page()
    page.goto(server_url + "/fi/")
    choose(page, "game", "dots")
    rows = page.locator("#dots_rows")
    rows.fill("13")
    page.locator("#table-form button[type=submit]").click()
    # not sent: the message shows under the field, which has the focus
    error = page.locator("#dots_rows-error")
    expect(error).to_have_text("Rivien määrän on oltava kokonaisluku 1–12.")
    expect(rows).to_have_attribute("aria-invalid", "true")
    expect(rows).to_be_focused()
    assert page.url.rstrip("/").endswith("/fi")
    # the message follows the typing and goes away once the value is right
    rows.fill("3")
    expect(error).to_be_hidden()
    expect(rows).not_to_have_attribute("aria-invalid", "true")

    # a triangle of size 10 on the hexagon grid is not cut to 6 silently: it is out of range
    choose(page, "dots_grid", "triangle")
    size = page.locator("#dots_size")
    size.fill("10")
    size.dispatch_event("change")
    expect(page.locator("#dots_size-error")).to_be_hidden()
    choose(page, "dots_grid", "hexagon")
    expect(size).to_have_value("10")
    expect(page.locator("#dots_size-error")).to_have_text("Koon on oltava kokonaisluku 1–6.")
    size.fill("3")
    expect(page.locator("#dots_size-error")).to_be_hidden()
    page.locator("#table-form button[type=submit]").click()
    page.wait_for_url("**/fi/t/*")


def test_an_unavailable_start_says_so_and_comes_back(browser: Browser, server_url: str) -> None:
    page = browser.new_context().new_page()
    page.goto(server_url + "/cs/")
    choose(page, "game", "dots")
    start = page.locator("#dots_start")
    start.select_option("icelandic")
    note = page.locator("#start-note")
    expect(note).to_be_hidden()
    choose(page, "dots_grid", "triangle")
    expect(start).to_have_value("swedish")
    expect(note).to_be_visible()
    expect(note).to_have_text(
        "Islandská deska se hraje jen na čtvercové mřížce, proto je teď nastavená švédská deska."
    )
    # back on the square grid the player's own choice returns
    choose(page, "dots_grid", "square")
    expect(start).to_have_value("icelandic")
    expect(note).to_be_hidden()


def test_without_scripts_the_server_says_it_in_korean(browser: Browser, server_url: str) -> None:
    page = browser.new_context(java_script_enabled=False).new_page()
    page.goto(server_url + "/ko/")
    page.locator('input[name="game"][value="swaptimum"]').check()
    page.locator("#swaptimum_size").fill("27")
    page.locator("#table-form button[type=submit]").click()
    expect(page.locator("#form-error")).to_contain_text("크기는 2에서 26 사이의 정수여야 합니다")


def test_only_the_chosen_time_control_shows_its_settings(browser: Browser, server_url: str) -> None:
    """No clock shows no time fields; real time shows its presets, and the custom minutes and
    increment only once "Custom" is chosen; correspondence shows its days. The custom game
    is created with the clock the player typed."""
    page = browser.new_context().new_page()
    page.goto(server_url + "/")
    choose(page, "game", "dots")
    preset, minutes = page.locator("#time_preset"), page.locator("#time_minutes")
    increment, days = page.locator("#time_increment"), page.locator("#time_days")
    for field in (preset, minutes, increment, days):
        expect(field).to_be_hidden()
    choose(page, "time", "realtime")
    expect(preset).to_be_visible()
    expect(minutes).to_be_hidden()
    expect(increment).to_be_hidden()
    expect(days).to_be_hidden()
    preset.select_option("custom")
    expect(minutes).to_be_visible()
    expect(increment).to_be_visible()
    choose(page, "time", "correspondence")
    expect(days).to_be_visible()
    for field in (preset, minutes, increment):
        expect(field).to_be_hidden()
    choose(page, "time", "realtime")  # the custom choice is still there
    expect(minutes).to_be_visible()
    minutes.fill("7")
    increment.fill("2")
    page.locator("#table-form button[type=submit]").click()
    page.wait_for_url("**/t/*")
    expect(page.locator("body")).to_contain_text("7 min + 2 s")


def test_custom_clock_values_are_checked_under_their_fields(
    browser: Browser, server_url: str
) -> None:
    """0 minutes or 99 s of increment went to the server unchecked; the page came back at
    /tables with the reason at the top of the form, far above the field on a phone."""
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(server_url + "/cs/")
    choose(page, "game", "dots")
    choose(page, "time", "realtime")
    page.locator("#time_preset").select_option("custom")
    minutes, increment = page.locator("#time_minutes"), page.locator("#time_increment")
    minutes.fill("0")
    increment.fill("99")
    page.locator("#table-form button[type=submit]").click()
    expect(page.locator("#time_minutes-error")).to_have_text("Minuty: 1 až 180.")
    expect(page.locator("#time_increment-error")).to_be_visible()
    expect(minutes).to_be_focused()
    expect(minutes).to_have_attribute("aria-invalid", "true")
    assert page.url.rstrip("/").endswith("/cs")  # nothing was sent
    minutes.fill("5")
    increment.fill("3")
    expect(page.locator("#time_minutes-error")).to_be_hidden()
    page.locator("#table-form button[type=submit]").click()
    page.wait_for_url("**/cs/t/*")
    expect(page.locator("body")).to_contain_text("5 min + 3 s")


def test_the_misere_box_names_the_cells_of_the_chosen_grid(
    browser: Browser, server_url: str
) -> None:
    """A triangle's or hexagon's cells are cells, as the rules and the table page say (a
    review: the form said the player with fewer boxes wins on every grid)."""
    page = browser.new_context().new_page()
    page.goto(server_url + "/cs/")
    choose(page, "game", "dots")
    misere = page.get_by_role("checkbox", name="Misère", exact=False)
    expect(misere).to_have_accessible_name("Misère: vyhrává hráč s méně čtverci")
    choose(page, "dots_grid", "hexagon")
    expect(misere).to_have_accessible_name("Misère: vyhrává hráč s méně políčky")
    choose(page, "dots_grid", "square")
    expect(misere).to_have_accessible_name("Misère: vyhrává hráč s méně čtverci")
