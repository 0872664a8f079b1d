"""Errors raised by the game core.

Every error is a :class:`GameRuleError`, itself a :class:`ValueError`, and carries ``rule``: a short
English key naming the rule that was broken (``"dead_actor"``, ``"guard_repeat_target"``...), plus a
human message (Chinese rule text where the seed has it). A rejected action never changes the game.

>>> err = InvalidTargetError("guard_self", "守卫不能对自己使用<守护之盾>")
>>> isinstance(err, IllegalActionError), isinstance(err, ValueError), err.rule
(True, True, 'guard_self')
"""

from __future__ import annotations

from collections.abc import Iterable


class GameRuleError(ValueError):
    """Base class of every error the game core raises."""

    default_rule = "game_rule"

    def __init__(self, rule: str | None = None, message: str | None = None) -> None:
        self.rule = rule or self.default_rule
        self.message = message or self.rule
        super().__init__(f"[{self.rule}] {self.message}")


class IllegalActionError(GameRuleError):
    """An action that the rules forbid; the game is unchanged."""

    default_rule = "illegal_action"


class WrongPhaseError(IllegalActionError):
    """The action belongs to another phase (a night skill during the day, a vote at night...)."""

    default_rule = "wrong_phase"


class DeadActorError(IllegalActionError):
    """An eliminated character tried to act or vote."""

    default_rule = "dead_actor"


class InvalidTargetError(IllegalActionError):
    """The chosen target is forbidden (eliminated, self where self is excluded, repeated...)."""

    default_rule = "invalid_target"


class SkillUsedUpError(IllegalActionError):
    """A once-per-game (or once-per-night) skill was already used or is lost."""

    default_rule = "skill_used_up"


class NotYourSkillError(IllegalActionError):
    """The actor's role (or status) does not hold this skill."""

    default_rule = "not_your_skill"


class UnknownCharacterError(GameRuleError):
    """A name that is no character of this game."""

    default_rule = "unknown_character"


class GameOverError(IllegalActionError):
    """The game has ended; nothing more may be applied."""

    default_rule = "game_over"


class SubstitutionError(IllegalActionError):
    """替补 refused (a character may be substituted only once)."""

    default_rule = "substitution_once"


class WithdrawalError(IllegalActionError):
    """A red card's ejection or a night action that cannot be withdrawn (not the latest event,
    none to withdraw, or another choice of the night depends on it)."""

    default_rule = "withdrawal_refused"


class PendingDecisionError(IllegalActionError):
    """A decision the rules require first (最后一枪, 殉职, 传位) is still open."""

    default_rule = "pending_decision"


class UnknownRulesetError(GameRuleError):
    """No ruleset is registered under this id."""

    default_rule = "unknown_ruleset"


class ParameterError(GameRuleError):
    """Ruleset parameters (YAML data or overrides) are inconsistent."""

    default_rule = "bad_parameters"


class CharacterNameError(ParameterError):
    """A character name that cannot be told apart safely (invisible characters, a collision after
    normalisation, a vote keyword); the message names the offending name in Chinese."""

    default_rule = "bad_character_name"


class LogError(GameRuleError):
    """An event log cannot be rebuilt (unknown event type, mismatch with seed or players)."""

    default_rule = "bad_log"


class ScriptError(GameRuleError):
    """A YAML game script is malformed; ``where`` names the file and step."""

    default_rule = "bad_script"

    def __init__(self, where: str, message: str, rule: str | None = None) -> None:
        self.where = where
        super().__init__(rule or self.default_rule, f"{where}: {message}")


# -- votes (game_rules.votes) -------------------------------------------------------------------


class PenaltyError(GameRuleError):
    """Bad penalty input (unknown article or category, uncardable character, bad activity data)."""

    default_rule = "penalty"


class VoteError(GameRuleError):
    """Base class of every vote error; ``.rule`` is a short English key."""

    default_rule = "vote"


class InvalidVoteError(VoteError):
    """The post is not a valid vote (废票, not counted); the message says what is wrong."""

    default_rule = "invalid_vote"


class AmbiguousVoteError(InvalidVoteError):
    """The name written matches several living characters; ``.matches`` lists them, sorted."""

    default_rule = "ambiguous_target"

    def __init__(self, written: str, matches: Iterable[str]) -> None:
        self.written = written
        self.matches: tuple[str, ...] = tuple(sorted(matches))
        listed = "、".join(self.matches)
        super().__init__(
            self.default_rule, f"投票对象“{written}”同时对应多名角色：{listed}；请写明角色名"
        )


class UnknownCandidateError(InvalidVoteError):
    """The name written is no living character (nor a unique alias of one)."""

    default_rule = "unknown_target"

    def __init__(self, written: str) -> None:
        self.written = written
        super().__init__(self.default_rule, f"投票对象“{written}”不是任何一名未出局的角色")


class VoteRejectedError(VoteError, IllegalActionError):
    """A well-formed ballot the ruleset forbids (change limit, last hour, 加速, 代投 deadline...).

    ``.rule`` is the rule key (see :data:`REJECTION_RULES`), ``.quote`` the seed's wording.
    """

    default_rule = "vote_rejected"

    def __init__(self, rule: str, message: str, quote: str = "") -> None:
        self.quote = quote
        text = f"{message}（规则：“{quote}”）" if quote else message
        super().__init__(rule, text)
