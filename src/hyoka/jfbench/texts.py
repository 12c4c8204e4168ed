"""The prompt a model is shown, with upstream's own wording read from its pinned source.

A JFBench prompt is upstream's frame (the instruction, then its notes on answering) with
one line per constraint, each the constraint's ``instructions`` text. That wording is
upstream's prose, so hyoka holds none of it: it reads upstream's source files at the
pinned commit (``src/jfbench/prompts/ifbench.py`` and ``src/jfbench/constraints/``, MIT;
``SOURCE_SHA256`` pins them) and *evaluates* the few expressions that make each text: a
string, an f-string over the constraint's parameters, a sum of those, a join, or
``self._random_instruction(templates)``, the choice of ``random.Random(seed)`` among a list
(its first draw, which upstream caches). Nothing else of upstream's code is run: the
evaluator knows only those expressions, and anything else is an ``UnrenderedError`` naming
the class.

One class cannot be reproduced by anyone: ``MarkdownFormatConstraint`` lists the wording of
nine other Markdown checks, each built without a seed and so phrased at random on every
build (upstream's own builds differ there run to run, 300 entries a set); its text is
refused with ``UnseededError``.
"""

from __future__ import annotations

import ast
import hashlib
import random
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.data import parsed_source
from hyoka.errors import InputError
from hyoka.jfbench.build import (
    DEFAULT_SEED,
    BuildSummary,
    Entry,
    built,
    summary_of,
)
from hyoka.jfbench.catalogue import CONSTRAINT_SETS, ConstraintSet, Factory
from hyoka.jfbench.inputs import Prompts
from hyoka.store import read_bytes

#: SHA-256 of upstream's source files hyoka reads, concatenated in path order, each
#: preceded by its path and a NUL (commit c8fed01)
SOURCE_SHA256 = "2423c3a3e74426033ab5bbb6c074a3173c93ab34adea69da0a16fcde423f6270"
PROMPT_FILE = Path("src/jfbench/prompts/ifbench.py")
CONSTRAINTS = Path("src/jfbench/constraints")


class UnrenderedError(InputError):
    """A text built from something the evaluator does not know."""


class UnseededError(UnrenderedError):
    """A text upstream draws at random without a seed: no build can reproduce it."""


def source_files(root: Path) -> list[Path]:
    """The files hyoka reads from an upstream checkout, relative to it, in path order."""
    found = sorted(p.relative_to(root) for p in (root / CONSTRAINTS).rglob("*.py"))
    return sorted([PROMPT_FILE, *found], key=str)


def source_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for relative in source_files(root):
        digest.update(str(relative).encode() + b"\0")
        digest.update(read_bytes(root / relative))
    return digest.hexdigest()


@dataclass
class _Instance:
    """What an upstream constraint object holds that its text reads."""

    name: str
    attributes: dict[str, Any]
    seed: int | None
    source: Source
    choice: str | None = None

    def random_instruction(self, options: list[str]) -> str:
        if self.seed is None:
            raise UnseededError(f"{self.name}: its wording is drawn without a seed")
        if self.choice is None:
            self.choice = random.Random(self.seed).choice(list(options))
        return self.choice

    def instructions(self, train_or_test: str = "train") -> str:
        return self.source.render_instance(self, train_or_test)


class _ReturnedError(Exception):
    """Carries a ``return``'s value out of nested blocks (not an error)."""

    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass
