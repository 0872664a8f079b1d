"""Moderation throughput and memory, with jieba's own ``lcut`` as the yardstick.

Measured in one run on the same fixed post sample (the project's ``corpus/*.jsonl`` when present,
else ``bench/moderation_sample.txt``), on one core:

* ``screen`` single: ``Screener.screen`` one post at a time (rules, and the model if present);
* ``screen_many`` batch: the whole sample in batches of 256 (the classifier runs per batch);
* when a model is loaded, also ``screen`` without it, to show the rule engine's share;
* reference: ``jieba.lcut`` (precise mode, jieba's default) over the same posts;
* resident memory (peak RSS) of the process once lexicons (and the model, if present) are loaded.

Run alone: ``python -m bench.bench_moderation`` (prints the results as JSON).
"""

from __future__ import annotations

import json
import logging
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).resolve().parent / "moderation_sample.txt"
MAX_POSTS = 2000
MIN_SECONDS = 1.5


def load_posts() -> tuple[list[str], str]:
    """The fixed post sample and where it came from (sorted by id for a stable order)."""
    rows: list[tuple[str, str]] = []
    for path in sorted((ROOT / "corpus").glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("text"), str):
                    rows.append((str(obj.get("id", "")), obj["text"]))
    if rows:
        rows.sort()
        step = max(1, len(rows) // MAX_POSTS)
        return [t for _, t in rows[::step][:MAX_POSTS]], "corpus/*.jsonl"
    text = SAMPLE.read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return lines, "bench/moderation_sample.txt"


def _rate(fn: Callable[[], Any], count: int) -> float:
    """Items per second of ``fn`` (which processes ``count`` items), best of repeated runs."""
    fn()  # warm caches (per-character tables, jieba dictionary)
    best = float("inf")
    spent = 0.0
    runs = 0
    while spent < MIN_SECONDS or runs < 2:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best = min(best, dt)
        spent += dt
        runs += 1
        if runs >= 20:
            break
    return count / best


def _rss_mib() -> float:
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak_kib / 1024.0


def run() -> list[dict[str, Any]]:
    """Benchmark results in the shape ``bench/run.py`` expects."""
    import jieba

    from moderation.screen import Screener

    jieba.setLogLevel(logging.WARNING)
    posts, source = load_posts()
    n = len(posts)
    chars = sum(len(p) for p in posts)
    screener = Screener("m08")
    model = "with the trained model" if screener.classifier is not None else "rules only (no model)"
    jieba.lcut(posts[0])

    def jieba_all() -> None:
        for p in posts:
            jieba.lcut(p)

    def single() -> None:
        for p in posts:
            screener.screen(p)

    def batch() -> None:
        for i in range(0, n, 256):
            screener.screen_many(posts[i : i + 256])

    ref = _rate(jieba_all, n)
    one = _rate(single, n)
    many = _rate(batch, n)
    rss = _rss_mib()
    note = f"{n} posts ({chars} chars) from {source}; {model}; one core"
    ref_label = "jieba.lcut (precise mode) on the same posts"
    extra: list[dict[str, Any]] = []
    if screener.classifier is not None:
        rules = Screener("m08", classifier=None)

        def rules_only() -> None:
            for p in posts:
                rules.screen(p)

        extra.append(
            {
                "name": "moderation: screen without the model (lexicons + patterns only)",
                "value": round(_rate(rules_only, n), 1),
                "unit": "posts/s",
                "reference": ref_label,
                "reference_value": round(ref, 1),
                "higher_is_better": True,
                "note": f"{n} posts from {source}; shows the rule engine's share of the time",
            }
        )
    return [
        *extra,
        {
            "name": "moderation: screen, one post at a time",
            "value": round(one, 1),
            "unit": "posts/s",
            "reference": ref_label,
            "reference_value": round(ref, 1),
            "higher_is_better": True,
            "note": note + f"; goal >= {ref / 2:.0f} posts/s (half of jieba)",
        },
        {
            "name": "moderation: screen_many, batches of 256",
            "value": round(many, 1),
            "unit": "posts/s",
            "reference": ref_label,
            "reference_value": round(ref, 1),
            "higher_is_better": True,
            "note": note,
        },
        {
            "name": "moderation: resident memory with lexicons loaded",
            "value": round(rss, 1),
            "unit": "MiB (peak RSS)",
            "reference": "none (absolute figure)",
            "reference_value": 0.0,
            "higher_is_better": False,
            "note": f"{model}; includes Python, jieba's dictionary, OpenCC and pypinyin tables",
        },
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the results as JSON."""
    print(json.dumps(run(), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
