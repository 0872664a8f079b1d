"""Resident memory with the screener loaded, and a forked child's first post (prints JSON).

Run by :mod:`bench.bench_moderation` in a fresh process, so nothing else the benchmark loaded
(jieba's global dictionary, other posts' memos) counts: the process loads the rules-only
screeners, then the model, warms them exactly as a preloading gunicorn master does
(:func:`api.screening.warm`), forks, and times the child's first new post against a later one.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def _rss() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024.0, 1)
    return 0.0


def _private(pid: int) -> float:
    kib = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(("Private_Clean:", "Private_Dirty:")):
            kib += int(line.split()[1])
    return round(kib / 1024.0, 1)


def main() -> int:
    bare = _rss()
    from api.screening import screen_posts, warm

    screen_posts("m08", ["预热一下"], use_classifier=False)
    rules = _rss()
    warm()
    full = _rss()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: two posts no process has seen
        t0 = time.perf_counter()
        screen_posts("m08", ["12号你就是个脑残吧，悍跳还跳不明白，投他"])
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        screen_posts("m08", ["9号发言太水了像狼，我这轮投他一票，女巫留好药"])
        later = time.perf_counter() - t0
        payload = json.dumps({"first": first, "later": later, "private": _private(os.getpid())})
        os.write(write, payload.encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.waitpid(pid, 0)
    child = json.loads(data)
    print(
        json.dumps(
            {
                "rss_bare": bare,
                "rss_rules": rules,
                "rss_full": full,
                "first_ms": round(child["first"] * 1000, 2),
                "later_ms": round(child["later"] * 1000, 2),
                "child_private": child["private"],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
