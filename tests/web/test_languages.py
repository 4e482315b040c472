"""Language prefixes, negotiation on the home page, the switcher, and every guide page in
every language, through the real app."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from playtable.web.app import create_app
from playtable.web.guides import VARIANTS, board_facts
from playtable.web.language import LANG_COOKIE, negotiate, split_prefix
from tests.web.conftest import Socket, connect, create_table
from tests.web.page_strings import page_strings

LANGUAGES = ("en", "fi", "cs", "ko")
GUIDES = (
    "/rules/dots-and-boxes",
    "/rules/swaptimum",
    "/variants",
    *(f"/variants/{v.slug}" for v in VARIANTS),
)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'lang.sqlite3'}", secret="s" * 40)
    with TestClient(app) as c:
        yield c


def prefixed(lang: str, path: str) -> str:
    return path if lang == "en" else f"/{lang}{path}"


def test_prefixes_and_negotiation() -> None:
    assert split_prefix("/fi/rules/swaptimum") == ("fi", "/rules/swaptimum")
    assert split_prefix("/ko/") == ("ko", "/")
    assert split_prefix("/fish") == ("en", "/fish")
    assert negotiate("fi-FI,fi;q=0.9,en;q=0.8") == "fi"
    assert negotiate("de-DE,cs;q=0.7,en;q=0.8") == "en"
    assert negotiate("de, ko;q=0.5") == "ko"
    assert negotiate("cs;q=0, ko;q=0.1") == "ko"
    assert negotiate("") == "en"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["/", *GUIDES])
def test_every_page_in_every_language(client: TestClient, lang: str, path: str) -> None:
    page = client.get(prefixed(lang, path), headers={"accept-language": ""})
    assert page.status_code == 200
    html = page.text
    assert f'<html lang="{lang}">' in html
    assert page.headers["content-language"] == lang
    # one alternate per language and a default, all absolute, all to this very page
    alternates = dict(
        re.findall(r'<link rel="alternate" hreflang="([\w-]+)" href="([^"]+)">', html)
    )
    assert set(alternates) == {*LANGUAGES, "x-default"}
    for other in LANGUAGES:
        assert alternates[other] == "http://testserver" + prefixed(other, path)
    # the switcher: every language, the current one marked, each link to the same page
    switcher = re.search(r'<nav class="language-switcher".*?</nav>', html, re.S)
    assert switcher
    links = dict(re.findall(r'<a href="([^"]+)" hreflang="(\w+)"', switcher.group(0)))
    assert sorted(links.values()) == sorted(LANGUAGES)
    for href, other in links.items():
        assert href.split("?")[0] == prefixed(other, path)
    assert re.search(rf'data-lang="{lang}" aria-current="true"', switcher.group(0))
    # links inside the site stay in the language
    if lang != "en":
        assert f'href="/{lang}/rules/swaptimum"' in html
        assert 'href="/rules/swaptimum"' not in html.replace(switcher.group(0), "")


def test_the_bare_home_page_follows_the_browser_then_the_choice(client: TestClient) -> None:
    korean = {"accept-language": "ko-KR,ko;q=0.9,en;q=0.5"}
    answer = client.get("/", headers=korean, follow_redirects=False)
    assert answer.status_code == 302
    assert answer.headers["location"] == "/ko/"
    assert "Accept-Language" in answer.headers["vary"]
    # the query string survives, so a variant's "play" link works from any browser
    answer = client.get("/?game=dots&start=swedish", headers=korean, follow_redirects=False)
    assert answer.headers["location"] == "/ko/?game=dots&start=swedish"
    # choosing English in the switcher sticks, whatever the browser prefers
    english = client.get("/?lang=en&game=swaptimum", headers=korean, follow_redirects=False)
    assert english.status_code == 302
    assert english.headers["location"] == "/?game=swaptimum"
    assert client.cookies.get(LANG_COOKIE) == "en"
    assert '<html lang="en">' in client.get("/?game=swaptimum", headers=korean).text
    assert client.get("/", headers=korean, follow_redirects=False).status_code == 200
    # visiting a Finnish page makes Finnish the choice
    client.get("/fi/variants")
    assert client.cookies.get(LANG_COOKIE) == "fi"
    assert client.get("/", follow_redirects=False).headers["location"] == "/fi/"
    assert client.get("/fi", follow_redirects=False).headers["location"] == "/fi/"


def test_an_english_prefix_leads_to_the_english_page_and_chooses_english(
    client: TestClient,
) -> None:
    """English has no prefix; /en/... written by hand (as /fi/... is) is not a 404."""
    korean = {"accept-language": "ko-KR,ko;q=0.9"}
    answer = client.get("/en/rules/swaptimum?x=1", headers=korean, follow_redirects=False)
    assert answer.status_code == 302
    assert answer.headers["location"] == "/rules/swaptimum?x=1"
    assert client.cookies.get(LANG_COOKIE) == "en"
    page = client.get("/en/", headers=korean)  # and the home page stays English after it
    assert page.status_code == 200 and '<html lang="en">' in page.text
    assert client.get("/en", follow_redirects=False).headers["location"] == "/"
    # only a whole first segment: /entrance is another (unknown) page
    assert client.get("/entrance", follow_redirects=False).status_code == 404


def test_unknown_pages_are_404_in_the_language(client: TestClient) -> None:
    page = client.get("/cs/variants/no-such-variant")
    assert page.status_code == 404
    assert '<html lang="cs">' in page.text
    assert "Stránka nenalezena" in page.text


def csrf(client: TestClient, home: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', client.get(home).text)
    assert match
    return match.group(1)


def test_a_table_created_in_finnish_stays_finnish_and_the_seat_follows(
    client: TestClient,
) -> None:
    home = client.get("/fi/").text
    assert 'action="/fi/tables"' in home
    form = {
        "csrf": csrf(client, "/fi/"),
        "game": "dots",
        "dots_grid": "square",
        "dots_rows": "2",
        "dots_cols": "2",
        "dots_start": "standard",
        "seat": "red",
    }
    created = client.post("/fi/tables", data=form, follow_redirects=False)
    assert created.status_code == 303
    location = created.headers["location"]
    assert re.fullmatch(r"/fi/t/[\w-]+", location)
    page = client.get(location).text
    assert '<html lang="fi">' in page
    assert "Pisteet ja laatikot" in page
    table_path = location.removeprefix("/fi")
    for lang in LANGUAGES:
        other = client.get(prefixed(lang, table_path)).text
        data: dict[str, Any] = json.loads(
            re.search(r'id="table-data">(.*?)</script>', other, re.S).group(1)  # type: ignore[union-attr]
        )
        assert data["you"] == "red", lang
        strings = page_strings(client, other)
        assert (
            strings["red"] == {"en": "Red", "fi": "Punainen", "cs": "Červený", "ko": "빨강"}[lang]
        )


def test_a_bad_form_in_czech_answers_in_czech(client: TestClient) -> None:
    form = {
        "csrf": csrf(client, "/cs/"),
        "game": "dots",
        "dots_grid": "square",
        "dots_rows": "x",
        "dots_cols": "4",
        "dots_start": "standard",
        "seat": "red",
    }
    page = client.post("/cs/tables", data=form)
    assert page.status_code == 400
    assert "Počet řad musí být celé číslo." in page.text


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.slug)
def test_each_variant_page_preselects_its_settings_in_the_form(
    client: TestClient, variant: Any
) -> None:
    page = client.get(f"/fi/variants/{variant.slug}").text
    play = re.search(r'<a class="button button--primary" href="([^"]+)" data-play>', page)
    assert play
    href = play.group(1).replace("&amp;", "&")
    assert href.startswith("/fi/?game=dots")
    home = client.get(href).text
    form = variant.form
    grid = form.get("grid", "square")
    assert re.search(rf'name="dots_grid" value="{grid}" checked', home)
    if "start" in form:
        assert re.search(rf'<option value="{form["start"]}" selected>', home)
    if "size" in form:
        assert re.search(rf'name="dots_size" [^>]*value="{form["size"]}"', home)
    assert ('name="dots_misere" value="1" checked' in home) == ("misere" in form)


def test_the_home_form_ignores_nonsense_in_the_query(client: TestClient) -> None:
    home = client.get("/?game=chess&grid=%3Cb%3E&rows=999&start=moon").text
    assert re.search(r'name="game" value="dots" checked', home)
    assert re.search(r'name="dots_grid" value="square" checked', home)
    assert 'value="999"' not in home and "<b>" not in home
    swaptimum = client.get("/?game=swaptimum&size=7").text
    assert re.search(r'name="game" value="swaptimum" checked', swaptimum)
    assert re.search(r'name="swaptimum_size" [^>]*value="7"', swaptimum)


def diagrams(html: str) -> dict[str, Any]:
    found = re.findall(
        r'<figure class="diagram" data-diagram="(\w+)">.*?<script type="application/json" '
        r'class="diagram__data">(.*?)</script>',
        html,
        re.S,
    )
    return {key: json.loads(data) for key, data in found}


def test_the_numbers_on_the_variant_pages_come_from_the_engine(client: TestClient) -> None:
    swedish = board_facts({"rows": 4, "cols": 4, "start": "swedish"})
    assert (swedish["predrawn"], swedish["moves"], swedish["lines"]) == (16, 24, 40)
    assert board_facts({"rows": 4, "cols": 4, "start": "icelandic"})["moves"] == 32
    page = client.get("/variants/swedish-board").text
    assert (
        "On a 4×4 board the 16 border lines are drawn, so the game has 24 moves instead of 40."
        in page
    )
    assert "One move per inner line: 24 moves on a 4×4 board." in page
    finnish = client.get("/fi/variants/swedish-board").text
    assert (
        "4×4-laudalla reunan 16 viivaa on piirretty, joten pelissä on 24 siirtoa 40:n sijaan."
        in finnish
    )
    czech = client.get("/cs/variants/swedish-board").text
    assert "Na desce 4×4 je nakresleno 16 okrajových čar, takže hra má 24 tahů místo 40." in czech
    # the outdated "not offered here" of the seed pages is gone: it links to the Icelandic page
    icelandic_link = 'href="/fi/variants/icelandic-board">islantilaiseksi laudaksi</a>'
    assert icelandic_link + ", ja sitäkin voi pelata täällä" in finnish
    assert (
        'href="/cs/variants/icelandic-board">islandská deska</a> a i tu si zde můžete zahrát'
        in czech
    )
    # the diagram is the engine's starting position
    start = diagrams(page)["start"]
    assert start["kind"] == "dots"
    lines = start["table"]["view"]["lines"]
    assert sum(line["predrawn"] for line in lines) == 16 and len(lines) == 40
    icelandic = diagrams(client.get("/variants/icelandic-board").text)["start"]
    assert sum(line["predrawn"] for line in icelandic["table"]["view"]["lines"]) == 8
    triangle = diagrams(client.get("/ko/variants/triangle-grid").text)["start"]
    assert triangle["table"]["view"]["grid"] == "triangle"


def test_the_swaptimum_rules_show_each_situation(client: TestClient) -> None:
    found = diagrams(client.get("/cs/rules/swaptimum").text)
    assert set(found) == {"crosscut", "swap_inside", "swap_outside", "restricted", "opponent_win"}
    assert found["swap_inside"]["table"]["moves"] == ["b3:b3-c3"]
    assert found["swap_outside"]["table"]["moves"] == ["b3:a1-b2"]
    restricted = found["restricted"]["table"]["view"]
    assert restricted["marked"] == ["c3"] and "c3" not in restricted["placements"]
    assert found["opponent_win"]["table"]["view"]["winner"] == "red"


def test_an_invitation_opens_the_table_in_the_receivers_language(client: TestClient) -> None:
    form = {
        "csrf": csrf(client, "/cs/"),
        "game": "swaptimum",
        "swaptimum_size": "5",
        "seat": "red",
    }
    location = client.post("/cs/tables", data=form, follow_redirects=False).headers["location"]
    page = client.get(location).text
    data = json.loads(re.search(r'id="table-data">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    invite = data["table"]["invite_url"]
    assert invite.startswith("/t/")
    client.cookies.clear()  # the guest: another browser
    korean = {"accept-language": "ko"}
    shown = client.get(invite, headers=korean, follow_redirects=False)
    assert shown.status_code == 200 and 'lang="ko"' in shown.text
    assert "파랑 자리에 앉기" in shown.text  # the button that takes the seat, in Korean
    token = re.search(r'name="csrf" value="([^"]+)"', shown.text).group(1)  # type: ignore[union-attr]
    joined = client.post(invite, data={"csrf": token}, headers=korean, follow_redirects=False)
    assert joined.status_code == 303
    assert joined.headers["location"] == "/ko" + location.removeprefix("/cs")


def test_a_wrong_invitation_is_explained_in_the_receivers_language(client: TestClient) -> None:
    form = {"csrf": csrf(client, "/"), "game": "swaptimum", "swaptimum_size": "5", "seat": "red"}
    location = client.post("/tables", data=form, follow_redirects=False).headers["location"]
    table_id = location.rsplit("/", 1)[1]
    client.cookies.clear()  # the guest: another browser
    page = client.get(f"/t/{table_id}/join/wrong", headers={"accept-language": "cs"})
    assert page.status_code == 403
    assert '<html lang="cs">' in page.text
    assert "Pozvánka není platná" in page.text
    assert f"http://testserver/cs/t/{table_id}/watch" in page.text
    missing = client.get("/t/nosuchtable/join/x", headers={"accept-language": "ko"})
    assert missing.status_code == 404 and "그런 테이블은 없습니다" in missing.text


def test_an_unknown_address_is_a_404_page_in_the_language(client: TestClient) -> None:
    page = client.get("/ko/no/such/page")
    assert page.status_code == 404
    assert '<html lang="ko">' in page.text and "페이지를 찾을 수 없습니다" in page.text


def test_a_spectator_link_opens_in_the_receivers_language(client: TestClient) -> None:
    """The watch link is shared like an invitation: the sender's language is not the
    receiver's (it opened in English for everyone)."""
    table = create_table(client)
    watch = f"/t/{table.id}/watch"
    client.cookies.clear()
    korean = client.get(watch, headers={"accept-language": "ko"})
    assert korean.status_code == 200 and '<html lang="ko">' in korean.text
    client.cookies.set("pt_lang", "fi")  # a choice made on the site wins
    assert '<html lang="fi">' in client.get(watch, headers={"accept-language": "ko"}).text
    client.cookies.set("pt_lang", "en")
    assert '<html lang="en">' in client.get(watch, headers={"accept-language": "ko"}).text
    client.cookies.clear()
    assert '<html lang="cs">' in client.get(f"/cs{watch}").text  # a prefix is a choice


def test_the_links_back_to_the_table_keep_the_pages_language(client: TestClient) -> None:
    """ "Back to the table" from the analysis and from "continue on another device" led to
    the unprefixed, English, table page."""
    table = create_table(client)
    with connect(client, table.id, table.token) as session:  # a finished game: analysable
        red = Socket(session)
        red.join()
        red.send("resign")
        red.until_state(lambda t: t["outcome"] is not None)
    client.cookies.set(f"pt_{table.id}", table.token)
    analysis = client.get(f"/fi/t/{table.id}/analysis")
    assert analysis.status_code == 200
    assert f'href="/fi/t/{table.id}"' in analysis.text
    device = client.get(f"/ko/t/{table.id}/continue")
    assert device.status_code == 200, device.status_code
    assert f'href="/ko/t/{table.id}"' in device.text
