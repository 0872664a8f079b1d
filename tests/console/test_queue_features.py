"""The review queue and posts pages: the red-card confirmation step, evidence strength, search,
filters and paging, one label table, the game's time zone, isolated player text, Chinese pages."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml
from flask import Flask
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from api import cardrules
from api.console.findings import finding_view
from api.console.labels import via_label
from game_rules.penalties import KNOWN_CATEGORIES
from models.cards import Card

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "lexicons" / "categories.yaml"


def item_html(html: str, sid: int) -> str:
    start = html.index(f'id="s-{sid}"')
    end = html.find("<article", start)
    return html[start : end if end != -1 else len(html)]


def text(html: str) -> str:
    """The page's text, tags removed."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def pending(console: Any, game: dict[str, Any]) -> list[int]:
    return [s["id"] for s in console.suggestions(game, "pending")]


# -- the red-card confirmation step -----------------------------------------------------------


def test_a_red_card_waits_for_the_second_step(console: Any, game: dict[str, Any]) -> None:
    sid = console.post(game, "支付宝", "曹尼玛")["suggestion"]["id"]
    console.login(game["director_token"])
    page = console.form(f"/queue/{sid}", {"colour": "red", "note": "恶意"})
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="confirm-red"' in html
    assert "判红牌：红牌将罚下 支付宝" in text(html)
    assert 'name="confirmed" value="1"' in html and 'name="note" value="恶意"' in html
    assert sid in pending(console, game) and "支付宝被红牌罚下" not in console.announcements(game)
    console.form(f"/queue/{sid}", {"colour": "red", "note": "恶意", "confirmed": "1"})
    assert sid not in pending(console, game)
    assert "支付宝被红牌罚下" in console.announcements(game)