class Source:
    """Upstream's classes, parsed from a checkout whose files match ``SOURCE_SHA256``."""

    root: Path
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    frame: ast.FunctionDef | None = None
    #: the SHA-256 of the files read (``source_digest``): ``SOURCE_SHA256`` for upstream's
    digest: str = ""

    @property
    def pinned(self) -> bool:
        """Whether these are upstream's files at c8fed01."""
        return self.digest == SOURCE_SHA256

    @classmethod
    def read(cls, root: Path, *, check: bool = True) -> Source:
        found = source_digest(root)
        if check and found != SOURCE_SHA256:
            raise InputError(
                f"{root}: not upstream's source at c8fed01 (its files' digest is {found[:12]}, "
                f"pinned {SOURCE_SHA256[:12]})"
            )
        source = cls(root, digest=found)
        for relative in source_files(root):
            tree = parsed_source(root / relative, read_bytes(root / relative))
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    source.classes.setdefault(node.name, node)
                    if node.name == "IFBenchPrompt":
                        source.frame = _method(node, "text")
        return source

    def instance(self, factory: Factory, seed: int | None, document: str = "") -> _Instance:
        made = _Instance(factory.name, {}, seed, self)
        parameters = dict(factory.kwargs)
        if factory.document:
            parameters["document"] = document
        if factory.positive is not None:
            parameters["positive_constraint"] = self.instance(factory.positive, seed)
        init = _method(self._class(factory.name), "__init__")
        if init is not None:
            names = _defaults(init)
            names.update(parameters)
            names["seed"] = seed
            for statement in init.body:
                target, expression = _attribute_assignment(statement)
                if target is None or expression is None:
                    continue
                try:
                    value = _Evaluator(made, names).value(expression)
                except UnrenderedError as why:
                    # a tokenizer, a client: nothing a text may read unnoticed
                    value = _Unread(str(why))
                made.attributes[target] = value
        for key, value in parameters.items():
            made.attributes.setdefault(key, value)
        return made

    def render(self, factory: Factory, seed: int, mode: str) -> str:
        """One constraint's instruction text, as upstream's ``instructions(mode)``."""
        return self.render_instance(self.instance(factory, seed), mode)

    def render_instance(self, made: _Instance, mode: str) -> str:
        method = _method(self._class(made.name), "instructions")
        if method is None:
            raise UnrenderedError(f"{made.name}: no instructions method upstream")
        value = _Evaluator(made, {"train_or_test": mode}).run(method.body)
        if not isinstance(value, str):
            raise UnrenderedError(f"{made.name}: its instructions are not text")
        return value

    def judge_prompt(self, factory: Factory, seed: int, document: str, response: str) -> str:
        """What upstream asks its judge about ``response`` for a judged constraint: its
        ``_prompt(text)``, the constraint built on ``document`` as the benchmark builds it."""
        made = self.instance(factory, seed, document)
        method = _method(self._class(factory.name), "_prompt")
        if method is None or len(method.args.args) != 2:
            raise UnrenderedError(f"{factory.name}: no _prompt(text) method upstream")
        names = {method.args.args[1].arg: response}
        value = _Evaluator(made, names).run(method.body)
        if not isinstance(value, str):
            raise UnrenderedError(f"{factory.name}: its judge prompt is not text")
        return value

    def prompt(self, document: str, instructions: list[str]) -> str:
        """Upstream's frame around the prompt's text and the constraints' lines."""
        if self.frame is None:
            raise UnrenderedError("IFBenchPrompt.text not found upstream")
        made = _Instance("IFBenchPrompt", {"_prompt": document}, None, self)
        lines = [_Fixed(text) for text in instructions]
        value = _Evaluator(made, {"constraints": lines, "train_or_test": "test"}).run(
            self.frame.body
        )
        if not isinstance(value, str):
            raise UnrenderedError("IFBenchPrompt.text is not text")
        return value

    def _class(self, name: str) -> ast.ClassDef:
        found = self.classes.get(name)
        if found is None:
            raise UnrenderedError(f"{name}: no such class upstream")
        return found

    def constructor(self, name: str) -> Callable[..., _Instance]:
        def build(*args: Any, **kwargs: Any) -> _Instance:
            if args:
                raise UnrenderedError(f"{name}: built with positional arguments")
            seed = kwargs.pop("seed", None)
            return self.instance(
                Factory(name, "", kwargs=dict(kwargs)), seed if isinstance(seed, int) else None
            )

        return build


@dataclass(frozen=True)
class _Unread:
    """An attribute whose value the evaluator could not make: reading it is an error."""

    why: str


@dataclass(frozen=True)
class _Fixed:
    """A constraint whose text is already rendered (the frame only asks for it)."""

    text: str

    def instructions(self, train_or_test: str = "train") -> str:
        del train_or_test
        return self.text


def _method(node: ast.ClassDef | None, name: str) -> ast.FunctionDef | None:
    if node is None:
        return None
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == name:
            return item
    return None


