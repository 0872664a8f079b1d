"""Every category and every evasion kind is found, cited with the ruleset's own article."""

from __future__ import annotations

import pytest

from moderation.screen import Finding, Screener


def _only(findings: list[Finding], category: str) -> Finding:
    found = [f for f in findings if f.category == category]
    assert found, f"no {category} finding in {findings}"
    return found[0]


# (post, category, expected M08 article code)
CATEGORY_CASES = [
    ("你就是个傻逼", "insult", "1(1)"),
    ("操你妈，别投我", "insult", "1(4)"),
    ("3号这条狗又在带节奏", "insult", "1(3)"),
    ("你是不是没长脑子啊", "insult", "2(1)"),
    ("我发誓我是预言家", "oath", "3(1)"),
    ("如果我是狼我全家不得好死", "oath", "3(1)"),
    ("我拿我的命担保他是好人", "oath", "3(2)"),
    ("拿人格担保，5号是金水", "oath", "3(2)"),
    ("揭秘帖见，到时候别哭", "oath", "3(2)"),
    ("我要是狼我吃红牌", "oath", "3(2)"),
    ("你是不是上一场那个预言家", "vest", "4(1)"),
    ("上一届你也这么打", "vest", "4(2)"),
    ("有人在私下找替补", "vest", "4(3)"),
    ("我的场外助理刚提醒我投票", "vest", "4(4)"),
    ("导演跟我说今晚准时关门", "director", "7(1)"),
    ("我不服这个判罚", "director", "7(2)"),
    ("看这个链接 http://tieba.baidu.com/p/123456", "evidence", "8(1)"),
    ("我贴一下聊天记录给你们看", "evidence", "8(1)"),
    ("明天期末考试，今晚少发", "real_life", "6(6)"),
    ("我今年二十二岁", "real_life", "6(6)"),
    ("气死我了，不玩了", "emotional", "11(1)"),
]


@pytest.mark.parametrize(("text", "category", "code"), CATEGORY_CASES)
def test_category_found_with_m08_article(
    m08: Screener, text: str, category: str, code: str
) -> None:
    f = _only(m08.screen(text), category)
    assert f.article.code == code
    assert f.article.ruleset == "m08"
    assert text[f.start : f.end] == f.match
    assert 0.0 < f.confidence <= 1.0


# (post, expected canonical term, expected via)
EVASION_CASES = [
    ("你是傻逼", "傻逼", "exact"),
    ("你是傻逼嗎", "傻逼", "exact"),
    ("揭秘貼見", "揭秘贴见", "traditional"),
    ("你是ＳＢ", "傻逼", "initials"),
    ("你个傻。逼", "傻逼", "noise"),
    ("你个傻😀逼", "傻逼", "noise"),
    ("你个傻[b][/b]逼", "傻逼", "noise"),
    ("你*妈*的", "你妈的", "noise"),
    ("傻逼逼逼逼", "傻逼", "repeat"),
    ("你这个沙比", "傻逼", "homophone"),
    ("你是shabi吧", "傻逼", "homophone"),
    ("sha逼", "傻逼", "homophone"),
    ("傻b", "傻逼", "initials"),
    ("nmsl", "你妈死了", "initials"),
    ("你是 s b 吧", "傻逼", "initials"),
    ("你吗死了", "你妈死了", "homophone"),  # 吗 reads ma: a homophone, not only a look-alike
    ("你是个傻偪", "傻逼", "shape"),  # 偪: a generated look-alike (shares 畐 with 逼)
    ("你是个儍逼", "傻逼", "homophone"),
    ("你是傻*", "傻逼", "shape"),
    ("弓虽女干", "强奸", "split"),
    # with 拿 before it the oath-by-person pattern reads the recomposed 人格 and, longer, names
    # the finding (tests/moderation/test_recompose.py)
    ("人木各担保，信我", "人格担保", "split"),
]


@pytest.mark.parametrize(("text", "term", "via"), EVASION_CASES)
def test_evasion_kinds(m08: Screener, text: str, term: str, via: str) -> None:
    f = _only(m08.screen(text), "insult" if term not in ("揭秘贴见", "人格担保") else "oath")
    assert (f.term, f.via) == (term, via)
    assert text[f.start : f.end] == f.match


def test_full_width_letters_report_width(m08: Screener) -> None:
    f = _only(m08.screen("你个ＬＯＷ逼"), "insult")
    assert (f.term, f.via, f.match) == ("low逼", "width", "ＬＯＷ逼")


def test_the_seed_sensitive_words_of_m08(m08: Screener) -> None:
    # 不要聊马甲，不要聊替补、场助、投降等敏感词
    cats = {
        w: {f.category for f in m08.screen(f"我们聊聊{w}吧")}
        for w in ["马甲", "替补", "场助", "投降"]
    }
    assert cats == {"马甲": {"vest"}, "替补": {"vest"}, "场助": {"vest"}, "投降": {"oath"}}


