"""Moderation throughput on unique posts, first pass, with jieba itself as the yardstick.

Posts: realistic, unique forum posts made deterministically from the corpus (``corpus/*.jsonl``, or
``bench/moderation_sample.txt`` without one) by recombining its sentences (seeded shuffles, one to
three sentences a post, every post distinct), so that no text-keyed cache has seen a post before
it is timed. Each pipeline figure gets its own set of posts, screened **once** (the first pass a
forum's stream of new posts gets), and the two references are timed on that very set in the same
slice:

* ``jieba.lcut`` (precise mode with HMM, jieba's default);
* jieba without HMM (``Tokenizer.lcut(HMM=False)`` with the game vocabulary): what the screener's
  own cutting computes.

Text-keyed memos (the word cuts of each distinct Han block, the pinyin of each distinct Han run, the
reading of each letter run) are cleared before each figure's set: the posts are recombined from
the corpus's sentences, so runs of earlier sets would otherwise come back memoised. The same
pipeline is then timed on a second set of unique posts with the memos as the first set left
them (a long-running worker's state), reported in the note. Per-character tables stay: every
worker has them. After warming, the collector is frozen (``gc.freeze``) as the service's
preloaded master does (:func:`api.screening.warm`).

Figures: the full pipeline **with the trained model** (``var/model.skops`` or ``$BANSHA_MODEL``;
trained into a temporary file when there is none), one post at a time and ``screen_many`` in
batches of 256, and the same two rules only. Goals (issue 17): full pipeline >= 2.0x ``jieba.lcut``,
rules only >= 5x. Memory is measured in a fresh process (``python -m bench.fork_probe``): resident
memory with lexicons and the model loaded and warmed, and a forked child's first post against a
later one (the preloaded gunicorn master's situation).

Run alone: ``python -m bench.bench_moderation`` (prints the results as JSON).
"""

from __future__ import annotations

import gc
import json
import logging
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).resolve().parent / "moderation_sample.txt"
POSTS_PER_SET = 2500
BATCH = 256
SEED = 17
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")


def _corpus_texts() -> tuple[list[str], str]:
    texts: list[str] = []
    for path in sorted((ROOT / "corpus").glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("text"), str):
                    texts.append(obj["text"])
    if texts:
        return texts, "corpus/*.jsonl"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    return [ln for ln in lines if ln.strip() and not ln.startswith("#")], SAMPLE.name


def unique_posts(sets: int, per_set: int = POSTS_PER_SET) -> tuple[list[list[str]], str]:
    """``sets`` disjoint lists of unique posts recombined from the corpus's sentences."""
    texts, source = _corpus_texts()
    sentences = sorted({m.group().strip() for t in texts for m in _SENTENCE.finditer(t)} - {""})
    rng = random.Random(SEED)
    seen: set[str] = set(texts)  # not even a corpus post as it stands
    posts: list[str] = []
    while len(posts) < sets * per_set:
        post = "".join(rng.sample(sentences, rng.choice((1, 2, 2, 3))))
        if post not in seen and len(post) <= 400:
            seen.add(post)
            posts.append(post)
    return [posts[i * per_set : (i + 1) * per_set] for i in range(sets)], source


