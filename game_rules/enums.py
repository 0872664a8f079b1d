"""The game core's closed sets, in one place: phases, elimination causes, skills, results, colours.

Every key the event log, the service and the console use for these is a member's value here, so
a label table (``api/console/labels.yaml``) or a ruleset file with a key that is not a member
fails a test instead of showing a raw key (the divined fox was ``divined`` in the core and
``divine`` in the console's causes). The members are :class:`~enum.StrEnum`: equal to their
value, so old logs (plain strings) fold and compare unchanged.

>>> Cause.RED_CARD == "red_card", Cause("divined").chinese
(True, '被占卜')
>>> CardColour.parse("黄牌"), CardColour.parse("Blue"), CardColour.parse("红")
(<CardColour.YELLOW: 'yellow'>, <CardColour.BLUE: 'blue'>, <CardColour.RED: 'red'>)
"""

from __future__ import annotations

from enum import Enum, StrEnum

from game_rules.errors import PenaltyError


class Phase(StrEnum):
    """Where a game is (``GameState.phase``, ``PhaseStarted.phase``, ``Announced.phase``)."""

    SETUP = "setup"  # before day 1 (deal, wa004's true-love choices)
    DAY = "day"  # 讨论日
    NIGHT = "night"  # 夜晚
    ENDED = "ended"  # 游戏结束

    @property
    def chinese(self) -> str:
        """开局 / 白天 / 夜晚 / 游戏结束."""
        return _PHASE_NAMES[self]


class Cause(StrEnum):
    """Why a character went out (``Eliminated.cause``), in the seeds' 出局 list."""

    VOTE = "vote"  # 被投票出局
    KILL = "kill"  # 被狼人<杀人> (M72's 激励 kill too)
    POISON = "poison"  # 被女巫<毒药>
    SHOT = "shot"  # 被猎人<最后一枪>
    RED_CARD = "red_card"  # 红牌罚下
    DIVINED = "divined"  # M72 狐狸: 被<占卜>时出局
    BARBECUE = "barbecue"  # 004: 因单身贵族<烧烤>
    MARTYR = "martyr"  # 004: 因情侣而<殉情>

    @property
    def chinese(self) -> str:
        """The seeds' words for it (``被投票出局``...)."""
        return _CAUSE_NAMES[self]


class Skill(StrEnum):
    """Every skill and decision key of the built-in engines (``UseSkill.skill``)."""

    # M72
    SLANDER = "slander"  # 乌鸦 诽谤
    GUARD = "guard"  # 守卫 守护之盾
    KILL = "kill"  # 杀人 (M08: the 狼头 picks the result)
    EXTRA_KILL = "extra_kill"  # 幼狼 激励: one more 杀人
    DIVINE = "divine"  # 占卜 (M72) / 预言 (M08)
    # M08
    LEADER_VOTE = "leader_vote"  # 争权
    PROPOSE = "propose"  # 指杀提议 (two-character reason)
    DUEL = "duel"  # 决战 proposal
    DUEL_AGREE = "duel_agree"  # 同意决战
    DUEL_KILLS = "duel_kills"  # 决战: 连续提交之后三天的刀法 (after the agreement)
    SAVE = "save"  # 救药
    POISON = "poison"  # 毒药
    # decisions after an elimination
    SHOOT = "shoot"  # 最后一枪
    SUCCESSION = "succession"  # 殉职
    LEADER_SUCCESSION = "leader_succession"  # 传位
    # 004 (game_rules.wa004.roles.Skill holds their rules)
    TRUE_LOVE = "true_love"  # 爱情追寻
    BREAKUP = "breakup"  # 分手
    ELOPE = "elope"  # 私奔
    NTR = "ntr"  # 牛头人
    RETAIN = "retain"  # 挽留
    DEFEND = "defend"  # 捍卫
    MARTYRDOM = "martyrdom"  # 殉情
    NOBILITY = "nobility"  # 尊贵
    BARBECUE = "barbecue"  # 烧烤
    NTR_CONSENT = "ntr_consent"  # wa004_consent: the 牛头人 target's answer


class Result(StrEnum):
    """A faction's result (``Outcome.results``)."""

    WIN = "win"
    LOSE = "lose"
    UNDECIDED = "undecided"


