"""Request and response schemas of every endpoint, as pydantic ``TypedDict`` declarations.

Each ``TypedDict`` is one object of the API (its docstring is its description in
``/openapi.json``); the upper-case :class:`~api.schema.Schema` values are what the endpoints
declare. See :mod:`api.schema` for how they validate and how errors are worded.
"""

# no ``from __future__ import annotations``: pydantic reads these annotations at import time,
# and the closed sets below are built from data
from typing import TYPE_CHECKING, Any, Literal

from typing_extensions import TypedDict

from api.schema import (
    INTEGRAL,
    PATTERN_TEXT,
    Annotated,
    Field,
    Int,
    Key,
    Required,
    Schema,
    Text,
    Time,
    one_of,
    shape,
)
from game_rules.params import available_ruleset_files
from game_rules.penalties import KNOWN_CATEGORIES

if TYPE_CHECKING:
    RulesetId = str
    Category = str
else:
    RulesetId = Literal[tuple(available_ruleset_files())]
    Category = Literal[tuple(sorted(KNOWN_CATEGORIES))]

Name = Annotated[Text, Field(min_length=1, max_length=64)]
#: whitespace as Python's str.strip() sees it, in escapes Python and JSON Schema both read
_SPACE = (
    r"\t\n\u000b\u000c\r\u001c-\u0020\u0085\u00a0"
    r"\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
)
_CHARACTER = rf"^(?:[^{_SPACE}\u0000](?:[^\u0000]*[^{_SPACE}\u0000])?)$"
PATTERN_TEXT[_CHARACTER] = "角色名首尾不能有空格"
#: a character's name as a new game declares it: no space at either end
CharacterName = Annotated[Text, Field(min_length=1, max_length=64, pattern=_CHARACTER)]
Colour = Literal["green", "blue", "yellow", "red"]
CardColour = Literal["blue", "yellow", "red"]
Thread = Annotated[
    Literal["discussion", "vote", "process", "rules"],
    Field(description="discussion 讨论帖, vote 投票帖, process 进程帖, rules 规则帖"),
]
Reason = Annotated[Text, Field(min_length=1, max_length=2000)]
Note = Annotated[Text, Field(max_length=2000)]
#: the acting director as a request names them (a name, as a character or a player has)
Director = Name
Day = Annotated[int, Field(ge=0, le=1000), INTEGRAL]


# -- creating games ------------------------------------------------------------------------------


@shape
class PlayerEntry(TypedDict, total=False):
    """A character with the forum account playing it and the other names votes may use."""

    character: Required[CharacterName]
    player: Annotated[Name, Field(description="forum account playing it")]
    aliases: Annotated[list[Name], Field(max_length=16, description="other names votes may use")]


if TYPE_CHECKING:
    Player = str | PlayerEntry
else:
    Player = one_of(
        lambda v: "name" if isinstance(v, str) else "entry" if isinstance(v, dict) else None,
        {"name": CharacterName, "entry": PlayerEntry},
        allowed=("字符串", "对象"),
    )


@shape
class BanOverride(TypedDict):
    """The admin lets a banned player in anyway: the ban's id and why."""

    ban: Annotated[int, Field(ge=1), INTEGRAL]
    reason: Reason


@shape
class CreateGame(TypedDict, total=False):
    ruleset: Required[
        Annotated[
            RulesetId,
            Field(description="m08, m72, wa004, or a variant (a file in game_rules/rulesets/)"),
        ]
    ]
    players: Required[
        Annotated[
            list[Player],
            Field(min_length=1, max_length=64, description="characters, seating order"),
        ]
    ]
    seed: Annotated[
        Text,
        Field(
            min_length=1,
            max_length=128,
            description="combined with the service's own 256-bit secret for the deal and every "
            "random pick; secret until the end",
        ),
    ]
    roles: Annotated[
        dict[Key, Annotated[Text, Field(min_length=1, max_length=32)]],
        Field(description="fixed roles: character -> role key"),
    ]
    ban_overrides: Annotated[
        list[BanOverride],
        Field(
            max_length=64,
            description="the admin lets a banned player in anyway: the ban's id and why "
            "(audited; docs/registry.md)",
        ),
    ]


@shape
class CreatedGame(TypedDict, total=False):
    id: Required[Text]
    ruleset: Required[Text]
    characters: Required[list[Text]]
    commitment: Required[
        Annotated[
            Text,
            Field(description="SHA-256 over the server secret, the seed and the deal; publish it"),
        ]
    ]
    director_token: Required[Annotated[Text, Field(description="shown once; keep it secret")]]
    player_tokens: Required[
        Annotated[dict[Key, Text], Field(description="character -> token (shown once)")]
    ]
    announcements: list[Text]


