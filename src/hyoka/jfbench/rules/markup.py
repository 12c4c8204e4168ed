"""JavaScript, HTML and LaTeX responses, checked with the parsers upstream checks them with.

Written from reading upstream's ``constraints/format/javascript.py``, ``html.py`` and
``latex.py`` (c8fed01). Each verdict is the parser's, so these use upstream's libraries at
its pins: esprima 4.0.1 (a module, else a script, parses; a leading code fence is read
for its inside, a byte-order mark and a ``#!`` line dropped), html5lib 1.1 in strict mode
(the first fenced block, labelled html or not, else the response), pylatexenc 2.10 with
a few AMS environments and macros added (a fence wrapping the whole response dropped; an
``\\item`` outside itemize, enumerate or description fails).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from hyoka.jfbench.rules.formats import _leading_fence, without_whole_fence

#: the packages whose versions decide these verdicts (upstream's uv.lock)
PACKAGES = ("esprima", "html5lib", "pylatexenc")


def _javascript_parses(code: str) -> bool:
    import esprima

    fenced = _leading_fence(code)
    source = (code if fenced is None else fenced[0]).lstrip("\ufeff")
    if source.startswith("#!"):
        source = "\n".join(source.splitlines()[1:])
    for parse in (esprima.parseModule, esprima.parseScript):
        try:
            parse(source, tolerant=False)
        except esprima.Error:
            continue
        except Exception:  # upstream counts anything else the parser raises a failure
            return False
        return True
    return False


def javascript(value: str) -> bool:
    """The response (or a leading fence's inside) parses as JavaScript."""
    return _javascript_parses(value)


def javascript_without_fence(value: str) -> bool:
    return _leading_fence(value) is None and _javascript_parses(value)


def javascript_with_fence(value: str) -> bool:
    """A leading fence labelled ``js`` or ``javascript`` (any case) whose inside parses."""
    fenced = _leading_fence(value)
    if fenced is None or fenced[1].lower() not in {"javascript", "js"}:
        return False
    return _javascript_parses(fenced[0])


_HTML_FENCES = (
    re.compile(r"```(?:html)?\s*(.*?)\s*```", re.S | re.I),
    re.compile(r"~~~(?:html)?\s*(.*?)\s*~~~", re.S | re.I),
)


def html(value: str) -> bool:
    """html5lib's strict parser reads the first fenced block (else the response) unbroken."""
    import html5lib

    found = next((m for fence in _HTML_FENCES if (m := fence.search(value))), None)
    try:
        html5lib.HTMLParser(strict=True).parse(value if found is None else found.group(1))
    except Exception:  # a parse error, whatever html5lib raises it as
        return False
    return True


_AMS_ENVIRONMENTS = ("align", "align*", "gather", "gather*", "multline", "multline*")
_MORE_ENVIRONMENTS = ("equation*", "split")
_ONE_ARGUMENT = ("bm", "mathbb", "mathcal", "mathrm", "mathbf", "boldsymbol")
_LISTS = frozenset({"itemize", "enumerate", "description"})


@functools.cache
def _latex_context() -> Any:
    from pylatexenc.latexwalker import get_default_latex_context_db
    from pylatexenc.macrospec import EnvironmentSpec, MacroSpec

    context = get_default_latex_context_db()
    macros = [
        *(MacroSpec(name, "{") for name in _ONE_ARGUMENT),
        MacroSpec("DeclareMathOperator", "*{{"),
        MacroSpec("operatorname", "*{"),
        MacroSpec("href", "{{"),
    ]
    environments = [EnvironmentSpec(n) for n in (*_AMS_ENVIRONMENTS, *_MORE_ENVIRONMENTS)]
    context.add_context_category(
        "hyoka-ams", prepend=True, macros=macros, environments=environments
    )
    return context


def _stray_item(nodes: list[Any]) -> bool:
    """Whether an ``\\item`` stands outside every list environment, walking the tree as
    upstream does (an environment's and a group's contents; a macro's arguments and
    contents; each node once)."""
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexGroupNode, LatexMacroNode

    seen: set[int] = set()
    found = False

    def visit(node: Any, environments: tuple[str, ...]) -> None:
        nonlocal found
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, LatexEnvironmentNode):
            for child in node.nodelist or []:
                visit(child, (*environments, node.environmentname))
            return
        if isinstance(node, LatexGroupNode):
            for child in node.nodelist or []:
                visit(child, environments)
            return
        if isinstance(node, LatexMacroNode) and node.macroname == "item":
            found |= not _LISTS.intersection(environments)
        arguments = getattr(node, "nodeargd", None)
        if arguments is not None:
            for argument in arguments.argnlist or []:
                if argument is not None:
                    visit(argument, environments)
        for child in getattr(node, "nodelist", None) or []:
            visit(child, environments)

    for node in nodes:
        visit(node, ())
    return found


def latex(value: str) -> bool:
    """pylatexenc's walker reads the response, and no ``\\item`` is outside a list."""
    from pylatexenc.latexwalker import LatexWalker, LatexWalkerParseError

    walker = LatexWalker(without_whole_fence(value), latex_context=_latex_context())
    try:
        nodes, _, _ = walker.get_latex_nodes()
    except LatexWalkerParseError:
        return False
    return not _stray_item(nodes)
