"""typer's parameter coercion without pydantic for the values that never needed it.

typer (>= 0.29) coerces every parameter value through a pydantic ``TypeAdapter`` that it
builds on first use, even to turn an option left out (``None``) into ``None`` or a path
argument into ``Path(text)``: ``hyoka pfgen score RUN`` spent about 0.1 s of its 0.7 s
importing pydantic and building adapters for values it then passed through unchanged.

``quicken`` gives each parameter of a loaded command a ``QuickRuntimeParam`` that does
exactly what typer's own coercion does for two cases, a missing value (``()`` for a
multi-value parameter, else ``None``, as typer's ``RuntimeParam.coerce`` returns before
any adapter) and a text value for a plain ``Path`` parameter (``Path(text)``, which is what
pydantic makes of it, then typer's own ``coerce_cli_path`` for its checks), and hands every
other value to the runtime parameter typer itself builds, built then. Users see the same
values and the same errors; only the cost of the cases that need no adapter goes away.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from typer import _click
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_path
from typer.core import TyperArgument, TyperCommand, TyperOption


@dataclass(frozen=True)
class QuickRuntimeParam(RuntimeParam):
    """typer's coercion of one parameter, building typer's own only for values that need it."""

    descriptor: TypeDescriptor
    path_leaf: bool  # a plain Path parameter (or list of them): no parser, no path_type

    def coerce(self, value: Any, param: Any, ctx: _click.Context) -> Any:
        is_multi_value = param.multiple or param.nargs == -1
        if value is None:  # as typer's RuntimeParam.coerce, before it reaches any adapter
            return () if is_multi_value else None
        if self.path_leaf:
            if not is_multi_value and isinstance(value, str):
                return self._path(value, param, ctx)
            texts = is_multi_value and isinstance(value, list | tuple)
            if texts and all(isinstance(item, str) for item in value):
                return [self._path(item, param, ctx) for item in value]
        return self._typer_param(param).coerce(value, param=param, ctx=ctx)

    def _coerce_value(self, value: Any, param: Any, ctx: _click.Context) -> Any:
        return self._typer_param(param)._coerce_value(value, param=param, ctx=ctx)

    def _path(self, text: str, param: Any, ctx: _click.Context) -> Any:
        return coerce_cli_path(
            Path(text), self.parameter_info, path_type=Path, param=param, ctx=ctx
        )

    def _typer_param(self, param: Any) -> RuntimeParam:
        built = build_runtime_param(self.descriptor)
        param._runtime_param = built  # from now on typer's own, as if never quickened
        return built


class QuickCommand(TyperCommand):
    """A typer command whose ``--help`` (made on first use, so ``quicken`` cannot reach it
    beforehand) is coerced quickly too: left out, it is ``None`` and needs no adapter."""

    def get_help_option(self, ctx: _click.Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            _quicken_param(option)
        return option


def quicken(command: _click.Command) -> None:
    """Give every parameter of ``command`` (and of its subcommands) quick coercion."""
    for param in command.params:
        _quicken_param(param)
    for sub in getattr(command, "commands", {}).values():
        quicken(sub)


def _quicken_param(param: _click.Parameter) -> None:
    if isinstance(param, TyperArgument | TyperOption) and param._runtime_param is None:
        descriptor = param.type_descriptor
        param._runtime_param = QuickRuntimeParam(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            descriptor=descriptor,
            path_leaf=_plain_path(descriptor),
        )


def _plain_path(descriptor: TypeDescriptor) -> bool:
    """``Path`` or ``list[Path]`` with no parser, path type or file annotation: the
    annotations typer coerces with ``Path(text)`` and ``coerce_cli_path`` alone."""
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or info.parser is not None or info.path_type:
        return False
    annotation: Any = descriptor.annotation
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation) or (None,)
    return annotation is Path
