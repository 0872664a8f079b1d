"""Referee service throughput: gunicorn on loopback, load from a separate process.

The server is ``gunicorn 'api:create_app()'`` on 127.0.0.1 (a free port) over a fresh SQLite file
(the default backend) with the trained model if ``var/model.skops`` exists. A separate Python
process drives it with keep-alive ``http.client`` connections from a few threads, each phase
bounded in time and in request count. Measured in the same run:

* ``GET /healthz`` — the trivial endpoint, the yardstick for what the stack itself costs;
* single posts — one screened post per ``POST /api/games/{id}/posts``;
* batches — 100 screened posts per request.

The phases take turns in ``ROUNDS`` rounds (4; ``BENCH_ROUNDS``) of a quarter of their time
each, and each phase's rounds are pooled: on a machine shared with other work, a burst of that
work then slows every phase alike instead of whichever phase it happened to land in. Each phase
also reports the server's CPU time per request (master and workers, from ``/proc``), which does
not depend on the share of the cores the machine left the server. Every phase uses the same
client: the same process, threads and keep-alive connections (batches aside, see below).

Posts are realistic game talk with a share of offending ones, unique forum ids, spread over a few
games the way one service hosts several forums' games.

Configuration (2 cores, shared by the server and the load process, so neither gets a core to
itself): ``gunicorn -w 3 -k gthread --threads 2`` — a third worker keeps a core busy while another
waits for SQLite's single writer lock. Measured alternatives on this machine (single posts with the
classifier, same code): ``-w 2 --threads 2``, ``-w 4 --threads 1``, ``-w 6 --threads 1`` and
``-w 4 --threads 2`` were within the run-to-run noise (±15 %) or worse, so the default stays. The
load process uses 6 keep-alive client threads for single posts and 2 for batches (3 or 4 batch
clients only queued requests: p99 2-3× higher for no more posts/s). Each batch request opens a new
connection, as a forum importer posting a batch now and then would: with keep-alive, both batch
connections were accepted by one worker in about a third of runs, and the whole phase then
measured one core (screening is CPU-bound and one process runs Python on one core): ~8,000
instead of ~13,000 posts/s with the classifier. With a new connection per request, whichever
worker accepts first serves it, so that bad luck is averaged over every request instead of fixed
for the phase (runs then agree within ~5 %, a little under the lucky keep-alive runs). Connecting
costs well under a millisecond of a ~10 ms batch request and is included in its latency.
Override with ``BENCH_WORKERS``, ``BENCH_THREADS``, ``BENCH_WORKER_CLASS``, ``BENCH_CLIENTS`` and
``BENCH_BATCH_CLIENTS``.

Run alone: ``python -m bench.bench_service`` (prints the results as JSON).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = [f"玩家{i}" for i in range(1, 13)]
GAMES = 4
BATCH = 100
WORKERS = int(os.environ.get("BENCH_WORKERS", 3))  # 2 cores; a third hides DB waits (see above)
THREADS = int(os.environ.get("BENCH_THREADS", 2))
WORKER_CLASS = os.environ.get("BENCH_WORKER_CLASS", "gthread")
PHASES = ("healthz", "single", "batch")
#: each phase's time and request budget in all, spread over ROUNDS interleaved rounds
PHASE_SECONDS = {"healthz": 2.0, "single": 4.0, "batch": 4.0}
MAX_REQUESTS = {"healthz": 50_000, "single": 20_000, "batch": 2_000}
ROUNDS = int(os.environ.get("BENCH_ROUNDS", 4))
CLIENT_THREADS = {
    "healthz": int(os.environ.get("BENCH_CLIENTS", 6)),
    "single": int(os.environ.get("BENCH_CLIENTS", 6)),
    "batch": int(os.environ.get("BENCH_BATCH_CLIENTS", 2)),
}

#: phases whose every request opens a new connection (see the module docstring)
FRESH_CONNECTIONS = frozenset({"batch"})

CLEAN = [
    "昨晚被刀的是{a}，今天查杀{b}，金水是{c}",
    "我觉得{a}的发言有点划水，站边{b}",
    "{a}悍跳预言家的可能性很大，警徽流先验{b}",
    "投{a}吧，他昨天倒钩的痕迹太明显了",
    "同意楼上，{b}和{c}像是一个阵营的",
    "今天先听听{a}怎么解释昨晚的刀法",
]
OFFENDING = [
    "{a}你个ＳＢ，别乱跳",
    "我拿人格担保我是好人",
    "我上一场也是这个马甲",
    "[color=#FF0000]我是预言家[/color]",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _body(i: int) -> str:
    a, b, c = PLAYERS[i % 12], PLAYERS[(i * 7 + 3) % 12], PLAYERS[(i * 5 + 1) % 12]
    pool = OFFENDING if i % 10 == 0 else CLEAN
    return pool[i % len(pool)].format(a=a, b=b, c=c)


def _post(prefix: str, i: int) -> dict[str, Any]:
    return {
        "forum_post_id": f"{prefix}-{i}",
        "author": PLAYERS[i % 12],
        "thread": "discussion",
        "day": 1,
        "body": _body(i),
        "posted_at": "2026-11-29T20:00:00+08:00",
    }


# ---------------------------------------------------------------------------------------------
# The load process


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def load(port: int, phase: str, games: list[dict[str, str]], round_: int = 0) -> dict[str, Any]:
    """Drive one round of one phase from this process; return its request count, wall time
    and every latency (the rounds of a phase are pooled by :func:`_pooled`)."""
    import http.client
    import threading

    deadline = time.perf_counter() + PHASE_SECONDS[phase] / ROUNDS
    budget = MAX_REQUESTS[phase] // ROUNDS
    lock = threading.Lock()
    issued = [0]
    latencies: list[float] = []
    errors: list[str] = []
    posts_done = [0]

    def worker(tid: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        n = 0
        while time.perf_counter() < deadline:
            with lock:
                if issued[0] >= budget:
                    break
                issued[0] += 1
                seq = issued[0]
            game = games[seq % len(games)]
            headers = {"Content-Type": "application/json"}
            if phase == "healthz":
                method, path, data, count = "GET", "/healthz", None, 0
            else:
                headers["Authorization"] = f"Bearer {game['token']}"
                path = f"/api/games/{game['id']}/posts"
                method = "POST"
                prefix = f"{phase}-{round_}-{tid}-{n}"  # unique forum ids in every round
                if phase == "single":
                    payload: Any = _post(prefix, seq)
                    count = 1
                else:
                    payload = {"posts": [_post(prefix, seq * BATCH + k) for k in range(BATCH)]}
                    count = BATCH
                data = json.dumps(payload, ensure_ascii=False).encode()
            n += 1
            start = time.perf_counter()
            try:
                conn.request(method, path, body=data, headers=headers)
                response = conn.getresponse()
                response.read()
                status = response.status
                if phase in FRESH_CONNECTIONS:
                    conn.close()  # the next request connects again (http.client auto-opens)
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                with lock:
                    errors.append(type(exc).__name__)
                continue
            elapsed = time.perf_counter() - start
            with lock:
                if status == 200:
                    latencies.append(elapsed)
                    posts_done[0] += count
                else:
                    errors.append(str(status))
        conn.close()

    began = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(CLIENT_THREADS[phase])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "phase": phase,
        "seconds": time.perf_counter() - began,
        "posts": posts_done[0],
        "latencies": latencies,
        "errors": errors,
    }


def _pooled(rounds: list[dict[str, Any]], server_cpu: float) -> dict[str, Any]:
    """A phase's rounds as one: throughput over their summed time, percentiles of every
    latency, and the server's CPU time (master and workers) per request."""
    latencies = [x for r in rounds for x in r["latencies"]]
    errors = [e for r in rounds for e in r["errors"]]
    wall = sum(r["seconds"] for r in rounds)
    posts = sum(r["posts"] for r in rounds)
    return {
        "phase": rounds[0]["phase"],
        "requests": len(latencies),
        "posts": posts,
        "seconds": wall,
        "requests_per_s": len(latencies) / wall,
        "posts_per_s": posts / wall,
        "p50_ms": _percentile(latencies, 0.50) * 1000,
        "p99_ms": _percentile(latencies, 0.99) * 1000,
        "server_cpu_ms": server_cpu * 1000 / max(1, len(latencies)),
        "errors": len(errors),
        "error_kinds": sorted(set(errors))[:5],
    }