CREATE_GAME = Schema(CreateGame)
CREATED_GAME = Schema(CreatedGame)

# -- posts ---------------------------------------------------------------------------------------

ForumPostId = Annotated[Text, Field(min_length=1, max_length=64)]


@shape
class Post(TypedDict, total=False):
    forum_post_id: Required[
        Annotated[ForumPostId, Field(description="the forum's post id (idempotency key)")]
    ]
    author: Required[Name]
    thread: Required[Thread]
    day: Required[Day]
    body: Required[Annotated[Text, Field(description="raw post body, BBCode kept")]]
    posted_at: Required[Time]
    reply_to: Annotated[
        ForumPostId, Field(description="forum post id this post replies to (楼中楼 改票)")
    ]


@shape
class PostBatch(TypedDict):
    posts: Annotated[list[Post], Field(min_length=1)]


POST = Schema(Post)
POSTS_REQUEST = Schema(
    one_of(
        lambda v: ("batch" if "posts" in v else "post") if isinstance(v, dict) else None,
        {"post": Post, "batch": PostBatch},
        allowed=("对象",),
    )
)


@shape
class Article(TypedDict, total=False):
    ruleset: Text
    code: Text
    text: Text


@shape
class Severity(TypedDict, total=False):
    """The seed's hint."""

    cards: list[Text]
    text: Text


@shape
class Evidence(TypedDict, total=False):
    start: Int
    end: Int
    match: Text
    features: list[Text]
    weight: float


@shape
class Finding(TypedDict, total=False):
    category: Text
    article: Article
    start: Int
    end: Int
    match: Text
    term: Text
    via: Text
    confidence: float
    severity: Severity
    evidence: Annotated[
        list[Evidence],
        Field(
            description="classifier findings: the spans of the post that drove the score, "
            "strongest first (empty for rule findings)"
        ),
    ]


@shape
class Vote(TypedDict, total=False):
    status: Required[Literal["counted", "invalid", "rejected"]]
    target: Text | None
    abstain: bool
    is_change: bool
    reason: Text
    rule: Text
    message: Text


@shape
class Decision(TypedDict, total=False):
    id: Int
    suggestion_id: Int
    action: Text
    colour: Colour
    colour_name: Text
    note: Text
    faction_lost: bool
    decided_by: Text
    decided_at: Text


@shape
class SuggestedPost(TypedDict, total=False):
    id: Int
    forum_post_id: Text
    thread: Text
    day: Int
    posted_at: Text
    body: Text
    findings: list[Finding]


@shape
class Suggestion(TypedDict, total=False):
    id: Int
    game_id: Text
    character: Text
    kind: Literal["post", "zombie", "activity", "manual"]
    category: Text
    colour: Colour
    colour_name: Text
    day: Int
    status: Literal["pending", "decided"]
    reasons: Annotated[
        list[dict[Key, Any]], Field(description="article, evidence, the player's history")
    ]
    created_at: Text
    post: SuggestedPost | None
    decision: Decision | None


@shape
class PostResult(TypedDict, total=False):
    post_id: Int
    forum_post_id: Text
    duplicate: Annotated[bool, Field(description="true when this forum post id was stored before")]
    author: Text
    thread: Text
    day: Int
    water: bool
    zombie: Annotated[bool, Field(description="诈尸: posted by an eliminated character")]
    counts_activity: bool
    findings: list[Finding]
    vote: Vote | None
    suggestion: Suggestion | None


@shape
class PostResults(TypedDict, total=False):
    results: list[PostResult]


POSTS_RESPONSE = Schema(PostResult | PostResults)

# -- suggestions, decisions, cards ---------------------------------------------------------------


@shape
class Suggestions(TypedDict, total=False):
    suggestions: list[Suggestion]


SUGGESTIONS_RESPONSE = Schema(Suggestions)


@shape
class DecisionRequest(TypedDict, total=False):
    action: Required[Literal["confirm", "change", "dismiss"]]
    colour: Colour
    note: Note
    faction_lost: Annotated[
        bool, Field(description="with a red card: the character's faction is judged lost")
    ]
    director: Annotated[Director, Field(description="name of the deciding director")]


DECISION_REQUEST = Schema(DecisionRequest)


