"""``bansha screen``.

``bansha screen "TEXT" [--ruleset m08]`` prints the findings of one post readably (Chinese category
names, the article's own words, span, how it matched, confidence).  ``bansha screen --file
IN.jsonl [--ruleset R] [--json]`` screens one JSON object per line (``text`` and optional ``id``)
with a progress bar on stderr; with ``--json`` it writes one JSON object per line to stdout::

    {"id": ..., "findings": [{"category", "article", "start", "end", "match", "via", "confidence",
                              "evidence"}]}

Bad lines (not JSON, no ``text``, too large) are reported on stderr with their line number and
skipped; the exit status is then 1.  ``bansha train`` lives in :mod:`bansha.train` (it reads the
service's database for ``--include-decisions``) and :mod:`moderation.training`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from lexicons.loader import known_rulesets
from moderation.screen import (
    AUTO,
    MAX_POST_BYTES,
    Finding,
    PostTooLargeError,
    Screener,
    display_names,
)

__all__ = ["JSON_KEYS", "format_findings", "screen_main"]

#: Keys of each finding in ``--json`` output.
JSON_KEYS = ("category", "article", "start", "end", "match", "via", "confidence", "evidence")

_BATCH = 256


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bansha screen",
        description="检查帖子是否违反版杀规则（判罚依据）。Screen posts for rule violations.",
    )
    p.add_argument("text", nargs="?", help="帖子文本 (the post text)")
    p.add_argument(
        "--file", metavar="IN.jsonl", help="JSON lines with 'text' and optional 'id' ('-' = stdin)"
    )
    p.add_argument(
        "--ruleset",
        default="m08",
        help=f"规则集 ruleset id: {', '.join(known_rulesets())} (默认 m08)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per post on stdout")
    p.add_argument("--no-model", action="store_true", help="do not load the trained classifier")
    p.add_argument(
        "--min-confidence", type=float, default=0.0, help="drop findings below this confidence"
    )
    return p


def _finding_json(f: Finding) -> dict[str, Any]:
    d = f.to_dict()
    return {k: d[k] for k in JSON_KEYS}


def _dump(obj: Any) -> str:
    text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates in the post: escape them instead of crashing
        text = json.dumps(obj, ensure_ascii=True)
    return text


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def format_findings(findings: Sequence[Finding], ruleset: str) -> str:
    """Readable Chinese report of one post's findings.

    >>> from moderation.screen import Screener
    >>> report = format_findings(Screener("m08", classifier=None).screen("你是傻逼"), "m08")
    >>> print(report.splitlines()[0])
    发现 1 处违规（规则集 M08）：
    >>> print(report.splitlines()[2])
        原文 2–4「傻逼」 词条：傻逼 方式：原文 置信度：0.95
    """
    if not findings:
        return f"未发现违规（规则集 {ruleset.upper()}）。"
    names = display_names()
    lines = [f"发现 {len(findings)} 处违规（规则集 {ruleset.upper()}）："]
    for i, f in enumerate(findings, start=1):
        cat = names["categories"].get(f.category, f.category)
        via = names["via"].get(f.via, f.via)
        lines.append(f"[{i}] {cat} — {f.article.label}：{f.article.text}")
        lines.append(
            f"    原文 {f.start}–{f.end}「{_printable(f.match)}」 词条：{f.term} "
            f"方式：{via} 置信度：{f.confidence:.2f}"
        )
        if f.evidence:  # a classifier finding: the words that drove the model
            shown = "、".join(f"{e.start}–{e.end}「{_printable(e.match)}」" for e in f.evidence)
            lines.append(f"    依据：{shown}")
        if f.severity.text:
            lines.append(f"    判罚提示：{f.severity.text}")
    return "\n".join(lines)


def _read_posts(stream: TextIO, errors: list[str]) -> Iterator[tuple[int, Any, str]]:
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"第{number}行：不是有效的 JSON（{exc.msg}）")
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
            errors.append(f"第{number}行：缺少字符串字段 'text'")
            continue
        yield number, obj.get("id"), obj["text"]


def _count_lines(path: str) -> int | None:
    if path == "-":
        return None
    try:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return None


class _NoBar:
    """Stands in for a tqdm bar where tqdm (an extra, ``.[train]``) is not installed."""

    def __init__(self, total: int | None, **_: Any) -> None:
        self.total = total
        self.n = 0

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int) -> None:
        self.n += n


def _progress_bar() -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar
    return tqdm


def _screen_file(args: argparse.Namespace, screener: Screener) -> int:
    errors: list[str] = []
    path: str = args.file
    try:
        stream: TextIO = (
            sys.stdin if path == "-" else open(path, encoding="utf-8", errors="replace")  # noqa: SIM115
        )
    except OSError as exc:
        print(f"bansha screen: 无法打开 {path}：{exc.strerror}", file=sys.stderr)
        return 2
    total = _count_lines(path)
    out = sys.stdout
    try:
        with _progress_bar()(total=total, file=sys.stderr, unit="帖", desc="screen") as bar:
            batch: list[tuple[int, Any, str]] = []
            for item in _read_posts(stream, errors):
                batch.append(item)
                if len(batch) >= _BATCH:
                    _flush(batch, screener, args, out, errors)
                    bar.update(len(batch))
                    batch = []
            if batch:
                _flush(batch, screener, args, out, errors)
                bar.update(len(batch))
            if bar.total is not None and bar.n < bar.total:
                bar.update(bar.total - bar.n)  # bad lines were read too
    finally:
        if stream is not sys.stdin:
            stream.close()
    for message in errors:
        print(f"bansha screen: {message}", file=sys.stderr)
    return 1 if errors else 0


def _flush(
    batch: list[tuple[int, Any, str]],
    screener: Screener,
    args: argparse.Namespace,
    out: TextIO,
    errors: list[str],
) -> None:
    ok: list[tuple[int, Any, str]] = []
    for number, post_id, text in batch:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_POST_BYTES:
            errors.append(f"第{number}行：{PostTooLargeError(size)}")
        else:
            ok.append((number, post_id, text))
    results = screener.screen_many([t for _, _, t in ok])
    for (_, post_id, _), findings in zip(ok, results, strict=True):
        if args.json:
            out.write(_dump({"id": post_id, "findings": [_finding_json(f) for f in findings]}))
            out.write("\n")
        else:
            out.write(f"== {post_id if post_id is not None else '(无 id)'} ==\n")
            out.write(format_findings(findings, screener.ruleset) + "\n")
    out.flush()


def screen_main(argv: Sequence[str]) -> int:
    """Entry point of ``bansha screen``; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(list(argv))
    if (args.text is None) == (args.file is None):
        parser.print_usage(sys.stderr)
        print("bansha screen: 请给出帖子文本或 --file（二选一）", file=sys.stderr)
        return 2
    if args.ruleset not in known_rulesets():
        print(
            f"bansha screen: 未知规则集 {args.ruleset!r}；可用：{', '.join(known_rulesets())}",
            file=sys.stderr,
        )
        return 2
    screener = Screener(
        args.ruleset,
        classifier=None if args.no_model else AUTO,
        min_confidence=args.min_confidence,
    )
    if args.file is not None:
        return _screen_file(args, screener)
    try:
        findings = screener.screen(args.text)
    except PostTooLargeError as exc:
        print(f"bansha screen: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(_dump({"id": None, "findings": [_finding_json(f) for f in findings]}))
    else:
        print(format_findings(findings, args.ruleset))
    return 0