def _rss_mib() -> float:
    """Current resident set size of this process (VmRSS), in MiB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _model(workdir: Path) -> tuple[Any, str]:
    """The trained model and where it came from; trains one from the corpus if there is none."""
    from moderation.classifier import ModelFileError, PostClassifier, default_model_path

    path = default_model_path()
    if not path.is_absolute():
        path = ROOT / path
    try:
        return PostClassifier.load(path), str(
            path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        )
    except ModelFileError:
        pass
    if not list((ROOT / "corpus").glob("*.jsonl")):
        return None, "no model and no corpus to train one"
    from moderation.training import train

    model, _, _, seconds = train(ROOT / "corpus")
    model.save(workdir / "model.skops")
    return model, f"trained for this run from corpus/ ({seconds:.0f} s)"


def _forget_text_memos() -> None:
    """Clear the memos keyed by pieces of post text (see the module docstring)."""
    from moderation import features, wordseg

    wordseg._FAST_BLOCKS.clear()
    features._run_pinyin.clear()
    features.split_pinyin.cache_clear()


def _probe() -> dict[str, Any]:
    """Memory and fork latency, measured in a fresh process (see :mod:`bench.fork_probe`)."""
    out = subprocess.run(
        [sys.executable, "-m", "bench.fork_probe"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def run() -> list[dict[str, Any]]:
    """Benchmark results in the shape ``bench/run.py`` expects."""
    import jieba

    from api.screening import _WARM_POSTS
    from moderation.screen import Screener
    from moderation.wordseg import tokenizer

    jieba.setLogLevel(logging.WARNING)
    sets, source = unique_posts(8)
    jieba.lcut(_WARM_POSTS[0])
    game_jieba = tokenizer()
    with tempfile.TemporaryDirectory(prefix="bansha-bench-") as tmp:
        model, model_source = _model(Path(tmp))
    rules = Screener("m08", classifier=None)
    full = Screener("m08", classifier=model) if model is not None else None
    for screener in (rules, full):
        if screener is not None:  # build the tables on other posts than the timed ones
            screener.screen_many(list(_WARM_POSTS))
            for p in _WARM_POSTS:
                screener.screen(p)
    gc.collect()
    gc.freeze()  # as the preloaded master does before it forks its workers

    def timed(fn: Callable[[], Any]) -> float:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    def single(screener: Screener, posts: Sequence[str]) -> Callable[[], None]:
        return lambda: [screener.screen(p) for p in posts] and None

    def batch(screener: Screener, posts: Sequence[str]) -> Callable[[], None]:
        return lambda: (
            [screener.screen_many(posts[i : i + BATCH]) for i in range(0, len(posts), BATCH)]
            and None
        )

    plan: list[tuple[str, Screener | None, Callable[..., Callable[[], None]], str]] = [
        ("full single", full, single, "full pipeline with the model, one post at a time"),
        (
            "full batch",
            full,
            batch,
            f"full pipeline with the model, screen_many batches of {BATCH}",
        ),
        ("rules single", rules, single, "rules only (no model), one post at a time"),
        ("rules batch", rules, batch, f"rules only (no model), screen_many batches of {BATCH}"),
    ]
    out: list[dict[str, Any]] = []
    for (key, screener, shape, label), posts, again in zip(plan, sets[:4], sets[4:], strict=True):
        n = len(posts)
        chars = sum(map(len, posts))
        if screener is None:
            continue
        _forget_text_memos()
        t_lcut = timed(lambda ps=posts: [jieba.lcut(p) for p in ps])
        t_nohmm = timed(lambda ps=posts: [game_jieba.lcut(p, HMM=False) for p in ps])
        t_pipe = timed(shape(screener, posts))
        # a second set of unique posts, the memos as the first set left them
        t_lcut_warm = timed(lambda ps=again: [jieba.lcut(p) for p in ps])
        t_warm = timed(shape(screener, again))
        goal = "2.0" if key.startswith("full") else "5"
        out.append(
            {
                "name": f"moderation: {label}, unique posts, first pass",
                "value": round(n / t_pipe, 1),
                "unit": "posts/s",
                "reference": "jieba.lcut (precise mode, HMM) on the same posts",
                "reference_value": round(n / t_lcut, 1),
                "higher_is_better": True,
                "note": f"goal: ratio >= {goal}; {n} unique posts ({chars / n:.0f} chars on "
                f"average) recombined from {source}, each screened once, text memos cleared "
                f"first; jieba without HMM (the screener's cutting) {n / t_nohmm:,.0f} posts/s, "
                f"ratio {t_nohmm / t_pipe:.2f}; another {len(again)} unique posts with the "
                f"memos as these left them: {len(again) / t_warm:,.0f} posts/s, ratio "
                f"{t_lcut_warm / t_warm:.2f}; m08; one core"
                + (f"; model: {model_source}" if key.startswith("full") else ""),
            }
        )
    probe = _probe()
    out += [
        {
            "name": "moderation: resident memory, lexicons and model loaded and warmed",
            "value": probe["rss_full"],
            "unit": "MiB (VmRSS)",
            "reference": "the same process before loading anything (Python and imports)",
            "reference_value": probe["rss_bare"],
            "higher_is_better": False,
            "note": f"goal <= 250 MiB; rules only (lexicons, jieba-rs and the word trie, "
            f"OpenCC, the pinyin tables, the service's imports): "
            f"{probe['rss_rules']} MiB; a fresh process (python -m bench.fork_probe)",
        },
        {
            "name": "moderation: a forked worker's first screened post (preloaded, warmed)",
            "value": probe["first_ms"],
            "unit": "ms",
            "reference": "the same child's later post",
            "reference_value": probe["later_ms"],
            "higher_is_better": False,
            "note": f"goal <= 50 ms; the child's private memory after both posts: "
            f"{probe['child_private']} MiB (smaps_rollup Private_Clean + Private_Dirty)",
        },
    ]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the results as JSON."""
    print(json.dumps(run(), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
