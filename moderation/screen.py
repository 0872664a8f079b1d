"""Screen posts: findings that say what, where, why and how sure.

A :class:`Screener` is bound to one ruleset (``m08``, ``m72``, ``wa004``).  For each post it runs
the lexicon matcher, the sentence patterns, the font and water rules and, when a trained model
is available, the classifier; keeps only the categories that ruleset forbids; cites the ruleset's
own article; and merges overlapping findings of one category into one.

>>> m08 = Screener("m08", classifier=None)
>>> [(f.category, f.article.code, f.match, f.via) for f in m08.screen("你个ＳＢ")]
[('insult', '1(1)', 'ＳＢ', 'initials')]
>>> m08.screen("昨晚被刀的是5号，今天查杀3号，金水是7号")
[]
>>> m72 = Screener("m72", classifier=None)
>>> [(f.category, f.article.code) for f in m72.screen("我拿人格担保我是好人")]
[('oath', '2(6)')]
"""

from __future__ import annotations

import itertools
import logging
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

import yaml

from lexicons.loader import (
    CATEGORIES,
    RULE_CATEGORIES,
    ArticleText,
    RulesetArticles,
    SeverityHint,
    known_rulesets,
    load_articles,
    read_text,
)
from moderation.implementation import reference
from moderation.layers import Layer
from moderation.lexicon import Candidate, default_matcher, lexicon_hits, remember_hits
from moderation.normalize import NormalizedText, normalize
from moderation.patterns import default_patterns
from moderation.rules import font_candidates, water_candidate
from moderation.senses import apply_senses
from moderation.speaker import (
    RULE_VOICES,
    TIELIAN,
    Voice,
    citations,
    counterfactual,
    director_support,
    game_pledge,
    may_cite,
    read,
)

if TYPE_CHECKING:
    from moderation.classifier import Evidence, RuleVeto
    from moderation.features import HitSpan
    from moderation.speaker import Reading

__all__ = [
    "ALL_CATEGORIES",
    "AUTO",
    "MAX_POST_BYTES",
    "VIAS",
    "Article",
    "Finding",
    "Layer",
    "NoArticlesError",
    "PostTooLargeError",
    "ScreenResult",
    "Screener",
    "Severity",
    "display_names",
    "load_default_classifier",
    "screen",
    "screen_many",
]

logger = logging.getLogger(__name__)

#: Posts above this many UTF-8 bytes are refused with :class:`PostTooLargeError` (64 KiB).
MAX_POST_BYTES: Final = 64 * 1024

ALL_CATEGORIES: tuple[str, ...] = CATEGORIES + RULE_CATEGORIES
# Repeated on purpose: how a finding was read, not a corpus post's disguise
# (moderation.training.EVASIONS); the names overlap, the sets differ.
VIAS: tuple[str, ...] = (
    "exact",
    "emoji",
    "traditional",
    "width",
    "noise",
    "repeat",
    "homophone",
    "initials",
    "shape",
    "split",
    "pattern",
    "classifier",
)

Severity = SeverityHint


class PostTooLargeError(ValueError):
    """A post is larger than :data:`MAX_POST_BYTES`; nothing was screened."""

    def __init__(self, size: int, limit: int = MAX_POST_BYTES, index: int | None = None) -> None:
        where = f"第{index + 1}条帖子" if index is not None else "帖子"
        super().__init__(f"{where}过长：{size} 字节，超过上限 {limit} 字节（64 KiB），未做检查")
        self.size = size
        self.limit = limit
        self.index = index


class NoArticlesError(KeyError):
    """No articles file (``lexicons/articles/<id>.yaml``) exists for the requested ruleset id.

    The screener's own error: an unknown *game* ruleset is ``game_rules.UnknownRulesetError``
    (the two packages know nothing of each other; the service checks the game's ruleset first).
    """

    def __init__(self, ruleset: str) -> None:
        super().__init__(f"未知规则集 {ruleset!r}；可用：{', '.join(known_rulesets())}")
        self.ruleset = ruleset

    def __str__(self) -> str:
        return str(self.args[0])


#: The clause a finding cites: the screener's data record itself (ruleset, code, seed text).
Article = ArticleText