def test_font_red_and_size(m72: Screener, wa004: Screener, m08: Screener) -> None:
    red = "[color=#FF0000]我是预言家[/color]"
    assert [(f.category, f.article.code) for f in m72.screen(red)] == [("font", "6(1)")]
    assert [(f.category, f.article.code) for f in wa004.screen(red)] == [("font", "9(1)")]
    big = "[size=6]出3号[/size]"
    assert [(f.category, f.article.code) for f in wa004.screen(big)] == [("font", "9(2)")]
    assert m08.screen(red) == []  # M08 has no font rule


def test_water_only_where_the_ruleset_counts_it(wa004: Screener, m08: Screener) -> None:
    found = wa004.screen("顶顶顶！！")
    assert [(f.category, f.article.code, f.start, f.end) for f in found] == [
        ("water", "5(1)", 0, 5)
    ]
    assert m08.screen("顶顶顶！！") == []


def test_meta_only_in_m72_and_real_life_only_in_m08(
    m08: Screener, m72: Screener, wa004: Screener
) -> None:
    meta = "这局最佳狼人应该给9号"
    assert _only(m72.screen(meta), "meta").article.code == "1(2)"
    assert all(f.category != "meta" for f in m08.screen(meta) + wa004.screen(meta))
    life = "今天加班到九点"
    assert _only(m08.screen(life), "real_life").article.code == "6(6)"
    assert all(f.category != "real_life" for f in m72.screen(life) + wa004.screen(life))


@pytest.mark.parametrize(
    ("text", "ruleset", "code"),
    [
        ("我拿人格担保我是好人", "m72", "2(6)"),
        ("我拿人格担保我是好人", "wa004", "3(4)"),
        ("对上帝发誓我是好人", "wa004", "3(5)"),
        ("对上帝发誓我是好人", "m72", "2(7)"),
        ("揭秘帖见", "wa004", "3(7)"),
        ("你们都是智障", "wa004", "2(1)"),
        ("你们都是人渣", "wa004", "2(2)"),
        ("导演你这样判不对", "m72", "3(2)"),
        ("我拆出你的马甲了", "m72", "4(2)"),
        ("我们私下找替补吧", "m72", "4(6)"),
    ],
)
def test_article_numbers_follow_the_ruleset(
    screeners: dict[str, Screener], text: str, ruleset: str, code: str
) -> None:
    codes = {f.article.code for f in screeners[ruleset].screen(text)}
    assert code in codes


def test_severity_hint_is_the_seeds_wording(m08: Screener) -> None:
    f = _only(m08.screen("你这个傻逼"), "insult")
    assert f.severity.cards == ("reminder", "blue", "yellow")
    assert "可私下提醒、也可直接判作蓝牌或黄牌" in f.severity.text
    ev = _only(m08.screen("http://a.com"), "evidence")
    assert ev.severity.cards == ("blue", "yellow", "red")


def test_asking_the_director_to_announce_a_rule_is_allowed(m08: Screener) -> None:
    assert m08.screen("请导演在场上公示一下改票规则") == []
    assert m08.screen("遇到规则问题可以直接私聊法官询问") == []


def test_obfuscated_urls(m08: Screener) -> None:
    for text in [
        "tieba 点 baidu 点 com",
        "ｗｗｗ．ｂａｉｄｕ．ｃｏｍ",
        "h t t p : / / tieba.baidu.com",
        "去贴吧点百度点康木看",
    ]:
        assert _only(m08.screen(text), "evidence").via == "pattern", text


def test_qq_chat_log_shape(m08: Screener) -> None:
    log = "奶茶三分糖(12345678) 21:03:11\n今晚刀8号\n饺子(87654321) 21:03:40\n好"
    f = _only(m08.screen(log), "evidence")
    assert f.match.startswith("奶茶三分糖(12345678)")


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("我刚问过导演，他说可以用楼中楼", "director"),
        ("法官昨晚跟我说守卫没行动", "director"),
        ("导演你判错了", "director"),
        ("红牌给得太随意了", "director"),
        ("我对这个黄牌有意见", "director"),
        ("你凭什么给我黄牌", "director"),
        ("我发毒誓我是好人", "oath"),
        ("我以我的人格发誓", "oath"),
        ("我用我全家的命担保", "oath"),
        ("要是我是狼就让我天打雷劈", "oath"),
        ("我要是狼你们可以给我红牌", "oath"),
        ("以我的信仰担保", "oath"),
        ("谁骗人谁是小狗", "oath"),
        ("揭秘的时候见分晓", "oath"),
        ("你以前是不是叫清风", "vest"),
        ("你的场外又在指挥你了", "vest"),
        ("我知道你的马甲是谁", "vest"),
    ],
)
def test_sentence_shapes(m08: Screener, text: str, category: str) -> None:
    assert category in {f.category for f in m08.screen(text)}
