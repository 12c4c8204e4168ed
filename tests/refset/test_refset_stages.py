"""Reference-set stages 2–7 on real pfgen-bench answers, checked against plain Python.

The published reference sets stand in for generated answers (``hyoka refset import``);
the vectorised filters are compared with direct Counter-based versions, and the rebuilt
sets are used by ``hyoka pfgen score`` and must rank the 49 published runs as the
published sets do.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, SHARED_DATA
from hyoka.cli.main import app
from hyoka.pfgen import find_runs, read_trials
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.refset import (
    hill_climb,
    import_answers,
    presence_matrix,
    rare_ngram_filter,
    read_generated,
)
from hyoka.refset.shards import scan_shard

DATA = SHARED_DATA / "pfgen-bench" / "data"
QUESTIONS = ["Q01", "Q04", "Q05"]
runner = CliRunner()


def _answers(question: str) -> list[str]:
    sets = json.loads((DATA / f"{question}.json").read_text(encoding="utf-8"))["answers"]
    return list(dict.fromkeys(t for texts in sets.values() for t in texts))


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("n", "chunk"), [(3, 10**9), (5, 10**9), (5, 7_000), (12, 50_000)])
def test_rare_filter_matches_a_direct_count(n: int, chunk: int) -> None:
    texts = _answers("Q05")
    counts = [1 + (i % 4 == 0) for i in range(len(texts))]  # every 4th answer generated twice
    result = rare_ngram_filter(texts, counts, n, chunk_chars=chunk)
    occurrences: collections.Counter[str] = collections.Counter()
    for text, count in zip(texts, counts, strict=True):
        for i in range(len(text) - n + 1):
            occurrences[text[i : i + n]] += count
    expected = [all(occurrences[t[i : i + n]] > 1 for i in range(len(t) - n + 1)) for t in texts]
    assert result.keep.tolist() == expected
    assert result.exact == (n <= 5)  # 12 characters do not fit 64 bits: hashed keys
    assert 0 < sum(expected) < len(texts)
    for index, offset in result.first_rare.items():
        assert occurrences[texts[index][offset : offset + n]] == 1


def test_presence_matrix_has_the_scorer_document_frequencies() -> None:
    texts = _answers("Q01")[:300]
    matrix = presence_matrix(texts, 10)
    index = NgramIndex.build(texts)
    assert sorted(matrix.df.tolist()) == sorted(np.concatenate(index.df).tolist())
    first = set(matrix.row(0).tolist())
    assert len(first) == len(
        {texts[0][i : i + n] for n in range(1, 11) for i in range(len(texts[0]) - n + 1)}
    )


def test_hill_climb_lowers_the_error_it_reports() -> None:
    texts = _answers("Q04")[:1500]
    matrix = presence_matrix(texts, 10)
    result = hill_climb(matrix, 200, seed=3)
    assert len(result.chosen) == 200 and result.swaps > 0
    assert result.error_after < 0.8 * result.error_before
    subset = np.zeros(matrix.num_features)
    for i in result.chosen.tolist():
        subset[matrix.row(i)] += 1
    mse = float(np.mean((subset / 200 - matrix.df / len(texts)) ** 2))
    assert mse == pytest.approx(result.error_after, rel=1e-9)
    assert hill_climb(matrix, 200, seed=3).chosen.tolist() == result.chosen.tolist()


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("rebuild")
    work, out = root / "work", root / "out"
    qs = [x for q in QUESTIONS for x in ("-q", q)]
    _cli("refset", "import", str(DATA), str(work), *qs)
    _cli("refset", "normalise", str(work))
    _cli("refset", "filter-rules", str(work))
    _cli("refset", "filter-rare", str(work))
    _cli("refset", "select-length", str(work), "--size", "300", "--allow-fewer")
    _cli("refset", "select-representative", str(work), "--size", "120", "--allow-fewer")
    _cli("refset", "publish", str(work), str(out), *qs, "--benchmark", str(DATA))
    return work, out


def test_each_stage_leaves_an_audit_and_resumes(rebuilt: tuple[Path, Path]) -> None:
    work, _ = rebuilt
    rare = [
        json.loads(line) for line in (work / "04-rare" / "audit.jsonl").read_text().splitlines()
    ]
    q01 = [line for line in rare if line["question"] == "Q01"]
    removed = next(line for line in q01 if line["reason"].startswith("contains a 5-gram"))
    summary = next(line for line in q01 if line["reason"] == "summary")
    assert (
        summary["before"] == 1000
        and summary["before"] - summary["after"] == removed["removed_answers"]
    )
    assert len(removed["samples"]) == 5 and all(
        g in s for g, s in zip(removed["rare_ngrams"], removed["samples"], strict=True)
    )
    climb = [
        json.loads(x) for x in (work / "06-representative" / "audit.jsonl").read_text().splitlines()
    ]
    stats = next(x for x in climb if x["reason"] == "summary" and x["question"] == "Q05")["climb"]
    assert all(s["mse_after"] < s["mse_before"] for s in stats.values())
    # a second run finds every question up to date and changes nothing
    before = (work / "04-rare" / "Q05.jsonl.gz").read_bytes()
    assert "up to date" in _cli("refset", "filter-rare", str(work))
    assert (work / "04-rare" / "Q05.jsonl.gz").read_bytes() == before
    shown = json.loads(_cli("refset", "select-representative", str(work), "--size", "120",
                            "--allow-fewer", "--json"))  # fmt: skip
    assert shown["stage"] == "select-representative"
    q05 = next(row for row in shown["questions"] if row["question"] == "Q05")
    assert q05["skipped"] is True and q05["climb"] == stats
    assert q05["removed"] == q05["before"] - q05["after"]


def test_rebuilt_sets_score_runs_like_the_published_ones(
    rebuilt: tuple[Path, Path], tmp_path: Path, hyoka_env: None
) -> None:
    _, out = rebuilt
    files = sorted((out / "pfgen-bench" / "data").glob("Q*.json"))
    assert [f.stem for f in files] == QUESTIONS
    published = json.loads(files[2].read_text(encoding="utf-8"))
    assert set(published["answers"]) == {"P", "S", "T"} and published["keywords"]
    sizes = sorted(len(v) for v in published["answers"].values())
    assert sizes[-1] == 120 and sizes[0] < 120  # set S keeps its few survivors (--allow-fewer)
    bench = PfgenBenchmark.load(out, tmp_path / "cache")
    ours, theirs = [], []
    runs = find_runs(PFGEN_RESULTS)
    assert len(runs) == 49
    for run in runs:
        records = read_trials(run).records
        scores = []
        for qid in QUESTIONS:
            text = bench.questions[qid].question
            answers = [r["answer"] for r in records if r["question"] == text]
            scores.append(np.mean([s.average for s in bench.score_many(qid, answers)]))
        ours.append(float(np.mean(scores)))
        result = json.loads((run.parent / "result.json").read_text(encoding="utf-8"))
        theirs.append(float(np.mean([result["questions"][q]["score"] for q in QUESTIONS])))
    assert np.corrcoef(ours, theirs)[0, 1] > 0.98
    # `hyoka pfgen score --data-dir OUT` takes the rebuilt files as they are
    run = runs[0]
    keep = {bench.questions[q].question for q in QUESTIONS}
    lines = [
        json.dumps(r, ensure_ascii=False) for r in read_trials(run).records if r["question"] in keep
    ]
    trials = tmp_path / "run" / "trials.jsonl"
    trials.parent.mkdir()
    trials.write_text("\n".join(lines) + "\n", encoding="utf-8")
    scored = runner.invoke(app, ["pfgen", "score", "--data-dir", str(out), "--json", str(trials)])
    assert scored.exit_code == 0, scored.output
    shown = json.loads(scored.stdout)
    assert shown[0]["score"] == pytest.approx(ours[0], abs=6e-4)
    # scoring with one's own reference sets is legitimate, and named as such
    assert shown[0]["data"] == f"pfgen@{bench.metadata_hash[:8]}+custom"
    assert "is not the pinned pfgen-bench release" in scored.stderr


def test_a_truncated_shard_loses_only_its_damaged_frame(tmp_path: Path) -> None:
    import_answers(DATA, tmp_path, ["Q04"])
    shard = tmp_path / "01-generated" / "Q04" / "P" / "shard-00000.hrs"
    from hyoka.refset.shards import append_frame

    extra = [{"i": 1000 + i, "text": f"追加の回答{i}です。"} for i in range(3)]
    append_frame(shard, {"batch": 1, "planned": 3}, extra)
    whole = shard.read_bytes()
    shard.write_bytes(whole[:-7])  # a crash in the middle of the last append
    scan = scan_shard(shard)
    assert scan.damaged and len(scan.frames) == 1 and scan.good_bytes < len(whole) - 7
    texts = {r.text for r in read_generated(tmp_path, "Q04") if r.set == "P"}
    assert len(texts) == len(set(json.loads((DATA / "Q04.json").read_text())["answers"]["P"]))
    assert not any(t.startswith("追加") for t in texts)
    # flipping a byte inside the first frame makes its checksum fail: nothing is read
    broken = bytearray(whole)
    broken[40] ^= 0xFF
    shard.write_bytes(bytes(broken))
    assert scan_shard(shard).frames == []


def test_bad_rule_files_and_sizes_are_clear_errors(
    tmp_path: Path, rebuilt: tuple[Path, Path]
) -> None:
    work, _ = rebuilt
    rules = tmp_path / "ng.toml"
    rules.write_text(
        '[[ng]]\nquestion = "Q01"\nname = "ok"\npattern = \'(11|23)回\'\n\n'
        '[[ng]]\nquestion = "Q01"\nname = "broken"\n# comment\npattern = \'(22回\'\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["refset", "filter-rules", str(work), "--rules", str(rules)])
    assert result.exit_code == 1
    assert f"{rules}:10: rule 'broken': invalid regex" in result.output.replace("\n", "")
    result = runner.invoke(app, ["refset", "select-length", str(work), "--size", "5000"])
    assert result.exit_code == 1 and "larger than the pool" in result.output
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "questions.jsonl").write_text(
        '{"question": "一つ目", "answer": "答え。"}\n{"question": "二つ目"}\n', encoding="utf-8"
    )
    result = runner.invoke(
        app, ["refset", "publish", str(work), str(tmp_path / "o"), "--benchmark", str(bench)]
    )
    assert (
        result.exit_code == 1
        and f"{bench / 'questions.jsonl'}:2: question" in result.output.replace("\n", "")
    )
    assert "no sample answer" in result.output.replace("\n", "")


def test_ng_rules_and_normalisation_do_what_the_files_say(tmp_path: Path) -> None:
    from hyoka.refset.ngrules import filter_rules, load_ng_rules
    from hyoka.refset.normalise import load_rewrites, normalise_pool
    from hyoka.refset.pool import Audit, PoolRecord

    rewrites = load_rewrites(None)
    records = [
        PoolRecord("P", "時計の針は１日に２２回重なります. "),
        PoolRecord("P", "時計の針は1日に22回重なります．"),
        PoolRecord("P", "ＡＩ（人工知能）はｶﾀｶﾅ,です?"),
    ]
    audit = Audit("normalise", "Q01")
    out = normalise_pool(records, rewrites, audit)
    assert [(r.text, r.count) for r in out] == [
        ("AI（人工知能）はカタカナ、です？", 1),
        ("時計の針は1日に22回重なります.", 1),
        ("時計の針は1日に22回重なります。", 1),
    ]
    rules = tmp_path / "ng.toml"
    rules.write_text(
        '[[ng]]\nquestion = "Q01"\nname = "not 22"\npattern = \'(?<![0-9])(11|23)回\'\n'
    )
    pool = [PoolRecord("P", f"{k}回です。", c) for k, c in (("11", 2), ("22", 5), ("23", 1))]
    audit = Audit("filter-rules", "Q01")
    kept = filter_rules(pool, load_ng_rules(rules, ["Q01"]), "Q01", audit)
    assert [r.text for r in kept] == ["22回です。"]
    (entry,) = audit.entries or []
    assert entry["removed_answers"] == 3 and entry["matched_answers"] == 3
    assert filter_rules(pool, load_ng_rules(rules), "Q02", Audit("x", "Q02")) == pool