def _load_main(argv: list[str]) -> int:
    port, phase, games_json, round_ = int(argv[0]), argv[1], argv[2], int(argv[3])
    print(json.dumps(load(port, phase, json.loads(games_json), round_)))
    return 0


# ---------------------------------------------------------------------------------------------
# The server and the run


def _request(port: int, method: str, path: str, body: Any = None, token: str = "") -> Any:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=None if body is None else json.dumps(body).encode(),
                 headers=headers)  # fmt: skip
    response = conn.getresponse()
    data = json.loads(response.read() or b"null")
    conn.close()
    return data


def model_path() -> Path | None:
    """The trained model the service would load (``$BANSHA_MODEL`` or ``var/model.skops``)."""
    path = Path(os.environ.get("BANSHA_MODEL") or ROOT / "var" / "model.skops")
    return path if path.is_file() else None


def measure(classifier: bool = False) -> dict[str, dict[str, Any]]:
    """Start gunicorn, run every phase from a separate load process, stop gunicorn.

    ``classifier``: screen with the trained model too (as ``make run`` does when it exists).
    """
    tmp = Path(tempfile.mkdtemp(prefix="bansha-bench-"))
    url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    sys.path.insert(0, str(ROOT))
    from models.migrate import upgrade

    upgrade(url)
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": url, "BANSHA_RATE_LIMIT": "1000000000/60"}
    env["BANSHA_RATE_LIMIT_GAMES"] = env["BANSHA_RATE_LIMIT_WRITES"] = "1000000000/60"
    env["BANSHA_CLASSIFIER"] = "1" if classifier else "0"
    model = model_path()
    if model is not None:
        env["BANSHA_MODEL"] = str(model)
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or "gunicorn"
    server = subprocess.Popen(
        [gunicorn, "-c", "deploy/gunicorn.conf.py", "-w", str(WORKERS), "-k", WORKER_CLASS,
         "--threads", str(THREADS), "-b", f"127.0.0.1:{port}", "--log-level", "warning",
         "--access-logfile", "/dev/null", "api:create_app()"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        for _ in range(200):
            try:
                if _request(port, "GET", "/healthz") == {"status": "ok"}:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("gunicorn did not start")
        games: list[dict[str, str]] = []
        for number in range(GAMES):
            body = {"ruleset": "m72", "players": PLAYERS, "seed": f"bench-{number}"}
            created = _request(port, "POST", "/api/games", body)
            games.append({"id": created["id"], "token": created["director_token"]})
        # warm every worker's screener and model once
        for game in games:
            for k in range(4 * WORKERS):
                path = f"/api/games/{game['id']}/posts"
                _request(port, "POST", path, _post(f"warm-{k}", k), game["token"])
        # The phases take turns, round after round: the machine is shared, and another
        # session's burst then lands on every phase alike instead of on whichever ran in it.
        rounds: dict[str, list[dict[str, Any]]] = {phase: [] for phase in PHASES}
        cpu = dict.fromkeys(PHASES, 0.0)
        for round_ in range(ROUNDS):
            for phase in PHASES:
                before = _cpu_seconds(server.pid)
                out = subprocess.run(
                    [sys.executable, "-m", "bench.bench_service", "--load", str(port), phase,
                     json.dumps(games), str(round_)],
                    cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
                )  # fmt: skip
                cpu[phase] += _cpu_seconds(server.pid) - before
                rounds[phase].append(json.loads(out.stdout))
        results: dict[str, dict[str, Any]] = {
            phase: _pooled(rounds[phase], cpu[phase]) for phase in PHASES
        }
        results["memory"] = _memory(server.pid)
        return results
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def _cpu_seconds(master: int) -> float:
    """CPU time (user and system) the master and its workers have used so far."""
    pids = [master, *map(int, Path(f"/proc/{master}/task/{master}/children").read_text().split())]
    ticks = 0
    for pid in pids:
        # the fields after the command name (which may hold spaces): utime and stime are 14, 15
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _rollup(pid: int) -> dict[str, float]:
    """``/proc/PID/smaps_rollup`` in MiB: Rss, Pss and the private (unshared) pages."""
    fields: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[-1] == "kB":
            fields[name.strip()] = int(parts[0]) / 1024.0
    fields["Private"] = fields.get("Private_Clean", 0.0) + fields.get("Private_Dirty", 0.0)
    return fields


def _memory(master: int) -> dict[str, Any]:
    """The preloaded master's resident memory and each worker's private (unshared) memory."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    workers = [_rollup(int(c)) for c in children]
    return {
        "master_rss": _rollup(master)["Rss"],
        "worker_private": [w["Private"] for w in workers],
        "worker_rss": [w["Rss"] for w in workers],
    }


def _results(r: dict[str, dict[str, Any]], label: str) -> list[dict[str, Any]]:
    h, s, b = r["healthz"], r["single"], r["batch"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    setup = (
        f"gunicorn -w {WORKERS} -k {WORKER_CLASS} --threads {THREADS}, SQLite, loopback; "
        f"load process: {CLIENT_THREADS['single']} keep-alive client threads; phases taking "
        f"turns over {ROUNDS} rounds; machine load average {load}"
    )
    ref = "GET /healthz (trivial endpoint), same server, same run"
    mem = r["memory"]
    private = mem["worker_private"]
    single_ref = "single screened posts/s, same server, same run"

    def latency(name: str, phase: dict[str, Any], quantile: str) -> dict[str, Any]:
        """A phase's latency at ``quantile`` ("p50", "p99") against /healthz's at the same."""
        return {
            "name": name,
            "value": round(phase[f"{quantile}_ms"], 2),
            "unit": "ms",
            "reference": f"{ref} ({quantile})",
            "reference_value": round(h[f"{quantile}_ms"], 2),
            "higher_is_better": False,
        }

    return [
        {
            "name": f"service ({label}): single screened posts per second",
            "value": round(s["posts_per_s"], 1),
            "unit": "posts/s",
            "reference": ref + " (requests/s)",
            "reference_value": round(h["requests_per_s"], 1),
            "higher_is_better": True,
            "note": f"goal: ratio >= 0.4, p99 < 15 ms; {s['requests']} requests, "
            f"{s['errors']} errors; {setup}",
        },
        {
            "name": f"service ({label}): server CPU time per single screened post",
            "value": round(s["server_cpu_ms"], 3),
            "unit": "ms (master and workers, user + system)",
            "reference": "the same per GET /healthz, same server, same run",
            "reference_value": round(h["server_cpu_ms"], 3),
            "higher_is_better": False,
            "note": "what the server spends, whatever share of the cores the machine's other "
            "work left it; the load process's CPU is not counted",
        },
        latency(f"service ({label}): single post p50 latency", s, "p50"),
        {
            **latency(f"service ({label}): single post p99 latency", s, "p99"),
            "note": "goal < 15 ms",
        },
        {
            "name": f"service ({label}): batched screened posts per second ({BATCH} a request)",
            "value": round(b["posts_per_s"], 1),
            "unit": "posts/s",
            "reference": single_ref,
            "reference_value": round(s["posts_per_s"], 1),
            "higher_is_better": True,
            "note": f"posts/s against posts/s; {b['requests']} requests, {b['errors']} errors; "
            f"{CLIENT_THREADS['batch']} client threads, a new connection per batch",
        },
        latency(f"service ({label}): batch of {BATCH} posts p50 latency", b, "p50"),
        latency(f"service ({label}): batch of {BATCH} posts p99 latency", b, "p99"),
        {
            "name": f"service ({label}): memory a worker does not share with the master",
            "value": round(max(private), 1),
            "unit": "MiB (Private_Clean + Private_Dirty, largest worker)",
            "reference": "the preloaded master's resident memory (VmRSS)",
            "reference_value": round(mem["master_rss"], 1),
            "higher_is_better": False,
            "note": "per worker, from /proc/PID/smaps_rollup after the phases: "
            + ", ".join(f"{p:.1f}" for p in private)
            + " MiB private of "
            + ", ".join(f"{x:.1f}" for x in mem["worker_rss"])
            + " MiB resident; lexicons and model loaded and warmed in the master before the fork",
        },
    ]


def run() -> list[dict[str, Any]]:
    """The service benchmark in ``bench.run``'s format: rules-only screening, and with the
    trained model when ``var/model.skops`` (or ``$BANSHA_MODEL``) exists."""
    out = _results(measure(classifier=False), "lexicons and patterns")
    if model_path() is not None:
        out += _results(measure(classifier=True), "with the trained classifier")
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        sys.exit(_load_main(sys.argv[2:]))
    print(json.dumps(run(), indent=2, ensure_ascii=False))
