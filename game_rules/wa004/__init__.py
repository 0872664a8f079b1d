"""Ruleset ``wa004``: 『白色相簿1&2』 (seed 000), the 13-player love game.

Importing this package registers the engine; play it through the core API::

    >>> from game_rules import new_game
    >>> g = new_game("wa004", [f"P{i:02}" for i in range(1, 14)], seed="doc")
    >>> g.state.phase  # 变节者 are choosing their true love
    'setup'
    >>> from game_rules import DeadlinePassed
    >>> _ = g.apply(DeadlinePassed())  # missing choices are drawn at random
    >>> g.state.phase, g.state.day
    ('day', 1)

Skill keys for ``UseSkill``: ``true_love`` (start), ``breakup``, ``elope``, ``ntr`` (变节者),
``retain``, ``defend`` (守护者), ``barbecue`` (单身贵族); with ``rules.ntr_consent: asked`` a
牛头人 target answers the decision ``ntr_consent`` (``choice`` yes/no, R8), and the director's
``DeadlinePassed`` counts a missing answer as 不同意. :mod:`game_rules.wa004.views` adds the
love-game views (lover, true love, marks, the 单身贵族 group). Rulings: docs/rulings/wa004.md.
"""

from __future__ import annotations

from game_rules.wa004.engine import Wa004Ruleset
from game_rules.wa004.roles import Faction, Role, Skill

__all__ = ["Faction", "Role", "Skill", "Wa004Ruleset"]