class Category(StrEnum):
    """What a card (or a finding) is for: the one list of violation categories.

    The seeds' 判罚依据 name these offences; each ruleset's ``rulesets/<id>.penalties.yaml`` maps
    the ones it forbids to its article. The game core owns the list because a card is a game
    fact and the core is the layer everything else stands on (the service, the console, the
    database's CHECK constraint); the screener, which may not import the core, names the subset
    its words and rules find (``lexicons.loader.CATEGORIES``, ``RULE_CATEGORIES``) and
    ``lexicons/categories.yaml`` their Chinese names, in this order (tests/test_one_source.py).
    """

    # found by the screener's words and sentence patterns
    INSULT = "insult"
    OATH = "oath"
    VEST = "vest"
    DIRECTOR = "director"
    EVIDENCE = "evidence"
    REAL_LIFE = "real_life"
    META = "meta"
    EMOTIONAL = "emotional"
    # found by the screener's rules over the raw post
    FONT = "font"
    WATER = "water"
    # game facts, judged by the core or the director
    ZOMBIE = "zombie"
    LURKING = "lurking"
    NO_VOTE = "no_vote"
    MISSED_ACTION = "missed_action"
    MULTI_ACCOUNT = "multi_account"
    CHEATING = "cheating"
    AVATAR = "avatar"
    OFF_SITE = "off_site"
    DELETE_POST = "delete_post"
    FLOOR_REPLY = "floor_reply"
    OTHER = "other"


class CardColour(Enum):
    """The four colours of the seeds' 判罚制度, ordered by :attr:`rank`.

    A plain :class:`~enum.Enum` (a colour is never a string; ``.value`` is its key)."""

    GREEN = "green"
    BLUE = "blue"
    YELLOW = "yellow"
    RED = "red"

    @property
    def chinese(self) -> str:
        """绿牌 / 蓝牌 / 黄牌 / 红牌."""
        return _COLOUR_NAMES[self]

    @property
    def meaning(self) -> str:
        """The seeds' one-word meaning: 没有违规 / 提醒 / 警告 / 罚下."""
        return _MEANING[self]

    @property
    def rank(self) -> int:
        """0 green … 3 red."""
        return _RANK[self]

    @classmethod
    def parse(cls, text: str | CardColour) -> CardColour:
        """A colour from its English value or Chinese name (``PenaltyError`` otherwise)."""
        if isinstance(text, CardColour):
            return text
        key = str(text).strip().lower()
        for colour in cls:
            if key in {colour.value, colour.chinese, colour.chinese[0]}:
                return colour
        raise PenaltyError("unknown_colour", f"不是牌的颜色：{text!r}（绿牌、蓝牌、黄牌、红牌）")


_PHASE_NAMES = {
    Phase.SETUP: "开局",
    Phase.DAY: "白天",
    Phase.NIGHT: "夜晚",
    Phase.ENDED: "游戏结束",
}
_CAUSE_NAMES = {
    Cause.VOTE: "被投票出局",
    Cause.KILL: "被指杀",
    Cause.POISON: "被毒药",
    Cause.SHOT: "被最后一枪",
    Cause.RED_CARD: "红牌罚下",
    Cause.DIVINED: "被占卜",
    Cause.BARBECUE: "被烧烤",
    Cause.MARTYR: "殉情",
}
_COLOUR_NAMES = {
    CardColour.GREEN: "绿牌",
    CardColour.BLUE: "蓝牌",
    CardColour.YELLOW: "黄牌",
    CardColour.RED: "红牌",
}
_MEANING = {
    CardColour.GREEN: "没有违规",
    CardColour.BLUE: "提醒",
    CardColour.YELLOW: "警告",
    CardColour.RED: "罚下",
}
_RANK = {CardColour.GREEN: 0, CardColour.BLUE: 1, CardColour.YELLOW: 2, CardColour.RED: 3}

#: the label tables of the service and the console, keyed by these sets (api/console/labels.py
#: refuses a key that is not a member)
LABELLED: dict[str, type[Enum]] = {
    "phases": Phase,
    "causes": Cause,
    "skills": Skill,
    "colours": CardColour,
}

# Plain ``str`` twins for the compiled engines' hot paths (reading a member off its class is a
# Python-level call in CPython 3.11; a module constant is not). Equal to the members.
RED_CARD: str = Cause.RED_CARD.value
VOTE: str = Cause.VOTE.value
SHOT: str = Cause.SHOT.value
POISON: str = Cause.POISON.value
MARTYR: str = Cause.MARTYR.value
BARBECUE: str = Cause.BARBECUE.value

__all__ = [
    "BARBECUE",
    "LABELLED",
    "MARTYR",
    "POISON",
    "RED_CARD",
    "SHOT",
    "VOTE",
    "CardColour",
    "Category",
    "Cause",
    "Phase",
    "Result",
    "Skill",
]
