"""Who is speaking: a post read into the poster's own words and what it quotes.

Players quote all the time: the rules (规则帖写了不许聊替补), another player's post (「…」,
[quote], 引用 3楼：…), what someone said (他昨天说…, 3号赌咒发誓说…), a hypothetical
(如果有人骂你…的话), or they ask the director whether something is allowed
(导演，说“我发誓”算违规吗？). A term inside such a stretch is not the poster's violation.
:func:`read` finds these stretches (:class:`Quoted`, spans of the ORIGINAL text) from the cues
in ``lexicons/speaker.yaml``; the screener then drops rule findings lying inside one
(:meth:`Reading.quotes`).

Careful in both directions: the poster's own words around a quote stay theirs
(我发誓他是狼，不信你们看他说的「…」: the oath is outside the quote), and so do quotes the
poster speaks (我说“…”) or scare-quotes used of someone (你就是个“天才”). Another's words
quote only 贴脸 (insults, oaths, outbursts): relaying talk of 马甲 or a chat log still
discusses or posts it.

Under M72 a quoted 贴脸 (someone else's oath, curse or outburst) that the poster uses as the
reason for a judgement is itself a violation, 2(8) 以“贴脸”作为讨论依据: :func:`citations`.

>>> r = read("规则帖写了不许聊替补，大家注意")
>>> [(q.voice.value, r.text[q.start:q.end]) for q in r.quoted]
[('rules', '不许聊替补'), ('rules', '聊替补')]
>>> r = read("我发誓他是狼，你看他说的「我是预言家」")
>>> [(q.voice.value, r.text[q.start:q.end]) for q in r.quoted]
[('reported', '说的「我是预言家」'), ('player', '我是预言家')]
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from lexicons.loader import CATEGORIES, read_text
from moderation.lexicon import Candidate
from moderation.normalize import NormalizedText, normalize

__all__ = [
    "Quoted",
    "Reading",
    "Voice",
    "citations",
    "counterfactual",
    "director_support",
    "game_pledge",
    "may_cite",
    "read",
]


class Voice(enum.Enum):
    """Whose words a quoted stretch holds."""

    RULES = "rules"  # the rules, quoted or paraphrased, a prohibition, a question to the director
    PLAYER = "player"  # another post: quotation marks, [quote], 引用…：, a replied-to name
    REPORTED = "reported"  # reported speech or act: 他说…, 3号发毒誓…, 他骂我…
    HYPOTHETICAL = "hypothetical"  # the condition of 如果/假如/要是…的话


#: Voices that belong to the QUOTED_RULES layer; the others to QUOTED_PLAYERS.
RULE_VOICES = frozenset({Voice.RULES})


@dataclass(frozen=True)
class Quoted:
    """A stretch of the original text that is not the poster's own words.

    ``categories``: what it quotes (another's words quote only 贴脸: insult, oath, outburst;
    see ``voices`` in ``lexicons/speaker.yaml``). ``source``: where the quoting starts, the
    speaker included (3号 in 3号昨天发誓说…), which a citation's span shows the director.
    """

    start: int
    end: int
    voice: Voice
    categories: frozenset[str]
    source: int
    act: bool = False  # reported speech whose verb is an oath or outburst (发誓, 破防), not 说

    def covers(self, category: str, start: int, end: int) -> bool:
        """Whether a hit of ``category`` at ``start..end`` lies inside this quote."""
        return self.start <= start and end <= self.end and category in self.categories


@dataclass(frozen=True)
class Reading:
    """A post and the stretches of it that quote someone or something else."""

    text: str
    quoted: tuple[Quoted, ...]
    clean: str = ""  # the post's clean view (for the cues of M72 2(8))

    def quotes(self, category: str, start: int, end: int, voices: Iterable[Voice]) -> bool:
        """Whether ``start..end`` (original offsets) is quoted by one of ``voices``."""
        wanted = frozenset(voices)
        return any(q.voice in wanted and q.covers(category, start, end) for q in self.quoted)

    def own_text(self) -> str:
        """The post with every quoted stretch blanked (same length): the poster's own words."""
        chars = list(self.text)
        for q in self.quoted:
            for i in range(q.start, q.end):
                chars[i] = " "
        return "".join(chars)


