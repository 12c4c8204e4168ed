"""Judging at volume (issue 33): ``hyoka mtbench judge`` against a bare ``AsyncOpenAI`` client.

    python benchmarks/judge_throughput.py [--models 10] [--concurrency 128] [--delay 0.25]
                                          [--repeat 3] [--data-dir DIR] [--src DIR]

``--src`` runs hyoka from another copy of the source instead of the installed one, e.g. the
code before a change: ``git archive HEAD src | tar -x -C /tmp/before`` then ``--src
/tmp/before/src`` (it must import with this interpreter's packages).

A local server in a second process speaks the OpenAI chat API and holds every request
``--delay`` seconds before it answers a valid judge reply (``Rating: [[7]]``), without
blocking the others (asyncio: thousands of connections, keep-alive). It counts the requests
it answered and the most it held at once. Then, side by side, in one run:

(a) a bare ``openai.AsyncOpenAI`` client with ``--concurrency`` requests in flight makes as
    many calls as (b) will, each carrying the messages (b) sends: MT-bench's judge system
    message and a prompt of the same size (the SDK's per-request work grows with each
    message, about 0.17 ms of CPU);
(b) ``hyoka mtbench judge --bench mt-bench --concurrency N`` grades ``--models`` answer files
    (80 questions x 2 turns = 160 calls each: 1,600 for 10), into a fresh results folder,
    response cache in a fresh folder too;
(c) the identical command again: it should make no call.

Both (a) and (b) are whole processes (interpreter start-up and imports included), timed
from start to exit, so the ratio is what a user waits for; the server's own CPU is the same
for both. Their modules load from compiled bytecode, as an installed package's do: where
the environment says not to write it (``PYTHONDONTWRITEBYTECODE``, which left hyoka's own
source compiled afresh by every process, about 0.3 s), it is written to a folder of the
run's own (``PYTHONPYCACHEPREFIX``), filled by one untimed warm-up of both commands.
Each figure is the median of ``--repeat`` rounds; the machine may be shared, so
the per-round figures are printed too. The answer files are written the way ``hyoka mtbench
generate`` writes them (one FastChat ``model_answer`` line per question).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from provider_overhead import served_by

REPLY = "The answer is helpful and accurate, with minor omissions.\n\nRating: [[7]]"


def _answer_body(model: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-judge",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": REPLY},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 600, "completion_tokens": 20, "total_tokens": 620},
        }
    ).encode()


# --------------------------------------------------------------------------- the server


class _Counts:
    answered = 0
    in_flight = 0
    most = 0


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    try:
        while True:  # keep-alive: many requests per connection
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                return
            lines = head.split(b"\r\n")
            method, path = lines[0].split(b" ")[:2]
            length, close = 0, False
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"connection" and value.strip().lower() == b"close":
                    close = True
            body = await reader.readexactly(length)
            if method == b"GET" and path == b"/stats":
                payload = json.dumps(
                    {"answered": _Counts.answered, "most_in_flight": _Counts.most}
                ).encode()
                _Counts.answered = _Counts.most = 0
            else:
                _Counts.in_flight += 1
                _Counts.most = max(_Counts.most, _Counts.in_flight)
                try:
                    await asyncio.sleep(delay)
                finally:
                    _Counts.in_flight -= 1
                _Counts.answered += 1
                model = json.loads(body).get("model", "judge") if body else "judge"
                payload = _answer_body(model)
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                + str(len(payload)).encode()
                + (b"\r\nconnection: close" if close else b"")
                + b"\r\n\r\n"
                + payload
            )
            await writer.drain()
            if close:
                return
    except ConnectionError:
        return
    finally:
        writer.close()


async def _serve(delay: float) -> None:
    server = await asyncio.start_server(
        lambda r, w: _handle(r, w, delay), "127.0.0.1", 0, backlog=4096
    )
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


@contextlib.contextmanager
def judge_server(delay: float) -> Iterator[str]:
    """The slow judge in a second process while the block runs; its base URL."""
    with served_by([sys.executable, __file__, "--serve", "--delay", str(delay)]) as url:
        yield url


def server_counts(base_url: str) -> dict[str, int]:
    """Requests answered and the most held at once since the last look (then reset)."""
    url = base_url.removesuffix("/v1") + "/stats"
    with urllib.request.urlopen(url, timeout=10) as reply:
        counts: dict[str, int] = json.loads(reply.read())
    return counts


# --------------------------------------------------------------------------- the inputs


def write_answers(folder: Path, data_dir: Path, models: int) -> list[Path]:
    """``models`` MT-bench answer files, one FastChat ``model_answer`` line per question,
    each turn a few hundred characters (a judge prompt of about MT-bench's size)."""
    questions = [
        json.loads(line)
        for line in (data_dir / "mt-bench" / "question.jsonl").read_text().splitlines()
        if line.strip()
    ]
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for m in range(models):
        model = f"bench-model-{m:02d}"
        path = folder / f"{model}.jsonl"
        lines = []
        for q in questions:
            turns = [
                f"Answer {t + 1} of {model} to question {q['question_id']}. " + "text " * 120
                for t in range(len(q["turns"]))
            ]
            lines.append(
                json.dumps(
                    {
                        "question_id": q["question_id"],
                        "answer_id": f"{model}-{q['question_id']}",
                        "model_id": model,
                        "choices": [{"index": 0, "turns": turns}],
                        "tstamp": 0.0,
                    }
                )
            )
        path.write_text("\n".join(lines) + "\n")
        files.append(path)
    return files


# --------------------------------------------------------------------------- (a) bare client

BARE = """
import asyncio, sys, openai
base_url, calls, concurrency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
system = "You are a helpful assistant."  # MT-bench's single-v1 judge system message
prompt = "Please act as an impartial judge. " + "text " * 400

async def main():
    sdk = openai.AsyncOpenAI(api_key="not-needed", base_url=base_url, max_retries=0)
    limit = asyncio.Semaphore(concurrency)

    async def one(i):
        async with limit:
            reply = await sdk.chat.completions.create(
                model="judge", messages=[{"role": "system", "content": system},
                                         {"role": "user", "content": f"{i} {prompt}"}],
                max_tokens=2048, temperature=0.0)
            assert "[[7]]" in reply.choices[0].message.content

    await asyncio.gather(*(one(i) for i in range(calls)))
    await sdk.close()

asyncio.run(main())
"""


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds of ``command``, and the CPU seconds (user + system) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return elapsed, cpu


def warm_up(
    base_url: str, answers: Path, root: Path, concurrency: int, env: dict[str, str]
) -> None:
    """Both commands once, untimed, so every module they load is compiled to bytecode."""
    env = {**env, "HYOKA_CACHE_DIR": str(root / "cache-warm-up")}
    subprocess.run([sys.executable, "-c", BARE, base_url, str(concurrency), str(concurrency)],
                   env=env, capture_output=True, check=True)  # fmt: skip
    subprocess.run([sys.executable, "-m", "hyoka", "mtbench", "judge", "-j", "openai/judge",
                    "--base-url", base_url, "--bench", "mt-bench", "--limit", "2",
                    "--results-dir", str(root / "results-warm-up"), "-a", str(answers)],
                   env=env, capture_output=True, check=True)  # fmt: skip
    server_counts(base_url)  # reset


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--delay", type=float, default=0.25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--src", type=Path, default=None, help="hyoka's source folder to run")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args.delay))
        return
    data_dir = args.data_dir or Path(os.environ.get("HYOKA_DATA_DIR", "/work/shared/data"))
    with tempfile.TemporaryDirectory() as tmp, judge_server(args.delay) as base_url:
        root = Path(tmp)
        answers = write_answers(root / "answers", data_dir, args.models)
        env = {**os.environ, "HYOKA_DATA_DIR": str(data_dir), "NO_COLOR": "1"}
        env.pop("OPENAI_API_KEY", None)
        if args.src is not None:
            env["PYTHONPATH"] = str(args.src.resolve())
        if env.pop("PYTHONDONTWRITEBYTECODE", None):
            env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        warm_up(base_url, answers[0], root, args.concurrency, env)
        rounds: list[dict[str, float]] = []
        for r in range(args.repeat):
            env["HYOKA_CACHE_DIR"] = str(root / f"cache-{r}")
            hyoka = [
                sys.executable, "-m", "hyoka", "mtbench", "judge", "-j", "openai/judge",
                "--base-url", base_url, "--bench", "mt-bench",
                "--concurrency", str(args.concurrency),
                "--results-dir", str(root / f"results-{r}"),
                *[item for path in answers for item in ("-a", str(path))],
            ]  # fmt: skip
            calls = args.models * 160
            figures: dict[str, float] = {}
            for name, command in (
                ("bare", [sys.executable, "-c", BARE, base_url, str(calls), str(args.concurrency)]),
                ("hyoka", hyoka),
                ("rerun", hyoka),
            ):
                figures[name], figures[f"{name} cpu"] = timed(command, env)
                counts = server_counts(base_url)
                figures[f"{name} calls"] = counts["answered"]
                figures[f"{name} most"] = counts["most_in_flight"]
            rounds.append(figures)
            print(
                f"round {r + 1}: "
                + "; ".join(
                    f"{name} {figures[name]:.2f} s, cpu {figures[f'{name} cpu']:.2f} s "
                    f"({figures[f'{name} calls']:.0f} calls, {figures[f'{name} most']:.0f} at once)"
                    for name in ("bare", "hyoka", "rerun")
                ),
                flush=True,
            )
    med = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    print(
        f"\n{args.models * 160} judge calls, server holds each {args.delay * 1000:.0f} ms, "
        f"{args.concurrency} in flight; medians of {len(rounds)} round(s), whole processes "
        "(wall; CPU user+system)"
    )
    heads = f"{'bare AsyncOpenAI':>16}  {'hyoka mtbench judge':>19}  {'ratio':>5}  {'rerun':>7}"
    print(f"{'':>6}  {heads}")
    for unit in ("", " cpu"):
        print(
            f"{'wall' if not unit else 'cpu':>6}  {med['bare' + unit]:>14.2f} s  "
            f"{med['hyoka' + unit]:>17.2f} s  {med['hyoka' + unit] / med['bare' + unit]:>5.2f}  "
            f"{med['rerun' + unit]:>5.2f} s"
        )
    print(f"rerun calls: {med['rerun calls']:.0f}")


if __name__ == "__main__":
    main()
