"""A small server-side SVG chart: posts and cards per character per game day.

One row per character, one column per day. Each cell holds a bar for the day's counted posts
(with a tick at the ruleset's 潜水 threshold) and one small square per card given that day, in
the card's colour. Everything is built here from escaped text, so the page needs no script and
fetches nothing.

>>> svg = activity_chart(["饺子"], [1], {"饺子": {1: 3}}, {"饺子": {1: ["blue"]}}, threshold=5)
>>> svg.startswith("<svg") and "饺子" in svg and 'class="card card-blue"' in svg
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup, escape

NAME_W = 96
CELL_W = 112
ROW_H = 24
HEAD_H = 22
BAR_MAX_W = 58
BAR_H = 9
CARD_W = 7
CARD_H = 11
COLOURS = ("blue", "yellow", "red", "green")


def activity_chart(
    characters: Sequence[str],
    days: Sequence[int],
    posts: Mapping[str, Mapping[int, int]],
    cards: Mapping[str, Mapping[int, Sequence[str]]],
    *,
    threshold: int | None = None,
    out: Mapping[str, int] | None = None,
) -> Markup:
    """The chart as an inline ``<svg>`` element.

    ``posts[c][d]`` counted posts, ``cards[c][d]`` card colours given on day ``d``, ``threshold``
    the single-day 潜水 minimum (a tick on each bar), ``out[c]`` the day ``c`` left the game
    (later cells are greyed).
    """
    out = out or {}
    days = list(days) or [1]
    peak = max([threshold or 0, 1, *(n for per in posts.values() for n in per.values())])
    width = NAME_W + CELL_W * len(days) + 8
    height = HEAD_H + ROW_H * len(characters) + 6
    parts: list[str] = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="每名角色每天的发帖数与判罚">'
    ]
    for j, day in enumerate(days):
        x = NAME_W + CELL_W * j
        parts.append(f'<text class="chart-head" x="{x + 4}" y="15">第{int(day)}天</text>')
    for i, character in enumerate(characters):
        y = HEAD_H + ROW_H * i
        if i % 2 == 0:
            parts.append(
                f'<rect class="chart-zebra" x="0" y="{y}" width="{width}" height="{ROW_H}"/>'
            )
        parts.append(
            f'<text class="chart-name" x="4" y="{y + 16}">{escape(_clip(character))}</text>'
        )
        gone = out.get(character)
        for j, day in enumerate(days):
            x = NAME_W + CELL_W * j
            if gone is not None and day > gone:
                parts.append(
                    f'<rect class="chart-out" x="{x + 2}" y="{y + 3}" '
                    f'width="{CELL_W - 6}" height="{ROW_H - 6}"/>'
                )
                continue
            n = int(posts.get(character, {}).get(day, 0))
            low = threshold is not None and n < threshold
            bar_w = round(BAR_MAX_W * n / peak) if n else 0
            bar_class = "bar bar-low" if low else "bar"
            parts.append(
                f'<rect class="{bar_class}" x="{x + 4}" y="{y + 8}" width="{bar_w}" '
                f'height="{BAR_H}"><title>{escape(character)} 第{int(day)}天 {n}帖</title></rect>'
            )
            if threshold:
                tx = x + 4 + round(BAR_MAX_W * threshold / peak)
                parts.append(
                    f'<line class="threshold" x1="{tx}" y1="{y + 5}" x2="{tx}" '
                    f'y2="{y + 8 + BAR_H + 3}"/>'
                )
            parts.append(f'<text class="chart-num" x="{x + 8 + BAR_MAX_W}" y="{y + 16}">{n}</text>')
            for k, colour in enumerate(cards.get(character, {}).get(day, ())):
                cls = colour if colour in COLOURS else "green"
                cx = x + 8 + BAR_MAX_W + 18 + k * (CARD_W + 2)
                parts.append(
                    f'<rect class="card card-{cls}" x="{cx}" y="{y + 7}" width="{CARD_W}" '
                    f'height="{CARD_H}" rx="1"/>'
                )
    parts.append("</svg>")
    return Markup("".join(parts))


def _clip(name: str, limit: int = 7) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"
