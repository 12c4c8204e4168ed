"""Drop-in with FastChat's own scripts (issue 22): the prompts ``gen_api_answer.py`` sends,
the headline ``show_result.py`` prints, the judge requests ``gen_judgment.py`` makes, and
the files where those scripts look for them.

Every expectation is built here from upstream's rule (read in lm-sys/FastChat and
pfnet-research/pfmt-bench-fin-ja, written down in our words) and the real question and
judgment files in ``../shared/data``, never from hyoka's own code; each request is the one
a real local OpenAI-compatible server received.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_with_sources, stand_in_message, stand_in_signed
from hyoka.cli.main import app
from hyoka.mtbench import definition
from replay_judge_server import ReplayJudge

MT = SHARED_DATA / "mt-bench"
FIN = SHARED_DATA / "pfmt-bench-fin-ja"
#: FastChat ``llm_judge/common.py``'s ``temperature_config``; other categories 0.7
FASTCHAT_TEMPERATURES = {
    "writing": 0.7, "roleplay": 0.7, "extraction": 0.0, "math": 0.0, "coding": 0.0,
    "reasoning": 0.0, "stem": 0.1, "humanities": 0.1,
}  # fmt: skip
#: the system message of FastChat's ``chatgpt`` conversation template (``conversation.py``)
#: the ``chatgpt`` template's system message, as the stand-in for FastChat's
#: ``conversation.py`` registers it (the sources group of ``data_with_sources``)
CHATGPT_SYSTEM = stand_in_message("chatgpt")
#: what ``play_a_match_single`` writes per line (FastChat ``llm_judge/common.py``)
FASTCHAT_SINGLE_FIELDS = {
    "question_id", "model", "judge", "user_prompt", "judgment", "score", "turn", "tstamp"
}  # fmt: skip


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data_with_sources()))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))


def _questions(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "question.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _hyoka(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _rows(*args: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """``hyoka mtbench leaderboard ... --format json``: everything it printed, and its rows
    by model."""
    result = CliRunner().invoke(app, ["mtbench", "leaderboard", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return result.output, {row["model"]: row for row in json.loads(result.stdout)}


def _signature(output: str) -> dict[str, str]:
    line = next(line for line in output.splitlines() if line.startswith("signature: "))
    fields = line.removeprefix("signature: ").split("|")
    return dict(field.split(":", 1) for field in fields)


# -- 1. generation: the messages FastChat's gen_api_answer.py sends --------------------------


def fastchat_requests(question: dict[str, Any], reply: str) -> list[dict[str, Any]]:
    """What ``gen_api_answer.py`` sends for ``question`` to an OpenAI model: per turn the
    ``chatgpt`` template's ``to_openai_api_messages()`` (its system message, then the turns
    so far with the model's replies), at the category's temperature, 1024 tokens."""
    temperature = FASTCHAT_TEMPERATURES.get(question["category"], 0.7)
    messages: list[dict[str, str]] = [{"role": "system", "content": CHATGPT_SYSTEM}]
    requests = []
    for turn in question["turns"]:
        messages = [*messages, {"role": "user", "content": turn}]
        requests.append({"messages": messages, "temperature": temperature, "max_tokens": 1024})
        messages = [*messages, {"role": "assistant", "content": reply}]
    return requests


def test_mt_bench_generation_sends_fastchats_messages_for_every_turn(tmp_path: Path) -> None:
    """All 80 questions x 2 turns: the messages, temperature and budget of every request
    equal FastChat's, and the signature names the system message."""
    reply = "An answer."
    answers = tmp_path / "gpt-4.jsonl"
    with ReplayJudge({}, missing_reply=reply) as server:
        code, out = _hyoka(
            "mtbench", "generate", "--bench", "mt-bench", "-m", "openai/gpt-4",
            "--base-url", server.base_url, "--template", "chat", "--no-cache",
            "--output", str(answers),
        )  # fmt: skip
    assert code == 0, out
    sent = [
        {key: request.body[key] for key in ("messages", "temperature", "max_tokens")}
        for request in server.received
    ]
    expected = [r for q in _questions(MT) for r in fastchat_requests(q, reply)]
    assert len(expected) == 160
    key = json.dumps  # requests come in any order: compare them as a multiset
    assert sorted(map(key, sent)) == sorted(map(key, expected))
    assert _signature(out)["system"] == stand_in_signed("fastchat", "chatgpt")
    manifest = json.loads(Path(f"{answers}.manifest.json").read_text(encoding="utf-8"))
    assert manifest["identity"]["system_message"] == CHATGPT_SYSTEM
    assert manifest["signature"]["fields"]["system"] == stand_in_signed("fastchat", "chatgpt")


