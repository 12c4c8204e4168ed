"""An explained pfgen answer as HTML: the answer with its weak and fluent stretches marked,
the rules met and missed, and the nearest reference answers."""

from __future__ import annotations

from hyoka.pfgen import Explanation
from hyoka.report.html import esc, num

LEGEND = (
    '<p class="legend"><span class="weak">rare 3-grams: likely hallucination</span>'
    '<span class="freq">frequent 10-grams: fluent</span>'
    '<span class="cut">&nbsp;</span> length discount starts (100 characters)'
    '<span class="past">grey</span> past 150 characters: no longer counts</p>'
)


def _classes(explanation: Explanation) -> list[str]:
    weak = explanation.weak
    votes = [sum(s.frequent[i] for s in explanation.sets) for i in range(explanation.length)]
    half = max(len(explanation.sets), 1) / 2
    classes = []
    for i in range(explanation.length):
        names = []
        if weak[i]:
            names.append("weak")
        if votes[i] >= half and votes[i] > 0:
            names.append("freq")
        if i >= explanation.discount_zero:
            names.append("past")
        classes.append(" ".join(names))
    return classes


def answer_html(explanation: Explanation) -> str:
    """The answer as runs of equally classed characters; a marker where the discount starts."""
    answer = explanation.answer
    classes = _classes(explanation)
    parts: list[str] = []
    start = 0
    for i in range(1, len(answer) + 1):
        boundary = i == explanation.discount_start
        if i == len(answer) or classes[i] != classes[start] or boundary:
            text = esc(answer[start:i])
            kind = classes[start]
            if kind:
                tip = ' title="rare in the reference answers"' if "weak" in kind else ""
                parts.append(f'<span class="{kind}"{tip}>{text}</span>')
            else:
                parts.append(text)
            if boundary and i < len(answer):
                parts.append('<span class="cut" title="length discount starts here"></span>')
            start = i
    return f'<div class="answer">{"".join(parts)}</div>'


def explanation_card(explanation: Explanation, heading: str, role: str = "") -> str:
    score = explanation.score
    head = (
        f"{esc(heading)} · average {num(score.average)} · Fluency {num(score.fluency)} · "
        f"Truthfulness {num(score.truthfulness)} · Helpfulness {num(score.helpfulness)} · "
        f"{explanation.length} characters"
    )
    peaks = ", ".join(f"{esc(s.name)}: {s.best_prefix}" for s in explanation.sets)
    facts = (
        f"<p>Fluency peaks at prefix length {peaks} (of {min(explanation.length, 200)}); "
        f"{explanation.frequent_share * 100:.0f}% of the answer lies in frequent 10-grams; "
        f"{explanation.weak_share * 100:.0f}% of its counted characters are rare 3-grams. "
        f"The length discount starts at {explanation.discount_start} characters and reaches "
        f"0 at {explanation.discount_zero}.</p>"
    )
    rules = []
    for rule in explanation.rules:
        where = f" (met at character {rule.end})" if rule.end is not None else ""
        state = "met" if rule.met else "missed"
        weight = f", importance {rule.importance:g}" if rule.importance != 1 else ""
        rules.append(
            f'<li class="rule-{state}">{state}: <code>{esc(rule.name)}</code>{where}{weight}</li>'
        )
    if explanation.over_length:
        rules.append(f'<li class="rule-missed">over length: {esc(explanation.over_length)}</li>')
    rule_list = f'<ul class="rules">{"".join(rules)}</ul>' if rules else "<p>No keyword rules.</p>"
    nearest = "".join(
        f'<li><span class="muted">{esc(n.set_name)} · similarity {n.similarity:.2f}</span> '
        f"{esc(n.text)}</li>"
        for n in explanation.nearest
    )
    refs = (
        f'<details><summary>nearest reference answers</summary><ol class="refs">{nearest}</ol>'
        "</details>"
        if nearest
        else ""
    )
    role_attr = f' data-role="{esc(role)}"' if role else ""
    return (
        f'<div class="card explain" data-question="{esc(explanation.question_id)}"{role_attr}>'
        f"<h3>{head}</h3>{answer_html(explanation)}{facts}"
        f"<p>Helpfulness rules:</p>{rule_list}{refs}</div>"
    )