# -- the cues ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cues:
    marks: dict[str, str]
    opening: re.Pattern[str]
    max_quote: int
    bbcode_quote: re.Pattern[str]
    quote_line: re.Pattern[str]
    reply_header: re.Pattern[str]
    own_quote_before: re.Pattern[str]
    mention_before: re.Pattern[str]
    mention_after: re.Pattern[str]
    addressed_quote_before: re.Pattern[str]
    rules_cue: re.Pattern[str]
    rules_after: re.Pattern[str]
    rules_article_stop: re.Pattern[str]
    mention_refused: re.Pattern[str]
    voices: dict[Voice, frozenset[str]]
    prohibition: re.Pattern[str]
    prohibition_quotes: frozenset[str]
    prohibition_speech: re.Pattern[str]
    prohibition_talk: re.Pattern[str]
    prohibition_talk_quotes: frozenset[str]
    max_prohibited_topic: int
    director_question: re.Pattern[str]
    director_address: re.Pattern[str]
    reported: re.Pattern[str]
    reported_named: re.Pattern[str]
    not_a_name: re.Pattern[str]
    addressee_before: re.Pattern[str]
    hypothetical: re.Pattern[str]
    first_person: re.Pattern[str]
    judgement: re.Pattern[str]
    judgement_unless: re.Pattern[str]
    cite_hint: re.Pattern[str]
    asked_rules: re.Pattern[str]
    director_ask: re.Pattern[str]
    rules_topic: re.Pattern[str]
    max_director_ask: int
    rules_tag: re.Pattern[str]
    judged_words: re.Pattern[str]
    abstain: re.Pattern[str]
    term_question: re.Pattern[str]
    term_question_quotes: frozenset[str]
    definition: re.Pattern[str]
    topic_named: re.Pattern[str]
    word_explained: re.Pattern[str]
    rule_named: re.Pattern[str]
    dismissed: re.Pattern[str]
    complained_talk: re.Pattern[str]
    story_cue: re.Pattern[str]
    counterfactual: re.Pattern[str]
    counterfactual_reasoning: re.Pattern[str]
    counterfactual_unless: re.Pattern[str]
    game_pledge: re.Pattern[str]
    game_pledge_unless: re.Pattern[str]
    director_line: re.Pattern[str]
    director_post: re.Pattern[str]
    director_support: re.Pattern[str]
    director_support_unless: re.Pattern[str]

    cue_filter: _CueFilter  # which cue regexes can match a post


def _rx(pattern: str) -> re.Pattern[str]:
    # verbose: the YAML folds long alternations over several lines
    return re.compile(pattern, re.VERBOSE)


class _CueFilter:
    """Which cue regexes can match a text at all, from the literals every match holds.

    Most posts hold none of a cue's required literals (规则, 如果, 算不算, 说…), so its regex is
    not run on them; one Aho-Corasick scan over all cues' literals tells which can. A regex whose
    literals cannot be named always runs. Same findings either way.
    """

    def __init__(self, sources: dict[str, str]) -> None:
        import ahocorasick

        from moderation.patterns import required_literals

        owners: dict[str, set[str]] = {}
        always: set[str] = set()
        for name, regex in sources.items():
            literals = required_literals("(?x)" + regex)
            if not literals:
                always.add(name)
                continue
            for literal in literals:
                owners.setdefault(literal, set()).add(name)
        auto = ahocorasick.Automaton()
        for literal, names in owners.items():
            auto.add_word(literal, frozenset(names))
        auto.make_automaton()
        self._auto = auto
        self._always = frozenset(always)

    def present(self, text: str) -> set[str]:
        """Names of the cues that may match ``text``."""
        found = set(self._always)
        for _, names in self._auto.iter(text):
            found |= names
        return found


#: The cues of questions about the rules, judged words, abstentions and the director's story.
_MORE_CUES = (
    "asked_rules",
    "director_ask",
    "rules_tag",
    "judged_words",
    "abstain",
    "term_question",
    "definition",
    "topic_named",
    "word_explained",
    "rule_named",
    "dismissed",
    "complained_talk",
    "story_cue",
    "counterfactual",
    "counterfactual_reasoning",
    "counterfactual_unless",
    "game_pledge",
    "game_pledge_unless",
    "director_support",
    "director_support_unless",
)


