"""Request and response schemas of the registry's endpoints (:mod:`api.registry`)."""

# no ``from __future__ import annotations``: pydantic reads these annotations at import time
from typing import Any

from typing_extensions import TypedDict

from api.schema import INTEGRAL, Annotated, Field, Int, Key, Required, Schema, Text, Time, shape
from api.schemas import Name, Reason


@shape
class SeparateRecord(TypedDict, total=False):
    """Red cards: the seed's 单独记录 (who keeps it, in the seed's words)."""

    keeper: Text
    text: Text


@shape
class CardEntry(TypedDict, total=False):
    id: Int
    game_id: Text
    ruleset: Text
    character: Text
    colour: Text
    colour_name: Text
    category: Text | None
    article: dict[Key, Any] | None
    reason: Text
    day: Int
    created_at: Text
    standing: Annotated[bool, Field(description="false once revoked or overturned on appeal")]
    revoked: dict[Key, Any] | None
    appeal: dict[Key, Any] | None
    separate_record: SeparateRecord | None


@shape
class BanEntry(TypedDict, total=False):
    id: Int
    player_id: Int
    card_id: Int
    game_id: Text | None
    reason: Text
    term: Text
    until: Text | None
    games: Int | None
    games_served: Int
    in_force: bool
    banned_by: Text
    created_at: Text
    overrides: list[dict[Key, Text]]


@shape
class GameEntry(TypedDict, total=False):
    game_id: Text
    ruleset: Text
    character: Text
    substitute: bool
    since: Text
    until: Text | None
    finished: bool
    role: Text | None
    role_name: Text | None
    faction: Text | None
    faction_name: Text | None
    result: Annotated[Text | None, Field(description="win | lose | undecided, once the game ended")]


@shape
class PlayerHead(TypedDict, total=False):
    id: Int
    name: Text
    names: list[Text]


@shape
class Record(TypedDict, total=False):
    player: PlayerHead
    full: Annotated[bool, Field(description="false: only what the forum publishes")]
    games_played: Int | None
    games: list[GameEntry]
    cards: list[CardEntry]
    red_cards: Int
    bans: list[BanEntry]


@shape
class Search(TypedDict, total=False):
    players: list[Record]


@shape
class NewBan(TypedDict, total=False):
    player_id: Required[Annotated[int, Field(ge=1), INTEGRAL]]
    card_id: Required[
        Annotated[int, Field(ge=1, description="the red card the ban cites"), INTEGRAL]
    ]
    reason: Required[Reason]
    until: Annotated[Time, Field(description="a period: banned until then")]
    games: Annotated[
        int, Field(ge=1, le=1000, description="or: the next N games of the forum"), INTEGRAL
    ]
    banned_by: Name


@shape
class Eligibility(TypedDict, total=False):
    games_played: Annotated[
        Int, Field(description="games the player had already played (this one not)")
    ]
    max_games_before: Int | None
    eligible: bool
    rule: Text


@shape
class SeatEntry(TypedDict, total=False):
    character: Text
    player_id: Int
    player: Text
    substitute: bool
    since: Text
    current: bool
    games_played: Int
    red_cards: Int
    bans_in_force: list[BanEntry]
    assistant: Eligibility


@shape
class Seats(TypedDict, total=False):
    game_id: Text
    ruleset: Text
    seats: list[SeatEntry]
    assistants: list[dict[Key, Text]]


@shape
class NewAssistant(TypedDict, total=False):
    character: Required[Name]
    assistant: Required[Name]
    director: Name


@shape
class AssistantEntry(TypedDict, total=False):
    id: Int
    game_id: Text
    character: Text
    player: Text
    assistant: Text
    eligibility: Eligibility


@shape
class NewName(TypedDict):
    name: Name


PLAYER_HEAD = Schema(PlayerHead)
BAN = Schema(BanEntry)
RECORD = Schema(Record)
SEARCH = Schema(Search)
NEW_BAN = Schema(NewBan)
SEATS = Schema(Seats)
NEW_ASSISTANT = Schema(NewAssistant)
ASSISTANT = Schema(AssistantEntry)
NEW_NAME = Schema(NewName)
QUERY_NAME = Schema(Name, description="part of a player's name or alias")