def _defaults(function: ast.FunctionDef) -> dict[str, Any]:
    found: dict[str, Any] = {}
    arguments = function.args
    positional = arguments.args[len(arguments.args) - len(arguments.defaults) :]
    pairs = [*zip(positional, arguments.defaults, strict=True)]
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d]
    for argument, default in pairs:
        if isinstance(default, ast.Constant):
            found[argument.arg] = default.value
    return found


def _attribute_assignment(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """``self.name = value`` (annotated or not): the name and the value's expression."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target: ast.expr = statement.targets[0]
        value: ast.expr | None = statement.value
    elif isinstance(statement, ast.AnnAssign):
        target, value = statement.target, statement.value
    else:
        return None, None
    if isinstance(target, ast.Attribute) and _is_self_attribute(target):
        return target.attr, value
    return None, None


def _is_self_attribute(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


_FUNCTIONS: Mapping[str, Callable[..., Any]] = {
    "sorted": sorted,
    "list": list,
    "str": str,
    "len": len,
    "repr": repr,
}
#: the library functions instruction texts call, by module
_MODULES: Mapping[str, Mapping[str, Callable[..., Any]]] = {
    "unicodedata": {"normalize": unicodedata.normalize},
}
_OPERATORS: Mapping[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
}
_METHODS = frozenset(
    {"join", "items", "keys", "values", "format", "strip", "rstrip", "lstrip", "lower", "upper"}
)


class _Evaluator:
    """Evaluates the few statements and expressions instruction texts are made of."""

    def __init__(self, made: _Instance, names: dict[str, Any]) -> None:
        self.made = made
        self.names = dict(names)

    def run(self, body: list[ast.stmt]) -> Any:
        try:
            self._block(body)
        except _ReturnedError as done:
            return done.value
        raise UnrenderedError(f"{self.made.name}: its instructions return nothing here")

    def _block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, ast.Return):
                raise _ReturnedError(
                    None if statement.value is None else self.value(statement.value)
                )
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = statement.targets[0]
                if not isinstance(target, ast.Name):
                    raise UnrenderedError(f"{self.made.name}: assigns to {ast.unparse(target)}")
                self.names[target.id] = self.value(statement.value)
            elif isinstance(statement, ast.If):
                self._block(statement.body if self.value(statement.test) else statement.orelse)
            elif isinstance(statement, ast.Raise):
                raise UnrenderedError(f"{self.made.name}: upstream raises for this mode")
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            else:
                raise UnrenderedError(f"{self.made.name}: {type(statement).__name__} statement")

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(str(self.value(part)) for part in node.values)
        if isinstance(node, ast.FormattedValue):
            shown = self.value(node.value)
            if node.conversion == ord("r"):
                shown = repr(shown)
            elif node.conversion == ord("s"):
                shown = str(shown)
            spec = "" if node.format_spec is None else str(self.value(node.format_spec))
            return format(shown, spec)
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            if node.id in self.made.source.classes:
                return self.made.source.constructor(node.id)
            if node.id in _FUNCTIONS:
                return _FUNCTIONS[node.id]
            raise UnrenderedError(f"{self.made.name}: reads {node.id}")
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](self.value(node.left), self.value(node.right))
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = [self.value(item) for item in node.elts]
            if isinstance(node, ast.Set):
                return set(items)
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.value(node.operand)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.value(node.left), self.value(node.comparators[0])
            if isinstance(node.ops[0], ast.Eq):
                return left == right
            if isinstance(node.ops[0], ast.NotEq):
                return left != right
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.GeneratorExp | ast.ListComp):
            return list(self._comprehension(node))
        raise UnrenderedError(f"{self.made.name}: evaluates {type(node).__name__}")

    def _attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr == "_random_instruction":
                return self.made.random_instruction
            if node.attr in self.made.attributes:
                found = self.made.attributes[node.attr]
                if isinstance(found, _Unread):
                    raise UnrenderedError(found.why)
                return found
            method = _method(self.made.source.classes.get(self.made.name), node.attr)
            if method is not None:
                return self._bound(method)
            raise UnrenderedError(f"{self.made.name}: reads self.{node.attr}")
        if isinstance(node.value, ast.Name) and node.value.id in _MODULES:
            found = _MODULES[node.value.id].get(node.attr)
            if found is None:
                raise UnrenderedError(f"{self.made.name}: calls {node.value.id}.{node.attr}")
            return found
        owner = self.value(node.value)
        if isinstance(owner, _Instance | _Fixed) and node.attr == "instructions":
            return owner.instructions
        if node.attr in _METHODS and isinstance(owner, str | dict):
            return getattr(owner, node.attr)
        raise UnrenderedError(f"{self.made.name}: reads .{node.attr}")

    def _bound(self, method: ast.FunctionDef) -> Callable[..., Any]:
        """One of the class's own methods (a static one takes no ``self``)."""
        static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list
        )
        parameters = [a.arg for a in method.args.args[0 if static else 1 :]]

        def call(*arguments: Any) -> Any:
            if len(arguments) != len(parameters):
                raise UnrenderedError(f"{self.made.name}: calls {method.name} unusually")
            names = dict(zip(parameters, arguments, strict=True))
            return _Evaluator(self.made, names).run(method.body)

        return call

    def _call(self, node: ast.Call) -> Any:
        function = self.value(node.func)
        if not callable(function):
            raise UnrenderedError(f"{self.made.name}: calls {ast.unparse(node.func)}")
        arguments = [self.value(a) for a in node.args]
        keywords = {k.arg: self.value(k.value) for k in node.keywords if k.arg is not None}
        return function(*arguments, **keywords)

    def _comprehension(self, node: ast.GeneratorExp | ast.ListComp) -> Iterator[Any]:
        if len(node.generators) != 1 or node.generators[0].ifs:
            raise UnrenderedError(f"{self.made.name}: a comprehension hyoka does not read")
        loop = node.generators[0]
        for item in self.value(loop.iter):
            inner = _Evaluator(self.made, self.names)
            inner._bind(loop.target, item)
            yield inner.value(node.elt)

    def _bind(self, target: ast.expr, item: Any) -> None:
        if isinstance(target, ast.Name):
            self.names[target.id] = item
        elif isinstance(target, ast.Tuple):
            for part, value in zip(target.elts, item, strict=True):
                self._bind(part, value)
        else:
            raise UnrenderedError(f"{self.made.name}: binds {ast.unparse(target)}")


