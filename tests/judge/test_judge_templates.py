"""Judge templates: packaged files, a user's own file, and every way a template can be wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.errors import InputError
from hyoka.judge.templates import load_template, packaged_templates

SEED_000 = next((SHARED_DATA.parent / "seeds").glob("000_*.txt"))


def _write(path: Path, body: str, *, kind: str = "single", output: str = "rating") -> Path:
    path.write_text(
        f'name = "mine"\nversion = "2"\nkind = "{kind}"\noutput = "{output}"\n{body}',
        encoding="utf-8",
    )
    return path


def test_packaged_templates_load_and_fit_their_kind() -> None:
    templates = {t.name: t for t in packaged_templates()}
    assert {"pfgen-single", "single-ref"} <= templates.keys()
    for template in templates.values():
        assert template.source.endswith(f"hyoka/judge/templates/{template.name}.toml")
        assert template.version
    single = templates["pfgen-single"]
    assert (single.kind, single.output, single.version) == ("single", "rating", "1")
    assert single.placeholders == {"question", "answer", "reference"}
    assert load_template("pfgen-single") == single


def test_pfgen_single_is_the_papers_prompt() -> None:
    messages = load_template("pfgen-single").render(
        question="時計の長針と短針が1日に重なる回数は？", answer="22回です。", reference="22回。"
    )
    assert [m.role for m in messages] == ["user"]
    text = messages[0].content
    seed = SEED_000.read_text(encoding="utf-8")
    # the instruction sentences as the paper prints them (up to its page-break hyphenation)
    start = seed.index("Please act as an impartial judge")
    paper = seed[start : seed.index("calculation re-", start)]
    assert paper in text
    assert 'by strictly following this format: "[[rating]]", for example: "Rating: [[5]]".' in text
    assert (
        text.index("[Question]\n時計の長針")
        < text.index("[The Start of Reference Answer]\n22回。\n[The End of Reference Answer]")
        < text.index(
            "[The Start of Assistant's Answer]\n22回です。\n[The End of Assistant's Answer]"
        )
    )


def test_single_ref_has_a_system_message() -> None:
    messages = load_template("single-ref").render(question="Q", answer="A", reference="R")
    assert [m.role for m in messages] == ["system", "user"]
    assert "Japanese" in messages[1].content and "[[n]]" in messages[1].content


def test_user_file_with_literal_braces(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "mine.toml",
        'user = """Reply as JSON like {"rating": 5} or {{answer}}.\\n'
        'Q: {question}\\nA: {answer}"""\n',
    )
    template = load_template(str(path))
    assert (template.name, template.version, template.source) == ("mine", "2", str(path))
    assert template.placeholders == {"question", "answer"}
    (message,) = template.render(question="q?", answer="a {question} {reference}")
    # other braces stay; a field value is never filled in again
    assert message.content == (
        'Reply as JSON like {"rating": 5} or {{answer}}.\nQ: q?\nA: a {question} {reference}'
    )


def test_missing_required_placeholder(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.toml", 'user = "Grade this: {answer}"\n')
    with pytest.raises(InputError, match=r"t\.toml: .*must use \{question\}"):
        load_template(str(path))


def test_unknown_placeholder(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.toml", 'user = "{question} {answer} {criteria}"\n')
    with pytest.raises(InputError, match=r"t\.toml: .*unknown placeholder \{criteria\}"):
        load_template(str(path))
    pairwise = _write(
        tmp_path / "p.toml", 'user = "{question} {answer_a} {answer_b} {criteria}"\n',
        kind="pairwise", output="verdict",
    )  # fmt: skip
    assert load_template(str(pairwise)).placeholders == {
        "question",
        "answer_a",
        "answer_b",
        "criteria",
    }


def test_output_must_fit_the_kind(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.toml", 'user = "{question} {answer}"\n', output="verdict")
    with pytest.raises(InputError, match=r"t\.toml: .*output 'verdict' does not fit a single"):
        load_template(str(path))


def test_bad_toml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\nversion = "1"\nkind = single\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.toml: invalid TOML: .*line 3"):
        load_template(str(path))


def test_missing_fields_and_unknown_names(tmp_path: Path) -> None:
    path = tmp_path / "short.toml"
    path.write_text('name = "x"\nkind = "single"\noutput = "rating"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"short\.toml: not a judge template \(version"):
        load_template(str(path))
    with pytest.raises(InputError, match=r"no judge template named 'nope'.*pfgen-single"):
        load_template("nope")
    with pytest.raises(InputError, match="cannot read the judge template"):
        load_template(str(tmp_path / "absent.toml"))


def test_render_with_a_missing_field() -> None:
    with pytest.raises(InputError, match=r"'pfgen-single' .* needs \{reference\}"):
        load_template("pfgen-single").render(question="q", answer="a")
