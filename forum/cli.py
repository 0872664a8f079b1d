"""``bansha follow URL --game ID --thread vote``: follow a Discuz! thread (see
:mod:`forum.follower`). The director token comes from ``$BANSHA_DIRECTOR_TOKEN`` or a file
(``--token-file``), never from the command line, where other users of the host could read it."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path


def follow_main(argv: Sequence[str]) -> int:
    """Parse the arguments and run the follower until the game ends."""
    parser = argparse.ArgumentParser(prog="bansha follow", description="follow a Discuz! thread")
    parser.add_argument("url", help="the thread's address (forum.php?mod=viewthread&tid=… )")
    parser.add_argument("--game", required=True, help="game id")
    parser.add_argument("--thread", required=True, choices=("discussion", "vote", "process"))
    parser.add_argument("--referee", default="http://127.0.0.1:8000", help="the referee service")
    parser.add_argument("--token-file", type=Path, help="file holding the director token")
    parser.add_argument(
        "--state", type=Path, help="state file (default var/follow-GAME-THREAD.json)"
    )
    parser.add_argument("--interval", type=float, default=60, help="seconds between polls (60)")
    parser.add_argument("--max-backoff", type=float, default=900, help="longest wait on errors")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)

    from forum.errors import ForumPageError
    from forum.follower import Follower

    if args.token_file:
        token = args.token_file.read_text(encoding="utf-8").strip()
    else:
        token = os.environ.get("BANSHA_DIRECTOR_TOKEN", "").strip()
    if not token:
        print(
            "bansha follow: 需要导演令牌（--token-file 或 BANSHA_DIRECTOR_TOKEN）", file=sys.stderr
        )
        return 2
    state = args.state or Path("var") / f"follow-{args.game}-{args.thread}.json"
    try:
        follower = Follower(
            args.url,
            game_id=args.game,
            thread=args.thread,
            referee_url=args.referee,
            token=token,
            state_path=state,
            poll_seconds=args.interval,
            max_backoff=args.max_backoff,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except ForumPageError as exc:
        print(f"bansha follow: {exc.message}", file=sys.stderr)
        return 2
    try:
        return follower.run()
    except KeyboardInterrupt:
        return 130
