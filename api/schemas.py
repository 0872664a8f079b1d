"""Request and response schemas of every endpoint (see :mod:`api.schema` for the machinery)."""

from __future__ import annotations

from dataclasses import replace

from api.schema import (
    Any_,
    Arr,
    Bool,
    DateTimeStr,
    Int,
    Map,
    Num,
    Obj,
    OneOf,
    Str,
)
from game_rules.params import available_ruleset_files
from game_rules.penalties import KNOWN_CATEGORIES

NAME = Str(min_len=1, max_len=64)
#: whitespace as Python's str.strip() sees it, in escapes Python and JSON Schema both read
_SPACE = (
    r"\t\n\u000b\u000c\r\u001c-\u0020\u0085\u00a0"
    r"\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
)
#: a character's name as a new game declares it: no space at either end
CHARACTER = Str(
    min_len=1,
    max_len=64,
    pattern=rf"[^{_SPACE}\u0000](?:[^\u0000]*[^{_SPACE}\u0000])?",
    pattern_text="角色名首尾不能有空格",
)
COLOUR = Str(enum=("green", "blue", "yellow", "red"))
CARD_COLOUR = Str(enum=("blue", "yellow", "red"))
THREAD = Str(
    enum=("discussion", "vote", "process", "rules"),
    description="discussion 讨论帖, vote 投票帖, process 进程帖, rules 规则帖",
)

PLAYER = OneOf(
    (
        CHARACTER,
        Obj(
            {
                "character": CHARACTER,
                "player": Str(min_len=1, max_len=64, description="forum account playing it"),
                "aliases": Arr(NAME, max_items=16, description="other names votes may use"),
            },
            required=("character",),
        ),
    )
)

CREATE_GAME = Obj(
    {
        "ruleset": Str(
            enum=tuple(available_ruleset_files()),
            description="m08, m72, wa004, or a variant (a file in game_rules/rulesets/)",
        ),
        "players": Arr(PLAYER, min_items=1, max_items=64, description="characters, seating order"),
        "seed": Str(
            min_len=1,
            max_len=128,
            description="combined with the service's own 256-bit secret for the deal and every "
            "random pick; secret until the end",
        ),
        "roles": Map(Str(min_len=1, max_len=32), description="fixed roles: character -> role key"),
        "ban_overrides": Arr(
            Obj(
                {"ban": Int(minimum=1), "reason": Str(min_len=1, max_len=2000)},
                required=("ban", "reason"),
            ),
            max_items=64,
            description="the admin lets a banned player in anyway: the ban's id and why "
            "(audited; docs/registry.md)",
        ),
    },
    required=("ruleset", "players"),
)

CREATED_GAME = Obj(
    {
        "id": Str(),
        "ruleset": Str(),
        "characters": Arr(Str()),
        "commitment": Str(
            description="SHA-256 over the server secret, the seed and the deal; publish it"
        ),
        "director_token": Str(description="shown once; keep it secret"),
        "player_tokens": Map(Str(), description="character -> token (shown once)"),
        "announcements": Arr(Str()),
    },
    required=("id", "ruleset", "characters", "commitment", "director_token", "player_tokens"),
)

POST = Obj(
    {
        "forum_post_id": Str(
            min_len=1, max_len=64, description="the forum's post id (idempotency key)"
        ),
        "author": NAME,
        "thread": THREAD,
        "day": Int(minimum=0, maximum=1000),
        "body": Str(description="raw post body, BBCode kept"),
        "posted_at": DateTimeStr(),
        "reply_to": Str(
            min_len=1, max_len=64, description="forum post id this post replies to (楼中楼 改票)"
        ),
    },
    required=("forum_post_id", "author", "thread", "day", "body", "posted_at"),
    name="Post",
)
POSTS_REQUEST = OneOf(
    (POST, Obj({"posts": Arr(POST, min_items=1)}, required=("posts",))), tag="posts"
)

