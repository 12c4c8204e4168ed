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

from hyoka.errors import DataError

#: parsed files by the SHA-256 of their bytes: a run asks for one file's messages twice
#: (the check before any request, then the run), a sweep once per model
_READ: dict[tuple[str, str], dict[str, str]] = {}


def _parsed(path: Path, data: bytes) -> ast.Module:
    try:
        return ast.parse(data.decode("utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{path}: not readable Python ({exc})") from None
    except (RecursionError, MemoryError):  # what CPython's parser raises when nesting runs deep
        raise DataError(f"{path}: not readable Python (nested too deeply to parse)") from None


def _text(path: Path, node: ast.expr, what: str) -> str:
    """The string ``node`` writes: a constant, or a sum of such."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(path, node.left, what) + _text(path, node.right, what)
    raise DataError(f"{path}:{node.lineno}: {what} is not a plain string")


def _calls(node: ast.AST, name: str) -> list[ast.Call]:
    return [
        call
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name
    ]


def conversation_messages(path: Path, data: bytes) -> dict[str, str]:
    """Each template's system message (``""``: none) by its name, as the module-level
    ``register_conv_template(Conversation(...))`` calls of ``data`` (the bytes of
    ``path``) register them; a later registration of a name replaces an earlier one, as
    upstream's ``override=True`` does."""
    key = (str(path), hashlib.sha256(data).hexdigest())
    if key in _READ:
        return dict(_READ[key])
    messages: dict[str, str] = {}
    for statement in _parsed(path, data).body:
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
            fields = {k.arg: k.value for k in built.keywords if k.arg is not None}
            if "name" not in fields:
                raise DataError(f"{path}:{built.lineno}: a template registered without a name")
            name = _text(path, fields["name"], "a template's name")
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
        for node in _parsed(path, data).body
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
