"""The downloader against a real HTTP server on localhost that mimics raw.githubusercontent.com.

A real server (not a mocked urlopen) is used so truncated bodies, 5xx answers and closed
connections go through the same http.client code paths as in the field.
"""

from __future__ import annotations

import filecmp
import json
import os
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from _shared import ELYZA_PROMPT_FIXTURE
from hyoka.cli.main import app
from hyoka.data.fetch import BASE_URL_ENV, FetchEvent, fetch, file_url, verify
from hyoka.data.manifest import ALL_GROUPS, ManifestFile, all_manifests, manifest
from hyoka.errors import DataError, HyokaError, MissingDataError
from hyoka.mtbench import Bench

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@dataclass
class Behaviour:
    """How the fake server misbehaves; tests flip these between fetches."""

    fail_first: int = 0
    truncate: bool = False
    corrupt: bool = False
    requests: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Server:
    url: str
    behaviour: Behaviour


#: ELYZA's judge prompt file is upstream code, not in ``../shared/data``
_ELYZA_PROMPT = "elyza-tasks-100/evaluation_datasets_config.py"


def _stand_in(folder: Path) -> Path:
    """hyoka's stand-in prompt file, padded (a comment) to the pinned file's size, so that
    only its SHA-256 can tell it from upstream's."""
    (pinned,) = [f for f in manifest("elyza-tasks-100").files if f.path == _ELYZA_PROMPT]
    body = ELYZA_PROMPT_FIXTURE.read_bytes() + b"#"
    path = folder / "evaluation_datasets_config.py"
    path.write_bytes(body + b"-" * (pinned.size - len(body) - 1) + b"\n")
    return path


def _routes(stand_in: Path | None = None) -> dict[str, Path]:
    """Each file at its own repository and commit, as raw.githubusercontent.com lays them out
    (ELYZA's prompt file, absent from the shared data: ``stand_in``)."""
    return {
        "/{}/{}/{}".format(*m.source(f), f.upstream): (
            stand_in if stand_in is not None and f.path == _ELYZA_PROMPT else SHARED / f.path
        )
        for m in all_manifests()
        for f in m.files
    }