@cache
def _cues() -> _Cues:
    data: dict[str, Any] = yaml.safe_load(read_text("speaker.yaml"))
    for name in ("definition", "rule_named"):  # one list of rule words for both
        data[name] = data[name].replace("{rule_words}", data["rule_words"])
    between = data["reported_between"]
    verb = data["reported_verb"]
    reported = _rx(f"(?P<subject>{data['reported_subject']}){between}(?P<verb>{verb})")
    named = _rx(
        r"(?:^|(?<=[,，。！？!?；;:：\s]))"
        f"(?P<subject>{data['reported_name']}){between}(?P<verb>{data['reported_name_verb']})"
    )
    hypothetical = _rx(
        f"(?P<open>{data['hypothetical_open']})"
        f"(?P<cond>(?:(?!{data['hypothetical_close']}).){{1,{int(data['max_hypothetical'])}}})"
    )
    cue_filter = _CueFilter(
        {
            **{
                name: data[name]
                for name in (
                    "quote_line",
                    "reply_header",
                    "rules_cue",
                    "rules_after",
                    "mention_refused",
                    "prohibition",
                    "director_question",
                    "hypothetical_open",
                    *_MORE_CUES,
                )
            },
            # reported speech: whatever the subject, the verb must be there (说, 骂, 发誓…)
            "reported": data["reported_verb"],
            "reported_named": data["reported_name_verb"],
        }
    )
    cues = _Cues(
        marks=dict(data["marks"]),
        opening=re.compile("[" + re.escape("".join(data["marks"])) + "]"),
        max_quote=int(data["max_quote"]),
        bbcode_quote=re.compile(data["bbcode_quote"]),
        quote_line=re.compile(data["quote_line"]),
        reply_header=re.compile(data["reply_header"]),
        own_quote_before=_rx(data["own_quote_before"]),
        mention_before=_rx(data["mention_before"]),
        mention_after=_rx(data["mention_after"]),
        addressed_quote_before=_rx(data["addressed_quote_before"]),
        rules_cue=_rx(data["rules_cue"]),
        rules_after=_rx(data["rules_after"]),
        rules_article_stop=_rx(data["rules_article_stop"]),
        mention_refused=_rx(data["mention_refused"]),
        voices={Voice(k): frozenset(v) for k, v in data["voices"].items()},
        prohibition=_rx(data["prohibition"]),
        prohibition_quotes=frozenset(data["prohibition_quotes"]),
        prohibition_speech=_rx(data["prohibition_speech"]),
        prohibition_talk=_rx(data["prohibition_talk"]),
        prohibition_talk_quotes=frozenset(data["prohibition_talk_quotes"]),
        max_prohibited_topic=int(data["max_prohibited_topic"]),
        director_line=re.compile(data["director_line"]),
        director_post=re.compile(data["director_post"]),
        term_question_quotes=frozenset(data["term_question_quotes"]),
        director_question=_rx(data["director_question"]),
        director_address=_rx(data["director_address"]),
        reported=reported,
        reported_named=named,
        not_a_name=_rx(data["not_a_name"]),
        addressee_before=_rx(data["addressee_before"]),
        hypothetical=hypothetical,
        first_person=_rx(data["first_person"]),
        judgement=_rx(data["judgement"]),
        judgement_unless=_rx(data["judgement_unless"]),
        cite_hint=_rx(data["cite_hint"]),
        rules_topic=_rx(data["rules_topic"]),
        max_director_ask=int(data["max_director_ask"]),
        **{name: _rx(data[name]) for name in _MORE_CUES},
        cue_filter=cue_filter,
    )
    return cues


