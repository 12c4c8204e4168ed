"""The report in a real browser: headless Chromium (Debian's package, driven by Playwright)
opens every main page from file://, with no console error and no request leaving the
machine, each fitting a 1,280-pixel window with no table cut off, the Japanese drawn in
glyphs (not the boxes a missing CJK font leaves), and reads the numbers and highlights
from the DOM.

Needs ``scripts/install_browser.sh`` (Chromium at /usr/bin/chromium, a CJK font,
Playwright in .venv).
Screenshots of the main pages are written to build/test-artefacts/report/.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _shared import NEEDS, PFGEN_RESULTS, SHARED_DATA, data_mark, needs
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.refset_stability import refset_stability
from hyoka.report import ReportOptions, build_report
from report_fixtures import (
    INVENTED,
    JUDGED_MODELS,
    PFMT_JUDGMENTS,
    crafted_runs,
    write_fastchat_pairs,
    write_run,
)

CHROMIUM = Path("/usr/bin/chromium")
VICUNA_PAIRS = next((SHARED_DATA / "ja-vicuna-qa" / "model_judgment").rglob("*calm2*.jsonl"))
ARTEFACTS = Path(__file__).resolve().parents[2] / "build" / "test-artefacts" / "report"
INSTALL = "run scripts/install_browser.sh (Debian's chromium and Playwright for Python)"


@pytest.fixture(scope="module")
def stability(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``hyoka pfgen stability --json`` report over three crafted runs, scored against the
    real reference sets of two questions that have all of P, S and T: a data directory of
    those two question files keeps the index build to seconds (the whole benchmark's takes a
    minute on a busy machine)."""
    root = tmp_path_factory.mktemp("stability")
    data = root / "data" / "pfgen-bench" / "data"
    data.mkdir(parents=True)
    answers: dict[str, dict[str, list[str]]] = {"note": {}, "echo": {}, "unknown": {}}
    for question_id in ("Q04", "Q05"):
        source = SHARED_DATA / "pfgen-bench" / "data" / f"{question_id}.json"
        shutil.copy(source, data / source.name)
        raw = json.loads(source.read_text(encoding="utf-8"))
        answers["note"][question_id] = [str(raw["note"])[:100]]
        answers["echo"][question_id] = [f"{raw['question']}は重要です。"]
        answers["unknown"][question_id] = ["わかりません。"]
    runs = [write_run(root / "runs" / name, name, texts) for name, texts in answers.items()]
    benchmark = PfgenBenchmark.load(root / "data", root / "cache")
    report = refset_stability(runs, benchmark, resamples=10)
    path = root / "stability.json"
    path.write_text(json.dumps(report.to_json()), encoding="utf-8")
    return path


def write_many_pairs(path: Path, count: int = 16) -> None:
    """A FastChat pair file of ``count`` models with long ids, each pair judged once: its
    win matrix is as wide as a report of many models gets."""
    models = [f"organisation-{n}/a-long-model-name-instruct-v{n}.0" for n in range(count)]
    winners = ("model_1", "model_2", "tie")
    lines = [
        {"question_id": n, "model_1": a, "model_2": b, "g1_winner": winners[n % 3],
         "g2_winner": winners[n % 3], "judge": ["judge-x", "pair-v2"], "turn": 1}
        for n, (a, b) in enumerate(itertools.combinations(models, 2))
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, index_cache_dir: Path, stability: Path) -> Path:
    root = tmp_path_factory.mktemp("inputs")
    a, b = crafted_runs(root)
    pairs = root / "judge-x_pair.jsonl"
    write_fastchat_pairs(pairs)
    many = root / "judge-x_many_pair.jsonl"
    write_many_pairs(many)
    judgments = [PFMT_JUDGMENTS / f"{m}.jsonl" for m in JUDGED_MODELS]
    out = tmp_path_factory.mktemp("site")
    options = ReportOptions(data_dir=SHARED_DATA, cache_dir=index_cache_dir, rounds=100)
    # the published calm2 pairs carry their answers: pairwise/p2.html has controlled columns
    build_report([a, b, *judgments, pairs, VICUNA_PAIRS, stability, many], out, options)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.is_file() or shutil.which("chromium") is None:
        pytest.skip(f"{NEEDS}chromium at {CHROMIUM}: {INSTALL}")
    sync_playwright = needs("playwright.sync_api").sync_playwright
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


