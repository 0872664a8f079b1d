"""Identities, factions and skills of 『白色相簿1&2』 (ruleset ``wa004``).

Values are the keys used in ``rulesets/wa004.yaml`` and in the game state; the YAML holds the
Chinese names. ``StrEnum`` members compare equal to those plain strings.

>>> Role.NOBLE == "noble", Role.GUARDIAN.faction
(True, <Faction.GUARDIANS: 'guardians'>)
"""

from __future__ import annotations

from enum import StrEnum


class Faction(StrEnum):
    """The three factions (阵营) of seed 000."""

    BETRAYERS = "betrayers"  # 变节者阵营
    GUARDIANS = "guardians"  # 守护者阵营
    NOBLES = "nobles"  # 单身贵族阵营


class Role(StrEnum):
    """Identities (身份). A character converted by three 不会再爱 marks becomes ``NOBLE``."""

    BETRAYER = "betrayer"  # 变节者
    GUARDIAN = "guardian"  # 守护者
    NOBLE = "noble"  # 单身贵族

    @property
    def faction(self) -> Faction:
        """The faction the identity belongs to."""
        return _FACTION[self]


class Skill(StrEnum):
    """Skill keys (``UseSkill.skill``); the comment is the seed's name."""

    TRUE_LOVE = "true_love"  # 爱情追寻<强制>
    BREAKUP = "breakup"  # 分手
    ELOPE = "elope"  # 私奔
    NTR = "ntr"  # 牛头人（NTR）
    RETAIN = "retain"  # 挽留
    DEFEND = "defend"  # 捍卫
    MARTYRDOM = "martyrdom"  # 殉情<强制>
    NOBILITY = "nobility"  # 尊贵
    BARBECUE = "barbecue"  # 烧烤<强制>

    @property
    def label(self) -> str:
        """The seed's name of the skill.

        >>> Skill.NTR.label
        '牛头人'
        """
        return _LABELS[self]


_FACTION = {
    Role.BETRAYER: Faction.BETRAYERS,
    Role.GUARDIAN: Faction.GUARDIANS,
    Role.NOBLE: Faction.NOBLES,
}
_LABELS = {
    Skill.TRUE_LOVE: "爱情追寻",
    Skill.BREAKUP: "分手",
    Skill.ELOPE: "私奔",
    Skill.NTR: "牛头人",
    Skill.RETAIN: "挽留",
    Skill.DEFEND: "捍卫",
    Skill.MARTYRDOM: "殉情",
    Skill.NOBILITY: "尊贵",
    Skill.BARBECUE: "烧烤",
}

#: "使用次数为1。当你的情侣关系出现变化时，使用次数将恢复。"
COUNTED_SKILLS = frozenset({Skill.BREAKUP, Skill.ELOPE, Skill.NTR, Skill.DEFEND})
#: A 变节者 holds at most one of these per night (a new one replaces the old; R4).
LOVE_SKILLS = (Skill.BREAKUP, Skill.ELOPE, Skill.NTR)
NIGHT_SKILLS: dict[Role, tuple[Skill, ...]] = {
    Role.BETRAYER: LOVE_SKILLS,
    Role.GUARDIAN: (Skill.RETAIN, Skill.DEFEND),
    Role.NOBLE: (Skill.BARBECUE,),
}

# Plain ``str`` twins of the members and tables above, for the engine's hot paths: in CPython
# 3.11 reading a member off its class (``Skill.NTR``), ``.value`` and ``Skill(key)`` are
# Python-level calls, while a module constant or a dict look-up is not. Equal to the members.
BETRAYERS: str = Faction.BETRAYERS.value
GUARDIANS: str = Faction.GUARDIANS.value
NOBLES: str = Faction.NOBLES.value
BETRAYER: str = Role.BETRAYER.value
GUARDIAN: str = Role.GUARDIAN.value
NOBLE: str = Role.NOBLE.value
TRUE_LOVE: str = Skill.TRUE_LOVE.value
BREAKUP: str = Skill.BREAKUP.value
ELOPE: str = Skill.ELOPE.value
NTR: str = Skill.NTR.value
RETAIN: str = Skill.RETAIN.value
DEFEND: str = Skill.DEFEND.value
BARBECUE: str = Skill.BARBECUE.value
#: the decision a 牛头人 target takes under ``rules.ntr_consent: asked`` (R8): 同意 or not
NTR_CONSENT = "ntr_consent"
#: any string equal to a skill key -> that key as a plain ``str`` (None: no such skill)
SKILL_KEYS: dict[str, str] = {s.value: s.value for s in Skill}
SKILL_LABELS: dict[str, str] = {s.value: label for s, label in _LABELS.items()}
COUNTED_KEYS = frozenset(s.value for s in COUNTED_SKILLS)
LOVE_KEYS: tuple[str, ...] = tuple(s.value for s in LOVE_SKILLS)
NIGHT_SKILL_KEYS: dict[str, tuple[str, ...]] = {
    r.value: tuple(s.value for s in skills) for r, skills in NIGHT_SKILLS.items()
}