@dataclass(frozen=True)
class Finding:
    """One violation found in a post.

    ``start``/``end`` index the ORIGINAL text (``text[start:end] == match``); ``term`` is the
    canonical lexicon term or the pattern id; ``via`` says how it matched (see :data:`VIAS`);
    ``severity`` is the seed's hint for the card. A ``via="classifier"`` finding lists in
    ``evidence`` the spans whose features drove the model's score (strongest first; its own
    span is the strongest, or the rule finding of its category it agrees with) and reports the
    model's calibrated confidence; with no evidence its span is empty and it never becomes a
    card suggestion.
    """

    category: str
    article: Article
    start: int
    end: int
    match: str
    term: str
    via: str
    confidence: float
    severity: Severity = field(default_factory=lambda: Severity((), ""))
    evidence: tuple[Evidence, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``bansha screen --json`` (plus term, article text, severity)."""
        return {
            "category": self.category,
            "article": self.article.code,
            "start": self.start,
            "end": self.end,
            "match": self.match,
            "via": self.via,
            "confidence": self.confidence,
            "term": self.term,
            "article_text": self.article.text,
            "severity": list(self.severity.cards),
            "evidence": [e.to_dict() for e in self.evidence],
        }


@dataclass(frozen=True)
class ScreenResult:
    """One post's findings and whether it is a 纯水帖 (:func:`moderation.rules.is_water`).

    ``water`` is reported under every ruleset (the lurking counts need it); a ``water`` finding
    appears in ``findings`` only where the ruleset tracks it (wa004).
    """

    findings: list[Finding]
    water: bool


class Classifier(Protocol):
    """What the screener needs from :class:`moderation.classifier.PostClassifier`."""

    @property
    def thresholds(self) -> Mapping[str, float]: ...

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]: ...


class _Auto:
    """Sentinel: load the default model if there is one."""

    def __repr__(self) -> str:
        return "AUTO"


#: Pass as ``classifier=`` to load the model from ``$BANSHA_MODEL`` or ``var/model.skops``.
AUTO: Final = _Auto()


def _model_path() -> Path:
    env = os.environ.get("BANSHA_MODEL")
    return Path(env) if env else Path("var/model.skops")


@cache
def _load_classifier_cached(path: str, mtime: float) -> Classifier | None:
    try:
        from moderation.classifier import PostClassifier
    except ImportError:
        return None
    try:
        model: Classifier = PostClassifier.load(path)
    except Exception as exc:  # a broken model must not stop screening by rules
        warnings.warn(f"无法加载模型 {path}：{exc}；仅用词表与句式检查", stacklevel=3)
        return None
    return model


def load_default_classifier() -> Classifier | None:
    """The trained model at ``$BANSHA_MODEL`` or ``var/model.skops``, or None without one.

    Never raises: a missing classifier module or model file means rules-only screening, and an
    unreadable model file is reported with a warning.
    """
    path = _model_path()
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    return _load_classifier_cached(str(path), mtime)


@cache
def display_names() -> Mapping[str, Mapping[str, str]]:
    """Chinese display names of categories, via kinds and cards (``lexicons/categories.yaml``)."""
    data: Mapping[str, Mapping[str, str]] = yaml.safe_load(read_text("categories.yaml"))
    return data


def _post_size(text: str) -> int:
    if len(text) * 4 <= MAX_POST_BYTES:
        return len(text)  # cannot exceed the limit whatever the characters are
    return len(text.encode("utf-8", "surrogatepass"))


def _check_post(text: object, index: int | None) -> None:
    """Refuse a non-string or a post above :data:`MAX_POST_BYTES` (``index``: its batch place)."""
    if not isinstance(text, str):
        raise TypeError(f"post #{(index or 0) + 1} is {type(text).__name__}, not str")
    size = _post_size(text)
    if size > MAX_POST_BYTES:
        raise PostTooLargeError(size, index=index)


class Screener:
    """Screens posts under one ruleset.

    ``classifier``: :data:`AUTO` (default) loads the trained model if present, ``None`` screens
    with lexicons and patterns only, or pass any object with ``predict`` and ``thresholds``.
    ``min_confidence``: findings below it are dropped (default: keep all). ``layers``: the reading
    layers switched on (:class:`moderation.layers.Layer`; all by default).
    """

    def __init__(
        self,
        ruleset: str = "m08",
        classifier: Classifier | _Auto | None = AUTO,
        *,
        min_confidence: float = 0.0,
        layers: Layer = Layer.ALL,
    ) -> None:
        if ruleset not in known_rulesets():
            raise NoArticlesError(ruleset)
        self.ruleset = ruleset
        self.articles: RulesetArticles = load_articles(ruleset)
        self.classifier: Classifier | None = (
            load_default_classifier() if isinstance(classifier, _Auto) else classifier
        )
        self.min_confidence = min_confidence
        self.layers = layers
        # the layers' questions answered once: a Flag operation costs a microsecond or two, and
        # every post with a candidate asked four of them
        self._cites = bool(layers & Layer.CITATIONS)
        self._counterfactuals = bool(layers & Layer.QUOTED_PLAYERS)
        self._game_senses = bool(layers & Layer.GAME_SENSES)
        self._reads_voices = bool(
            layers & (Layer.QUOTED_RULES | Layer.QUOTED_PLAYERS | Layer.CITATIONS)
        )
        self._quoting_voices = frozenset(
            v
            for v in Voice
            if layers & (Layer.QUOTED_RULES if v in RULE_VOICES else Layer.QUOTED_PLAYERS)
        )
        # another's words (not the rules): what a classifier finding's evidence may lie in
        self._others_voices = self._quoting_voices - RULE_VOICES
        # the rules quoted or asked about: every category's evidence may lie in them
        self._rule_voices = self._quoting_voices & RULE_VOICES
        self._vetoes = bool(layers & Layer.MODEL_VETO)
        self._matcher = default_matcher()
        self._patterns = default_patterns()
        # (category, article key) -> the clause cited and its severity, or None when the ruleset
        # does not forbid the category; filled on first use, read for every finding
        self._cited: dict[tuple[str, str], tuple[Article, Severity] | None] = {}
        # who is speaking in the posts of the current call, as the reading layers read them: a
        # classifier finding asks again whose words its evidence is (by id; each entry holds the
        # post object itself, so an id cannot have been reused)
        self._readings: dict[int, tuple[NormalizedText, Reading]] = {}
        # the rule findings (category, start, end) of the current call's posts that hold a word
        # the model may not overrule (RuleVeto.firm), found before overlapping findings merged:
        # a merged finding keeps one member's term, and a firm member must keep it (by id, as
        # the readings; each entry holds the post object itself)
        self._firm: dict[int, tuple[NormalizedText, frozenset[tuple[str, int, int]]]] = {}

    @property
    def categories(self) -> tuple[str, ...]:
        """Categories this ruleset forbids (or, for ``water``, tracks)."""
        return tuple(c for c in ALL_CATEGORIES if c in self.articles.categories)

    def screen(self, text: str) -> list[Finding]:
        """Findings for one post, in text order.

        Raises :class:`PostTooLargeError` above :data:`MAX_POST_BYTES` and :class:`TypeError`
        for a non-string.
        """
        return self._screen_one(text)[0]

    def screen_many(self, texts: Sequence[str]) -> list[list[Finding]]:
        """Findings for each post; the classifier (if any) runs once over the whole batch (the
        trained model once per chunk of it: see :meth:`screen_posts`)."""
        return [r.findings for r in self.screen_posts(texts)]

    def screen_post(self, text: str) -> ScreenResult:
        """Findings for one post and whether it is a 纯水帖, from one normalisation.

        The water flag is :func:`moderation.rules.is_water` of the post whatever the ruleset
        (only wa004 reports water as a finding), so callers need not normalise the post again.

        >>> r = Screener("m08", classifier=None).screen_post("顶！！！")
        >>> r.findings, r.water
        ([], True)
        """
        findings, water = self._screen_one(text)
        return ScreenResult(findings, water)

    def screen_posts(self, texts: Sequence[str]) -> list[ScreenResult]:
        """:meth:`screen_post` for many posts; the classifier (if any) runs once over the batch,
        the trained model (``predict_prepared``) once per chunk of :data:`_CHUNK` posts or more.

        Every post is checked before any is screened: one post too large (its index is named)
        or not a string fails the whole batch.
        """
        for i, text in enumerate(texts):
            _check_post(text, i if len(texts) > 1 else None)
        if self._prepared is not None and len(texts) >= 2 * _CHUNK:
            # The trained model scores each post of a batch on its own (its rows are summed one
            # post at a time, in the same order whatever the batch), so a long batch is screened a
            # chunk at a time: the same findings, and far fewer live objects for every garbage
            # collection to walk (with 256 posts alive at once, collections took five times as
            # long per post: about 6% of a batch). No chunk holds a single post, which would take
            # the one-post path.
            bounds = [*range(0, len(texts) - _CHUNK, _CHUNK), len(texts)]
            return [
                r for a, b in itertools.pairwise(bounds) for r in self._screen_chunk(texts[a:b])
            ]
        return self._screen_chunk(texts)

    def _screen_chunk(self, texts: Sequence[str]) -> list[ScreenResult]:
        """:meth:`screen_posts` of posts already checked, the classifier run once over them."""
        self._readings, self._firm = {}, {}
        normalized = [normalize(t) for t in texts]
        hits: list[tuple[tuple[str, str], ...]] | None = [] if self._prepared is not None else None
        rules = [self._rule_findings(nt, hits) for nt in normalized]
        if self.classifier is not None and texts:
            probs = self._predict(texts, normalized, hits)
            if probs is not None:
                for nt, (found, _, explained, spans), p in zip(
                    normalized, rules, probs, strict=True
                ):
                    self._add_classifier_findings(nt, found, p, explained, spans)
        if self.min_confidence > 0:
            low = self.min_confidence
            return [ScreenResult([f for f in r if f.confidence >= low], w) for r, w, _, _ in rules]
        return [ScreenResult(found, water) for found, water, _, _ in rules]

    # -- internals ------------------------------------------------------------------------------

    def _screen_one(self, text: str) -> tuple[list[Finding], bool]:
        """Findings and water flag of one post (the single-post path of :meth:`screen_posts`)."""
        _check_post(text, None)
        self._readings, self._firm = {}, {}
        nt = normalize(text)
        hits: list[tuple[tuple[str, str], ...]] | None = [] if self._prepared is not None else None
        found, water, explained, spans = self._rule_findings(nt, hits)
        if self.classifier is not None:
            probs = self._predict([text], [nt], hits)
            if probs is not None:
                self._add_classifier_findings(nt, found, probs[0], explained, spans)
        if self.min_confidence > 0:
            found = [f for f in found if f.confidence >= self.min_confidence]
        return found, water

    @property
    def _veto(self) -> RuleVeto | None:
        """The model's rule veto when the ``MODEL_VETO`` layer is on (None: nothing overruled)."""
        if not self._vetoes or self.classifier is None:
            return None
        veto: RuleVeto | None = getattr(self.classifier, "rule_veto", None)
        return veto

    @property
    def _prepared(self) -> Any:
        """The classifier's ``predict_prepared`` (reuses normalisation and hits), if it has one."""
        return getattr(self.classifier, "predict_prepared", None)

    def _rule_findings(
        self, nt: NormalizedText, hits: list[tuple[tuple[str, str], ...]] | None
    ) -> tuple[list[Finding], bool, frozenset[str], list[HitSpan]]:
        """A post's rule findings, water flag, explained categories (see below) and hit spans.

        The hit spans are the lexicon and pattern hits in classifier categories with their
        places, as the matcher found them (what :func:`moderation.features.lexicon_hit_spans`
        would compute again), for the classifier's evidence.

        Its lexicon hits go to ``hits`` (or the memo) as the matcher found them: the classifier
        was trained on those features. Then the reading layers (``self.layers``) read the hits:
        game senses, kinship and cross-boundary syllables (:mod:`moderation.senses`), and who is
        speaking (:mod:`moderation.speaker`): a hit inside quoted material is not the poster's.
        A citation (article key ``cite``: another's 贴脸 given as a reason, M72 2(8)) quotes the
        oath, outburst or insult words inside it too. The categories of hits read away are
        returned as explained: the classifier, which reads the same words, adds no finding of
        such a category unless a rule finding of it remains.
        """
        cands = self._matcher.candidates(nt)
        cands += self._patterns.candidates(nt)
        if hits is not None:
            hits.append(lexicon_hits(cands))  # the classifier's lexicon features reuse them
        elif self.classifier is not None:
            remember_hits(nt.original, cands)  # a plain predict(texts) finds them there
        spans = [(c.category, c.via, c.start, c.end) for c in cands if c.category in CATEGORIES]
        explained: set[str] = set()
        if cands or (self._cites and may_cite(nt)):
            cands = self._read(nt, cands, explained)
        if self._counterfactuals and counterfactual(nt):
            explained.add("oath")  # 我要是狼昨天就不会…: an argument, no wager (speaker.py)
        if self._game_senses and game_pledge(nt):
            explained.add("oath")  # 我拿预言家身份担保这个查杀: a game asset, no forbidden pledge
        if self._game_senses and director_support(nt):
            explained.add("director")  # 判罚轻重导演说了算: deferring to the director, not opposing
        original = nt.original
        cands += font_candidates(original)
        water = water_candidate(nt)
        if water is not None:
            cands.append(water)
        elif not cands:
            return [], False, frozenset(explained), spans  # most posts: no candidate at all
        findings: list[Finding] = []
        quoting: list[Candidate] = [c for c in cands if c.article == _CITE]
        for c in cands:
            if (f := self._finding(original, c)) is not None:
                findings.append(f)
            elif self._unruled(c) and c.article != _CITE:
                quoting.append(c)
        if quoting:
            inside = [f for f in findings if _inside(f, quoting)]
            if inside:
                explained.update(f.category for f in inside)
                findings = [f for f in findings if f not in inside]
            explained.update(q.category for q in quoting if q.article != _CITE)
        merged = _merge(findings, original)
        veto = self._veto
        if veto is not None and len(merged) < len(findings):
            firm = [f for f in findings if f.term in veto.firm.get(f.category, ())]
            self._firm[id(nt)] = (
                nt,
                frozenset(
                    (m.category, m.start, m.end) for m in merged if any(_within(f, m) for f in firm)
                ),
            )
        return merged, water is not None, frozenset(explained), spans

    def _read(
        self, nt: NormalizedText, cands: list[Candidate], explained: set[str]
    ) -> list[Candidate]:
        """The reading layers over one post's lexicon and pattern candidates."""
        if not self._cites:
            cands = [c for c in cands if c.article != _CITE]
        sensed = apply_senses(nt, cands, self.layers)
        cands = sensed.candidates
        explained.update(sensed.explained)
        if not self._reads_voices:
            return cands
        reading = read(nt)
        self._readings[id(nt)] = (nt, reading)
        if not reading.quoted:
            return cands
        voices = self._quoting_voices
        # a citation is the poster's own reasoning, whatever it quotes
        own = [
            c
            for c in cands
            if c.article == _CITE or not reading.quotes(c.category, c.start, c.end, voices)
        ]
        if len(own) < len(cands):
            explained.update(c.category for c in cands if c not in own)
        if self._cites:
            own += citations(reading, cands)
        return own

    def _reading(self, nt: NormalizedText) -> Reading:
        """:func:`moderation.speaker.read` of ``nt``, as the reading layers read it if they did."""
        entry = self._readings.get(id(nt))
        return entry[1] if entry is not None and entry[0] is nt else read(nt)

    def _finding(self, original: str, c: Candidate) -> Finding | None:
        cited = self._cite(c.category, c.article)
        if cited is None:
            return None
        article, severity = cited
        return Finding(
            category=c.category,
            article=article,
            start=c.start,
            end=c.end,
            match=original[c.start : c.end],
            term=c.term,
            via=c.via,
            confidence=c.confidence,
            severity=severity,
        )

    def _unruled(self, c: Candidate) -> bool:
        """Whether the ruleset explicitly has no clause for the candidate's article key."""
        cat = self.articles.categories.get(c.category)
        return cat is not None and c.article in cat.unruled

    def _cite(self, category: str, article_key: str) -> tuple[Article, Severity] | None:
        """The ruleset's clause and severity for an article key (None: not forbidden here)."""
        key = (category, article_key)
        if key not in self._cited:
            cat = self.articles.categories.get(category)
            if cat is None or article_key in cat.unruled:
                self._cited[key] = None
            else:
                art = cat.articles.get(article_key) or cat.articles[cat.default]
                self._cited[key] = art, art.severity or cat.severity
        return self._cited[key]

    def _predict(
        self,
        texts: Sequence[str],
        normalized: Sequence[NormalizedText],
        hits: Sequence[tuple[tuple[str, str], ...]] | None,
    ) -> list[dict[str, float]] | None:
        """The classifier's probabilities, or None when it fails (``hits``: the posts' lexicon
        hits, gathered by :meth:`_rule_findings` when the classifier has ``predict_prepared``)."""
        assert self.classifier is not None
        prepared = self._prepared
        try:
            if prepared is not None:
                result: list[dict[str, float]] = prepared(list(texts), normalized, hits)
                return result
            return self.classifier.predict(list(texts))
        except Exception as exc:  # the rules' findings stand even if the model fails
            logger.warning("classifier failed, rules only: %s", exc)
            return None

    def _evidence(
        self, nt: NormalizedText, categories: Sequence[str], spans: Sequence[HitSpan]
    ) -> Mapping[str, tuple[Evidence, ...]]:
        """The classifier's evidence for each flagged category (none if it cannot explain)."""
        many = getattr(self.classifier, "explain_many", None)
        if many is not None:
            found: Mapping[str, tuple[Evidence, ...]] = many(
                nt.original, categories, normalized=nt, hit_spans=None if reference() else spans
            )
            return found
        explain = getattr(self.classifier, "explain", None)
        if explain is None:
            return {}
        return {c: tuple(explain(nt.original, c, normalized=nt)) for c in categories}

    def _add_classifier_findings(
        self,
        nt: NormalizedText,
        found: list[Finding],
        probs: Mapping[str, float],
        explained: frozenset[str],
        spans: Sequence[HitSpan] = (),
    ) -> None:
        """Add the classifier's findings of one post to ``found``, keeping it in text order."""
        assert self.classifier is not None
        veto = self._veto
        if veto is not None and found:
            # ``found`` holds the rule findings only: the model's own come below
            entry = self._firm.get(id(nt))
            firm = entry[1] if entry is not None and entry[0] is nt else frozenset()
            kept = [
                f
                for f in found
                if f.category not in probs
                or (f.category, f.start, f.end) in firm
                or not veto.overrules(f.category, f.term, probs[f.category])
            ]
            if len(kept) < len(found):
                found[:] = kept
        text = nt.original
        out: list[Finding] = []
        thresholds = self.classifier.thresholds
        calibrated = getattr(self.classifier, "confidence", None)
        flagged: list[tuple[str, float, Any, list[Finding]]] = []
        for category, p in probs.items():
            if p < thresholds.get(category, 0.5):
                continue
            cat = self.articles.categories.get(category)
            if cat is None:
                continue
            same = [f for f in found if f.category == category]
            if not same and category in explained:
                continue  # its words were read away: quoted, cited, or in a game sense
            flagged.append((category, p, cat, same))
        if not flagged:
            return
        evidence_of = self._evidence(nt, [c for c, _, _, _ in flagged], spans)
        reading: Reading | None = None
        for category, p, cat, same in flagged:
            evidence = evidence_of.get(category, ())
            # the words that drove the opinion are all another's 贴脸 (他撂下那句“谁刀我谁倒霉”) or
            # the rules' own (按规则3（1），发表与导演的对话是违规的): the classifier read quoted
            # words, as the rules' quoted hits are read
            voices = self._rule_voices | (self._others_voices if category in TIELIAN else set())
            if not same and evidence and voices:
                reading = reading or self._reading(nt)
                if all(reading.quotes(category, e.start, e.end, voices) for e in evidence):
                    continue
            if same:
                best = max(same, key=lambda f: f.confidence)
                start, end, key = best.start, best.end, _article_key(cat.articles, best.article)
            elif evidence:
                start, end, key = evidence[0].start, evidence[0].end, cat.default
            else:  # nothing to show: an empty span, which never becomes a card suggestion
                start, end, key = 0, 0, cat.default
            cited = self._cite(category, key)
            assert cited is not None  # key is one of the category's clauses, never an unruled one
            article, severity = cited
            confidence = calibrated(category, p) if calibrated else p
            out.append(
                Finding(
                    category=category,
                    article=article,
                    start=start,
                    end=end,
                    match=text[start:end],
                    term=category,
                    via="classifier",
                    confidence=round(float(confidence), 4),
                    severity=severity,
                    evidence=evidence,
                )
            )
        if out:
            found.extend(out)
            found.sort(key=lambda f: (f.start, -f.end, f.category))


def _article_key(articles: Mapping[str, Any], article: Article) -> str:
    for key, a in articles.items():
        if a.code == article.code:
            return str(key)
    return str(next(iter(articles)))


#: Posts screened at a time by :meth:`Screener.screen_posts` with the trained model.
_CHUNK = 32

#: The article key of a citation of someone else's 贴脸 (M72 2(8)).
_CITE = "cite"


def _inside(f: Finding, quoting: Sequence[Candidate]) -> bool:
    """Whether ``f`` is quoted: a cited 贴脸 inside a citation, or a hit of its own category
    inside a hit under a key the ruleset has no clause for."""
    for q in quoting:
        if q.start <= f.start and f.end <= q.end:
            if q.article == _CITE and f.category in TIELIAN and f.category != q.category:
                return True
            if q.article != _CITE and q.category == f.category:
                return True
    return False


def _within(f: Finding, merged: Finding) -> bool:
    """Whether ``f`` is one of the findings ``merged`` was made of (same category, inside it)."""
    return f.category == merged.category and merged.start <= f.start and f.end <= merged.end


def _merge(findings: list[Finding], original: str) -> list[Finding]:
    """Merge overlapping findings of one category into one finding over the union of spans.

    Touching findings merge too when they are the same term repeated (``sbsbsb``).

    Term, via and article come from the longest member (it explains the most: 傻逼 via repeat
    rather than 逼 alone; ties: the more confident, then the earlier); the confidence is the
    highest of the members.
    """
    if len(findings) < 2:
        return findings  # nothing to merge (most posts)
    by_cat: dict[str, list[Finding]] = {}
    for f in findings:
        by_cat.setdefault(f.category, []).append(f)
    out: list[Finding] = []
    for group in by_cat.values():
        group.sort(key=lambda f: (f.start, -f.end))
        cluster: list[Finding] = []
        end = -1
        for f in group:
            touching_other = f.start == end and cluster and f.term != cluster[-1].term
            if cluster and (f.start > end or touching_other):  # 傻逼傻逼 merges, 傻逼你妈 not
                out.append(_combine(cluster, original))
                cluster = []
            cluster.append(f)
            end = max(end, f.end) if len(cluster) > 1 else f.end
        if cluster:
            out.append(_combine(cluster, original))
    out.sort(key=lambda f: (f.start, -f.end, f.category))
    return out


def _combine(cluster: list[Finding], original: str) -> Finding:
    if len(cluster) == 1:
        return cluster[0]
    best = max(cluster, key=lambda f: (f.end - f.start, f.confidence, -f.start))
    start = min(f.start for f in cluster)
    end = max(f.end for f in cluster)
    return Finding(
        category=best.category,
        article=best.article,
        start=start,
        end=end,
        match=original[start:end],
        term=best.term,
        via=best.via,
        confidence=max(f.confidence for f in cluster),
        severity=best.severity,
    )


@cache
def _default_screener(ruleset: str) -> Screener:
    return Screener(ruleset)


def screen(text: str, ruleset: str = "m08") -> list[Finding]:
    """Screen one post with the default screener of ``ruleset`` (model loaded if present)."""
    return _default_screener(ruleset).screen(text)


def screen_many(texts: Sequence[str], ruleset: str = "m08") -> list[list[Finding]]:
    """Screen many posts at once with the default screener of ``ruleset``."""
    return _default_screener(ruleset).screen_many(texts)
