"""M72 2(8) 以“贴脸”作为讨论依据: another player's oath, guarantee or outburst given as a reason.

Written for this project: players citing someone else's 贴脸 for a judgement (positives), and the
near misses the patterns must leave alone: reminders of the rule, questions to the director,
refusing the oath as evidence, the poster's own oath or outburst (M72 2(5)-2(7) and 2(1), not
2(8)), and ordinary analysis of how someone plays.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from moderation.patterns import default_patterns, required_literals
from moderation.screen import Finding, Screener

CITE_TEXT = "以“贴脸”作为讨论依据"

# (post, category of the cited 贴脸, a piece of the post the finding must cover); the 2(8)
# finding itself is `meta`: it judges the poster's reasoning, not their words
POSITIVES = [
    ("他都赌咒发誓了，我信他是好人", "oath", "发誓了"),
    ("人家拿全家担保了你还踩？", "oath", "拿全家担保"),
    ("看他急成那样肯定是狼", "emotional", "急成那样"),
    ("他发毒誓了所以我站他边", "oath", "发毒誓"),
    ("都以人格担保了应该是真预言家", "oath", "以人格担保"),
    ("5号连毒誓都发了，不像狼", "oath", "连毒誓都发了"),
    ("就冲她敢拿命担保，我信她一回", "oath", "拿命担保"),
    ("我站3号，人家都用人格保证了", "oath", "用人格保证"),
    ("既然穗乃果发过誓了，那她应该是真预言家", "oath", "发过誓"),
    ("狼哪敢发这种毒誓，7号是好人", "oath", "发这种毒誓"),
    ("敢拿全家担保的肯定不是狼", "oath", "拿全家担保"),
    ("楼上都破防了，铁狼", "emotional", "破防"),
    ("七号急眼了，出他", "emotional", "急眼"),
    ("3号被查杀后情绪很激动，像是真预言家", "emotional", "情绪很激动"),
    ("他肯定是狼，你看他都急眼了", "emotional", "急眼"),
    ("她都哭了你还踩", "emotional", "哭了"),
    ("看在他发毒誓的份上我信他", "oath", "发毒誓"),
    # disguises the normaliser folds away: traditional, full width, spaces, symbols, emoji
    ("他都賭咒發誓了，我信他是好人", "oath", "發誓了"),
    ("人家都以人格擔保了，妳還踩？", "oath", "以人格擔保"),
    ("３号都发毒誓了，你们还投３号？", "oath", "发毒誓"),
    ("他 都 发 毒 誓 了，我 站 他", "oath", "发 毒 誓"),
    ("人家拿*全家*担保了你还踩", "oath", "拿*全家*担保"),
    ("他都发😤毒誓了，我．信．他", "oath", "发😤毒誓"),
    ("看他急[b]成那[/b]样肯定是狼", "emotional", "急[b]成那[/b]样"),
]

# (post, what the M72 screener must still find there, or None) — never a 2(8) finding
NEAR_MISSES = [
    ("贴脸不能作为依据吧，他发誓了也不代表什么", None),
    ("导演，他这算贴脸吗？他都发毒誓了，我信他是好人", None),
    ("规则写了不能以“贴脸”作为讨论依据，大家别拿他发誓说事", None),
    ("别因为他发了毒誓就信他", None),
    ("就算他拿全家担保我也不信", None),
    ("他都发毒誓了我也不信", None),
    ("发誓不能证明他是好人", None),
    ("发个誓你就信了？那狼都去发誓好了", None),
    ("他发誓了但我还是觉得他是狼", None),
    ("他昨天发誓说自己是好人", None),
    # the poster's own oath or outburst: 2(5)-2(7) or 2(1), not 2(8)
    ("我都发誓了你们还不信我", ("oath", "2(5)")),
    ("我拿人格担保他是好人", ("oath", "2(6)")),
    ("我都以人格担保了，我是好人", ("oath", "2(6)")),
    ("烦死了，你们爱信不信", ("emotional", "2(1)")),
    ("我破防了，这局太难了，但我还是站3号", ("emotional", "2(1)")),
    # how someone plays, not their 贴脸; or an outburst with no judgement drawn from it
    ("他发言很急躁，有点像狼", None),
    ("9号今天表现得太急了，我站3号", None),
    ("狼急了，好人就快赢了", None),
    ("你激动什么，冷静下来再说", None),
    ("他急眼了，大家冷静，先别投他", None),
    ("你别急眼，你是好人我知道", None),
    ("你这么激动干嘛，我又没说你是狼", None),
    ("他说我急眼了，我没急，我只是觉得他是狼", None),
    ("3号的逻辑很清楚，我信他是好人", None),
]


def _cited(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.article.code == "2(8)"]


@pytest.mark.parametrize(("text", "category", "piece"), POSITIVES)
def test_citing_someone_elses_tielian_is_m72_2_8(
    m72: Screener, text: str, category: str, piece: str
) -> None:
    found = _cited(m72.screen(text))
    assert len(found) == 1, (text, m72.screen(text))
    f = found[0]
    assert f.category == "meta"
    # the cited oath or outburst is not reported as the poster's own (2(5), 2(1))
    assert not [g for g in m72.screen(text) if g.category == category], m72.screen(text)
    assert f.article.ruleset == "m72"
    assert f.article.text == CITE_TEXT
    assert f.article.label == "M72 判罚依据 2(8)"
    assert f.term.startswith("cite-")
    assert f.via == "pattern"
    assert text[f.start : f.end] == f.match
    start = text.index(piece)
    assert f.start <= start and start + len(piece) <= f.end, (f.match, piece)


@pytest.mark.parametrize(("text", "category", "piece"), POSITIVES)
def test_no_clause_in_m08_and_wa004_and_the_quoted_oath_is_not_the_posters(
    m08: Screener, wa004: Screener, text: str, category: str, piece: str
) -> None:
    # the oath or outburst they quote is someone else's: no finding of its category either
    for screener in (m08, wa004):
        found = screener.screen(text)
        assert [f for f in found if f.category == category] == [], (screener.ruleset, found)
        assert not [f for f in found if f.term.startswith("cite-")]


@pytest.mark.parametrize(("text", "expected"), NEAR_MISSES)
def test_near_misses_are_not_2_8(
    screeners: dict[str, Screener], text: str, expected: tuple[str, str] | None
) -> None:
    for screener in screeners.values():
        assert not [f for f in screener.screen(text) if f.term.startswith("cite-")], text
    found = screeners["m72"].screen(text)
    assert _cited(found) == []
    if expected is not None:
        category, code = expected
        assert (category, code) in {(f.category, f.article.code) for f in found}, found


def test_a_quote_and_the_posters_own_oath_in_one_post(m72: Screener, m08: Screener) -> None:
    text = "他都发毒誓了我信他，我也发毒誓他是好人"
    quoted, own = text.index("发毒誓"), text.rindex("发毒誓")
    found = m72.screen(text)
    assert [f.article.code for f in found] == ["2(8)", "2(5)"]
    assert found[0].start <= quoted < found[0].end <= own == found[1].start
    # M08 has no 2(8): the quoted oath is dropped, the poster's own oath stays
    assert [(f.article.code, f.start) for f in m08.screen(text)] == [("3(1)", own)]


class SureItIsAnOath:
    """A stand-in classifier that calls every post an oath (predict + thresholds)."""

    def __init__(self) -> None:
        self.thresholds = {"oath": 0.5}

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return [{"oath": 0.9} for _ in texts]


def test_the_classifier_follows_the_citation() -> None:
    quote = "他发毒誓了所以我站他边"
    # M72: the citation is the 2(8) finding; the model's oath reading is of the quoted words,
    # which are not the poster's oath, so it adds nothing
    m72 = Screener("m72", classifier=SureItIsAnOath())
    assert {(f.article.code, f.via) for f in m72.screen(quote)} == {("2(8)", "pattern")}
    # M08: the oath words are quoted, so the model's reading of them is no finding either...
    m08 = Screener("m08", classifier=SureItIsAnOath())
    assert m08.screen(quote) == []
    # ...unless the poster swears too: then it backs that rule finding
    both = "他都发毒誓了我信他，我也发毒誓他是好人"
    own = both.rindex("发毒誓")
    assert {(f.article.code, f.start, f.via) for f in m08.screen(both)} == {
        ("3(1)", own, "exact"),
        ("3(1)", own, "classifier"),
    }
    # and a post with no citation is untouched
    assert [f.via for f in m08.screen("我站他边")] == ["classifier"]


def test_the_seeds_examples_need_the_unless_guard(m72: Screener) -> None:
    # the same citation without the rule talk around it is a finding: the guard is what clears it
    assert _cited(m72.screen("他都发毒誓了，我信他是好人"))
    assert not _cited(m72.screen("导演，他这算贴脸吗？他都发毒誓了，我信他是好人"))


def test_cite_patterns_are_prefiltered_on_oath_or_outburst_words() -> None:
    # every required literal is two characters or more (誓都, 担保, 破防 ...), so the patterns
    # stay off the many posts holding only 了, 都, 他 or 看
    cite_patterns = [p for p in default_patterns().patterns if p.spec.article == "cite"]
    assert len(cite_patterns) >= 4
    for p in cite_patterns:
        literals = required_literals(p.spec.regex)
        assert literals, p.spec.id
        assert min(map(len, literals)) >= 2, (p.spec.id, sorted(literals))
        assert p.unless is not None, p.spec.id