def _first_request(tmp_path: Path, bench: str, *flags: str) -> tuple[int, str, list[Any]]:
    with ReplayJudge({}, missing_reply="An answer.") as server:
        code, out = _hyoka(
            "mtbench", "generate", "--bench", bench, "-m", "openai/m", "--base-url",
            server.base_url, "--template", "chat", "--no-cache", "--limit", "1",
            "--results-dir", str(tmp_path / "results"), *flags,
        )  # fmt: skip
    return code, out, [request.body["messages"] for request in server.received]


def test_another_system_message_is_an_option_named_in_the_signature(tmp_path: Path) -> None:
    code, out, sent = _first_request(tmp_path / "none", "mt-bench", "--no-system-message")
    assert code == 0, out
    assert [m[0]["role"] for m in sent] == ["user", "user"]
    assert _signature(out)["system"] == "none"
    own = "Answer briefly."
    code, out, sent = _first_request(tmp_path / "own", "mt-bench", "--system-message", own)
    assert code == 0, out
    assert [m[0] for m in sent] == [{"role": "system", "content": own}] * 2
    digest = hashlib.sha256(own.encode()).hexdigest()[:8]
    assert _signature(out)["system"] == f"custom@{digest}"
    code, out, sent = _first_request(
        tmp_path / "both", "mt-bench", "--no-system-message", "--system-message", own
    )
    assert code == 1 and sent == []
    assert "--system-message and --no-system-message exclude each other" in out


def test_pfmt_generation_opens_with_its_upstreams_system_message(tmp_path: Path) -> None:
    """pfmt-bench-fin-ja's ``utils/common.py`` registers 「あなたは優秀なアシスタントです。」
    as the system message of every template its ``gen_api_answer.py`` uses."""
    code, out, sent = _first_request(tmp_path, "pfmt-fin")
    assert code == 0, out
    first = _questions(FIN)[0]
    assert sent[0] == [
        {"role": "system", "content": "あなたは優秀なアシスタントです。"},
        {"role": "user", "content": first["turns"][0]},
    ]
    assert _signature(out)["system"] == "pfmt-upstream"


# -- 2. the headline: show_result.py's mean over rated turns, make_leaderboard's over categories


def _mt_judgments(path: Path, unrated: dict[str, set[tuple[int, int]]]) -> list[dict[str, Any]]:
    """A FastChat ``gpt-4_single.jsonl`` of two models on the real MT-bench questions
    (ratings drawn from a seeded generator), with the ``unrated`` turns at -1."""
    rng = random.Random(22)
    lines = []
    for model in ("model-a", "model-b"):
        for question in _questions(MT):
            for turn in (1, 2):
                qid = question["question_id"]
                score = -1 if (qid, turn) in unrated.get(model, set()) else rng.randint(1, 10)
                # the prompt FastChat picks for the turn and category, the turns it shows
                prompt = definition("mt-bench").judge_prompt_name(question["category"], turn)
                shown = "".join(f"[Question]\n{text}\n" for text in question["turns"][:turn])
                lines.append(
                    {"question_id": qid, "model": model, "judge": ["gpt-4", prompt],
                     "user_prompt": shown, "judgment": f"Rating: [[{score}]]", "score": score,
                     "turn": turn, "tstamp": 0.0}
                )  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return lines


