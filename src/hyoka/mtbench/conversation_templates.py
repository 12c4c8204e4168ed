"""Which system message FastChat's generation scripts open a model's requests with.

FastChat's ``gen_api_answer.py`` (and ``gen_model_answer.py``) builds every request from the
conversation template its adapter table picks for the model's name, and sends the
template's ``to_openai_api_messages()``: the template's system message (none where it is
empty), then the turns; few-shot turns before the template's offset are not sent. Which
template a name gets is decided by the first adapter in registration order whose ``match``
takes the name's last path part, else the first that takes the whole name, else the base
adapter (``one_shot``, the Vicuna preamble).

hyoka keeps its own account of three such tables, written from reading them (no code
taken): lm-sys FastChat at 0e6d3e4 (``fastchat/model/model_adapter.py``,
``fastchat/conversation.py``; MT-bench), swallow-evaluation at 57c4ecd (its
``fastchat/fastchat/model``; Swallow's Japanese MT-bench, with its own Japanese adapters and
templates) and Stability-AI FastChat ``jp-stable`` at e37eb28 (Stability's Japanese
MT-bench). Each table is the adapters' name tests in order (names and which template each
gets: facts, not prose). The templates' system messages are upstream's prose and are not
carried here: each is read at run time from the fork's pinned ``conversation.py`` (the
suite's ``sources`` data group, ``hyoka data fetch <suite> --with-sources``), parsed by
``fastchat_source``, never run. Only which templates have an empty message is kept, so
those names are answered without the file. A pick the file does not register (a PEFT
model's base) is refused with its name, never replaced by another text:
``--system-message`` says what to send instead.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from hyoka.data import fetch_hint, pinned_sha256
from hyoka.errors import HyokaWarning, InputError, MissingDataError
from hyoka.mtbench.fastchat_source import adapter_message, conversation_messages
from hyoka.store import read_bytes

Matcher = Callable[[str], bool]
Chooser = Callable[[str], str]


@dataclass(frozen=True)
class Adapter:
    """One row of an adapter table: its name, its test of a model name, and the template
    it gives (a function of the whole name, as upstream's ``get_default_conv_template``)."""

    label: str
    matches: Matcher
    template: Chooser


def has(*parts: str) -> Matcher:
    """The lower-cased name holds every one of ``parts``."""
    return lambda name: all(p in name.lower() for p in parts)


def has_any(*parts: str) -> Matcher:
    """The lower-cased name holds one of ``parts``."""
    return lambda name: any(p in name.lower() for p in parts)


def is_one_of(*names: str) -> Matcher:
    """The name is exactly one of ``names``."""
    return lambda name: name in names


def searches(pattern: str) -> Matcher:
    """``pattern`` is found in the name, ignoring case."""
    return lambda name: re.search(pattern, name, re.I) is not None


def always(template: str) -> Chooser:
    return lambda _name: template


def first_part(pairs: Sequence[tuple[str, str]], otherwise: str, *, fold: bool = True) -> Chooser:
    """The template of the first of ``pairs`` whose part the name holds (the name
    lower-cased unless ``fold`` is false), else ``otherwise``: how most adapters choose
    among their templates."""

    def choose(model: str) -> str:
        name = model.lower() if fold else model
        return next((template for part, template in pairs if part in name), otherwise)

    return choose


def given(part: str, then: Chooser, otherwise: str) -> Chooser:
    """``then``'s template where the lower-cased name holds ``part``, else ``otherwise``."""
    return lambda model: then(model) if part in model.lower() else otherwise


def row(label: str, matches: Matcher, template: str | Chooser) -> Adapter:
    return Adapter(label, matches, always(template) if isinstance(template, str) else template)


@dataclass(frozen=True)
class TemplateTexts:
    """Where a table's system messages are read at run time: upstream's
    ``conversation.py`` (``conversations``, relative to the suite's data folder), pinned in
    the ``sources`` group of ``suite``'s manifest and read by ``fastchat_source``; hyoka
    carries none of their prose. ``silent``: the templates whose message is empty there
    (names only), sent without reading the file, so a model that gets one needs no
    ``--with-sources``. ``set_by_adapters``: a template label whose message an adapter sets
    instead (jp-stable's ``sys-v2``), by the file and class that set it."""

    suite: str
    conversations: str
    silent: frozenset[str]
    set_by_adapters: Mapping[str, tuple[str, str]] = field(
        default_factory=lambda: MappingProxyType({})
    )


@dataclass(frozen=True)
class AdapterTable:
    """One fork's adapter table, and where its templates' system messages are read."""

    source: str
    adapters: tuple[Adapter, ...]
    texts: TemplateTexts
    #: the base adapter's template, for a name no adapter takes
    default: str = "one_shot"
    #: names that the fork's ``gen_api_answer.py`` sends to the OpenAI API (``None``: any)
    api_names: frozenset[str] | None = field(default=None)

    def template_for(self, model: str) -> str:
        """The template upstream's ``get_conversation_template(model)`` returns."""
        base = posixpath.basename(posixpath.normpath(model)) if model else model
        for candidate in (base, model):
            for adapter in self.adapters:
                if adapter.matches(candidate):
                    return adapter.template(model)
        return self.default

    def source_of(self, template: str, folder: Path) -> Path | None:
        """The file under the suite's data ``folder`` the template's message is read from
        (``None``: an empty one, read from none), without reading it; a
        ``MissingDataError`` saying how to fetch it where it is not there."""
        if template in self.texts.silent:
            return None
        adapter = self.texts.set_by_adapters.get(template)
        relative = self.texts.conversations if adapter is None else adapter[0]
        path = folder / relative
        if not path.is_file():
            hint = fetch_hint(self.texts.suite, folder.parent, file=f"{folder.name}/{relative}")
            raise MissingDataError(
                f"{self.texts.suite}: {self.source} picks the conversation template "
                f"{template!r} for this name, whose system message is read from upstream's "
                f"source, not found: {path}: {hint}"
            )
        return path

    def system_message(self, template: str, folder: Path) -> TemplateMessage:
        """The template's system message (``""``: none) as upstream's file under the
        suite's data ``folder`` has it, and whether that file is the pinned one; a
        ``MissingDataError`` saying how to fetch that file where it is not there (an empty
        message needs none), an ``InputError`` for a template the file does not register."""
        path = self.source_of(template, folder)
        if path is None:
            return TemplateMessage("")
        adapter = self.texts.set_by_adapters.get(template)
        relative = self.texts.conversations if adapter is None else adapter[0]
        data = read_bytes(path)
        if adapter is not None:
            message: str | None = adapter_message(path, data, adapter[1])
        else:
            message = conversation_messages(path, data).get(template)
        if message is None:
            raise InputError(
                f"`model`: {self.source} picks the conversation template {template!r} for "
                f"this name; {path} registers no such template: give `system_message` "
                "(or `no_system_message`) to say what to send"
            )
        # said once the file is read whole: a file refused is refused in one line
        pinned = _is_pinned(self.texts.suite, f"{folder.name}/{relative}", path, data)
        return TemplateMessage(message, pinned)


class TemplateMessage(NamedTuple):
    """A template's system message (``""``: none) and whether it was read from the pinned
    file (or needed none): one read from another file is signed by its own hash."""

    text: str
    pinned: bool = True


def _is_pinned(suite: str, pinned_path: str, path: Path, data: bytes) -> bool:
    """Whether ``data`` (the bytes of ``path``) are those ``suite``'s manifest pins for
    ``pinned_path``; where not, one ``HyokaWarning`` naming the file, as a run reading core
    data that is not the pinned release says (once per file and content in a process: a
    run reads it before any request and again when it starts)."""
    digest = hashlib.sha256(data).hexdigest()
    pinned = pinned_sha256(suite, pinned_path)
    if digest == pinned:
        return True
    _warn_unpinned(str(path), digest, pinned)
    return False


@functools.cache
def _warn_unpinned(path: str, digest: str, pinned: str | None) -> None:
    expected = "no pin" if pinned is None else f"pinned {pinned[:12]}..."
    warnings.warn(
        f"{path} is not the pinned upstream file (SHA-256 {digest[:12]}..., {expected}): "
        "its system messages are signed +custom@ with their own hash",
        HyokaWarning,
        stacklevel=2,
    )


def _vicuna(model: str) -> str:
    # the version is read off the name's last path part
    return "one_shot" if "v0" in model.rstrip("/").split("/")[-1] else "vicuna_v1.1"


def _airoboros(model: str) -> str:
    if "-3." in model or "-3p" in model:
        return "airoboros_v3"
    if "spicyboros" in model or re.search(r"-(2\.[2-9]+)", model):
        return "airoboros_v2"
    return "airoboros_v1"


_chatglm = first_part((("chatglm2", "chatglm2"), ("chatglm3", "chatglm3")), "chatglm")


#: lm-sys's OpenAI names (``OPENAI_MODEL_LIST``), which its ChatGPT adapter takes
OPENAI_NAMES = frozenset(
    {
        "gpt-3.5-turbo",
        "gpt-3.5-turbo-0301",
        "gpt-3.5-turbo-0613",
        "gpt-3.5-turbo-1106",
        "gpt-3.5-turbo-0125",
        "gpt-4",
        "gpt-4-0314",
        "gpt-4-0613",
        "gpt-4-turbo",
        "gpt-4-1106-preview",
        "gpt-4-0125-preview",
        "gpt-4-turbo-browsing",
        "gpt-4-turbo-2024-04-09",
        "gpt2-chatbot",
        "im-also-a-good-gpt2-chatbot",
        "im-a-good-gpt2-chatbot",
        "gpt-4o-mini-2024-07-18",
        "gpt-4o-2024-05-13",
        "gpt-4o-2024-08-06",
        "chatgpt-4o-latest-20240903",
        "chatgpt-4o-latest",
        "o1-preview",
        "o1-mini",
    }
)
#: lm-sys's Anthropic names (``ANTHROPIC_MODEL_LIST``)
ANTHROPIC_NAMES = frozenset(
    {
        "claude-1",
        "claude-2",
        "claude-2.0",
        "claude-2.1",
        "claude-3-haiku-20240307",
        "claude-3-haiku-20240307-vertex",
        "claude-3-sonnet-20240229",
        "claude-3-sonnet-20240229-vertex",
        "claude-3-5-sonnet-20240620",
        "claude-3-opus-20240229",
        "claude-instant-1",
        "claude-instant-1.2",
    }
)

_GPT4_TURBO = "gpt-4-turbo-2024-04-09"


#: the ChatGPT adapter's template: by substrings of the name as written, in its order
_chatgpt = first_part(
    (
        ("browsing", "api_based_default"), ("gpt-4-turbo-2024-04-09", _GPT4_TURBO),
        ("gpt2-chatbot", _GPT4_TURBO), ("gpt-4o-2024-05-13", _GPT4_TURBO),
        ("gpt-4o-2024-08-06", "gpt-mini"), ("anonymous-chatbot", _GPT4_TURBO),
        ("chatgpt-4o-latest", _GPT4_TURBO), ("gpt-mini", "gpt-mini"),
        ("gpt-4o-mini-2024-07-18", "gpt-mini"), ("o1", "api_based_default"),
    ),
    "chatgpt",
    fold=False,
)  # fmt: skip
_claude = first_part(
    (
        ("claude-3-haiku", "claude-3-haiku-20240307"),
        ("claude-3-sonnet", "claude-3-sonnet-20240229"),
        ("claude-3-5-sonnet", "claude-3-5-sonnet-20240620-v2"),
        ("claude-3-opus", "claude-3-opus-20240229"),
    ),
    "claude",
    fold=False,
)
_mpt = first_part(
    [(name, name) for name in ("mpt-7b-chat", "mpt-30b-chat", "mpt-30b-instruct")], "zero_shot"
)


def _wizardlm(sizes: tuple[str, ...]) -> Chooser:
    return first_part([(size, "vicuna_v1.1") for size in sizes], "one_shot")


_baichuan = given(
    "chat", first_part((("baichuan2", "baichuan2-chat"),), "baichuan-chat"), "zero_shot"
)
_openorca = first_part((("mistral-7b-openorca", "mistral-7b-openorca"),), "open-orca")
_aquila = given(
    "aquilachat2",
    first_part((("16k", "aquila"), ("34b", "aquila-legacy")), "aquila-v1"),
    "aquila-chat",
)
_vigogne = given(
    "chat", first_part((("vigostral", "vigogne_chat_v3"),), "vigogne_chat_v2"), "vigogne_instruct"
)


def _llama31(model: str) -> str:
    special = ("llama-3.1-8b-instruct", "llama-3.1-70b-instruct", "the-real-chatbot-v2")
    return "meta-llama-3.1-sp" if model.lower() in special else "meta-llama-3.1"


_gemini = first_part((("gemini-1.5-pro", "gemini-1.5-pro"),), "gemini", fold=False)


def _oasst_llama(name: str) -> bool:
    lower = name.lower()
    return "openassistant-sft-7-llama-30b-hf" in lower or (
        "oasst" in lower and "pythia" not in lower
    )


# The rows shared by lm-sys FastChat and swallow-evaluation's fork, by their order there.
_PEFT = row("Peft", has("peft"), "(the PEFT adapter's base model's)")
_HEAD = (
    row("StableVicuna", has("stable-vicuna"), "stable-vicuna"),
    row("Vicuna", has("vicuna"), _vicuna),
    row("Airoboros", searches(r"airoboros|spicyboros"), _airoboros),
    row("LongChat", has("longchat"), "vicuna_v1.1"),
    row("GoogleT5", has_any("flan-", "fastchat-t5", "codet5p"), "one_shot"),
    row("Koala", has("koala"), "koala_v1"),
    row("Alpaca", has("alpaca"), "alpaca"),
    row("ChatGLM", has("chatglm"), _chatglm),
    row("CodeGeex", has("codegeex"), "codegeex"),
    row("DollyV2", has("dolly-v2"), "dolly_v2"),
    row("OasstPythia", has("oasst", "pythia"), "oasst_pythia"),
    row("OasstLLaMA", _oasst_llama, "oasst_llama"),
    row("OpenChat35", lambda n: has("openchat", "3.5")(n) or has("starling-lm")(n), "openchat_3.5"),
    row("TenyxChat", has("tenyxchat"), "tenyxchat"),
    row("StableLM", has("stablelm"), "stablelm"),
    row("Baize", has("baize"), "baize"),
    row("Rwkv", has("rwkv-4"), "rwkv"),
    row("OpenBuddy", has("openbuddy"), "openbuddy"),
    row("Phoenix", has("phoenix"), "phoenix"),
    row("Bard", is_one_of("bard"), "bard"),
    row("PaLM2", is_one_of("palm-2"), "bard"),
    row("Gemini", has_any("gemini", "bard"), _gemini),
    row("Gemma", has("gemma"), "gemma"),
    row("ChatGPT", lambda n: n in OPENAI_NAMES, _chatgpt),
    row("AzureOpenAI", is_one_of("azure-gpt-35-turbo", "azure-gpt-4"), "chatgpt"),
    row("Claude", lambda n: n in ANTHROPIC_NAMES, _claude),
    row("MPT", lambda n: has("mpt")(n) and not has("airoboros")(n), _mpt),
    row("BiLLa", has("billa"), "billa"),
    row("RedPajamaINCITE", has("redpajama-incite"), "redpajama-incite"),
    row("H2OGPT", has("h2ogpt"), "h2ogpt"),
    row("Robin", has("robin"), "Robin"),
    row("Snoozy", has("gpt4all", "snoozy"), "snoozy"),
    row("WizardLM", has("wizardlm"), _wizardlm(("13b", "30b", "70b"))),
    row("Manticore", has("manticore"), "manticore"),
    row("Guanaco", has("guanaco"), "zero_shot"),
    row("Camel", has("camel"), "vicuna_v1.1"),
    row("ChangGPT", has("polyglot", "chang"), "polyglot_changgpt"),
    row("Tulu", has("tulu"), "tulu"),
    row("FalconChat", has("falcon", "chat"), "falcon-chat"),
    row("Falcon", lambda n: has("falcon")(n) and not has("chat")(n), "falcon"),
    row("TigerBot", has("tigerbot"), "tigerbot"),
    row("Baichuan", has("baichuan"), _baichuan),
    row("XGen", has("xgen"), "xgen"),
    row("Pythia", has("pythia"), "one_shot"),
    row("InternLMChat", has("internlm"), "internlm-chat"),
    row("StarChat", has("starchat"), "starchat"),
)
_LLAMA2 = row("Llama2", has("llama-2"), "llama-2")
_MIDDLE = (
    row("CuteGPT", has("cutegpt"), "cutegpt"),
    row("OpenOrca", has("openorca"), _openorca),
    row("Dolphin", has("dolphin", "mistral"), "dolphin-2.2.1-mistral-7b"),
    row("Hermes2", has_any("openhermes-2.5-mistral-7b", "openhermes-2-mistral-7b"),
        "OpenHermes-2.5-Mistral-7B"),
    row("NousHermes2Mixtral",
        has_any("nous-hermes-2-mixtral-8x7b-dpo", "nous-hermes-2-mixtral-8x7b-sft"),
        "Nous-Hermes-2-Mixtral-8x7B-DPO"),
    row("NousHermes", has("nous-hermes"), "alpaca"),
    row("Mistral", has_any("mistral", "mixtral"), "mistral"),
    row("WizardCoder", has("wizardcoder"), "alpaca"),
)  # fmt: skip
_QWEN = row("QwenChat", has("qwen"), "qwen-7b-chat")
_TAIL = (
    row("AquilaChat", has("aquila"), _aquila),
    row("BGE", has("bge"), "one_shot"),
    row("E5", has("e5-"), "one_shot"),
    row("Lamma2Chinese", has("llama2-chinese"), "llama2-chinese"),
    row("Lamma2ChineseAlpaca", has("chinese-alpaca"), "chinese-alpaca2"),
    row("Vigogne", searches(r"vigogne|vigostral"), _vigogne),
    row("OpenLLaMaOpenInstruct", has("open-llama", "open-instruct"), "alpaca"),
    row("ReaLM", lambda n: "ReaLM" in n, "ReaLM-7b-v1"),
    row("PhindCodeLlama", has("phind-codellama-"), "phind"),
    row("CodeLlama", has("codellama"), "llama-2"),
    row("Llama2Chang", has("llama2-ko-chang"), "polyglot_changgpt"),
    row("Zephyr", has("zephyr"), "zephyr"),
    row("Notus", has("notus"), "zephyr"),
    row("CatPPT", has("catppt"), "catppt"),
    row("TinyLlama", has("tinyllama"), "TinyLlama"),
    row("XwinLM", has("xwin-lm"), "vicuna_v1.1"),
    row("Lemur", has("lemur-70b-chat"), "lemur-70b-chat"),
    row("Pygmalion", searches(r"pygmalion|mythalion|metharme"), "metharme"),
    row("MicrosoftOrca", has("orca-2"), "orca-2"),
    row("Xdan", has("xdan", "v1"), "xdan-v1"),
    row("Yi", has("yi-", "chat"), "Yi-34b-chat"),
    row("PplxAI", is_one_of("pplx-7b-online", "pplx-70b-online"), "pplxai"),
    row("DeepseekCoder", has("deepseek-coder"), "deepseek-coder"),
    row("DeepseekChat", has("deepseek-llm", "chat"), "deepseek-chat"),
    row("Yuan2", has("yuan2"), "yuan2"),
    row("MetaMath", has("metamath"), "metamath"),
    row("Bagel", has("bagel"), "airoboros_v3"),
    row("Solar", has("solar-", "instruct"), "solar"),
    row("SteerLM", has("steerlm-chat"), "steerlm"),
    row("Llava", has("llava"), first_part((("34b", "llava-chatml"),), "vicuna_v1.1")),
    row("Yuan", has("yuan"), "yuan"),
    row("Olmo", has("olmo"), "api_based_default"),
    row("Cohere", is_one_of("command-r"), "api_based_default"),
    row("DBRX", is_one_of("dbrx-instruct"), "api_based_default"),
    row("YandexGPT", has("yandexgpt"), "yandexgpt"),
    row("Cllm", has("consistency-llm"), "cllm"),
    row("Reka", has("reka"), "api_based_default"),
    row("SmaugChat", has("smaug"), "qwen-7b-chat"),
)
_GROK = row("Grok", has("grok"), first_part((("mini", "grok-2-mini"),), "grok-2"))


def _no_system(*names: str) -> Adapter:
    return row("NoSystem", lambda n: n.lower() in names, "api_based_default")


#: templates with no system message in lm-sys's ``conversation.py`` (names only: their
#: picks need no file), the other tables' sets being written from this one
_SILENT = frozenset((
    "api_based_default", "aquila-v1", "baichuan-chat", "baichuan2-chat", "bard", "billa",
    "catppt", "chatglm", "chatglm2", "chatglm3", "claude", "codegeex", "cutegpt",
    "deepseek-coder", "falcon", "falcon-chat", "gemini", "gemma", "h2ogpt", "llama-2",
    "llama2-chinese", "manticore", "mistral", "oasst_llama", "oasst_pythia", "openchat_3.5",
    "polyglot_changgpt", "raw", "redpajama-incite", "rwkv", "solar", "starchat", "steerlm",
    "tenyxchat", "TinyLlama", "tulu", "Yi-34b-chat", "yandexgpt", "yuan", "yuan2", "zephyr",
))  # fmt: skip

#: lm-sys FastChat (0e6d3e4): MT-bench's ``gen_api_answer.py``
FASTCHAT = AdapterTable(
    source="FastChat (lm-sys 0e6d3e4)",
    adapters=(
        _PEFT,
        *_HEAD,
        _LLAMA2,
        *_MIDDLE,
        _QWEN,
        *_TAIL,
        row("Llama3", has("llama-3-"), "llama-3"),
        row("Llama31", has("llama-3.1"), _llama31),
        _GROK,
        _no_system("athene-70b", "p2l"),
    ),
    texts=TemplateTexts(
        suite="mt-bench",
        conversations="sources/fastchat/conversation.py",
        silent=_SILENT | {"llama-3"},
    ),
)

#: swallow-evaluation (57c4ecd): its FastChat fork's table, Japanese adapters first
SWALLOW = AdapterTable(
    source="swallow-evaluation's FastChat (57c4ecd)",
    adapters=(
        row("DeepSeekR1", has("deepseek-r1"), "deepseek-r1"),
        row("JapaneseStableLMBeta", has("japanese-stablelm-instruct-beta"),
            "japanese-stablelm-instruct-beta"),
        row("Phi3", has("phi-3"), "phi-3"),
        row("ELYZAJapaneseLlama2", has("elyza-japanese-llama-2"), "ELYZA-japanese-Llama-2"),
        row("Calm2", has("calm2"), "calm2"),
        row("Calm3", has("calm3"), "calm3"),
        row("RakutenAI", has("rakutenai"), "RakutenAI"),
        row("Nekomata", has("nekomata"), "nekomata"),
        row("JapaneseStableLMGamma", has("japanese-stablelm-instruct-gamma"),
            "japanese-stablelm-instruct-gamma"),
        _PEFT, *_HEAD,
        row("Llama3", has("llama-3"), "llama-3"),
        row("Llama2", has_any("llama-2", "llama-ct"), "llama-2"),
        row("Swallow", has("swallow"), "swallow"),
        *_MIDDLE,
        row("Qwen2Chat", has("qwen2"), "qwen-7b-chat"),
        _QWEN, *_TAIL, _GROK,
        row("Karakuri", has("karakuri"), "karakuri-lm-70b-chat"),
        # its test lower-cases the name, then looks for "Tanuki": it never matches
        row("Tanuki", lambda _name: False, "tanuki"),
        row("LLMJp3", has("llm-jp-3"), "llm-jp-3"),
        _no_system("athene-70b"),
    ),
    texts=TemplateTexts(
        suite="jmt-bench",
        conversations="variants/swallow-evaluation/sources/fastchat/conversation.py",
        silent=_SILENT | {"calm2"},
    ),
)  # fmt: skip


_chatglm_v2 = first_part((("chatglm2", "chatglm2"),), "chatglm")


def _jslm_alpha(name: str) -> bool:
    lower = name.lower()
    base = posixpath.basename(lower)
    return (
        lower == "japanese-stablelm-instruct-alpha-7b"
        or "jslm-alpha-" in lower
        or ("checkpoint-" in base)
    )


def _jllama2(name: str) -> bool:
    # takes a full path only (its tokenizer is found from the path's project root)
    lower = name.lower()
    return lower != posixpath.basename(lower) and "proj-jp-stablegpt/llama2" in lower


#: the template jp-stable's ``JLlama2Adapter`` gives a name holding ``sys-v2``: ``jllama-2``
#: with the system message the adapter sets (read from its ``model_adapter.py``)
_JLLAMA2_SYS_V2 = "jllama-2 (sys-v2)"


def _jllama2_template(model: str) -> str:
    if "sys-v" in model:
        return _JLLAMA2_SYS_V2 if "sys-v2" in model else "(none: upstream refuses)"
    return "jllama-2"


#: the templates of jp-stable's ``conversation.py`` with no system message
_STABILITY_SILENT = frozenset((
    "baichuan-chat", "bard", "billa", "chatglm", "chatglm2", "claude", "cutegpt", "falcon",
    "h2ogpt", "llama-2", "manticore", "oasst_llama", "oasst_pythia", "polyglot_changgpt",
    "redpajama-incite", "rwkv", "starchat", "tulu",
))  # fmt: skip

#: Stability-AI FastChat ``jp-stable`` (e37eb28): its ``gen_api_answer.py`` sends
#: ``gpt-3.5-turbo`` and ``gpt-4`` to OpenAI and refuses any other name; other models are
#: answered by ``gen_model_answer.py`` through this table
STABILITY = AdapterTable(
    source="Stability-AI FastChat jp-stable (e37eb28)",
    adapters=(
        row("JLlama2", _jllama2, _jllama2_template),
        row("JSLMAlpha", _jslm_alpha, "jslm_alpha"),
        _PEFT,
        row("Vicuna", has("vicuna"), _vicuna),
        row("Airoboros", has("airoboros"), "airoboros_v1"),
        row("LongChat", has("longchat"), "vicuna_v1.1"),
        row("CodeT5p", has("codet5p"), "one_shot"),
        row("T5", has("t5"), "one_shot"),
        row("Koala", has("koala"), "koala_v1"),
        row("Alpaca", has("alpaca"), "alpaca"),
        row("ChatGLM", has("chatglm"), _chatglm_v2),
        row("DollyV2", has("dolly-v2"), "dolly_v2"),
        row("OasstPythia", has("oasst", "pythia"), "oasst_pythia"),
        row("OasstLLaMA", _oasst_llama, "oasst_llama"),
        row("StableLM", has("stablelm"), "stablelm"),
        row("Baize", has("baize"), "baize"),
        row("Rwkv", has("rwkv-4"), "rwkv"),
        row("OpenBuddy", has("openbuddy"), "openbuddy"),
        row("Phoenix", has("phoenix"), "phoenix"),
        row("Bard", is_one_of("bard"), "bard"),
        row("PaLM2", is_one_of("palm-2"), "bard"),
        row("ChatGPT", is_one_of("gpt-3.5-turbo", "gpt-4"), "chatgpt"),
        row("Claude", is_one_of("claude-2", "claude-instant-1"), "claude"),
        row("MPT", lambda n: has("mpt")(n) and not has("airoboros")(n), _mpt),
        row("BiLLa", has("billa"), "billa"),
        row("RedPajamaINCITE", has("redpajama-incite"), "redpajama-incite"),
        row("H2OGPT", has("h2ogpt"), "h2ogpt"),
        row("Robin", has("robin"), "Robin"),
        row("Snoozy", has("gpt4all", "snoozy"), "snoozy"),
        row("WizardLM", has("wizardlm"), _wizardlm(("13b", "30b"))),
        row("Manticore", has("manticore"), "manticore"),
        row("Guanaco", has("guanaco"), "zero_shot"),
        row("Camel", has("camel"), "vicuna_v1.1"),
        row("ChangGPT", has("polyglot", "chang"), "polyglot_changgpt"),
        row("Tulu", has("tulu"), "tulu"),
        row("Falcon", has("falcon"), "falcon"),
        row("TigerBot", has("tigerbot"), "tigerbot"),
        row("Baichuan", has("baichuan"), first_part((("chat", "baichuan-chat"),), "zero_shot")),
        row("XGen", has("xgen"), "xgen"),
        row("NousHermes", has("nous-hermes"), "alpaca"),
        row("Pythia", has("pythia"), "one_shot"),
        row("InternLMChat", has("internlm"), "internlm-chat"),
        row("StarChat", has("starchat"), "starchat"),
        _LLAMA2,
        row("CuteGPT", has("cutegpt"), "cutegpt"),
        row("OpenOrca", has("openorca"), "open-orca"),
        row("WizardCoder", has("wizardcoder"), "alpaca"),
        _QWEN,
        row("AquilaChat", has("aquila"), "aquila-chat"),
        row("BGE", has("bge"), "one_shot"),
    ),
    texts=TemplateTexts(
        suite="jmt-bench",
        conversations="sources/fastchat/conversation.py",
        silent=_STABILITY_SILENT,
        set_by_adapters=MappingProxyType({
            _JLLAMA2_SYS_V2: ("sources/fastchat/model/model_adapter.py", "JLlama2Adapter"),
        }),
    ),
    api_names=frozenset({"gpt-3.5-turbo", "gpt-4"}),
)  # fmt: skip