def render_prompts(
    source: Source, entries: Sequence[Entry], documents: Sequence[str]
) -> list[str | None]:
    """Each entry's prompt as upstream shows it, ``None`` where upstream draws it unseeded."""
    shown: list[str | None] = []
    for entry in entries:
        mode = "test" if entry.constraint_set == "test" else "train"
        try:
            lines = [source.render(c.factory, c.seed, mode) for c in entry.constraints]
        except UnseededError:
            shown.append(None)
            continue
        shown.append(source.prompt(documents[entry.prompt], lines))
    return shown


#: how many times upstream asks the judge about one response; the majority decides
JUDGE_VOTES = 3


def judge_verdict(reply: str) -> bool:
    """One judge reply read as upstream reads it: stripped, ``True...`` passes, anything
    else (``False...``, or a reply starting with neither) fails."""
    return reply.strip().startswith("True")


def majority(verdicts: Sequence[bool]) -> bool:
    """Upstream's decision over its votes: more passes than failures."""
    passed = sum(verdicts)
    return passed > len(verdicts) - passed


def build_benchmark(
    prompts: Prompts,
    constraint_set: str,
    seed: int = DEFAULT_SEED,
    n_benchmark_data: int | None = None,
    upstream: Path | None = None,
    n_constraints: int = 1,
) -> BuildSummary:
    """The build of ``prompts`` with ``n_constraints`` constraints an entry (``build``'s
    single- or multi-constraint build, as upstream's eval.py chooses), worded from
    ``upstream``'s source when given (a checkout at c8fed01), summarised."""
    if constraint_set not in CONSTRAINT_SETS:
        raise InputError(f"`constraint_set` {constraint_set!r}: train or test")
    chosen: ConstraintSet = "test" if constraint_set == "test" else "train"
    entries = built(prompts.documents, chosen, seed, n_constraints, n_benchmark_data)
    texts = None
    if upstream is not None:
        texts = render_prompts(Source.read(upstream), entries, prompts.documents)
    return summary_of(entries, chosen, seed, prompts.sha256, texts)