@shape
class Revocation(TypedDict, total=False):
    id: Int
    card_id: Int
    kind: Annotated[
        Literal["director", "recomputed"],
        Field(
            description="director: revoked with a reason; recomputed: an escalation undone with it"
        ),
    ]
    reason: Text
    cause_id: Annotated[Int | None, Field(description="the revocation that undid this escalation")]
    revoked_by: Text
    ejection_withdrawn: bool
    created_at: Text


@shape
class Ruling(TypedDict, total=False):
    id: Int
    appeal_id: Int
    ruling: Literal["upheld", "overturned"]
    note: Text
    ruled_by: Annotated[Text, Field(description="director or admin (the authenticated caller)")]
    created_at: Text


@shape
class Appeal(TypedDict, total=False):
    id: Int
    card_id: Int
    character: Text
    text: Text
    appealed_by: Text
    created_at: Text
    ruling: Ruling | None


@shape
class Card(TypedDict, total=False):
    id: Int
    character: Text
    colour: Colour
    colour_name: Text
    source: Literal["decision", "fixed", "escalation"]
    category: Text | None
    reason: Text
    escalated_from: list[Int]
    decision_id: Int | None
    issued_by: Text
    day: Int
    created_at: Text
    revoked: Revocation | None
    appeal: Appeal | None


@shape
class Ejection(TypedDict, total=False):
    character: Text
    applied: bool
    was_alive: bool
    eliminated_now: Annotated[
        bool, Field(description="false when the exit follows the day's vote (M72)")
    ]
    faction_lost: bool
    announcements: list[Text]
    game_ended: bool
    message: Text


@shape
class Elimination(TypedDict, total=False):
    character: Text
    cause: Annotated[Text, Field(description="vote, kill, poison, shot, red_card, …")]
    day: Int
    phase: Text
    by: Text | None


@shape
class Outcome(TypedDict, total=False):
    """The game's outcome so far."""

    ended: bool
    winner: Annotated[Text | None, Field(description="faction key, once the game has ended")]
    results: Annotated[
        dict[Key, Literal["win", "lose", "undecided"]], Field(description="per faction")
    ]
    eliminations: Annotated[list[Elimination], Field(description="出局 in order")]
    commitment: Text
    seed: Annotated[Text | None, Field(description="revealed when the game has ended")]
    secret: Annotated[
        Text | None, Field(description="the server secret, revealed when it has ended")
    ]
    reason: Text


@shape
class DecisionResponse(TypedDict, total=False):
    decision: Decision
    cards: list[Card]
    ejected: Ejection | None
    outcome: Outcome


DECISION_RESPONSE = Schema(DecisionResponse)


@shape
class Ledger(TypedDict, total=False):
    character: Text
    cards: list[Card]
    active: Annotated[
        dict[Key, Int], Field(description="cards not merged by escalation, per colour")
    ]
    summary: Annotated[Text, Field(description="Chinese summary, e.g. 黄牌1张（由三张蓝牌升级）")]
    escalations: list[Card]
    red: bool


@shape
class Ledgers(TypedDict, total=False):
    players: list[Ledger]


CARDS_RESPONSE = Schema(Ledgers)


@shape
class ManualCard(TypedDict, total=False):
    character: Required[Name]
    colour: Required[CardColour]
    category: Required[
        Annotated[Category, Field(description="e.g. multi_account 串号, cheating 作弊, other")]
    ]
    reason: Required[Reason]
    faction_lost: bool
    day: Day
    director: Director


MANUAL_CARD = Schema(ManualCard)


@shape
class RevokeCard(TypedDict, total=False):
    reason: Required[Annotated[Reason, Field(description="why the card was given in error")]]
    director: Annotated[Director, Field(description="name of the revoking director")]


REVOKE_CARD = Schema(RevokeCard)


@shape
class WithdrawnEjection(TypedDict, total=False):
    """The red card's ejection, withdrawn in the game."""

    character: Text
    announcements: list[Text]


@shape
class RevocationResponse(TypedDict, total=False):
    revocation: Revocation | None
    card: Card
    undone: Annotated[
        list[Card], Field(description="escalations that no longer hold, revoked with it")
    ]
    cards: Annotated[list[Card], Field(description="escalations the remaining cards now make")]
    ejection_withdrawn: WithdrawnEjection | None
    outcome: Outcome


REVOCATION_RESPONSE = Schema(RevocationResponse)


