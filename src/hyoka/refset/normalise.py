"""Stage 2: rewrite answers to one writing style with a declared list of regex rewrites.

The rewrites live in a TOML file the user can read and edit (the default, for Japanese
official-document style, is ``hyoka/examples/refset/normalise-ja.toml``)::

    [[rewrite]]
    name = "full-width digits"
    pattern = '[０-９]'
    apply = "nfkc"           # or: replace = '...' (a re.sub template)

Rewrites run in file order. Answers that become equal are merged (their counts add up),
answers that become empty are dropped; both are logged with the rules that fired.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from hyoka.errors import InputError
from hyoka.refset.pool import Audit, PoolRecord, merge_counts
from hyoka.refset.rulefiles import compile_pattern, read_entries

_FUNCTIONS: dict[str, Callable[[str], str]] = {
    "nfkc": lambda s: unicodedata.normalize("NFKC", s),
    "delete": lambda s: "",
}


def default_rules_path() -> Path:
    root = resources.files("hyoka") / "examples" / "refset" / "normalise-ja.toml"
    return Path(str(root))


@dataclass(frozen=True)
class Rewrite:
    name: str
    pattern: re.Pattern[str]
    replace: str | Callable[[re.Match[str]], str]
    where: str = ""

    def apply(self, text: str) -> str:
        try:
            return self.pattern.sub(self.replace, text)
        except (re.error, IndexError) as exc:  # a bad group reference in the template
            raise InputError(
                f"{self.where}: rewrite {self.name!r}: bad replacement: {exc}"
            ) from None


def load_rewrites(path: Path | None) -> list[Rewrite]:
    path = path or default_rules_path()
    rewrites: list[Rewrite] = []
    for entry in read_entries(path, "rewrite"):
        pattern = compile_pattern(path, entry)
        name = str(entry.fields.get("name") or pattern.pattern)
        replace, apply = entry.fields.get("replace"), entry.fields.get("apply")
        if (replace is None) == (apply is None):
            raise InputError(f"{entry.where}: rewrite {name!r} needs exactly one of replace/apply")
        if apply is not None:
            function = _FUNCTIONS.get(str(apply))
            if function is None:
                raise InputError(
                    f"{entry.where}: rewrite {name!r}: unknown apply {apply!r} "
                    f"(known: {', '.join(sorted(_FUNCTIONS))})"
                )
            rewrites.append(Rewrite(name, pattern, _on_match(function), entry.where))
            continue
        if not isinstance(replace, str):
            raise InputError(f"{entry.where}: rewrite {name!r}: 'replace' must be a string")
        rewrites.append(Rewrite(name, pattern, replace, entry.where))
    return rewrites


def _on_match(function: Callable[[str], str]) -> Callable[[re.Match[str]], str]:
    return lambda match: function(match.group(0))


def normalise_text(text: str, rewrites: Sequence[Rewrite]) -> tuple[str, list[str]]:
    """The rewritten text and the names of the rewrites that changed it."""
    fired: list[str] = []
    for rewrite in rewrites:
        changed = rewrite.apply(text)
        if changed != text:
            fired.append(rewrite.name)
            text = changed
    return text, fired


def normalise_pool(
    records: Sequence[PoolRecord], rewrites: Sequence[Rewrite], audit: Audit
) -> list[PoolRecord]:
    audit.before = sum(r.count for r in records)
    out: list[PoolRecord] = []
    changed: dict[str, list[tuple[str, str]]] = {}
    counts: dict[str, int] = {}
    empty: list[PoolRecord] = []
    for r in records:
        text, fired = normalise_text(r.text, rewrites)
        for name in fired:
            counts[name] = counts.get(name, 0) + r.count
            samples = changed.setdefault(name, [])
            if len(samples) < 5:
                samples.append((r.text, text))
        if not text:
            empty.append(r)
            continue
        out.append(PoolRecord(r.set, text, r.count))
    for rewrite in rewrites:
        if rewrite.name in counts:
            audit.note(
                f"rewrite:{rewrite.name}",
                rewritten_answers=counts[rewrite.name],
                samples=[{"before": b, "after": a} for b, a in changed[rewrite.name]],
            )
    if empty:
        audit.removed("empty after normalisation", empty)
    merged = merge_counts(out)
    audit.stats = {"distinct_before": len(records), "distinct_after": len(merged)}
    audit.after = sum(r.count for r in merged)
    return merged
