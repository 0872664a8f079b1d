"""wa004-specific illegal-action errors. Each names the seed rule it enforces (``rule`` key).

They extend the core classes of :mod:`game_rules.errors`, so callers may catch those.
"""

from __future__ import annotations

from game_rules.errors import (
    IllegalActionError,
    InvalidTargetError,
    PendingDecisionError,
    SkillUsedUpError,
)


class TrueLoveChosenError(SkillUsedUpError):
    """爱情追寻 is chosen once, at the start of the game."""

    default_rule = "true_love_once"


class NotSingleError(IllegalActionError):
    """牛头人 needs the user to be single: 若你处于单身状态."""

    default_rule = "ntr_needs_single"


class NotInCoupleError(IllegalActionError):
    """分手 and 挽留 act on a couple the user must be in."""

    default_rule = "needs_couple"


class RetainWindowError(SkillUsedUpError):
    """挽留: 每两游戏日夜晚可选择一天使用."""

    default_rule = "retain_window"


class SelfTargetError(InvalidTargetError):
    """The skill names another character (选择一位其他玩家)."""

    default_rule = "self_target"


class ElopeWithLoverError(InvalidTargetError):
    """私奔 with one's own lover would change nothing."""

    default_rule = "elope_with_lover"


class NobleTargetError(InvalidTargetError):
    """烧烤 does not name a member of the 单身贵族 group."""

    default_rule = "barbecue_noble"


class ConsentNotAskedError(PendingDecisionError):
    """An answer to 牛头人 from a character with no open question (never asked, asked of someone
    else, or already answered; ``rules.ntr_consent: asked``, R8)."""

    default_rule = "ntr_consent_not_asked"


class ConsentChoiceError(IllegalActionError):
    """The answer to 牛头人 is 同意 (yes) or 不同意 (no), naming nobody."""

    default_rule = "ntr_consent_choice"