#: The window the report must fit: a 1,280-pixel-wide laptop screen.
WINDOW = {"width": 1280, "height": 800}
#: What of a page sticks out past the window's right edge: the page's own width, each table
#: or figure whose right edge is past the window, and each cell whose content spills over it.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const name = e => e.id || e.tagName.toLowerCase() + (e.className.baseVal !== undefined ?
      '.' + e.className.baseVal : (e.className ? '.' + e.className : ''));
  const out = Array.from(document.querySelectorAll('main table, main svg, main figure, main pre'))
      .filter(e => e.getBoundingClientRect().right > width + 0.5).map(name);
  const spilt = Array.from(document.querySelectorAll('main td, main th'))
      .filter(c => c.scrollWidth > c.clientWidth + 1)
      .map(c => c.textContent.trim().slice(0, 40));
  return {page: document.scrollingElement.scrollWidth, width: width, out: out, spilt: spilt};
}"""


def fits_the_window(page: Any) -> None:
    """The page needs no sideways scrolling at ``WINDOW``'s width and cuts off no table."""
    seen = page.evaluate(OVERFLOW)
    assert seen["width"] <= WINDOW["width"]
    assert (seen["page"], seen["out"], seen["spilt"]) == (seen["width"], [], []), page.url


#: Each character drawn on a canvas in the font the page gives ``selector`` (the
#: characters given, else the first 12 kana and kanji of its text): how many different
#: shapes they make. A font that lacks them draws each as the same .notdef box (tofu), so
#: distinct characters that make one shape between them were drawn as boxes.
SHAPES = """([selector, given]) => {
  const node = document.querySelector(selector);
  const chars = Array.from(new Set(given ? Array.from(given) : Array.from(node.textContent)
      .filter(c => /[\u3040-\u30ff\u4e00-\u9fff]/.test(c)))).slice(0, 12);
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 48;
  const context = canvas.getContext('2d', {willReadFrequently: true});
  context.font = '32px ' + getComputedStyle(node).fontFamily;
  const shape = c => {
    context.clearRect(0, 0, 48, 48);
    context.fillText(c, 4, 38);
    return context.getImageData(0, 0, 48, 48).data.filter((_, i) => i % 4 === 3).join(',');
  };
  return {chars: chars.join(''), shapes: new Set(chars.map(shape)).size};
}"""
#: Code points no font has (unassigned in the Greek block): what tofu looks like here.
NO_FONT_HAS = "\u0378\u0379\u0380\u0381\u0382\u0383\u038b\u038d\u03a2"
FONT = "fonts-noto-cjk (scripts/install_browser.sh installs it)"


def japanese_shapes(page: Any, selector: str, given: str | None = None) -> tuple[str, int]:
    seen = page.evaluate(SHAPES, [selector, given])
    return seen["chars"], seen["shapes"]


def renders_japanese(page: Any, selector: str) -> None:
    """The Japanese text at ``selector`` is drawn in glyphs, not boxes: its first kana and
    kanji make as many shapes as there are of them (and the check itself tells boxes:
    characters no font has make one shape)."""
    chars, shapes = japanese_shapes(page, selector)
    assert len(chars) >= 8, chars
    assert shapes == len(chars), f"{chars} drawn as {shapes} shape(s): no CJK font, {FONT}"
    assert japanese_shapes(page, selector, NO_FONT_HAS)[1] == 1


