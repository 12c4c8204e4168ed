"""Reading the conversation templates' system messages out of a file shaped like a FastChat
fork's ``conversation.py`` (``hyoka.mtbench.fastchat_source``), with ``ast``, never run.

The file read is hyoka's stand-in (``_shared.FASTCHAT_SOURCES``, our wording, upstream's
shape): the test runs it, as upstream's code would, and the parser must read what running
it registers."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from _shared import FASTCHAT_SOURCES
from hyoka.errors import DataError
from hyoka.mtbench.fastchat_source import adapter_message, conversation_messages

CONVERSATION = FASTCHAT_SOURCES / "conversation.py"
ADAPTERS = FASTCHAT_SOURCES / "model" / "model_adapter.py"


def test_the_parser_reads_what_running_the_file_registers() -> None:
    """Every template, its message joined from implicit and ``+`` concatenation, the empty
    default where none is given, and a re-registration (``override=True``) winning."""
    ran = runpy.run_path(str(CONVERSATION))["conv_templates"]
    read = conversation_messages(CONVERSATION, CONVERSATION.read_bytes())
    assert read == {name: conv.system_message for name, conv in ran.items()}
    assert read["mistral"] == "" and "\n\n" in read["gpt-mini"]
    assert read["chatgpt"].endswith("registered again.")


def test_an_adapters_own_message_is_read_from_its_class() -> None:
    """jp-stable's ``JLlama2Adapter`` sets its template's message for a ``sys-v2`` path."""
    adapter = runpy.run_path(str(ADAPTERS))["JLlama2Adapter"]
    ran = runpy.run_path(str(CONVERSATION))
    # the stand-in's template lookup, as upstream's module imports it from conversation.py
    adapter.get_default_conv_template.__globals__["get_conv_template"] = ran["get_conv_template"]
    conv = adapter().get_default_conv_template("x/proj-jp-stablegpt/llama2-sys-v2")
    read = adapter_message(ADAPTERS, ADAPTERS.read_bytes(), "JLlama2Adapter")
    assert read == conv.system_message != ran["conv_templates"]["jllama-2"].system_message
    with pytest.raises(DataError, match="no single class Missing"):
        adapter_message(ADAPTERS, ADAPTERS.read_bytes(), "Missing")


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ('register_conv_template(Conversation(name="a", system_message=f"{x}"))\n',
         ":1: a's message is not a plain string"),
        ('register_conv_template(make("a"))\n', ":1: a template registered otherwise"),
        ('register_conv_template(Conversation(system_message="b"))\n', "without a name"),
        ("x = 1\n", "registers no conversation template"),
        ("def (:\n", "not readable Python"),
    ],
)  # fmt: skip
def test_a_file_not_shaped_like_upstreams_is_refused_naming_it(
    tmp_path: Path, text: str, fault: str
) -> None:
    path = tmp_path / "conversation.py"
    with pytest.raises(DataError, match=f"^{path}") as caught:
        conversation_messages(path, text.encode())
    assert fault in str(caught.value)
