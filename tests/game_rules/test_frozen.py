"""``quick_frozen``: values built cheaply behave exactly as frozen dataclasses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field
from datetime import datetime

import pytest

from game_rules.actions import CastVote, UseSkill, action_from_dict, action_to_dict
from game_rules.errors import IllegalActionError
from game_rules.events import Told, VoteCast, event_from_dict, event_to_dict
from game_rules.frozen import quick_frozen
from game_rules.votes import Ballot, BallotBox, load_vote_policy


@quick_frozen
@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    count: int = 1
    tags: list[str] = field(default_factory=list)


def test_fields_defaults_and_factories() -> None:
    a, b = Sample("x"), Sample("x")
    assert (a.name, a.count, a.tags) == ("x", 1, [])
    assert a.tags is not b.tags  # each object gets its own default
    assert Sample("y", 3, ["t"]) == Sample(name="y", count=3, tags=["t"])
    assert type(a) is Sample and isinstance(a, Sample)


def test_assignment_and_deletion_are_refused() -> None:
    ballot = Ballot("甲", "乙", datetime(2026, 1, 1, 12))
    with pytest.raises(FrozenInstanceError):
        ballot.target = "丙"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del ballot.voter  # type: ignore[misc]
    vote = VoteCast("甲", "乙", 1)
    with pytest.raises(FrozenInstanceError):
        vote.day = 2  # type: ignore[misc]


def test_missing_and_unknown_arguments_raise_type_error() -> None:
    with pytest.raises(TypeError):
        Sample()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Sample("x", colour="red")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        UseSkill("甲")  # type: ignore[call-arg]


def test_equality_hash_and_repr_are_the_dataclass_ones() -> None:
    a = UseSkill("占卜", "divine", "饺子")
    assert a == UseSkill(actor="占卜", skill="divine", target="饺子")
    assert hash(a) == hash(UseSkill("占卜", "divine", "饺子"))
    assert a != UseSkill("占卜", "divine", "包子")
    assert (
        repr(a) == "UseSkill(actor='占卜', skill='divine', target='饺子', reason=None, choice=None)"
    )
    assert len({a, UseSkill("占卜", "divine", "饺子")}) == 1


def test_replace_copy_and_pickle_round_trip() -> None:
    told = Told(("甲",), 2, "占卜结果", "divine", {"wolf": True})
    assert dataclasses.replace(told, day=3) == Told(
        ("甲",), 3, "占卜结果", "divine", {"wolf": True}
    )
    assert copy.copy(told) == told
    assert copy.deepcopy(told) == told and copy.deepcopy(told).data is not told.data
    assert pickle.loads(pickle.dumps(told)) == told
    box = BallotBox().cast(
        Ballot("甲", "乙", datetime(2026, 1, 1, 12)),
        policy=load_vote_policy("m72"),
        closes_at=datetime(2026, 1, 2),
    )
    assert pickle.loads(pickle.dumps(box)) == box


def test_json_forms_are_unchanged() -> None:
    vote = VoteCast("甲", None, 2, at="2026-01-01T12:00:00", is_change=True)
    assert event_from_dict(event_to_dict(vote)) == vote
    action = CastVote("甲", "乙", at=datetime(2026, 1, 1, 12))
    assert action_from_dict(action_to_dict(action)) == action


def test_decorated_classes_cannot_be_subclassed() -> None:
    with pytest.raises(TypeError, match="cannot be subclassed"):

        class Louder(Sample):  # the definition itself must fail
            pass


def test_only_frozen_slotted_dataclasses_are_accepted() -> None:
    with pytest.raises(TypeError):

        @quick_frozen
        @dataclass(frozen=True)
        class NoSlots:
            x: int

    with pytest.raises(TypeError):

        @quick_frozen
        @dataclass(slots=True)
        class NotFrozen:
            x: int

    with pytest.raises(TypeError):

        @quick_frozen
        @dataclass(frozen=True, slots=True)
        class Checked:
            x: int

            def __post_init__(self) -> None:  # would silently not run
                raise AssertionError


def test_actions_refuse_wrongly_typed_fields_as_they_are_made() -> None:
    with pytest.raises(IllegalActionError, match=r"UseSkill.target: 3 is not str \| None"):
        UseSkill("甲", "divine", 3)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match=r"CastVote\.proxy"):
        CastVote("甲", "乙", proxy=1)  # type: ignore[arg-type]  # an int is not a bool
    with pytest.raises(IllegalActionError, match=r"CastVote\.at"):
        CastVote("甲", "乙", at="2026-01-01")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match=r"UseSkill\.target"):
        dataclasses.replace(UseSkill("甲", "divine", "乙"), target=["乙"])


def test_actions_take_subclasses_of_the_annotated_types() -> None:
    class Name(str):
        pass

    class Moment(datetime):
        pass

    vote = CastVote(Name("甲"), None, at=Moment(2026, 1, 1, 12))
    assert vote.voter == "甲" and vote.at == datetime(2026, 1, 1, 12)


def test_check_hook_sees_only_values_of_unnamed_types_after_defaults() -> None:
    seen: list[tuple[str, object]] = []

    def note(cls: type, name: str, value: object, allowed: tuple[type, ...]) -> None:
        seen.append((name, value))
        if value == "bad":
            raise ValueError(name)

    @quick_frozen(check=note)
    @dataclass(frozen=True, slots=True)
    class Checked:
        name: str
        count: int | None = None
        tags: list[str] = field(default_factory=list)

    assert Checked("x").tags == [] and seen == []  # the factory ran before the check
    Checked("x", True)  # a bool is not exactly an int: the hook decides
    assert seen == [("count", True)]
    with pytest.raises(ValueError, match="tags"):
        Checked("x", 1, "bad")  # type: ignore[arg-type]