class Watched:
    """A page with every console error, page error and non-file request recorded."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport=WINDOW)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def open(self, path: Path) -> Any:
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")
        return self.page

    def check(self) -> None:
        assert self.errors == []
        remote = [u for u in self.requests if not u.startswith(("file://", "data:"))]
        assert remote == []


def _main_pages(site: Path) -> dict[str, Path]:
    run_a = next((site / "pfgen" / "runs").glob("crafted-a*.html"))
    return {
        "index": site / "index.html",
        "leaderboard": site / "pfgen" / "index.html",
        "run": run_a,
        "compare": site / "pfgen" / "compare.html",
        "mtbench": site / "mtbench" / "index.html",
        "categories": site / "mtbench" / "pfmt-fin" / "index.html",
        "question": site / "mtbench" / "pfmt-fin" / "q0000.html",
        "pairwise-index": site / "pairwise" / "index.html",
        "pairwise": site / "pairwise" / "p1.html",
        "pairwise-controlled": site / "pairwise" / "p2.html",
        "pairwise-many": site / "pairwise" / "p3.html",  # a win matrix of 16 models
        "stability": site / "pfgen" / "stability.html",
    }


def test_main_pages_load_offline_without_errors(site: Path, browser: Any) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    watched = Watched(browser)
    for name, path in _main_pages(site).items():
        page = watched.open(path)
        assert page.title()
        fits_the_window(page)
        if name == "question":  # the question's turns, in Japanese
            renders_japanese(page, ".card .judgment")
        page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=name != "question")
    watched.check()
    assert all(u.startswith("file://") for u in watched.requests if not u.startswith("data:"))
    assert any(u.endswith("assets/site.js") for u in watched.requests)
    _controlled_columns_are_shown(site, watched)


def _controlled_columns_are_shown(site: Path, watched: Watched) -> None:
    """The pairwise page of the published calm2 pairs shows the style-controlled ratings
    beside the raw ones (the library's, on the same battles) and the length-controlled
    rate; the crafted pairs without answers say why they have none; the benchmark page
    shows the length-adjusted means of the answers beside the published judgments."""
    from hyoka.report.pairwise_pages import read_pairs, style_controlled
    from hyoka.report.pairwise_styles import with_styles

    outcomes, _ = with_styles(VICUNA_PAIRS, read_pairs(VICUNA_PAIRS), SHARED_DATA)
    controlled = style_controlled(outcomes, "bs2", rounds=100, seed=0)
    assert controlled is not None
    page = watched.open(site / "pairwise" / "p2.html")
    rows = page.eval_on_selector_all(
        "#bt-bs2 tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent))"
    )
    by_model = controlled.ratings.by_model()
    assert len(rows) == 2 and all(page.is_visible(f"#{t}-bs2") for t in ("bt", "lc", "style"))
    for row in rows:
        rating = by_model[row[0]]
        assert row[4:6] == [f"{rating.rating:.1f}", f"[{rating.low:.1f}, {rating.high:.1f}]"]
    assert controlled.signature.line in page.text_content("#style-bs2 + p")
    page = watched.open(site / "pairwise" / "p1.html")
    assert page.is_visible("#no-style-control") and not page.query_selector("#lc-bs2")
    page = watched.open(site / "mtbench" / "pfmt-fin" / "index.html")
    adjusted = page.eval_on_selector_all(
        "#pfmt-fin-1-length tbody tr", "rows => rows.map(r => r.cells[2].textContent)"
    )
    assert len(adjusted) == len(JUDGED_MODELS) and all(a != "–" for a in adjusted)
    assert "partial r = " in page.text_content("#pfmt-fin-1-partial")
    watched.check()


@pytest.mark.slow  # a second browser: two seconds
def test_japanese_drawn_as_boxes_without_a_cjk_font_fails_the_check(
    site: Path, browser: Any, tmp_path: Path
) -> None:
    """The check ``renders_japanese`` makes fails where no CJK font is installed: the same
    Chromium, shown only DejaVu through fontconfig, draws the question's Japanese as boxes,
    and its kanji make one shape."""
    config = tmp_path / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir>'
        "<cachedir>/var/cache/fontconfig</cachedir></fontconfig>",
        encoding="utf-8",
    )
    without = browser.browser_type.launch(
        executable_path=str(CHROMIUM),
        args=["--no-sandbox", "--disable-gpu"],
        env={**os.environ, "FONTCONFIG_FILE": str(config)},
    )
    try:
        page = without.new_page(viewport=WINDOW)
        page.goto(_main_pages(site)["question"].as_uri())
        chars, shapes = japanese_shapes(page, ".card .judgment")
        assert len(chars) == 12 and shapes == 1
        with pytest.raises(AssertionError, match="no CJK font"):
            renders_japanese(page, ".card .judgment")
    finally:
        without.close()


def test_leaderboard_dom_matches_the_leaderboard_command(site: Path, browser: Any) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "hyoka", "pfgen", "leaderboard", str(PFGEN_RESULTS), "-f", "json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    expected = json.loads(listed)["runs"]
    watched = Watched(browser)
    page = watched.open(site / "pfgen" / "index.html")
    rows = page.eval_on_selector_all(
        "#leaderboard tbody tr",
        "rows => rows.map(r => ({mine: r.classList.contains('mine'), "
        "cells: Array.from(r.cells).map(c => c.textContent.trim())}))",
    )
    public = [r["cells"] for r in rows if not r["mine"]]
    assert len(rows) == 51 and len(public) == 49
    for cells, run in zip(public, expected, strict=True):
        assert cells[1].split(" †")[0].strip() == run["model"]
        assert cells[3] == f"{run['score']:.4f}"
        assert cells[6:9] == [f"{run[k]:.3f}" for k in ("fluency", "truthfulness", "helpfulness")]
    # a click on a header sorts by it: ascending by score
    page.click("#leaderboard thead th:nth-child(4)")
    scores = page.eval_on_selector_all(
        "#leaderboard tbody tr td:nth-child(4)",
        "cells => cells.map(c => parseFloat(c.textContent))",
    )
    assert scores == sorted(scores) and len(scores) == 51
    tip = page.get_attribute("#leaderboard tbody tr td:nth-child(4)", "title")
    assert tip is not None and tip.startswith(("signature:", "no signature"))
    watched.check()


def test_crafted_answer_is_highlighted_where_it_invents(site: Path, browser: Any) -> None:
    watched = Watched(browser)
    page = watched.open(next((site / "pfgen" / "runs").glob("crafted-a*.html")))
    weak = page.eval_on_selector_all(
        "section#Q01 .answer .weak", "spans => spans.map(s => s.textContent).join('')"
    )
    assert weak == INVENTED
    colour = page.eval_on_selector(
        "section#Q01 .answer .weak", "s => getComputedStyle(s).backgroundColor"
    )
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
    watched.check()


def test_question_page_unpacks_the_judges_reasoning(site: Path, browser: Any) -> None:
    lines = [json.loads(x) for x in (PFMT_JUDGMENTS / f"{JUDGED_MODELS[0]}.jsonl").open()]
    first = next(x for x in lines if x["question_id"] == 0 and x["turn"] == 1)
    watched = Watched(browser)
    page = watched.open(site / "mtbench" / "pfmt-fin" / "q0000.html")
    page.wait_for_selector("body[data-unpacked=yes]", state="attached", timeout=10_000)
    texts = page.eval_on_selector_all(".judgment[id]", "nodes => nodes.map(n => n.textContent)")
    assert first["judgment"] in texts
    assert "…" not in texts
    watched.check()


def test_stability_scatter_dom_holds_the_files_points(
    site: Path, stability: Path, browser: Any
) -> None:
    from scipy.stats import spearmanr  # type: ignore[import-untyped]

    recorded = json.loads(stability.read_text(encoding="utf-8"))
    watched = Watched(browser)
    page = watched.open(site / "pfgen" / "stability.html")
    figures = page.eval_on_selector_all(
        "figure.stability",
        "fs => fs.map(f => ({x: f.dataset.x, y: f.dataset.y, "
        "tips: Array.from(f.querySelectorAll('circle')).map(c => "
        "c.parentNode.querySelector('title').textContent)}))",
    )
    assert len(figures) == 6  # the ensemble against P, S and T; P-S, P-T, S-T
    for figure in figures:
        expected = sorted(
            f"{r['run']}: {r[figure['x']]:.4f}, {r[figure['y']]:.4f}" for r in recorded["runs"]
        )
        assert sorted(figure["tips"]) == expected
    first = page.text_content("#stability-1-correlations tbody tr td.spearman")
    runs = recorded["runs"]
    rho = spearmanr([r["ensemble"] for r in runs], [r["P"] for r in runs]).statistic
    assert first == f"{rho:.5f}"
    watched.check()


def test_a_benchmark_page_renders_its_radar_and_a_question_unpacks_its_reasoning(
    tmp_path: Path, browser: Any
) -> None:
    """A judged benchmark other than pfmt's (one model of Stability's published JMT-bench
    judgments): its page shows the radar, a question page unpacks the judge's reasoning."""
    published = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"
    lines = [json.loads(x) for x in published.read_text(encoding="utf-8").splitlines()]
    kept = [x for x in lines if x["model"] == "jslma-7b-ja-orca-6k-3ep"]
    judged = tmp_path / "judged" / "gpt-4_single.jsonl"
    judged.parent.mkdir()
    judged.write_text("".join(json.dumps(x) + "\n" for x in kept), encoding="utf-8")
    site = tmp_path / "site"
    build_report([judged], site, ReportOptions(data_dir=SHARED_DATA, public=False))
    folder = site / "mtbench" / "jmt-bench.stability@aed16da"
    watched = Watched(browser)
    page = watched.open(folder / "index.html")
    assert page.is_visible("section svg")
    assert page.text_content("#variant") == "stability@aed16da"
    first = next(x for x in kept if int(x["question_id"]) == 1)
    page = watched.open(folder / "q0001.html")
    page.wait_for_selector("body[data-unpacked=yes]", state="attached", timeout=10_000)
    texts = page.eval_on_selector_all(".judgment[id]", "nodes => nodes.map(n => n.textContent)")
    assert first["judgment"] in texts
    watched.check()


