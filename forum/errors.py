"""What the intake refuses, with a stable ``.rule`` key and a Chinese message for the director."""

from __future__ import annotations


class ForumPageError(ValueError):
    """A page (or API answer) the intake cannot read; nothing of it is imported.

    >>> err = ForumPageError("not_a_thread", "这不是贴吧或 Discuz! 的帖子页面")
    >>> err.rule, isinstance(err, ValueError)
    ('not_a_thread', True)
    """

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        self.message = message
        super().__init__(f"[{rule}] {message}")