@shape
class AppealRequest(TypedDict):
    text: Annotated[
        Text, Field(min_length=1, max_length=4000, description="why the card was wrong")
    ]


@shape
class RulingRequest(TypedDict, total=False):
    ruling: Required[
        Annotated[Literal["upheld", "overturned"], Field(description="upheld: the card stands")]
    ]
    note: Note


@shape
class Appeals(TypedDict, total=False):
    appeals: list[Appeal]


APPEAL_REQUEST = Schema(AppealRequest)
RULING_REQUEST = Schema(RulingRequest)
APPEAL_RESPONSE = Schema(Appeal)
APPEALS_RESPONSE = Schema(Appeals)

# -- the audit trail -----------------------------------------------------------------------------


@shape
class AuditEntry(TypedDict, total=False):
    id: Int
    game_id: Text
    at: Text
    action: Annotated[
        Text, Field(description="decision, card, escalation, ejection, revocation, …")
    ]
    actor: Annotated[
        Text, Field(description="who the act is attributed to (system: the rules themselves)")
    ]
    actor_kind: Annotated[
        Literal["director", "player", "admin", "operator", "public"] | None,
        Field(description="the authenticated identity's kind (null before schema 0004)"),
    ]
    actor_token_id: Annotated[Int | None, Field(description="the token row that authenticated")]
    actor_ref: Annotated[Text | None, Field(description="the admin token's fingerprint")]
    detail: Any


@shape
class AuditTrail(TypedDict, total=False):
    entries: list[AuditEntry]
    next_after: Int | None


AUDIT_RESPONSE = Schema(AuditTrail)

# -- play: actions, closing, views ---------------------------------------------------------------

Skill = Annotated[Text, Field(min_length=1, max_length=32)]
Choice = Annotated[Text, Field(max_length=64)] | None


@shape
class SkillAction(TypedDict, total=False):
    type: Required[Literal["skill"]]
    actor: Required[Name]
    skill: Required[Skill]
    target: Choice
    reason: Choice
    choice: Choice


@shape
class VoteAction(TypedDict, total=False):
    type: Required[Literal["vote", "proxy_vote"]]
    voter: Required[Name]
    target: Required[
        Annotated[Annotated[Text, Field(max_length=64)] | None, Field(description="null = 弃权")]
    ]
    at: Annotated[Time, Field(description="when the ballot was posted")]
    requested_at: Annotated[Time, Field(description="代投: when the player asked")]
    is_change: bool
    reason: Note
    conditional: Annotated[bool, Field(description="代投 given with a condition (视为弃权)")]


@shape
class ScheduleDay(TypedDict, total=False):
    type: Required[Literal["schedule_day"]]
    closes_at: Annotated[Time, Field(description="the day's 关门 time")]
    accelerated: Annotated[bool, Field(description="加速 in force")]


@shape
class LastWords(TypedDict, total=False):
    type: Required[Literal["last_words"]]
    actor: Required[Name]
    text: Text | None


@shape
class DeadlinePassed(TypedDict):
    type: Literal["deadline_passed"]


@shape
class WithdrawSkill(TypedDict):
    type: Literal["withdraw_skill"]
    actor: Name
    skill: Skill


@shape
class SubstituteAction(TypedDict):
    type: Literal["substitute"]
    character: Name
    player: Name


@shape
class DeclareFactionLost(TypedDict, total=False):
    type: Required[Literal["declare_faction_lost"]]
    faction: Required[Annotated[Text, Field(min_length=1, max_length=32)]]
    reason: Note


#: each action type and the member it names
_ACTIONS: dict[str, Any] = {
    "skill": SkillAction,
    "vote": VoteAction,
    "proxy_vote": VoteAction,
    "schedule_day": ScheduleDay,
    "last_words": LastWords,
    "deadline_passed": DeadlinePassed,
    "withdraw_skill": WithdrawSkill,
    "substitute": SubstituteAction,
    "declare_faction_lost": DeclareFactionLost,
}


def _by(tag: str, values: dict[str, Any]) -> Any:
    """A union tagged by the field ``tag``: its value names the member (several may share one)."""
    names = {value: kind.__name__ for value, kind in values.items()}

    def choose(value: Any) -> str | None:
        given = value.get(tag) if isinstance(value, dict) else None
        return names.get(given) if isinstance(given, str) else None

    return one_of(
        choose,
        {kind.__name__: kind for kind in values.values()},
        tag=tag,
        allowed=tuple(values),
    )