PUBLISHED_JUDGES = (
    Path("pfmt-bench-fin-ja") / "model_judgment" / "gpt-4o_single",
    Path("pfmt-bench-fin-ja") / "model_judgment" / "gpt-4o-mini_single",
    Path("ja-vicuna-qa") / "model_judgment" / "pairwise" / "gpt-4",
    Path("pfmt-bench-fin-ja") / "question.jsonl",  # what the grades' lines are checked by
)


@data_mark(*(SHARED_DATA / p for p in PUBLISHED_JUDGES))
def test_judges_page_shows_the_library_table_scatter_and_signature(
    tmp_path: Path, browser: Any
) -> None:
    """``hyoka report --judges`` over a data directory holding pfmt's two published judges and
    the ja-vicuna-qa pairwise judgments (linked, not copied; Shaberi's table is left out: it
    alone takes seconds to read): the index links the page, whose agreement table holds
    ``judge_meta``'s numbers, sorts on a click, whose scatter has one point per judge with
    both agreements, and which names the absent source and shows the signature."""
    from hyoka.metaeval import JudgeMetaSettings, judge_meta, published_sources

    data = tmp_path / "data"
    for linked in PUBLISHED_JUDGES:
        (data / linked).parent.mkdir(parents=True, exist_ok=True)
        (data / linked).symlink_to(SHARED_DATA / linked, target_is_directory=True)
    site = tmp_path / "site"
    build_report([], site, ReportOptions(data_dir=data, public=False, judges=True, rounds=200))
    meta = judge_meta(published_sources(data), JudgeMetaSettings(resamples=200, seed=0))
    agreement = [r for r in meta.rows if r.kind == "single"]
    mini = next(r for r in agreement if r.judge == "gpt-4o-mini" and r.template == "(all)")
    assert mini.kappa is not None and mini.spearman is not None and mini.exact is not None

    watched = Watched(browser)
    page = watched.open(site / "index.html")
    page.click("a[href='judges.html']")
    page.wait_for_load_state("load")
    assert page.url == (site / "judges.html").as_uri() and page.title() == "Judges"
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "judges.png"), full_page=True)
    fits_the_window(page)
    table = "table.sortable:nth-of-type(1)"
    rows = page.eval_on_selector_all(
        f"{table} tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent))"
    )
    assert [tuple(r[:3]) for r in rows] == [(r.suite, r.judge, r.template) for r in agreement]
    shown = next(r for r in rows if r[1] == "gpt-4o-mini")
    assert shown[2] == "(all)" and shown[4] == str(mini.judgments)
    assert shown[8] == mini.reference == "gpt-4o"
    for column, value in ((10, mini.exact), (11, mini.kappa), (13, mini.spearman)):
        assert shown[column] == f"{value.estimate:.3f} [{value.low:.3f}, {value.high:.3f}]"

    # the scatter: visible, one point per judge with both agreements, at the library's numbers
    assert page.is_visible("svg.scatter")
    tips = page.eval_on_selector_all(
        "svg.scatter g > circle",
        "cs => cs.map(c => c.parentNode.querySelector('title').textContent)",
    )
    expected = [
        f"{r.judge} ({r.suite}): {r.kappa.estimate:.4f}, {r.spearman.estimate:.4f}"
        for r in meta.rows
        if r.kappa is not None and r.spearman is not None and not r.breakdown
    ]
    assert tips == expected and len(tips) == 1  # the judge's point, not its templates

    # a click on "judgments" sorts ascending, a second descending
    header = f"{table} thead th:nth-child(5)"
    for order in ("asc", "desc"):
        page.click(header)
        counts = page.eval_on_selector_all(
            f"{table} tbody td:nth-child(5)", "cs => cs.map(c => Number(c.textContent))"
        )
        assert counts == sorted((r.judgments for r in agreement), reverse=order == "desc")
        assert order in (page.get_attribute(header, "class") or "").split()
    assert page.text_content("footer .signature") == str(meta.signature)
    faults = page.eval_on_selector_all(
        "main ul:not(.notes) li", "lis => lis.map(li => li.textContent)"
    )
    assert faults == meta.faults and any("shaberi-judgments" in f for f in faults)
    notes = page.eval_on_selector_all("main ul.notes li", "lis => lis.map(li => li.textContent)")
    assert notes == meta.notes and notes
    watched.check()
