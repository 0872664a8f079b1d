"""``bansha import FILE --game ID --thread discussion|vote|process``: import a saved thread page.

Runs beside the service on the same database (like ``bansha token``): the page is parsed, its
posts by accounts that play a character are screened and ingested in one transaction, and the
accounts nobody plays yet are listed, to be mapped in the console (论坛导入) and imported again.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from api.commands import add_url_option, parse, ready_database, refuse

PROG = "bansha import"


def report_lines(report: object) -> list[str]:
    """The report as the director reads it (Chinese)."""
    from api.intake import ImportReport

    assert isinstance(report, ImportReport)
    lines = [f"新增 {len(report.added)} 帖，已存在 {len(report.already)} 帖"]
    for row in report.added:
        where = f"{row['floor']}楼" if row["floor"] else f"{row['reply_floor']}楼的楼中楼"
        findings = len([f for f in row["findings"] if f["category"] != "water"])
        vote = row.get("vote") or {}
        extra = f"，投票：{vote.get('status')}" if vote else ""
        lines.append(f"  + {where} {row['account']} → {row['author']}：{findings} 项发现{extra}")
    if report.deleted_floors:
        lines.append("已删除的楼层：" + "、".join(f"{n}楼" for n in report.deleted_floors))
    for account, count in sorted(report.unmapped.items()):
        why = "（对应多个角色）" if account in report.ambiguous else ""
        lines.append(f"未对应角色的账号：{account}{why}，{count} 帖未导入")
    return lines


def import_main(argv: Sequence[str]) -> int:
    """Parse the arguments, import the page, print what happened."""
    parser = argparse.ArgumentParser(prog="bansha import", description="import a saved thread page")
    parser.add_argument("file", type=Path, help="the saved HTML page (网页，全部 / 网页，仅HTML)")
    parser.add_argument("--game", required=True, help="game id")
    parser.add_argument("--thread", required=True, choices=("discussion", "vote", "process"))
    parser.add_argument("--day", type=int, help="the game day the posts belong to (default: today)")
    parser.add_argument("--zone", default="Asia/Shanghai", help="the forum's time zone")
    add_url_option(parser)
    args = parse(parser, argv)
    if isinstance(args, int):
        return args

    from api.app import create_app
    from api.errors import NotFound
    from api.intake import IntakeError, import_page
    from forum.errors import ForumPageError
    from forum.page import read_page

    url = ready_database(PROG, args.url)
    if url is None:
        return 1
    try:
        data = args.file.read_bytes()
    except OSError as exc:
        return refuse(PROG, f"无法读取文件 {args.file}：{exc.strerror}")
    app = create_app({"DATABASE_URL": url})
    try:
        with app.app_context():
            page = read_page(data, args.zone)
            report = import_page(
                args.game, page, args.thread, day=args.day, caller=None, actor="operator"
            )
    except (ForumPageError, IntakeError) as exc:
        return refuse(PROG, f"{exc.message}（未导入任何帖子）")
    except NotFound as exc:
        return refuse(PROG, exc.message)
    finally:
        app.extensions["bansha_db"].dispose()
    print("\n".join(report_lines(report)))
    return 0
