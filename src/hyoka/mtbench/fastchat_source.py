"""Reading the system messages of FastChat's conversation templates out of upstream's file.

A FastChat fork's ``fastchat/conversation.py`` registers each template at module level as
``register_conv_template(Conversation(name=..., system_message=..., ...))``; a template
without ``system_message`` has the dataclass's default, the empty one (none sent). Those
texts are upstream's prose, so hyoka holds none of them: the file is pinned in the suite's
``sources`` data group and read here with ``ast``, never imported or run. A message is a
string, or a sum of strings (``"..." + "..."``); anything else is a ``DataError`` naming the
file and line, so a changed upstream file is never half-read.

One fork sets a message in its adapter instead (jp-stable's ``JLlama2Adapter`` calls
``conv.set_system_message("...")`` for a name holding ``sys-v2``): ``adapter_message`` reads
the one string such a class passes, from the pinned ``model/model_adapter.py``.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from hyoka.data import parsed_source
from hyoka.errors import DataError

#: parsed files by the SHA-256 of their bytes: a run asks for one file's messages twice
#: (the check before any request, then the run), a sweep once per model
_READ: dict[tuple[str, str], dict[str, str]] = {}


def _text(path: Path, node: ast.expr, what: str) -> str:
    """The string ``node`` writes: a constant, or a sum of such, however long (the sum is
    walked with a stack of its own, not Python's: a chain of thousands of ``+`` the parser
    reads must not end in a ``RecursionError``)."""
    parts: list[str] = []
    pending = [node]
    while pending:
        part = pending.pop()
        if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Add):
            pending += [part.right, part.left]  # the left one taken first
        elif isinstance(part, ast.Constant) and isinstance(part.value, str):
            parts.append(part.value)
        else:
            raise DataError(f"{path}:{part.lineno}: {what} is not a plain string")
    return "".join(parts)


def _calls(node: ast.AST, name: str) -> list[ast.Call]:
    return [
        call
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name
    ]


def _keywords(path: Path, call: ast.Call) -> dict[str, ast.expr]:
    """``call``'s keyword arguments by name; one given twice (which Python refuses to
    run, though its parser reads it) is a ``DataError``."""
    found: dict[str, ast.expr] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        if keyword.arg in found:
            raise DataError(f"{path}:{keyword.lineno}: keyword argument {keyword.arg} repeated")
        found[keyword.arg] = keyword.value
    return found


def _overrides(path: Path, call: ast.Call) -> bool:
    """Whether the ``register_conv_template`` ``call`` passes ``override=True``."""
    given = _keywords(path, call).get("override")
    if given is None and len(call.args) > 1:
        given = call.args[1]
    return isinstance(given, ast.Constant) and given.value is True


def conversation_messages(path: Path, data: bytes) -> dict[str, str]:
    """Each template's system message (``""``: none) by its name, as the module-level
    ``register_conv_template(Conversation(...))`` calls of ``data`` (the bytes of
    ``path``) register them; a later registration of a name replaces an earlier one where
    it says ``override=True``, as upstream's does. What upstream's module would not import
    (a name registered again without it, a keyword given twice) is a ``DataError``."""
    key = (str(path), hashlib.sha256(data).hexdigest())
    if key in _READ:
        return dict(_READ[key])
    messages: dict[str, str] = {}
    for statement in parsed_source(path, data).body:
        if not isinstance(statement, ast.Expr):
            continue
        for call in _calls(statement, "register_conv_template"):
            built = call.args[0] if call.args else None
            if not (
                isinstance(built, ast.Call)
                and isinstance(built.func, ast.Name)
                and built.func.id == "Conversation"
                and not built.args
            ):
                raise DataError(f"{path}:{call.lineno}: a template registered otherwise than "
                                "as Conversation(name=..., ...)")  # fmt: skip
            fields = _keywords(path, built)
            if "name" not in fields:
                raise DataError(f"{path}:{built.lineno}: a template registered without a name")
            name = _text(path, fields["name"], "a template's name")
            if name in messages and not _overrides(path, call):
                raise DataError(
                    f"{path}:{call.lineno}: template {name!r} registered again without "
                    "override=True (upstream's register_conv_template refuses it)"
                )
            message = fields.get("system_message")
            messages[name] = "" if message is None else _text(path, message, f"{name}'s message")
    if not messages:
        raise DataError(f"{path}: registers no conversation template (not FastChat's file)")
    _READ[key] = messages
    return dict(messages)


def adapter_message(path: Path, data: bytes, adapter: str) -> str:
    """The string class ``adapter`` of ``data`` (the bytes of ``path``) passes to
    ``set_system_message``, where it does so once; a ``DataError`` otherwise."""
    classes = [
        node
        for node in parsed_source(path, data).body
        if isinstance(node, ast.ClassDef) and node.name == adapter
    ]
    calls = [
        call
        for cls in classes
        for call in ast.walk(cls)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "set_system_message"
    ]
    if len(classes) != 1 or len(calls) != 1 or len(calls[0].args) != 1:
        raise DataError(f"{path}: no single class {adapter} setting one system message")
    return _text(path, calls[0].args[0], f"{adapter}'s message")