ARTICLE = Obj({"ruleset": Str(), "code": Str(), "text": Str()})
FINDING = Obj(
    {
        "category": Str(),
        "article": ARTICLE,
        "start": Int(),
        "end": Int(),
        "match": Str(),
        "term": Str(),
        "via": Str(),
        "confidence": Num(),
        "severity": Obj({"cards": Arr(Str()), "text": Str()}, description="the seed's hint"),
        "evidence": Arr(
            Obj(
                {
                    "start": Int(),
                    "end": Int(),
                    "match": Str(),
                    "features": Arr(Str()),
                    "weight": Num(),
                }
            ),
            description="classifier findings: the spans of the post that drove the score, "
            "strongest first (empty for rule findings)",
        ),
    }
)
VOTE = Obj(
    {
        "status": Str(enum=("counted", "invalid", "rejected")),
        "target": Str(nullable=True),
        "abstain": Bool(),
        "is_change": Bool(),
        "reason": Str(),
        "rule": Str(),
        "message": Str(),
    },
    required=("status",),
    nullable=True,
)
DECISION = Obj(
    {
        "id": Int(),
        "suggestion_id": Int(),
        "action": Str(),
        "colour": COLOUR,
        "colour_name": Str(),
        "note": Str(),
        "faction_lost": Bool(),
        "decided_by": Str(),
        "decided_at": Str(),
    }
)
SUGGESTION = Obj(
    {
        "id": Int(),
        "game_id": Str(),
        "character": Str(),
        "kind": Str(enum=("post", "zombie", "activity", "manual")),
        "category": Str(),
        "colour": COLOUR,
        "colour_name": Str(),
        "day": Int(),
        "status": Str(enum=("pending", "decided")),
        "reasons": Arr(Map(), description="article, evidence, the player's history"),
        "created_at": Str(),
        "post": Obj(
            {
                "id": Int(),
                "forum_post_id": Str(),
                "thread": Str(),
                "day": Int(),
                "posted_at": Str(),
                "body": Str(),
                "findings": Arr(FINDING),
            },
            nullable=True,
        ),
        "decision": replace(DECISION, nullable=True),
    }
)
POST_RESULT = Obj(
    {
        "post_id": Int(),
        "forum_post_id": Str(),
        "duplicate": Bool(description="true when this forum post id was stored before"),
        "author": Str(),
        "thread": Str(),
        "day": Int(),
        "water": Bool(),
        "zombie": Bool(description="诈尸: posted by an eliminated character"),
        "counts_activity": Bool(),
        "findings": Arr(FINDING),
        "vote": VOTE,
        "suggestion": replace(SUGGESTION, nullable=True),
    }
)
POSTS_RESPONSE = OneOf((POST_RESULT, Obj({"results": Arr(POST_RESULT)})))

SUGGESTIONS_RESPONSE = Obj({"suggestions": Arr(SUGGESTION)})

DECISION_REQUEST = Obj(
    {
        "action": Str(enum=("confirm", "change", "dismiss")),
        "colour": COLOUR,
        "note": Str(max_len=2000),
        "faction_lost": Bool(description="with a red card: the character's faction is judged lost"),
        "director": Str(min_len=1, max_len=64, description="name of the deciding director"),
    },
    required=("action",),
)
REVOCATION = Obj(
    {
        "id": Int(),
        "card_id": Int(),
        "kind": Str(
            enum=("director", "recomputed"),
            description="director: revoked with a reason; recomputed: an escalation undone with it",
        ),
        "reason": Str(),
        "cause_id": Int(nullable=True, description="the revocation that undid this escalation"),
        "revoked_by": Str(),
        "ejection_withdrawn": Bool(),
        "created_at": Str(),
    },
    nullable=True,
)
RULING = Obj(
    {
        "id": Int(),
        "appeal_id": Int(),
        "ruling": Str(enum=("upheld", "overturned")),
        "note": Str(),
        "ruled_by": Str(description="director or admin (the authenticated caller)"),
        "created_at": Str(),
    },
    nullable=True,
)
APPEAL = Obj(
    {
        "id": Int(),
        "card_id": Int(),
        "character": Str(),
        "text": Str(),
        "appealed_by": Str(),
        "created_at": Str(),
        "ruling": RULING,
    },
    nullable=True,
)
CARD = Obj(
    {
        "id": Int(),
        "character": Str(),
        "colour": COLOUR,
        "colour_name": Str(),
        "source": Str(enum=("decision", "fixed", "escalation")),
        "category": Str(nullable=True),
        "reason": Str(),
        "escalated_from": Arr(Int()),
        "decision_id": Int(nullable=True),
        "issued_by": Str(),
        "day": Int(),
        "created_at": Str(),
        "revoked": REVOCATION,
        "appeal": APPEAL,
    }
)
EJECTION = Obj(
    {
        "character": Str(),
        "applied": Bool(),
        "was_alive": Bool(),
        "eliminated_now": Bool(description="false when the exit follows the day's vote (M72)"),
        "faction_lost": Bool(),
        "announcements": Arr(Str()),
        "game_ended": Bool(),
        "message": Str(),
    },
    nullable=True,
)
OUTCOME = Obj(
    {
        "ended": Bool(),
        "winner": Str(nullable=True, description="faction key, once the game has ended"),
        "results": Map(Str(enum=("win", "lose", "undecided")), description="per faction"),
        "eliminations": Arr(
            Obj(
                {
                    "character": Str(),
                    "cause": Str(description="vote, kill, poison, shot, red_card, …"),
                    "day": Int(),
                    "phase": Str(),
                    "by": Str(nullable=True),
                }
            ),
            description="出局 in order",
        ),
        "commitment": Str(),
        "seed": Str(nullable=True, description="revealed when the game has ended"),
        "secret": Str(nullable=True, description="the server secret, revealed when it has ended"),
        "reason": Str(),
    },
    description="the game's outcome so far",
)
DECISION_RESPONSE = Obj(
    {"decision": DECISION, "cards": Arr(CARD), "ejected": EJECTION, "outcome": OUTCOME}
)

