"""The push service worker (static/push-sw.js), with pushes delivered to it by Chromium's own
DevTools protocol (``ServiceWorker.deliverPushMessage``), as a push service would: a player
looking at the table's page is not shown a notification of the move the page already shows;
anywhere else they are."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, CDPSession, Page

from tests.e2e.helpers import TIMEOUT, api_table, wait_ready

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}
DAYS = {"kind": "correspondence", "days": 3}
SHOWN = """async () => {
    const registration = await navigator.serviceWorker.getRegistration("/");
    return (await registration.getNotifications()).map((n) => n.title);
}"""


def push_worker(page: Page) -> tuple[CDPSession, str]:
    """The DevTools session of ``page`` and the registration id of the site's worker."""
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    session = page.context.new_cdp_session(page)
    found: list[dict[str, Any]] = []
    session.on(
        "ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"])
    )
    session.send("ServiceWorker.enable")
    page.wait_for_function("() => true")  # a turn for the event to arrive
    for _ in range(50):
        if found:
            break
        page.wait_for_timeout(100)
    live = [r for r in found if not r["isDeleted"]]
    assert live, found
    return session, live[0]["registrationId"]


def deliver(session: CDPSession, origin: str, registration: str, title: str, url: str) -> None:
    message = {"title": title, "body": "Your opponent has moved.", "url": url}
    session.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": origin + "/", "registrationId": registration, "data": json.dumps(message)},
    )


def shown(page: Page) -> list[str]:
    titles: list[str] = page.evaluate(SHOWN)
    return titles


def wait_shown(page: Page, title: str) -> list[str]:
    page.wait_for_function(
        f"async () => ({SHOWN})().then((titles) => titles.includes({json.dumps(title)}))",
        timeout=TIMEOUT,
    )
    return shown(page)


def test_a_push_of_the_table_in_front_of_the_player_shows_no_notification(
    browser: Browser, server_url: str
) -> None:
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=server_url)
    created = api_table(context, server_url, "dots", DOTS, DAYS)
    page = context.new_page()
    page.goto(created["seat_url"])
    wait_ready(page)
    session, registration = push_worker(page)
    table = created["id"]
    # the move at this table, in the Finnish the subscription was made in, while its page is
    # in front of the player; then one of another game of theirs
    deliver(session, server_url, registration, "This table", f"/fi/t/{table}")
    deliver(session, server_url, registration, "Another game", "/fi/t/abcdefghij")
    assert wait_shown(page, "Another game") == ["Another game"]
    # the player went on to another page: the next move is shown
    page.goto(f"{server_url}/games")
    deliver(session, server_url, registration, "This table", f"/fi/t/{table}")
    assert sorted(wait_shown(page, "This table")) == ["Another game", "This table"]