def show_result_means(lines: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """FastChat ``show_result.py --mode single`` on MT-bench: drop score -1, then per model
    the mean of its turn-1 scores, of its turn-2 scores and of all of them ("Average")."""
    scores: dict[tuple[str, int], list[int]] = defaultdict(list)
    for line in lines:
        if line["score"] != -1:
            scores[line["model"], line["turn"]].append(line["score"])
    means: dict[str, dict[str, float]] = {}
    for model in sorted({model for model, _turn in scores}):
        one, two = scores[model, 1], scores[model, 2]
        means[model] = {
            "turn1": sum(one) / len(one),
            "turn2": sum(two) / len(two),
            "average": sum(one + two) / len(one + two),
        }
    return means


def test_mt_bench_headline_is_fastchats_mean_of_rated_turns(tmp_path: Path) -> None:
    """Six turns without a rating, four of them in writing: FastChat's average and
    hyoka's agree to the last bit, and every format marks the row."""
    unrated = {"model-a": {(81, 1), (82, 2), (83, 1), (84, 2), (111, 1), (121, 2)}}
    judgments = tmp_path / "gpt-4_single.jsonl"
    lines = _mt_judgments(judgments, unrated)
    upstream = show_result_means(lines)
    out, rows = _rows("--bench", "mt-bench", "--judgments", str(judgments))
    for model, means in upstream.items():
        row = rows[model]
        assert row["overall"] == means["average"]
        assert row["turn1"]["overall"] == means["turn1"]
        assert row["turn2"]["overall"] == means["turn2"]
        assert row["headline"] == "turn-mean"
    assert (rows["model-a"]["unrated_turns"], rows["model-b"]["unrated_turns"]) == (6, 0)
    # the mean of the category means (what hyoka reported before) is another number here
    categories = rows["model-a"]["categories"].values()
    assert sum(categories) / len(categories) != pytest.approx(upstream["model-a"]["average"])
    assert "model-a: 6 of 160 judged turns have no rating (-1)" in " ".join(out.split())
    for fmt in ("md", "csv"):
        code, text = _hyoka(
            "mtbench", "leaderboard", "--bench", "mt-bench", "--judgments", str(judgments),
            "--format", fmt,
        )  # fmt: skip
        assert code == 0, text
        assert "model-a (6 unrated)" in text and "model-b (" not in text
        assert "model-a: 6 of 160 judged turns unrated (no rating, -1)" in text
        assert "Avg.: mean of every rated turn (FastChat's show_result.py)" in text
    rated = [line["score"] for line in lines if line["model"] == "model-a" and line["score"] >= 0]
    exact = Decimal(sum(rated)) / Decimal(len(rated))
    shown = exact.quantize(Decimal("0.01"), ROUND_HALF_UP)  # Markdown: two decimals, half up
    md = _hyoka("mtbench", "leaderboard", "--bench", "mt-bench", "--judgments", str(judgments))
    assert f"| model-a (6 unrated) | {shown} |" in md[1]


def make_leaderboard_overall(folder: Path, categories: dict[int, str]) -> dict[str, Fraction]:
    """pfmt-bench-fin-ja ``make_leaderboard.py``: drop score -1, per model and category
    the mean score, and overall the mean of those category means (exactly, here)."""
    scores: dict[tuple[str, str], list[int]] = defaultdict(list)
    for path in sorted(folder.glob("*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(text)
            if line["score"] != -1:
                scores[line["model"], categories[line["question_id"]]].append(line["score"])
    overall: dict[str, Fraction] = {}
    for model in {model for model, _category in scores}:
        means = [Fraction(sum(s), len(s)) for (m, _c), s in scores.items() if m == model]
        overall[model] = sum(means, Fraction()) / len(means)
    return overall


def test_pfmt_headline_keeps_make_leaderboards_mean_of_categories(tmp_path: Path) -> None:
    """The published gpt-4o judgments (three turns already at -1, one of them gpt-4's) with
    five math turns of gpt-4 set to -1 in a copy: overall is still the mean of the category
    means, and the rows with unrated turns say how many."""
    folder = tmp_path / "gpt-4o_single"
    folder.mkdir()
    categories = {q["question_id"]: q["category"] for q in _questions(FIN)}
    for source in sorted((FIN / "model_judgment" / "gpt-4o_single").glob("*.jsonl")):
        text = source.read_text(encoding="utf-8")
        if source.stem == "gpt-4":
            lines = [json.loads(line) for line in text.splitlines()]
            math = [line for line in lines if categories[line["question_id"]] == "math"]
            for line in math[:5]:
                line["score"] = -1
            text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (folder / source.name).write_text(text, encoding="utf-8")
    expected = make_leaderboard_overall(folder, categories)
    _out, shown = _rows("--judgments", str(folder))
    rows = {model.replace("/", "_", 1): row for model, row in shown.items()}
    assert {model: row["overall"] for model, row in rows.items()} == {
        model: float(mean) for model, mean in expected.items()
    }
    unrated = {
        path.stem: sum(json.loads(line)["score"] == -1 for line in path.open(encoding="utf-8"))
        for path in folder.glob("*.jsonl")
    }
    assert unrated["gpt-4"] == 6  # one published, five set here
    assert {model: row["unrated_turns"] for model, row in rows.items()} == unrated
    assert {row["headline"] for row in rows.values()} == {"category-mean"}
    marked = {model for model, row in rows.items() if row["unrated_turns"]}
    code, md = _hyoka("mtbench", "leaderboard", "--judgments", str(folder))
    assert code == 0, md
    for model in marked:
        row = rows[model]
        name = row["model"]
        assert f"| {name} ({row['unrated_turns']} unrated) |" in md


# -- 3. pairwise: log probabilities only for the prob method --------------------------------


def _answer_files(folder: Path, models: tuple[str, ...]) -> list[str]:
    """Two-turn answers of ``models`` to the first MT-bench question, FastChat's format."""
    folder.mkdir(parents=True, exist_ok=True)
    first = _questions(MT)[0]
    paths = []
    for model in models:
        path = folder / f"{model}.jsonl"
        record = {"question_id": first["question_id"], "answer_id": model, "model_id": model,
                  "choices": [{"index": 0, "turns": [f"{model} one", f"{model} two"]}],
                  "tstamp": 0.0}  # fmt: skip
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def _pairwise_bodies(tmp_path: Path, name: str, *flags: str) -> tuple[int, str, list[Any]]:
    a, b = _answer_files(tmp_path / "answers", ("model-a", "model-b"))
    with ReplayJudge({}, missing_reply="Both fine. [[C]]") as server:
        code, out = _hyoka(
            "mtbench", "judge", "--bench", "mt-bench", "--mode", "pairwise", "-j",
            "openai/gpt-4", "--base-url", server.base_url, "--no-cache", "--limit", "1",
            "-a", a, "-a", b, "--output-dir", str(tmp_path / name), *flags,
        )  # fmt: skip
    return code, out, [request.body for request in server.received]


def test_pairwise_asks_for_logprobs_only_for_the_prob_method(tmp_path: Path) -> None:
    """FastChat's pairwise judge call is model, messages, n, temperature 0, max_tokens:
    by default (bs2, FastChat's rule: games that disagree are a tie) no log probabilities
    are asked for; ``prob`` (alone or in ``all``) asks for the top 20."""
    code, out, plain = _pairwise_bodies(tmp_path, "default")
    assert code == 0, out
    assert len(plain) == 4  # two turns, two games each
    for body in plain:
        assert "logprobs" not in body and "top_logprobs" not in body
        assert (body["temperature"], body["max_tokens"]) == (0.0, 2048)
    assert "methods:bs2" in out
    for method in ("prob", "all"):
        code, out, asked = _pairwise_bodies(tmp_path, method, "--method", method)
        # this server returns no log probabilities: prob alone has no verdict to give
        assert code == (1 if method == "prob" else 0), out
        assert len(asked) == 4
        assert {(body["logprobs"], body["top_logprobs"]) for body in asked} == {(True, 20)}


# -- 6. the files: where FastChat's show_result.py and gen_judgment.py look ------------------


def _fastchat_path(
    data: Path, kind: str, bench_name: str = "mt_bench", judge: str = "gpt-4"
) -> Path:
    """FastChat's default paths, relative to its ``data/`` folder: ``gen_judgment.py``
    writes and ``show_result.py`` reads ``data/{bench_name}/model_judgment/
    {judge_model}_{single,pair}.jsonl``, with ``bench_name`` ``mt_bench`` and
    ``judge_model`` ``gpt-4`` by default."""
    return data / bench_name / "model_judgment" / f"{judge}_{kind}.jsonl"


def test_upstream_layout_writes_where_fastchats_scripts_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    a, b, c = _answer_files(tmp_path / "answers", ("model-a", "model-b", "model-c"))
    reply = "Fine.\n\nRating: [[7]]\n\nVerdict: [[A]]"  # a rating for single, a letter for pairwise
    with ReplayJudge({}, missing_reply=reply) as server:
        common = ["mtbench", "judge", "--bench", "mt-bench", "-j", "openai/gpt-4", "--base-url",
                  server.base_url, "--no-cache", "--limit", "1", "--results-dir", str(data),
                  "--layout", "upstream"]  # fmt: skip
        code, out = _hyoka(*common, "-a", a, "-a", b)
        assert code == 0, out
        single = _fastchat_path(data, "single")
        assert single.is_file() and Path(f"{single}.manifest.json").is_file()
        # one file for every model, continued by a later model as FastChat's is
        code, out = _hyoka(*common, "-a", c)
        assert code == 0, out
        code, out = _hyoka(*common, "--mode", "pairwise", "-a", a, "-a", b)
        assert code == 0, out
    assert sorted(p.name for p in (data / "mt_bench" / "model_judgment").iterdir()) == [
        "gpt-4_pair.jsonl", "gpt-4_pair.jsonl.manifest.json",
        "gpt-4_single.jsonl", "gpt-4_single.jsonl.manifest.json",
    ]  # fmt: skip
    assert _fastchat_path(data, "pair").stat().st_size > 0
    lines = [json.loads(line) for line in single.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3 * 2
    for line in lines:  # FastChat's single record, field for field
        assert set(line) == FASTCHAT_SINGLE_FIELDS
        assert line["judge"] == ["gpt-4", "single-v1" if line["turn"] == 1 else
                                 "single-v1-multi-turn"]  # fmt: skip
        assert type(line["score"]) is int and line["score"] == 7
    assert sorted({line["model"] for line in lines}) == ["model-a", "model-b", "model-c"]
    # show_result.py's numbers from the file equal hyoka's leaderboard of it
    _out, rows = _rows("--bench", "mt-bench", "--judgments", str(single))
    assert {model: row["overall"] for model, row in rows.items()} == {
        model: means["average"] for model, means in show_result_means(lines).items()
    }


def test_upstream_layout_puts_answers_where_fastchats_judge_reads(tmp_path: Path) -> None:
    """``gen_judgment.py`` reads ``data/{bench_name}/model_answer/{model}.jsonl``."""
    data = tmp_path / "data"
    with ReplayJudge({}, missing_reply="An answer.") as server:
        code, out = _hyoka(
            "mtbench", "generate", "--bench", "mt-bench", "-m", "openai/gpt-4", "--base-url",
            server.base_url, "--template", "chat", "--no-cache", "--limit", "1",
            "--results-dir", str(data), "--layout", "upstream",
        )  # fmt: skip
    assert code == 0, out
    answers = data / "mt_bench" / "model_answer" / "gpt-4.jsonl"
    assert [json.loads(line)["model_id"] for line in answers.read_text().splitlines()] == ["gpt-4"]


def test_per_model_layout_stays_the_default(tmp_path: Path) -> None:
    """hyoka's own tree (pfmt-bench-fin-ja's layout): one file per model in ``_single/``."""
    data = tmp_path / "results"
    a, b = _answer_files(tmp_path / "answers", ("model-a", "model-b"))
    with ReplayJudge({}, missing_reply="Rating: [[5]]") as server:
        code, out = _hyoka(
            "mtbench", "judge", "--bench", "mt-bench", "-j", "openai/gpt-4", "--base-url",
            server.base_url, "--no-cache", "--limit", "1", "--results-dir", str(data),
            "-a", a, "-a", b,
        )  # fmt: skip
    assert code == 0, out
    folder = data / "mt-bench" / "model_judgment" / "gpt-4_single"
    assert sorted(p.name for p in folder.glob("*.jsonl")) == ["model-a.jsonl", "model-b.jsonl"]
    code, out = _hyoka("mtbench", "judge", "-j", "openai/gpt-4", "-a", a, "--layout", "fastchat")
    assert code == 2 and "'fastchat' is not one of" in out


# -- 4. JSON types: every field of a written line has the type upstream's file gives it ------

JMT = SHARED_DATA / "jmt-bench"
VICUNA = SHARED_DATA / "ja-vicuna-qa"


def _json_types(path: Path) -> set[tuple[tuple[str, str], ...]]:
    """Each line's (field, JSON type) pairs, as a reader without a schema sees them."""
    return {
        tuple((name, type(value).__name__) for name, value in json.loads(line).items())
        for line in path.read_text(encoding="utf-8").splitlines()
    }


def _judged(tmp_path: Path, reply: str, *args: str) -> Path:
    """``hyoka mtbench judge ... --layout upstream`` with a scripted judge that always
    replies ``reply``; the one judgment file it wrote."""
    script = tmp_path / "judge.jsonl"
    script.write_text(json.dumps({"reply": reply}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code, text = _hyoka(
        "mtbench", "judge", "-j", f"scripted/{script}", "--judge-name", "gpt-4", "--no-cache",
        "--limit", "3", "--layout", "upstream", "--output-dir", str(out), *args,
    )  # fmt: skip
    assert code == 0, text
    (written,) = out.glob("*.jsonl")
    return written


def test_jmt_bench_single_lines_have_the_published_lines_field_types(tmp_path: Path) -> None:
    """Stability's 564 published GPT-4 lines were judged on the 2023-08 question file, whose
    ids are strings: hyoka's lines of that variant carry the same fields with the same JSON
    types (``question_id`` ``"11"``, not ``11``), so FastChat's readers see no difference."""
    published = _json_types(JMT / "model_judgment" / "gpt-4_single.jsonl")
    assert len(published) == 1 and dict(next(iter(published)))["question_id"] == "str"
    answers = JMT / "history/aed16da/model_answer/japanese-stablelm-instruct-alpha-7b.jsonl"
    written = _judged(
        tmp_path, "評価：[[7]]", "--bench", "jmt-bench", "--variant", "stability@aed16da",
        "-a", str(answers),
    )  # fmt: skip
    assert _json_types(written) == published
    # resuming reads the lines back and writes them again as they were
    code, text = _hyoka(
        "mtbench", "judge", "-j", f"scripted/{tmp_path / 'judge.jsonl'}", "--judge-name",
        "gpt-4", "--no-cache", "--limit", "4", "--layout", "upstream", "--output-dir",
        str(written.parent), "--bench", "jmt-bench", "--variant", "stability@aed16da",
        "-a", str(answers),
    )  # fmt: skip
    assert code == 0, text
    assert _json_types(written) == published
    ids = [json.loads(line)["question_id"] for line in written.read_text().splitlines()]
    assert ids == ["1", "2", "3", "4"]


def test_question_ids_are_written_as_the_question_file_gives_them(tmp_path: Path) -> None:
    """Stability's current question file has integer ids (and its ``gen_judgment.py`` casts
    them to ``int`` since 677924c): so do hyoka's lines, from answers whose ids are strings."""
    questions = _questions(JMT)[:3]
    assert {type(q["question_id"]) for q in _questions(JMT)} == {int}
    answers = tmp_path / "model.jsonl"  # string ids, as Stability's 2023 answer files have
    answers.write_text(
        "".join(
            json.dumps({"question_id": str(q["question_id"]), "model_id": "model",
                        "choices": [{"index": 0, "turns": ["答え", "答え"]}]}) + "\n"
            for q in questions
        ),
        encoding="utf-8",
    )  # fmt: skip
    written = _judged(tmp_path, "評価：[[7]]", "--bench", "jmt-bench", "-a", str(answers))
    ids = [json.loads(line)["question_id"] for line in written.read_text().splitlines()]
    assert ids == [q["question_id"] for q in questions] == [11, 12, 13]


def test_vicuna_ja_pair_lines_have_the_published_lines_field_types(tmp_path: Path) -> None:
    """ja-vicuna-qa-benchmark's published pair lines: every one of their fields is in
    hyoka's line with the same JSON type (hyoka's additions come after, which a reader by
    field name ignores)."""
    published = set()
    for path in sorted((VICUNA / "model_judgment" / "pairwise" / "gpt-4").glob("*.jsonl")):
        published |= _json_types(path)
    assert len(published) == 1
    upstream = next(iter(published))
    baseline = VICUNA / "model_answer/openai--text-davinci-003/results.jsonl"
    other = VICUNA / "model_answer/cyberagent--calm2-7b-chat/results.jsonl"
    written = _judged(
        tmp_path, "理由。[[A]]", "--bench", "ja-vicuna-qa", "--mode", "pairwise",
        "--baseline", "openai--text-davinci-003", "-a", str(baseline), "-a", str(other),
    )  # fmt: skip
    ours = _json_types(written)
    assert len(ours) == 1
    assert {pair for pair in next(iter(ours)) if pair[0] in dict(upstream)} == set(upstream)


def test_answers_keep_the_question_files_id_type(tmp_path: Path) -> None:
    """``gen_model_answer.py`` copies ``question["question_id"]``: answering the 2023-08
    question file writes ``"1"``, as Stability's answer files of that time have it."""
    from wire_servers import OpenAIServer

    published = JMT / "history/aed16da/model_answer/japanese-stablelm-instruct-alpha-7b.jsonl"
    first = json.loads(published.read_text(encoding="utf-8").splitlines()[0])
    answers = tmp_path / "answers.jsonl"
    with OpenAIServer() as server:
        code, out = _hyoka(
            "mtbench", "generate", "--bench", "jmt-bench", "--variant", "stability@aed16da",
            "-m", "openai/model", "--base-url", server.base_url, "--template", "chat",
            "--limit", "2", "--output", str(answers),
        )  # fmt: skip
    assert code == 0, out
    lines = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert [line["question_id"] for line in lines] == ["1", "2"]
    assert type(first["question_id"]) is str