def _handler(behaviour: Behaviour, routes: dict[str, Path]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with behaviour.lock:
                behaviour.requests.append(self.path)
                failing = behaviour.fail_first > 0
                behaviour.fail_first -= failing
            local = routes.get(unquote(self.path))
            if failing or local is None:
                self.send_error(500 if failing else 404)
                return
            body = local.read_bytes()
            declared = len(body)
            if behaviour.truncate:
                body = body[: declared // 2]
            if behaviour.corrupt:
                body = bytes([body[0] ^ 0xFF]) + body[1:]
            self.send_response(200)
            self.send_header("Content-Length", str(declared))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    return Handler


@pytest.fixture
def server(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    behaviour = Behaviour()
    httpd = ThreadingHTTPServer(
        ("127.0.0.1", 0),
        _handler(behaviour, _routes(_stand_in(tmp_path_factory.mktemp("stand-in")))),
    )
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", behaviour)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def _leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and p.name.startswith(".")]


def _assert_matches_shared(
    root: Path, name: str, groups: frozenset[str] = frozenset({"core"})
) -> None:
    for f in manifest(name).files:
        if f.group in groups:
            assert filecmp.cmp(root / f.path, SHARED / f.path, shallow=False), f.path


def test_manifests_load_and_are_consistent() -> None:
    names = [m.name for m in all_manifests()]
    assert names == [
        "elyza-tasks-100", "ja-vicuna-qa", "jfbench", "jmt-bench", "m-ifeval-ja", "mt-bench",
        "pfgen", "pfmt-fin", "rakuda", "shaberi-judgments",
    ]  # fmt: skip
    for m in all_manifests():
        paths = [f.path for f in m.files]
        assert len(paths) == len(set(paths))
        assert m.select({"core"})
    assert len(manifest("pfgen").select()) == 52


def test_unknown_manifest_lists_known_names() -> None:
    with pytest.raises(
        HyokaError,
        match="elyza-tasks-100, ja-vicuna-qa, jfbench, jmt-bench, m-ifeval-ja, mt-bench, pfgen, "
        "pfmt-fin, rakuda, shaberi-judgments",
    ):
        manifest("nope")


def test_mt_bench_manifest_pins_fastchat_and_the_shared_copy() -> None:
    pinned = manifest("mt-bench")
    assert (pinned.repository, pinned.commit) == (
        "lm-sys/FastChat",
        "0e6d3e4beaab66f4d3f93db72541a4abab8af28d",
    )
    assert [f.path for f in pinned.select()] == [
        "mt-bench/question.jsonl",
        "mt-bench/judge_prompts.jsonl",
        "mt-bench/reference_answer/gpt-4.jsonl",
        "mt-bench/LICENSE",
    ]
    assert not pinned.select({"published"})
    assert verify(pinned, SHARED).ok  # every size and SHA-256 matches the shared copy
    first = pinned.select()[0]
    assert file_url(pinned, first, "https://raw.githubusercontent.com") == (
        "https://raw.githubusercontent.com/lm-sys/FastChat/"
        "0e6d3e4beaab66f4d3f93db72541a4abab8af28d/fastchat/llm_judge/data/mt_bench/question.jsonl"
    )


@pytest.mark.parametrize("path", ["../escape.json", "/etc/passwd", "a/../../b", ""])
def test_manifest_paths_cannot_escape_the_data_dir(path: str) -> None:
    with pytest.raises(ValidationError):
        ManifestFile(path=path, upstream="x", sha256="0" * 64, size=1, group="core")


def test_full_fetch_is_byte_identical_and_second_fetch_downloads_nothing(
    server: Server, tmp_path: Path
) -> None:
    pfgen = manifest("pfgen")
    first = fetch(pfgen, tmp_path, base_url=server.url)
    assert (first.present, first.downloaded, first.refetched) == (0, 52, 0)
    assert first.bytes_downloaded == sum(f.size for f in pfgen.files)
    _assert_matches_shared(tmp_path, "pfgen")
    assert not _leftovers(tmp_path)

    server.behaviour.requests.clear()
    second = fetch(pfgen, tmp_path, base_url=server.url)
    assert (second.present, second.downloaded, second.refetched) == (52, 0, 0)
    assert server.behaviour.requests == []


def test_corrupt_and_truncated_files_are_detected_and_refetched(
    server: Server, tmp_path: Path
) -> None:
    fin = manifest("pfmt-fin")
    fetch(fin, tmp_path, base_url=server.url)
    flipped, truncated = (tmp_path / f.path for f in fin.select()[:2])
    data = bytearray(flipped.read_bytes())
    data[100] ^= 0x01
    flipped.write_bytes(bytes(data))
    truncated.write_bytes(truncated.read_bytes()[:-10])

    report = verify(fin, tmp_path)
    assert {(p.path, p.kind) for p in report.problems} == {
        (fin.select()[0].path, "corrupt"),
        (fin.select()[1].path, "corrupt"),
    }

    events: list[FetchEvent] = []
    again = fetch(fin, tmp_path, base_url=server.url, progress=events.append)
    assert (again.present, again.downloaded, again.refetched) == (2, 0, 2)
    assert {e.file.path for e in events if e.kind == "corrupt"} == {
        fin.select()[0].path,
        fin.select()[1].path,
    }
    _assert_matches_shared(tmp_path, "pfmt-fin")
    assert verify(fin, tmp_path).ok


def test_verify_never_downloads(server: Server, tmp_path: Path) -> None:
    report = verify(manifest("pfmt-fin"), tmp_path, ALL_GROUPS)
    assert report.checked == len(manifest("pfmt-fin").files)
    assert all(p.kind == "missing" for p in report.problems)
    assert len(report.problems) == report.checked
    assert server.behaviour.requests == []


@pytest.mark.parametrize(
    ("misbehaviour", "message", "attempts"),
    [("truncate", "after 3 attempts", 3), ("corrupt", "SHA-256", 1)],
)
def test_bad_bodies_fail_without_leaving_files(
    server: Server, tmp_path: Path, misbehaviour: str, message: str, attempts: int
) -> None:
    fin = manifest("pfmt-fin")
    setattr(server.behaviour, misbehaviour, True)
    first = fin.select()[0]
    with pytest.raises(DataError, match=message) as caught:
        fetch(fin, tmp_path, base_url=server.url, retries=2, backoff=0)
    assert first.path in str(caught.value)
    assert file_url(fin, first, server.url) in str(caught.value)
    assert not (tmp_path / first.path).exists()
    assert not _leftovers(tmp_path)
    assert len(server.behaviour.requests) == attempts


def test_server_errors_are_retried(server: Server, tmp_path: Path) -> None:
    server.behaviour.fail_first = 2
    events: list[FetchEvent] = []
    report = fetch(
        manifest("pfmt-fin"), tmp_path, base_url=server.url, backoff=0, progress=events.append
    )
    assert report.downloaded == 4
    assert len(server.behaviour.requests) == 6
    assert [e.detail for e in events if e.kind == "retry"] == ["HTTP 500 Internal Server Error"] * 2
    _assert_matches_shared(tmp_path, "pfmt-fin")


def test_persistent_server_errors_give_up(server: Server, tmp_path: Path) -> None:
    server.behaviour.fail_first = 100
    with pytest.raises(DataError, match="after 2 attempts: HTTP 500"):
        fetch(manifest("pfmt-fin"), tmp_path, base_url=server.url, retries=1, backoff=0)
    assert not _leftovers(tmp_path)


def test_not_found_is_not_retried(server: Server, tmp_path: Path) -> None:
    moved = manifest("pfmt-fin").model_copy(update={"commit": "0" * 40})
    with pytest.raises(DataError, match="HTTP 404"):
        fetch(moved, tmp_path, base_url=server.url, backoff=0)
    assert len(server.behaviour.requests) == 1


def test_unreachable_server_is_a_data_error(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(DataError, match="could not download"):
        fetch(manifest("pfmt-fin"), tmp_path, base_url=f"http://127.0.0.1:{port}", backoff=0)


def test_interrupted_download_leaves_nothing(server: Server, tmp_path: Path) -> None:
    def interrupt(event: FetchEvent) -> None:
        if event.kind == "bytes":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fetch(manifest("pfmt-fin"), tmp_path, base_url=server.url, progress=interrupt)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_base_url_must_be_http(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BASE_URL_ENV, "ftp://example.org")
    with pytest.raises(HyokaError, match=BASE_URL_ENV):
        fetch(manifest("pfmt-fin"), tmp_path)


def test_cli_fetch_then_verify(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BASE_URL_ENV, server.url)
    runner = CliRunner()
    fetched = runner.invoke(app, ["data", "fetch", "pfgen", "--data-dir", str(tmp_path)])
    assert fetched.exit_code == 0, fetched.output
    assert "52 downloaded" in fetched.stdout
    _assert_matches_shared(tmp_path, "pfgen")

    ok = runner.invoke(app, ["data", "verify", "pfgen", "--data-dir", str(tmp_path)])
    assert ok.exit_code == 0, ok.output
    assert "all 52 files verified" in ok.stdout
    again = runner.invoke(app, ["data", "fetch", "pfgen", "--data-dir", str(tmp_path), "--json"])
    assert again.exit_code == 0, again.output
    (fetch,) = json.loads(again.stdout)
    assert (fetch["benchmark"], fetch["present"], fetch["downloaded"]) == ("pfgen", 52, 0)

    (tmp_path / manifest("pfgen").files[0].path).unlink()
    broken = runner.invoke(app, ["data", "verify", "pfgen", "--data-dir", str(tmp_path)])
    assert broken.exit_code == 1
    assert f"hyoka data fetch pfgen --data-dir {tmp_path}" in broken.stderr
    assert manifest("pfgen").files[0].path in broken.stderr
    shown = runner.invoke(app, ["data", "verify", "pfgen", "--data-dir", str(tmp_path), "--json"])
    assert shown.exit_code == 1 and "hyoka data fetch pfgen" in shown.stderr
    (row,) = json.loads(shown.stdout)
    assert (row["benchmark"], row["checked"]) == ("pfgen", 52)
    assert [(p["path"], p["kind"]) for p in row["problems"]] == [
        (manifest("pfgen").files[0].path, "missing")
    ]


def test_cli_verify_checks_published_files_that_are_present(server: Server, tmp_path: Path) -> None:
    fin = manifest("pfmt-fin")
    fetch(fin, tmp_path, base_url=server.url)
    runner = CliRunner()
    ok = runner.invoke(app, ["data", "verify", "pfmt-fin", "--data-dir", str(tmp_path)])
    assert ok.exit_code == 0, ok.output

    published = tmp_path / fin.select({"published"})[0].path
    published.parent.mkdir(parents=True)
    published.write_text("not the upstream file\n")
    broken = runner.invoke(app, ["data", "verify", "pfmt-fin", "--data-dir", str(tmp_path)])
    assert broken.exit_code == 1
    assert f"corrupt: {fin.select({'published'})[0].path}" in broken.stderr
    assert "hyoka data fetch pfmt-fin --with-published" in broken.stderr

    everything = runner.invoke(app, ["data", "verify", "all", "--data-dir", str(tmp_path)])
    assert everything.exit_code == 1
    assert "pfgen-bench: not downloaded" in everything.stderr
    assert "hyoka data fetch all --with-published" in everything.stderr


def test_cli_fetch_then_verify_mt_bench(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BASE_URL_ENV, server.url)
    runner = CliRunner()
    fetched = runner.invoke(app, ["data", "fetch", "mt-bench", "--data-dir", str(tmp_path)])
    assert fetched.exit_code == 0, fetched.output
    assert "MT-bench: 4 files" in fetched.stdout
    assert "4 downloaded" in fetched.stdout
    _assert_matches_shared(tmp_path, "mt-bench")
    assert sorted(server.behaviour.requests) == sorted(
        f"/lm-sys/FastChat/0e6d3e4beaab66f4d3f93db72541a4abab8af28d/{f.upstream}"
        for f in manifest("mt-bench").select()  # the core group: sources only when asked
    )

    ok = runner.invoke(app, ["data", "verify", "mt-bench", "--data-dir", str(tmp_path)])
    assert ok.exit_code == 0, ok.output
    assert "MT-bench: all 4 files verified" in ok.stdout

    question_file = tmp_path / "mt-bench" / "question.jsonl"
    question_file.write_bytes(question_file.read_bytes().replace(b"writing", b"Writing", 1))
    broken = runner.invoke(app, ["data", "verify", "mt-bench", "--data-dir", str(tmp_path)])
    assert broken.exit_code == 1
    assert "corrupt: mt-bench/question.jsonl (SHA-256 does not match the manifest)" in (
        broken.stderr
    )
    assert f"hyoka data fetch mt-bench --data-dir {tmp_path}" in broken.stderr


def test_cli_fetch_ja_vicuna_qa_with_its_published_judgments(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ku-nlp/ja-vicuna-qa-benchmark at 128a862: 4 core files, and 20 published ones (7
    models' answers and configs, 6 judgment files named ``pairwise:<model_1>_<model_2>.jsonl``,
    a ``:`` in each name)."""
    monkeypatch.setenv(BASE_URL_ENV, server.url)
    pinned = manifest("ja-vicuna-qa")
    assert (pinned.repository, pinned.commit) == (
        "ku-nlp/ja-vicuna-qa-benchmark",
        "128a862da6a4478c3e80ab3c3b716d1417380751",
    )
    assert (len(pinned.select()), len(pinned.select({"published"}))) == (4, 20)
    args = ["data", "fetch", "ja-vicuna-qa", "--with-published", "--data-dir", str(tmp_path)]
    fetched = CliRunner().invoke(app, args)
    assert fetched.exit_code == 0, fetched.output
    _assert_matches_shared(tmp_path, "ja-vicuna-qa", frozenset({"core", "published"}))
    judgments = tmp_path / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
    assert len(list(judgments.glob("pairwise:*.jsonl"))) == 6
    assert all(
        request.startswith("/ku-nlp/ja-vicuna-qa-benchmark/128a862")
        and ("/data/jp_bench/" in request or request.endswith("/LICENSE"))
        for request in server.behaviour.requests
    )


def test_cli_unknown_benchmark_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["data", "fetch", "nope", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr.strip().count("\n") == 0
    assert "unknown benchmark 'nope'" in result.stderr
    assert (
        "elyza-tasks-100, ja-vicuna-qa, jfbench, jmt-bench, m-ifeval-ja, mt-bench, pfgen, "
        "pfmt-fin, rakuda, shaberi-judgments, all" in result.stderr
    )


def test_downloads_follow_the_umask_and_clean_a_killed_downloads_part(
    server: Server, tmp_path: Path
) -> None:
    """Issue 11 #14: data files get the umask's mode (not mkstemp's 0600), and the part file a
    download killed earlier left behind (its writer is gone) is removed by the next fetch."""
    pinned = manifest("mt-bench")
    first = pinned.select()[0]
    dest = tmp_path / first.path
    dest.parent.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = dest.with_name(f".{dest.name}.hyoka-{dead.stdout.strip()}-abcd1234.tmp")
    stale.write_bytes(b"half a download")
    old = os.umask(0o022)
    try:
        fetch(pinned, tmp_path, base_url=server.url)
    finally:
        os.umask(old)
    assert not stale.exists()
    assert not _leftovers(tmp_path)
    assert {stat.S_IMODE((tmp_path / f.path).stat().st_mode) for f in pinned.select()} == {0o644}


#: the four sources of Japanese MT-bench's files (its SOURCE.md): Stability-AI's jp-stable
#: branch, two of its 2023 commits (the published judgments' inputs), llm-jp-judge and
#: swallow-evaluation
JMT_SOURCES = {
    ("Stability-AI/FastChat", "e37eb28ee490480f6f4989274ed47c55f7dfce82"),
    ("Stability-AI/FastChat", "aed16da2f75ba1374ad4f64a8323aa9fed22c6b9"),
    ("Stability-AI/FastChat", "aedb44e0b588bbd764d19435ceb62df248aeabd6"),
    ("llm-jp/llm-jp-judge", "4392b3b00ddd08bd4bed008ab44516daeb3fc824"),
    ("swallow-llm/swallow-evaluation", "57c4ecdf989f708a54e84235621a6afdbcc28ddb"),
}


def test_jmt_bench_manifest_pins_each_file_to_its_own_source() -> None:
    pinned = manifest("jmt-bench")
    assert {pinned.source(f) for f in pinned.files} == JMT_SOURCES
    # all 42 sizes and SHA-256s; the three FastChat sources (conversation.py twice,
    # model_adapter.py) are fetched only with --with-sources, so ../shared/data lacks them
    assert verify(pinned, SHARED, frozenset({"core", "published"})).ok
    assert (len(pinned.files), len(pinned.select({"sources"}))) == (45, 3)
    by_path = {f.path: f for f in pinned.files}
    old = by_path["jmt-bench/history/aed16da/judge_ja_prompts.jsonl"]
    assert file_url(pinned, old, "https://raw.githubusercontent.com") == (
        "https://raw.githubusercontent.com/Stability-AI/FastChat/"
        "aed16da2f75ba1374ad4f64a8323aa9fed22c6b9/fastchat/llm_judge/data/judge_ja_prompts.jsonl"
    )
    # a file without its own source is the manifest's (every older manifest reads as before)
    now = by_path["jmt-bench/judge_ja_prompts.jsonl"]
    assert (now.repository, now.commit) == (None, None)
    assert pinned.source(now) == (pinned.repository, pinned.commit)


def test_a_file_names_both_its_repository_and_commit_or_neither() -> None:
    with pytest.raises(ValidationError, match="both its repository and commit"):
        ManifestFile(
            path="a", upstream="a", repository="o/r", sha256="0" * 64, size=1, group="core"
        )


def test_cli_fetch_jmt_bench_downloads_each_file_from_its_own_commit(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BASE_URL_ENV, server.url)
    runner = CliRunner()
    args = ["data", "fetch", "jmt-bench", "--with-published", "--data-dir", str(tmp_path)]
    fetched = runner.invoke(app, args)
    assert fetched.exit_code == 0, fetched.output
    assert "42 downloaded" in fetched.stdout
    _assert_matches_shared(tmp_path, "jmt-bench", frozenset({"core", "published"}))
    pinned = manifest("jmt-bench")
    asked = {tuple(unquote(r).split("/")[1:4]) for r in server.behaviour.requests}
    assert {(f"{owner}/{name}", commit) for owner, name, commit in asked} == JMT_SOURCES
    assert len(server.behaviour.requests) == len(pinned.select({"core", "published"}))

    ok = runner.invoke(app, ["data", "verify", "jmt-bench", "--data-dir", str(tmp_path)])
    assert ok.exit_code == 0, ok.output
    assert "Japanese MT-bench: all 42 files verified" in ok.stdout


def test_cli_fetch_rakuda_with_its_published_answers_and_rankings(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BASE_URL_ENV, server.url)
    args = ["data", "fetch", "rakuda", "--with-published", "--data-dir", str(tmp_path)]
    fetched = CliRunner().invoke(app, args)
    assert fetched.exit_code == 0, fetched.output
    assert "21 downloaded" in fetched.stdout
    _assert_matches_shared(tmp_path, "rakuda", frozenset({"core", "published"}))
    assert all(
        r.startswith("/yuzu-ai/japanese-llm-ranking/fae1ee79c69b0c3acf8e8a1994e43c7952e7bd9c/")
        for r in server.behaviour.requests
    )


def test_cli_fetch_elyza_tasks_100_pins_upstreams_prompt_file(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tasks arrive byte for byte; a prompt file other than the pinned one
    (here hyoka's stand-in) is refused by its SHA-256 and never left in the data dir.
    ``benchmarks/elyza_upstream_prompt.py`` checks the real file against the same pin."""
    monkeypatch.setenv(BASE_URL_ENV, server.url)
    args = ["data", "fetch", "elyza-tasks-100", "--data-dir", str(tmp_path)]
    fetched = CliRunner().invoke(app, args)
    prompt = _ELYZA_PROMPT
    assert {f.path for f in manifest("elyza-tasks-100").select()} == {
        "elyza-tasks-100/judgments/gpt-4-turbo-preview/gpt-4-turbo-preview.json",
        prompt,
        "elyza-tasks-100/LICENSE",
    }
    assert fetched.exit_code != 0
    assert fetched.output.startswith("error: ") and prompt in fetched.output, fetched.output
    assert "the server sent different bytes (SHA-256" in fetched.output
    # fetched in the manifest's order: the tasks before the prompt file, byte for byte
    tasks = "elyza-tasks-100/judgments/gpt-4-turbo-preview/gpt-4-turbo-preview.json"
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == [tmp_path / tasks]
    assert filecmp.cmp(tmp_path / tasks, SHARED / tasks, shallow=False)
    assert not (tmp_path / prompt).exists()
    assert not _leftovers(tmp_path)
    assert (
        f"/lightblue-tech/japanese_llm_eval/{manifest('elyza-tasks-100').commit}/"
        + ("evaluation_datasets_config.py")
        in server.behaviour.requests
    )


#: variant shaberi-2025's prompt file (shisa-ai/shaberi f8cd7a0), not in ``../shared/data``
_SHABERI_2025 = "elyza-tasks-100/variants/shaberi-2025/evaluation_datasets_config.py"


def test_a_sources_file_is_fetched_and_required_only_when_asked_for(tmp_path: Path) -> None:
    """Upstream source files read for the exact texts a protocol sends (here a named
    variant's prompt file) are outside the default fetch and verify (the shared data,
    without them, verifies), required with ``--with-sources``, and a run that needs one
    names the flag that fetches it."""
    (pinned,) = [f for f in manifest("elyza-tasks-100").files if f.path == _SHABERI_2025]
    assert (pinned.group, pinned.repository) == ("sources", "shisa-ai/shaberi")
    assert _SHABERI_2025 not in {f.path for f in manifest("elyza-tasks-100").select()}
    data = ["--data-dir", str(SHARED)]
    plain = CliRunner().invoke(app, ["data", "verify", "elyza-tasks-100", *data])
    assert plain.exit_code == 0, plain.output
    asked = CliRunner().invoke(app, ["data", "verify", "elyza-tasks-100", "--with-sources", *data])
    assert asked.exit_code == 1
    assert f"missing: {_SHABERI_2025}" in asked.output
    assert f"run `hyoka data fetch elyza-tasks-100 --with-sources --data-dir {SHARED}`" in (
        asked.output
    )
    with pytest.raises(MissingDataError, match=r"fetch elyza-tasks-100 --with-sources --data"):
        Bench.load("elyza-tasks-100", SHARED, "shaberi-2025")


def test_a_derived_file_is_verified_never_downloaded_and_named_by_fetch(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Shaberi table is extracted from 6,035 upstream files (SOURCE.md): a fetch gets
    the licence, asks upstream for nothing else and says how the table is made; verify
    checks the table where it is, by its SHA-256, like any file."""
    monkeypatch.setenv(BASE_URL_ENV, server.url)
    pinned = manifest("shaberi-judgments")
    (table,) = [f for f in pinned.files if f.derived]
    args = ["data", "fetch", "shaberi-judgments", "--with-published", "--data-dir", str(tmp_path)]
    fetched = CliRunner().invoke(app, args)
    assert fetched.exit_code == 0, fetched.output
    assert "1 downloaded" in fetched.stdout
    assert f"not made: {table.path} (nothing to download: one line per" in fetched.stdout
    assert server.behaviour.requests == [f"/shisa-ai/shaberi/{pinned.commit}/LICENSE"]
    assert not (tmp_path / table.path).exists()
    missing = verify(pinned, tmp_path, ALL_GROUPS)
    assert [(p.path, p.kind) for p in missing.problems] == [(table.path, "missing")]
    assert "derived: one line per (judge, suite, model, item)" in missing.problems[0].detail
    assert verify(pinned, SHARED, ALL_GROUPS).ok