def test_a_yellow_that_escalates_to_red_says_so_and_waits(
    console: Any, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    for body in ("我发誓我是好人", "曹尼玛"):
        sid = console.post(game, "淘宝", body)["suggestion"]["id"]
        console.form(f"/queue/{sid}", {"colour": "yellow"})
    third = console.post(game, "淘宝", "我发誓")["suggestion"]["id"]
    item = text(item_html(console.html("/queue"), third))
    assert "黄牌：将升级为红牌并罚下 淘宝" in item
    assert "蓝牌：" not in item  # a blue makes no red
    page = console.form(f"/queue/{third}", {"colour": "yellow"}).get_data(as_text=True)
    assert "判黄牌：将升级为红牌并罚下 淘宝" in text(page)
    assert third in pending(console, game)
    # a blue for the same character is no red: ruled at once
    other = console.post(game, "淘宝", "草泥马")["suggestion"]["id"]
    assert console.form(f"/queue/{other}", {"colour": "blue"}).status_code == 302
    assert other not in pending(console, game)


def test_a_ruling_returns_to_the_filtered_queue_page(console: Any, game: dict[str, Any]) -> None:
    sid = console.post(game, "支付宝", "曹尼玛")["suggestion"]["id"]
    console.login(game["director_token"])
    back = "/queue?status=pending&character=支付宝"
    response = console.form(f"/queue/{sid}", {"colour": "blue", "back": back})
    assert unquote(response.headers["Location"]).endswith("/queue?status=pending&character=支付宝")
    other = console.post(game, "淘宝", "曹尼玛")["suggestion"]["id"]
    response = console.form(f"/queue/{other}", {"colour": "blue", "back": "https://evil/x"})
    assert response.headers["Location"].endswith("/queue")


# -- evidence ---------------------------------------------------------------------------------


def test_classifier_only_evidence_does_not_look_like_a_matched_word() -> None:
    exact = finding_view({"category": "insult", "via": "exact", "match": "傻逼", "term": "傻逼",
                          "confidence": 0.95})  # fmt: skip
    span = {"start": 0, "end": 3, "match": "你是猪", "weight": 1.0}
    model = finding_view({"category": "insult", "via": "classifier", "match": "你是猪",
                          "term": "insult", "confidence": 0.23, "evidence": [span]})  # fmt: skip
    pattern = finding_view({"category": "evidence", "via": "pattern", "match": "http://x.cn",
                            "term": "evidence-url-scheme", "confidence": 0.95})  # fmt: skip
    assert (exact["strength_name"], model["strength_name"], pattern["strength_name"]) == (
        "词条匹配", "仅模型判断", "句式匹配",
    )  # fmt: skip
    assert model["how"] == "分类模型 依据“你是猪”" and "insult" not in model["how"]
    assert pattern["how"] == "“http://x.cn” → 句式" and "evidence-url" not in pattern["how"]


def test_queue_shows_strength_card_reasons_and_no_english_keys(
    console: Any, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    first = console.post(game, "知乎", "曹尼玛")["suggestion"]["id"]
    console.form(f"/queue/{first}", {"colour": "blue", "note": "第一次"})
    url = console.post(game, "知乎", "看这个 http://example.com/" + "a" * 80)["suggestion"]["id"]
    item = item_html(console.html("/queue"), url)
    assert "句式匹配" in item and "evidence-url-scheme" not in item
    # the earlier card's reason is on the page, numbered from 1, not in a tooltip
    assert re.search(r"第1张</span> 蓝牌 · 第1天 · 导演判罚 · 侮辱性语言：", item)
    assert "title=" not in item


# -- search, filters, paging ------------------------------------------------------------------


def test_queue_filters_by_character_day_category_thread_and_text(
    console: Any, game: dict[str, Any]
) -> None:
    a = console.post(game, "支付宝", "曹尼玛")["suggestion"]["id"]
    b = console.post(game, "淘宝", "我发誓我是好人")["suggestion"]["id"]
    c = console.post(game, "支付宝", "我发誓", day=2)["suggestion"]["id"]
    console.login(game["director_token"])

    def shown(query: str) -> list[int]:
        return [int(s) for s in re.findall(r'data-sid="(\d+)"', console.html("/queue?" + query))]

    assert shown("") == [a, b, c]
    assert shown("character=支付宝") == [a, c]
    assert shown("day=2") == [c]
    assert shown("category=oath") == [b, c]
    assert shown("q=好人") == [b]
    assert shown("thread=vote") == []
    assert shown("character=支付宝&category=oath") == [c]
    html = console.html("/queue?category=spam")
    assert "没有“spam”这种违规类别，已显示所有类别" in unescape(html)


def test_queue_is_paged_and_pages_keep_the_filters(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    app.config["CONSOLE_QUEUE_PER_PAGE"] = 2
    ids = [console.post(game, name, "曹尼玛")["suggestion"]["id"]
           for name in ("微信", "支付宝", "淘宝", "抖音", "微博")]  # fmt: skip
    console.login(game["director_token"])
    first = console.html("/queue")
    assert re.findall(r'data-sid="(\d+)"', first) == [str(i) for i in ids[:2]]
    assert "第1/3页" in first and 'rel="next"' in first
    third = console.html("/queue?page=3")
    assert re.findall(r'data-sid="(\d+)"', third) == [str(ids[4])]
    filtered = unescape(console.html("/queue?q=曹尼玛&page=1"))
    assert (
        "page=2&q=曹尼玛&status=pending" in filtered
        or "q=曹尼玛&status=pending&page=2" in (filtered)
        or re.search(r'href="/queue\?[^"]*page=2[^"]*q=', filtered)
    )


def test_posts_search_and_category_filter(console: Any, game: dict[str, Any]) -> None:
    console.post(game, "微信", "今天天气不错，50%的人是狼")
    console.post(game, "支付宝", "我发誓我是好人")
    console.post(game, "淘宝", "曹尼玛")
    console.login(game["director_token"])

    def authors(query: str) -> list[str]:
        html = console.html("/posts?" + query)
        return [unescape(a) for a in re.findall(r'class="who"[^>]*><bdi>(.*?)</bdi>', html)]

    assert authors("q=天气") == ["微信"]
    assert authors("q=50%25") == ["微信"]  # a % is searched for as itself
    assert authors("q=%25的") == ["微信"]
    assert authors("category=oath") == ["支付宝"]
    assert authors("category=insult&character=淘宝") == ["淘宝"]
    assert 'name="q" value="天气"' in console.html("/posts?q=天气")


# -- one label table --------------------------------------------------------------------------


def test_one_label_table_for_categories_and_match_kinds() -> None:
    table = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    assert set(table["categories"]) == set(KNOWN_CATEGORIES)
    for key, name in table["categories"].items():
        assert cardrules.category_name(key) == name
    for key, name in table["via"].items():
        assert via_label(key) == name and cardrules.via_name(key) == name
    assert via_label("homophone") == "音近"  # the seeds' word: 音近、形近、以及明显的通配符


def second_tables(root: Path) -> list[str]:
    """Files (other than the table) that map three or more keys of one of its sections to
    Chinese: a second copy of that section."""
    table = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    found = []
    for folder in ("api", "moderation", "game_rules", "lexicons", "forum"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".py", ".yaml", ".yml", ".json") or path.name == TABLE.name:
                continue
            source = path.read_text(encoding="utf-8")
            for section in ("via", "categories"):
                keys = "|".join(map(re.escape, table[section]))
                named = set(re.findall(rf"""["']?\b({keys})\b["']?\s*:\s*["']?[\u4e00-\u9fff]""",
                                       source))  # fmt: skip
                if len(named) >= 3:
                    found.append(f"{path.relative_to(root)} ({section}: {sorted(named)})")
    return found


def test_no_second_copy_of_the_label_table(tmp_path: Path) -> None:
    """No other source file maps the category or match-kind keys to Chinese: a second copy would
    drift (谐音 against 音近). The check itself finds a planted copy."""
    assert second_tables(ROOT) == []
    planted = tmp_path / "api"
    planted.mkdir()
    (planted / "names.py").write_text(
        'VIA = {"exact": "原词", "homophone": "谐音", "shape": "形近"}\n', encoding="utf-8"
    )
    assert second_tables(tmp_path) == ["api/names.py (via: ['exact', 'homophone', 'shape'])"]


# -- time zone, bidi, error pages -------------------------------------------------------------


def test_timeline_cards_and_events_in_the_game_zone_with_the_date(
    console: Any, game: dict[str, Any], db_url: str
) -> None:
    from api.console.service import local_time

    sid = console.post(game, "支付宝", "曹尼玛")["suggestion"]["id"]
    console.login(game["director_token"])
    console.form(f"/queue/{sid}", {"colour": "blue"})
    engine = create_engine(db_url)
    with Session(engine) as session:
        card = session.scalars(select(Card)).one()
        created = card.created_at
    engine.dispose()
    html = console.html("/timeline")
    with console.client.application.app_context():
        shanghai = local_time(created)
    assert re.fullmatch(r"\d\d-\d\d \d\d:\d\d", shanghai)
    entry = re.search(r'<li class="tl-card card-blue"><span class="at">(.*?)</span>', html)
    assert entry is not None and shanghai in entry.group(1), html
    assert 'id="game-zone">Asia/Shanghai<' in html


def test_player_text_and_names_are_isolated(console: Any, game: dict[str, Any]) -> None:
    body = "曹尼玛\u202e反向"
    sid = console.post(game, "支付宝", body)["suggestion"]["id"]
    console.login(game["director_token"])
    item = item_html(console.html("/queue"), sid)
    assert '<div class="post" lang="zh" dir="auto">' in item
    assert "“<bdi>曹尼玛</bdi>” → 音近 <bdi>操你妈</bdi>" in item
    assert '<bdi class="who">支付宝</bdi>' in item
    posts = console.html("/posts")
    assert '<div class="post" lang="zh" dir="auto">' in posts and "<bdi>支付宝</bdi>" in posts


def test_a_mistyped_console_address_is_a_chinese_page(client: Any) -> None:
    html_accept = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    page = client.get("/queeu", headers=html_accept)
    assert page.status_code == 404 and page.content_type.startswith("text/html")
    assert "页面不存在" in page.get_data(as_text=True) and "not_found" not in page.get_data(
        as_text=True
    )
    api = client.get("/api/nope", headers=html_accept)
    assert api.status_code == 404 and api.get_json()["error"]["code"] == "not_found"
    program = client.get("/queeu")
    assert program.get_json()["error"]["code"] == "not_found"