ACTION = Schema(_by("type", _ACTIONS))


@shape
class ActionResult(TypedDict, total=False):
    events: list[dict[Key, Any]]
    announcements: list[Text]
    outcome: Outcome


ACTION_RESPONSE = Schema(ActionResult)


@shape
class CloseDay(TypedDict, total=False):
    close: Required[Literal["day"]]
    at: Annotated[Time, Field(description="closing time (关门); default now")]
    accelerated: Annotated[
        bool, Field(description="the day was accelerated (加速): no 潜水 penalties")
    ]
    review_penalties: Annotated[
        bool, Field(description="queue the 潜水/未投票 yellows for review instead of issuing them")
    ]


@shape
class CloseNight(TypedDict):
    close: Literal["night"]


ADVANCE = Schema(_by("close", {"day": CloseDay, "night": CloseNight}))


@shape
class Closed(TypedDict, total=False):
    phase: Text
    day: Int


@shape
class AdvanceResult(TypedDict, total=False):
    closed: Closed
    announcements: list[Text]
    cards: list[Card]
    suggestions: list[Suggestion]
    ejected: list[Ejection | None]
    skipped: Annotated[
        list[Text],
        Field(
            description="characters whose 潜水/未投票 card was not given: deselected by the "
            "director, or every one when the close ended the game"
        ),
    ]
    outcome: Outcome


ADVANCE_RESPONSE = Schema(AdvanceResult)


@shape
class Announcement(TypedDict, total=False):
    day: Int
    phase: Text
    kind: Text
    text: Text


@shape
class RandomPick(TypedDict, total=False):
    label: Text
    position: Annotated[Int, Field(description="the log position the pick was drawn at")]
    method: Literal["choice", "shuffle"]
    candidates: list[Text]
    result: list[Text]


@shape
class VerificationRecord(TypedDict, total=False):
    """Once the game has ended: what `bansha verify` and /verify recompute."""

    ruleset: Text
    characters: Annotated[list[Text], Field(description="seating order")]
    commitment: Text
    seed: Text
    secret: Text
    roles: Annotated[dict[Key, Text], Field(description="the deal: character -> role key")]
    fixed: Annotated[dict[Key, Text], Field(description="roles the director fixed before the deal")]
    picks: Annotated[list[RandomPick], Field(description="every random pick, in order")]


@shape
class Announcements(TypedDict, total=False):
    game_id: Text
    ruleset: Text
    commitment: Text
    announcements: list[Announcement]
    ended: bool
    winner: Text | None
    seed: Annotated[Text | None, Field(description="revealed when the game has ended")]
    secret: Annotated[
        Text | None, Field(description="the server secret, revealed when it has ended")
    ]
    verification: VerificationRecord | None


ANNOUNCEMENTS_RESPONSE = Schema(Announcements)


@shape
class View(TypedDict, total=False):
    kind: Literal["public", "player", "director"]
    game_id: Text
    ruleset: Text
    day: Int
    phase: Text
    characters: list[Text]
    living: list[Text]
    sheriff: Text | None
    announcements: list[Announcement]
    ended: bool
    winner: Text | None
    secret: Annotated[
        Text | None, Field(description="the server secret, revealed when it has ended")
    ]
    verification: VerificationRecord | None
    me: Annotated[
        dict[Key, Any],
        Field(description="player view: own character, role, faction, private messages, cards"),
    ]
    director: Annotated[
        dict[Key, Any], Field(description="director view: roles, seed, state, full event log")
    ]


VIEW_RESPONSE = Schema(View)

# -- player tokens -------------------------------------------------------------------------------


@shape
class PlayerTokenRequest(TypedDict, total=False):
    character: Required[Name]
    reason: Annotated[Note, Field(description="why, for the audit trail")]
    director: Annotated[Director, Field(description="name of the acting director")]


@shape
class TokenRevoked(TypedDict):
    game_id: Text
    character: Text
    revoked: Annotated[
        Int, Field(description="live tokens this request revoked (0: none was live)")
    ]


@shape
class TokenReissued(TypedDict):
    game_id: Text
    character: Text
    revoked: Annotated[Int, Field(description="live tokens this request revoked before issuing")]
    player_token: Annotated[
        Text, Field(description="shown once; give it to the character's player")
    ]


PLAYER_TOKEN_REQUEST = Schema(PlayerTokenRequest)
TOKEN_REVOKED = Schema(TokenRevoked)
TOKEN_REISSUED = Schema(TokenReissued)
