"""Forum intake: read a thread's posts from the forum's own markup and hand them to the referee.

Pure parsers (no Flask, no database): :mod:`forum.page` decodes a saved page and picks the
parser, :mod:`forum.discuz` reads a Discuz! X3.x ``viewthread`` page and the mobile API's JSON,
:mod:`forum.tieba` reads a Tieba thread page, :mod:`forum.text` turns post markup into the text the
screener reads, :mod:`forum.authors` matches forum accounts (马甲) to characters, and
:mod:`forum.follower` polls a Discuz! thread and submits new posts over the referee's HTTP API.
Where each selector and field comes from is written down in ``docs/forum.md``.
"""