LEDGER = Obj(
    {
        "character": Str(),
        "cards": Arr(CARD),
        "active": Map(Int(), description="cards not merged by escalation, per colour"),
        "summary": Str(description="Chinese summary, e.g. 黄牌1张（由三张蓝牌升级）"),
        "escalations": Arr(CARD),
        "red": Bool(),
    }
)
CARDS_RESPONSE = Obj({"players": Arr(LEDGER)})
MANUAL_CARD = Obj(
    {
        "character": NAME,
        "colour": CARD_COLOUR,
        "category": Str(
            enum=tuple(sorted(KNOWN_CATEGORIES)),
            description="e.g. multi_account 串号, cheating 作弊, other",
        ),
        "reason": Str(min_len=1, max_len=2000),
        "faction_lost": Bool(),
        "day": Int(minimum=0, maximum=1000),
        "director": Str(min_len=1, max_len=64),
    },
    required=("character", "colour", "category", "reason"),
)

REVOKE_CARD = Obj(
    {
        "reason": Str(min_len=1, max_len=2000, description="why the card was given in error"),
        "director": Str(min_len=1, max_len=64, description="name of the revoking director"),
    },
    required=("reason",),
)
REVOCATION_RESPONSE = Obj(
    {
        "revocation": REVOCATION,
        "card": CARD,
        "undone": Arr(CARD, description="escalations that no longer hold, revoked with it"),
        "cards": Arr(CARD, description="escalations the remaining cards now make"),
        "ejection_withdrawn": Obj(
            {"character": Str(), "announcements": Arr(Str())},
            nullable=True,
            description="the red card's ejection, withdrawn in the game",
        ),
        "outcome": OUTCOME,
    }
)
APPEAL_REQUEST = Obj(
    {"text": Str(min_len=1, max_len=4000, description="why the card was wrong")},
    required=("text",),
)
RULING_REQUEST = Obj(
    {
        "ruling": Str(enum=("upheld", "overturned"), description="upheld: the card stands"),
        "note": Str(max_len=2000),
    },
    required=("ruling",),
)
APPEAL_RESPONSE = Obj({k: v for k, v in APPEAL.props.items()})
APPEALS_RESPONSE = Obj({"appeals": Arr(APPEAL_RESPONSE)})

AUDIT_ENTRY = Obj(
    {
        "id": Int(),
        "game_id": Str(),
        "at": Str(),
        "action": Str(description="decision, card, escalation, ejection, revocation, …"),
        "actor": Str(description="who the act is attributed to (system: the rules themselves)"),
        "actor_kind": Str(
            nullable=True,
            enum=("director", "player", "admin", "operator", "public"),
            description="the authenticated identity's kind (null before schema 0004)",
        ),
        "actor_token_id": Int(nullable=True, description="the token row that authenticated"),
        "actor_ref": Str(nullable=True, description="the admin token's fingerprint"),
        "detail": Any_(),
    }
)
AUDIT_RESPONSE = Obj({"entries": Arr(AUDIT_ENTRY), "next_after": Int(nullable=True)})

ACTION = OneOf(
    (
        Obj(
            {
                "type": Str(enum=("skill",)),
                "actor": NAME,
                "skill": Str(min_len=1, max_len=32),
                "target": Str(max_len=64, nullable=True),
                "reason": Str(max_len=64, nullable=True),
                "choice": Str(max_len=64, nullable=True),
            },
            required=("type", "actor", "skill"),
        ),
        Obj(
            {
                "type": Str(enum=("vote", "proxy_vote")),
                "voter": NAME,
                "target": Str(max_len=64, nullable=True, description="null = 弃权"),
                "at": DateTimeStr(description="when the ballot was posted"),
                "requested_at": DateTimeStr(description="代投: when the player asked"),
                "is_change": Bool(),
                "reason": Str(max_len=2000),
                "conditional": Bool(description="代投 given with a condition (视为弃权)"),
            },
            required=("type", "voter", "target"),
        ),
        Obj(
            {
                "type": Str(enum=("schedule_day",)),
                "closes_at": DateTimeStr(description="the day's 关门 time"),
                "accelerated": Bool(description="加速 in force"),
            },
            required=("type",),
        ),
        Obj(
            {"type": Str(enum=("last_words",)), "actor": NAME, "text": Str(nullable=True)},
            required=("type", "actor"),
        ),
        Obj({"type": Str(enum=("deadline_passed",))}, required=("type",)),
        Obj(
            {
                "type": Str(enum=("withdraw_skill",)),
                "actor": NAME,
                "skill": Str(min_len=1, max_len=32),
            },
            required=("type", "actor", "skill"),
        ),
        Obj(
            {"type": Str(enum=("substitute",)), "character": NAME, "player": NAME},
            required=("type", "character", "player"),
        ),
        Obj(
            {
                "type": Str(enum=("declare_faction_lost",)),
                "faction": Str(min_len=1, max_len=32),
                "reason": Str(max_len=2000),
            },
            required=("type", "faction"),
        ),
    ),
    tag="type",
)