def _run(
    pattern: re.Pattern[str], name: str, text: str, present: set[str]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, or nothing when the cue filter says it cannot match."""
    return pattern.finditer(text) if name in present else iter(())


_EVERY = frozenset(CATEGORIES)
#: Reporting verbs that report words only; any other reported verb is an act of 贴脸 (发誓, 破防).
_SPEECH = frozenset(
    {"说", "讲", "称", "喊", "吼", "表示", "声称", "宣称", "扬言", "放话", "承认", "强调"}
)
_CLAUSE_END = re.compile(r"[,，。！？!?；;\n]")
_SENTENCE_END = re.compile(r"[。！？!?；;\n]")
_LINE_END = re.compile(r"\n")
#: Marks after which a clause's topic starts: trailing-off dots, a reply header's colon
_TRAILING = frozenset(".…~～ :：")


def _clause_end(text: str, pos: int, pattern: re.Pattern[str] = _CLAUSE_END) -> int:
    m = pattern.search(text, pos)
    return m.start() if m else len(text)


#: A line of quoted text under a quote header: ``> 我发誓…`` (the mark forums copy a quote with)
_QUOTED_LINE = re.compile(r"[ \t]*[>＞]")


def _quoted_lines_end(text: str, pos: int) -> int:
    """Where the quote opened by a header ending at ``pos`` (引用 45楼：) ends.

    The rest of the header's line is quoted; when that is empty, the quote is on the lines below:
    every following line marked ``>`` or ``＞``, or, with no such mark, the next line alone (the
    poster's own words start on the line after it).
    """
    end = _clause_end(text, pos, _LINE_END)
    if text[pos:end].strip():
        return end
    while end < len(text) and not text[end + 1 : _clause_end(text, end + 1, _LINE_END)].strip():
        end = _clause_end(text, end + 1, _LINE_END)  # blank lines between header and quote
    marked = end
    while marked < len(text) and _QUOTED_LINE.match(text, marked + 1):
        marked = _clause_end(text, marked + 1, _LINE_END)
    if marked > end:
        return marked
    return _clause_end(text, end + 1, _LINE_END) if end < len(text) else end


def _clause_start(text: str, pos: int) -> int:
    for i in range(pos - 1, -1, -1):
        if text[i] in ",，。！？!?；;\n":
            return i + 1
    return 0


def _sentence_start(text: str, pos: int) -> int:
    for i in range(pos - 1, -1, -1):
        if text[i] in "。！？!?；;\n":
            return i + 1
    return 0


# -- reading -------------------------------------------------------------------------------------


def read(text: str | NormalizedText) -> Reading:
    """Read a post into the stretches it quotes (see the module docstring).

    The cues are read on the post's ``clean`` view (traditional script, full width and case
    folded, punctuation kept), so 規則帖寫了 quotes as 规则帖写了 does; spans are original offsets.

    >>> [q.voice.value for q in read("3号昨天赌咒发誓说自己是预言家，所以我信他").quoted]
    ['reported']
    >>> read("我发誓我是好人").quoted
    ()
    """
    nt = text if isinstance(text, NormalizedText) else normalize(text)
    original = nt.original
    view = nt.clean_view
    clean = view.text
    cues = _cues()
    present = cues.cue_filter.present(clean)
    out: list[Quoted] = []

    def add(
        a: int,
        b: int,
        voice: Voice,
        categories: frozenset[str] | None = None,
        source: int = -1,
        act: bool = False,
    ) -> None:
        if b > a:
            start, end = view.span(a, b)
            if end > start:
                cats = cues.voices[voice] if categories is None else categories
                origin = view.span(source, source + 1)[0] if source >= 0 else start
                out.append(Quoted(start, end, voice, cats, origin, act))

    for m in cues.bbcode_quote.finditer(original) if "[" in original else ():
        if m.end(1) == m.start(1):
            continue  # [quote][/quote]: nothing quoted
        block = Quoted(m.start(1), m.end(1), Voice.PLAYER, cues.voices[Voice.PLAYER], m.start(1))
        out.append(block)
    blocks = [(q.start, q.end) for q in out]
    for m in _run(cues.quote_line, "quote_line", clean, present):
        if any(a <= view.span(m.start(), m.start() + 1)[0] < b for a, b in blocks):
            continue  # 原帖由 X 发表： inside a [quote] block: the block already quotes it
        add(m.end(), _quoted_lines_end(clean, m.end()), Voice.PLAYER)
    if "【" in original and cues.director_post.match(original):
        out.append(Quoted(0, len(original), Voice.RULES, cues.voices[Voice.RULES], 0))
    # (on the original: the clean view drops bracketed tags such as [M72])
    for m in cues.director_line.finditer(original) if "[" in original else ():
        line_end = original.find("\n", m.end())
        end = len(original) if line_end < 0 else line_end
        out.append(Quoted(m.start(), end, Voice.RULES, cues.voices[Voice.RULES], m.start()))
    for m in _run(cues.reply_header, "reply_header", clean, present):
        add(m.start(1), m.end(1), Voice.PLAYER, _EVERY)  # a name is no word of the poster's
    _marks(clean, cues, add)
    for m in _run(cues.rules_cue, "rules_cue", clean, present):
        start = m.end()
        colon = clean[m.end() - 1 : m.end()] in (":", "：")
        while start < len(clean) and clean[start] in ",，:： ":
            colon = colon or clean[start] in ":："
            start += 1  # 按规则，…: the rule is the next clause
        end = _clause_end(clean, start)
        if colon:  # 规则写了：…, the article itself: its clauses to the end of the sentence
            end = _article_end(clean, end, cues)
        add(start, end, Voice.RULES)
        if m.group("section"):  # 规则第4条马甲那块写了: the section's name is the rule's too
            add(m.start("section"), m.end("section"), Voice.RULES)
    for m in [
        *_run(cues.rules_after, "rules_after", clean, present),
        *_run(cues.mention_refused, "mention_refused", clean, present),
    ]:
        end = m.start()
        while end > 0 and clean[end - 1] in ",，:：—-～~ ":
            end -= 1  # 发誓没用的，规则禁了 / 滚一边去这种话我不说: the clause before the cue
        start = _clause_start(clean, end)
        if start < end:
            add(start, end, Voice.RULES)
        add(m.start(), m.end(), Voice.RULES)  # …是赛后的事: the cue's own words are the rule's
    for m in _run(cues.prohibition, "prohibition", clean, present):
        end = _clause_end(clean, m.end())
        quotes = cues.prohibition_quotes
        if cues.prohibition_speech.match(clean, m.end()):
            quotes = quotes | {"insult"}
        start = m.end()
        if cues.prohibition_talk.match(clean, m.end()):
            quotes = quotes | cues.prohibition_talk_quotes
            opening = _clause_start(clean, m.start())
            while opening < m.start() and any(ch in _TRAILING for ch in clean[opening : m.start()]):
                opening += 1  # 麻理……替补不能…: the topic starts after the trailing-off dots
            topic = clean[opening : m.start()]
            if (
                _short_topics(topic, cues.max_prohibited_topic)
                and not cues.first_person.search(topic)
                and cues.rules_cue.search(topic) is None  # 规则帖写了不许…: the cue, no topic
            ):
                add(opening, m.start(), Voice.RULES, cues.prohibition_talk_quotes)
        add(start, end, Voice.RULES, quotes)
    for m in _run(cues.director_question, "director_question", clean, present):
        _director_question(clean, m.start(), m.end(), cues, add)
    _about_rules(clean, cues, add, present)
    _reported(clean, cues, add, present)
    for m in _run(cues.story_cue, "story_cue", clean, present):
        add(m.end(), _clause_end(clean, m.end(), _SENTENCE_END), Voice.REPORTED, source=m.start())
    for m in _run(cues.hypothetical, "hypothetical_open", clean, present):
        if cues.first_person.search(m.group("cond")) is None and not _poster_before(
            clean, m.start(), cues
        ):  # 我要是狼…: the poster's own condition, as 要是我是狼…
            add(m.start("cond"), m.end("cond"), Voice.HYPOTHETICAL)
    quoted = tuple(sorted(set(out), key=lambda q: (q.start, -q.end)))
    return Reading(original, quoted, clean)


_LIST_SEPARATOR = re.compile(r"[、/]|和|跟|与|及|或")
_LIST_CLOSE = re.compile(r"(?:这几样|这几个|这些|那些|之类的?|什么的|啥的|等等|等)?[都也还全]*$")


def _short_topics(topic: str, longest: int) -> bool:
    """A prohibited topic short enough to be a name: one item, or a list of items (马甲、替补都)."""
    items = _LIST_SEPARATOR.split(_LIST_CLOSE.sub("", topic, count=1))
    return len(items) <= 6 and max(map(len, items)) <= longest


def _article_end(clean: str, end: int, cues: _Cues) -> int:
    """Where an article quoted after a colon ends: at the sentence's end, or before a clause in
    which the poster speaks again (规则写了：不许发誓，我偏要发誓: the second clause is theirs).
    """
    while end < len(clean) and clean[end] in ",，":
        if cues.rules_article_stop.match(clean, end + 1):
            break
        end = _clause_end(clean, end + 1)
    return end


def _about_rules(clean: str, cues: _Cues, add: Any, present: set[str]) -> None:
    """Questions about the rules (asked, relayed or labelled), judged words and abstentions."""
    for m in _run(cues.asked_rules, "asked_rules", clean, present):
        end = _clause_end(clean, m.end())
        opened = next((ch for ch in m.group() if ch in cues.marks), None)
        if opened is not None:
            found = clean.find(cues.marks[opened], m.end())
            if found >= 0:
                end = max(end, found + 1)
        add(m.start(), end, Voice.RULES)
    for m in _run(cues.director_ask, "director_ask", clean, present):
        limit = min(len(clean), m.end() + cues.max_director_ask)
        ends = [i for i in (clean.find(q, m.end(), limit) for q in "？?") if i >= 0]
        if ends and cues.rules_topic.search(clean, m.end(), min(ends)):
            add(m.end(), min(ends), Voice.RULES)
    for m in _run(cues.rules_tag, "rules_tag", clean, present):
        end = _sentence_start(clean, m.start())  # the sentence before the label's own
        if end > 0:
            add(_sentence_start(clean, end - 1), end, Voice.RULES)
    for m in _run(cues.judged_words, "judged_words", clean, present):
        add(m.end(), _clause_end(clean, m.end()), Voice.RULES)
    for m in _run(cues.abstain, "abstain", clean, present):
        add(m.start(), _clause_end(clean, m.end()), Voice.RULES)
    for m in _run(cues.term_question, "term_question", clean, present):
        add(m.start("term"), m.end("term"), Voice.RULES, cues.term_question_quotes)
    for m in _run(cues.definition, "definition", clean, present):
        add(m.start("term"), _clause_end(clean, m.end(), _SENTENCE_END), Voice.RULES)
    for name, cue in (
        ("topic_named", cues.topic_named),
        ("word_explained", cues.word_explained),
        ("rule_named", cues.rule_named),
    ):  # a word named, explained or naming its rule: the word itself is the rule's
        for m in _run(cue, name, clean, present):
            add(m.start("term"), m.end("term"), Voice.RULES)
    for m in _run(cues.dismissed, "dismissed", clean, present):
        add(m.start(), m.end(), Voice.RULES)
    for m in _run(cues.complained_talk, "complained_talk", clean, present):
        add(m.start("topic"), m.end("topic"), Voice.RULES, cues.prohibition_talk_quotes)


def _poster_before(clean: str, pos: int, cues: _Cues) -> bool:
    """Whether the poster is the subject right before ``pos`` (我要是…, 俺如果…, 我就算…)."""
    before = clean[max(0, pos - 4) : pos]
    m = re.search(r"(?:我|俺|咱|本人|老子)(?:这次|今天|真|就|也|都)?$", before)
    return m is not None and not (m.start() > 0 and before[m.start() - 1] in "跟和对给让")


def _marks(clean: str, cues: _Cues, add: Any) -> None:
    """Quotation-mark pairs; their content is another's unless the poster speaks it."""
    n = len(clean)
    pos = 0
    for m in cues.opening.finditer(clean):
        i = m.start()
        if i < pos:
            continue  # inside the quote just read
        close = cues.marks[clean[i]]
        j = clean.find(close, i + 1, min(n, i + 1 + cues.max_quote))
        if j < 0:
            continue
        before = clean[max(0, i - 12) : i]
        own = cues.own_quote_before.search(before) or cues.addressed_quote_before.search(before)
        if not own:
            rules = cues.rules_cue.search(clean[max(0, i - 16) : i])
            mention = (
                rules
                or cues.mention_before.search(before)
                or cues.mention_after.match(clean, j + 1, j + 9)
            )
            if mention:
                add(i + 1, j, Voice.RULES if rules else Voice.PLAYER)
        pos = j + 1


def _director_question(clean: str, a: int, b: int, cues: _Cues, add: Any) -> None:
    """The asked-about part of a question to the director: its clause, after any address, to ？.

    Only the clause that asks (导演，这傻逼又在骂人，算不算违规？ asks about 算不算违规: the insult
    before it is the poster's own).
    """
    start = _sentence_start(clean, a)
    for i in range(a - 1, start - 1, -1):
        if clean[i] in ",，":
            start = i + 1
            break
    end = _clause_end(clean, b, _SENTENCE_END)
    if end < len(clean) and clean[end] not in "？?" and "吗" not in clean[a:end]:
        return  # not a question (…能不能赢看今天)
    address = None
    for m in cues.director_address.finditer(clean, start, a):
        address = m
    if address is not None:
        start = address.end()
    add(start, end, Voice.RULES)


def _reported(clean: str, cues: _Cues, add: Any, present: set[str]) -> None:
    """Reported speech or acts of a third person: subject to the end of its clause."""
    for pattern, named, name in (
        (cues.reported, False, "reported"),
        (cues.reported_named, True, "reported_named"),
    ):
        for m in _run(pattern, name, clean, present):
            a = m.start("subject")
            subject = m.group("subject")
            if named and cues.not_a_name.search(subject):
                continue
            if cues.addressee_before.search(clean[max(0, a - 2) : a]):
                continue  # 我跟他说…: 他 is the one spoken to
            if a > 0 and clean[a - 1] in "我俺咱":
                continue  # 我说 / 我们说 read as a subject's tail
            after = m.end("verb")
            act = m.group("verb") not in _SPEECH
            b = m.end("subject")  # the subject is the poster's word, the act reported is not
            nxt = clean[after : after + 1]
            if nxt in ("的", "得"):  # 他说的「…」, 他说的话: the quote, not the comment on it
                after += 1
                nxt = clean[after : after + 1]
                if nxt not in cues.marks:
                    add(b, after, Voice.REPORTED, source=a, act=act)
                    continue
            if nxt in (":", "：") and clean[after + 1 : after + 2] in cues.marks:
                after += 1  # 他说：“…”: as 他说“…”
                nxt = clean[after]
            if nxt in cues.marks:  # 他说「…」: to the closing mark
                found = clean.find(cues.marks[nxt], after + 1, after + 1 + cues.max_quote)
                end = found + 1 if found >= 0 else _clause_end(clean, after)
            elif nxt in (":", "："):  # 他说：…, to the end of the sentence
                end = _clause_end(clean, after, _SENTENCE_END)
            else:
                end = _clause_end(clean, after)
            add(b, end, Voice.REPORTED, source=a, act=act)


def counterfactual(nt: NormalizedText) -> bool:
    """Whether the post argues from a counterfactual of its own role and wagers nothing.

    The seeds' wager frame (我要是狼…) with a game move as its consequence, and no penalty, curse
    or oath word anywhere in the post (``counterfactual*`` in ``lexicons/speaker.yaml``).

    >>> counterfactual(normalize("我要是狼，昨天就不会把票投给我的队友了"))
    True
    >>> counterfactual(normalize("我要是狼，我就退圈"))
    False
    >>> counterfactual(normalize("我要是狼早就天打雷劈了"))
    False
    """
    clean = nt.clean
    if "狼" not in clean and "悍跳" not in clean and "假" not in clean:
        return False  # most posts: the frame's role word is not there
    cues = _cues()
    found = False
    for m in cues.counterfactual.finditer(clean):
        end = _clause_end(clean, m.end(), _SENTENCE_END)
        if cues.counterfactual_reasoning.search(clean, m.end(), end):
            found = True
            break
    # the wager words read through noise (担/保) as the patterns read them
    return found and cues.counterfactual_unless.search(nt.folded) is None


def game_pledge(nt: NormalizedText) -> bool:
    """Whether the post pledges a game asset (its role, check or seat) and nothing forbidden.

    >>> game_pledge(normalize("我拿我的预言家身份担保这个查杀，凛就是狼"))
    True
    >>> game_pledge(normalize("我拿我的人格担保他是狼"))
    False
    >>> game_pledge(normalize("我拿身份担保，骗人我天打雷劈"))
    False
    """
    clean = nt.clean
    if "保" not in clean:
        return False  # most posts: no pledge verb at all
    cues = _cues()
    # the forbidden pledges read through noise (人/格) as the patterns read them
    return _holds(cues.game_pledge, clean, cues.game_pledge_unless, nt.folded)


def director_support(nt: NormalizedText) -> bool:
    """Whether the post defers to the director's decision and opposes nothing.

    >>> director_support(normalize("楼上，导演给的规则解释就是准的，反对要吃牌。"))
    True
    >>> director_support(normalize("导演的解释就是准的？我不认"))
    False
    """
    clean = nt.clean
    if "导演" not in clean and "法官" not in clean and "主持" not in clean and "dm" not in clean:
        return False
    cues = _cues()
    return _holds(cues.director_support, clean, cues.director_support_unless, clean)


def _holds(cue: re.Pattern[str], text: str, unless: re.Pattern[str], unless_text: str) -> bool:
    """Whether ``cue`` is found in ``text`` and ``unless`` nowhere in ``unless_text``."""
    return cue.search(text) is not None and unless.search(unless_text) is None


# -- M72 2(8) ------------------------------------------------------------------------------------

#: What a 贴脸 is, for M72 2(8) (以“贴脸”作为讨论依据): the categories a citation may quote
TIELIAN = frozenset({"oath", "emotional", "insult"})
_CITED_VOICES = frozenset({Voice.PLAYER, Voice.REPORTED})


def may_cite(nt: NormalizedText) -> bool:
    """Whether a post without hits could still cite a reported 贴脸 (``cite_hint``)."""
    return _cues().cite_hint.search(nt.folded) is not None


def citations(reading: Reading, candidates: Sequence[Candidate]) -> list[Candidate]:
    """M72 2(8) candidates: another's quoted 贴脸 given as the reason for a judgement.

    A quote of another player (quotation marks, [quote], reported speech) that holds an oath,
    curse, insult or outburst — a lexicon or pattern hit inside it, or a reported oath verb
    (他发毒誓…) — is a citation when the poster's own words in the same sentence or the next draw
    a judgement from it (所以我信他, 铁狼, 你还踩). Not when the post talks about the rule or
    refuses the oath as evidence (``judgement_unless``). One ``meta``/``cite`` candidate spans
    each cited quote.

    >>> r = read("3号昨天赌咒发誓说自己是预言家，所以我信他")
    >>> [(c.category, c.article, r.text[c.start:c.end]) for c in citations(r, [])]
    [('meta', 'cite', '3号昨天赌咒发誓说自己是预言家')]
    """
    cues = _cues()
    out: list[Candidate] = []
    own: str | None = None
    for q in reading.quoted:
        if q.voice not in _CITED_VOICES:
            continue
        tielian = q.act or any(
            c.category in TIELIAN and q.start <= c.start and c.end <= q.end for c in candidates
        )
        if not tielian:
            continue
        if own is None:
            clean = reading.clean or normalize(reading.text).clean
            if cues.judgement_unless.search(clean):
                return []  # the rule discussed (贴脸…), or the oath refused as evidence
            own = reading.own_text()
        if _judged_near(own, q.start, q.end, cues):
            out.append(Candidate("meta", "cite", q.source, q.end, "cite-quoted", "pattern", 0.75))
    return out


def _judged_near(own: str, start: int, end: int, cues: _Cues) -> bool:
    """A judgement in the poster's own words of the quote's sentence or the next one."""
    a = _sentence_start(own, start)
    b = _clause_end(own, end, _SENTENCE_END)
    if b < len(own):
        b = _clause_end(own, b + 1, _SENTENCE_END)
    window = normalize(own[a:b]).clean
    return cues.judgement.search(window) is not None