ACTION_RESPONSE = Obj({"events": Arr(Map()), "announcements": Arr(Str()), "outcome": OUTCOME})

ADVANCE = OneOf(
    (
        Obj(
            {
                "close": Str(enum=("day",)),
                "at": DateTimeStr(description="closing time (关门); default now"),
                "accelerated": Bool(
                    description="the day was accelerated (加速): no 潜水 penalties"
                ),
                "review_penalties": Bool(
                    description="queue the 潜水/未投票 yellows for review instead of issuing them"
                ),
            },
            required=("close",),
        ),
        Obj({"close": Str(enum=("night",))}, required=("close",)),
    ),
    tag="close",
)

ADVANCE_RESPONSE = Obj(
    {
        "closed": Obj({"phase": Str(), "day": Int()}),
        "announcements": Arr(Str()),
        "cards": Arr(CARD),
        "suggestions": Arr(SUGGESTION),
        "ejected": Arr(EJECTION),
        "skipped": Arr(
            Str(),
            description="characters whose 潜水/未投票 card was not given: deselected by the "
            "director, or every one when the close ended the game",
        ),
        "outcome": OUTCOME,
    }
)

ANNOUNCEMENT = Obj({"day": Int(), "phase": Str(), "kind": Str(), "text": Str()})
RANDOM_PICK = Obj(
    {
        "label": Str(),
        "position": Int(description="the log position the pick was drawn at"),
        "method": Str(enum=("choice", "shuffle")),
        "candidates": Arr(Str()),
        "result": Arr(Str()),
    }
)
VERIFICATION_RECORD = Obj(
    {
        "ruleset": Str(),
        "characters": Arr(Str(), description="seating order"),
        "commitment": Str(),
        "seed": Str(),
        "secret": Str(),
        "roles": Map(Str(), description="the deal: character -> role key"),
        "fixed": Map(Str(), description="roles the director fixed before the deal"),
        "picks": Arr(RANDOM_PICK, description="every random pick, in order"),
    },
    nullable=True,
    description="once the game has ended: what `bansha verify` and /verify recompute",
)
ANNOUNCEMENTS_RESPONSE = Obj(
    {
        "game_id": Str(),
        "ruleset": Str(),
        "commitment": Str(),
        "announcements": Arr(ANNOUNCEMENT),
        "ended": Bool(),
        "winner": Str(nullable=True),
        "seed": Str(nullable=True, description="revealed when the game has ended"),
        "secret": Str(nullable=True, description="the server secret, revealed when it has ended"),
        "verification": VERIFICATION_RECORD,
    }
)
VIEW_RESPONSE = Obj(
    {
        "kind": Str(enum=("public", "player", "director")),
        "game_id": Str(),
        "ruleset": Str(),
        "day": Int(),
        "phase": Str(),
        "characters": Arr(Str()),
        "living": Arr(Str()),
        "sheriff": Str(nullable=True),
        "announcements": Arr(ANNOUNCEMENT),
        "ended": Bool(),
        "winner": Str(nullable=True),
        "secret": Str(nullable=True, description="the server secret, revealed when it has ended"),
        "verification": VERIFICATION_RECORD,
        "me": Map(description="player view: own character, role, faction, private messages, cards"),
        "director": Map(description="director view: roles, seed, state, full event log"),
    }
)
ANY = Any_()

PLAYER_TOKEN_REQUEST = Obj(
    {
        "character": NAME,
        "reason": Str(max_len=2000, description="why, for the audit trail"),
        "director": Str(min_len=1, max_len=64, description="name of the acting director"),
    },
    required=("character",),
)
TOKEN_REVOKED = Obj(
    {
        "game_id": Str(),
        "character": Str(),
        "revoked": Int(description="live tokens this request revoked (0: none was live)"),
    },
    required=("game_id", "character", "revoked"),
)
TOKEN_REISSUED = Obj(
    {
        "game_id": Str(),
        "character": Str(),
        "revoked": Int(description="live tokens this request revoked before issuing"),
        "player_token": Str(description="shown once; give it to the character's player"),
    },
    required=("game_id", "character", "revoked", "player_token"),
)
