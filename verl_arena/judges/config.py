# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Configuration of the LLM judge: endpoints, sampling, limits, retries, template, cache.

Everything is validated when the configuration is built, and every error names the offending field: the templates
too (a name that is no built-in template, or a file that is not a template of the right kind, is refused here, not at
the first judgment). API keys are never part of a configuration: an endpoint names the environment variable that
holds its key.

Where a configuration enters (a file, a command, the trainer's start-up) it is read and checked by
:mod:`~verl_arena.judges.loading`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from verl_arena.core.errors import ConfigError
from verl_arena.judges.grading import Graded
from verl_arena.judges.templates import load_template
from verl_arena.validation import problems, refuse_removed, removed_options, validate

__all__ = [
    "HOSTING_FRAMEWORKS",
    "REPLACED_ORDER_OPTIONS",
    "EndpointConfig",
    "EnsembleConfig",
    "JudgeConfig",
    "Orders",
    "RetryConfig",
    "orders_from_old",
    "parse_judge_config",
    "resolve_hosted",
    "window_sizing",
]

#: the frameworks that can host the judge, and where their hosted judges resolve
HOSTING_FRAMEWORKS = {
    "verl": "verl's trainer (reward.reward_model.enable=True, with the arena reward manager)",
    "slime": "slime's training job (verl_arena.slime hooks, with the model in --sglang-config)",
}

#: a reply cut at ``max_tokens`` is asked again with this many times the room (never more than the context leaves
#: beside the prompt): a cut reply is never read
REASK_FACTOR = 4

_REMOVED = removed_options(
    "judge.",
    {"reask_max_tokens": f"a cut reply is asked again with {REASK_FACTOR} x max_tokens; raise max_tokens instead"},
)

#: how each pair is put to the judge (``JudgeConfig.orders``)
Orders = Literal["both", "agree", "drawn", "given"]

#: the order protocol's options before ``orders`` replaced them, and the ``orders`` each spelt when set
REPLACED_ORDER_OPTIONS = {
    "order_swap": "`orders: both` (true) or `orders: given` (false)",
    "require_agreement": "`orders: agree`",
    "one_order": "`orders: drawn`",
}


def orders_from_old(old: Mapping[str, Any]) -> Orders:
    """The ``orders`` that the replaced ``order_swap``, ``require_agreement`` and ``one_order`` spelt in ``old``."""
    if old.get("one_order"):
        return "drawn"
    if old.get("order_swap", True) is False:
        return "given"
    return "agree" if old.get("require_agreement") else "both"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EndpointConfig(_Strict):
    """One OpenAI-compatible server: an address, or a judge the training job hosts.

    Args:
        base_url: e.g. ``https://dashscope-intl.aliyuncs.com/compatible-mode/v1`` or ``http://10.0.0.5:8000/v1``;
            requests go to ``{base_url}/chat/completions``.
        model: the model name sent in the request (for a hosted judge: filled in where it is resolved, unless given).
        hosted: instead of ``base_url``, a judge the training job serves itself, resolved when the job starts:
            ``"verl"`` (the reward model verl serves with ``reward.reward_model.enable=True``: its router and model
            path) or ``"slime:NAME"`` (the frozen model ``NAME`` of slime's ``--sglang-config``). No API key.
        api_key_env: name of the environment variable holding the API key; ``None`` sends no key (self-hosted).
        weight: share of the traffic relative to other endpoints (least-loaded routing divides load by weight).
        max_concurrency: requests in flight to this endpoint at most.
    """

    base_url: str | None = None
    model: str | None = None
    hosted: str | None = None
    api_key_env: str | None = None
    weight: float = Field(default=1.0, gt=0)
    max_concurrency: int = Field(default=64, ge=1)

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return None if value is None else value.rstrip("/")

    @field_validator("hosted")
    @classmethod
    def _hosted(cls, value: str | None) -> str | None:
        if value is None:
            return None
        framework, _, name = value.partition(":")
        if framework not in HOSTING_FRAMEWORKS or (framework == "slime") != bool(name.strip()):
            raise ValueError(f"must be 'verl' or 'slime:NAME' (a model of slime's --sglang-config), got {value!r}")
        return value

    @model_validator(mode="after")
    def _one_address(self) -> EndpointConfig:
        if (self.base_url is None) == (self.hosted is None):
            raise ValueError("give either base_url (a server's address) or hosted (a judge the training job serves)")
        if self.hosted is not None and self.api_key_env is not None:
            raise ValueError("a hosted judge takes no API key: remove api_key_env")
        if self.base_url is not None and not self.model:
            raise ValueError("model is required with base_url (the model name sent in every request)")
        return self

    @property
    def url(self) -> str:
        """``base_url``; ``ConfigError`` for a hosted judge that was never resolved to an address."""
        if self.base_url is None:
            raise ConfigError(
                f"endpoint hosted: {self.hosted} is a judge the training job serves: it resolves inside "
                f"{HOSTING_FRAMEWORKS[str(self.hosted).partition(':')[0]]}, not here (give base_url and model instead)"
            )
        return self.base_url

    def resolved(self, base_url: str, model: str) -> EndpointConfig:
        """This hosted endpoint at the address its training job serves it (its own ``model``, if given, wins)."""
        data = self.model_dump(exclude_none=True, exclude={"hosted"})
        return EndpointConfig.model_validate({**data, "base_url": base_url, "model": self.model or model})

    def api_key(self) -> str | None:
        """The key from the environment, read at call time; ``ConfigError`` if the variable is named but unset."""
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ConfigError(f"endpoint {self.base_url}: environment variable {self.api_key_env} is not set")
        return key


class RetryConfig(_Strict):
    """Retry policy of one request.

    Args:
        max_attempts: attempts per request, the first included.
        initial_wait_s / max_wait_s: exponential backoff with jitter between attempts.
        retry_after_cap_s: the longest ``Retry-After`` honoured.
        max_elapsed_s: give up once this much time has passed since the first attempt.
    """

    max_attempts: int = Field(default=5, ge=1)
    initial_wait_s: float = Field(default=0.5, ge=0)
    max_wait_s: float = Field(default=20.0, ge=0)
    retry_after_cap_s: float = Field(default=30.0, ge=0)
    max_elapsed_s: float = Field(default=300.0, gt=0)


class EnsembleConfig(_Strict):
    """Several judges (or several samples of one) decide every judgment together.

    Args:
        members: one entry per member judge: the changes to the surrounding judge configuration that make it, e.g.
            ``{}`` (that judge itself), ``{endpoints: [...another model...]}`` or ``{template: writing}``. Each member
            keeps its own endpoints, limits and cache.
        samples: how many times each member is asked per judgment; with ``temperature`` above 0 (and ``seed`` unset
            or different per sample, which it is: sample k uses ``seed + k``) the samples are independent.
        combine: ``"majority"``: every verdict is one vote for its winner (a tie half a vote each), and the pair's
            scores are the votes; ``"mean"``: the mean of the verdicts' scores, each first scaled to [0, 1] by its
            judge's score range, so judges on different scales count alike.
    """

    members: list[dict[str, Any]] = Field(default_factory=lambda: [{}], min_length=1)
    samples: int = Field(default=1, ge=1)
    combine: Literal["majority", "mean"] = "majority"

    @model_validator(mode="after")
    def _votes(self) -> EnsembleConfig:
        if len(self.members) * self.samples < 2:
            raise ValueError("an ensemble needs at least two verdicts per judgment (members x samples >= 2)")
        for i, member in enumerate(self.members):
            if "ensemble" in member:
                raise ValueError(f"members[{i}] may not hold an ensemble of its own")
        return self


class JudgeConfig(_Strict):
    """Everything that defines the judge.

    Args:
        endpoints: one or more servers; requests go to the least-loaded healthy one.
        template: a built-in template name (``travel``, ``deep_research``, ``writing``, ``generic``) or a path to a
            template YAML file.
        language: ``en`` or ``zh`` for built-in templates.
        select_template: template for group judgments (``multi_round``).
        order_template: template for listwise judgments (``listwise``).
        temperature, max_tokens, seed: sampling parameters sent with every request.
        context_tokens: the judge model's context window. A prompt holds at most ``context_tokens - max_tokens``
            tokens: each candidate is cut to its share of what the instructions leave (half in a pair, 1/N in a group
            call), so no prompt overflows because one candidate is long (see :mod:`~verl_arena.judges.budget`). Unset,
            it follows the smallest window the endpoints report on ``/v1/models`` (``max_model_len``: vLLM, SGLang)
            before the first request, else 32768; set larger than a reported window, it is refused.
        tokenizer: the judge's tokenizer (a Hugging Face name or a local directory) to count tokens exactly; without
            one, tokens are bounded by UTF-8 bytes, which is safe for any byte-level tokenizer but reads less.
        json_mode: send ``response_format={"type": "json_object"}``.
        extra_body: extra request fields, e.g. ``{"enable_thinking": False}`` (DashScope) or
            ``{"chat_template_kwargs": {"enable_thinking": False}}`` (vLLM).
        timeout_s: per-request timeout.
        max_concurrency: requests in flight over all endpoints.
        rpm / tpm: global requests- and tokens-per-minute limits (``None``: unlimited).
        retry: retry policy.
        failure_threshold / cooldown_s: an endpoint failing this many times in a row is taken out for
            ``cooldown_s``, then probed with one request.
        down_wait_s: once every endpoint has failed its recovery probe (the judge is down for everyone), requests
            wait for one to come back for this long, then every request fails at once (reason ``"unavailable"``)
            until an endpoint answers a recovery probe again; groups are voided within seconds instead of at their
            deadline.
        orders: how each pair is put to the judge. ``"both"`` (the default): in both orders, the two verdicts'
            scores summed (ArenaRL's bidirectional protocol: the judge's position bias cancels); ``"agree"``: in both
            orders, a win counted only when the two orders name the same winner, else a tie; ``"drawn"``: once, in a
            slot order drawn from ``seed`` (0 when unset), the query and the two candidates (so replays and caches
            agree): the position bias becomes zero-mean noise at half the requests, and the first slot's share of the
            verdicts measures it (:mod:`~verl_arena.judges.one_order`); ``"given"``: once, in the order the topology
            passes the pair (the bias stays: for measuring it).
        graded: ``"off"`` (the default): the judge names a winner; ``"record"``: the reply format asks for a
            preference strength instead (``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A``: much or slightly better,
            equal), read strictly and recorded in the verdict's ``meta["strength"]`` (+2 to -2, positive for the
            first side); ``"break_ties"``: record it, and a verdict whose scores tie (or whose two orders disagree
            under ``orders: agree``) with a nonzero strength goes to the stronger side; a decisive verdict is
            never changed (:mod:`~verl_arena.judges.grading`).
        cache_path: sqlite file caching verdicts (``None``: no cache).
        rubrics: ``"none"``, ``"data"`` (use ``candidate.meta["rubrics"]``) or ``"generate"`` (ask the judge for
            5-7 query-specific rubric items once per query).
        no_answer: ``"lose"``: a candidate without a final answer loses without a judge call; ``"judge"``: judge it.
        max_field_chars: longest process or answer text shown to the judge (middle-truncated beyond).
        ensemble: several judges or samples per judgment, combined (see :class:`EnsembleConfig`); ``None``: one.
        competence_check: before a run (the commands, the trainer's start), ask every endpoint one tiny comparison
            in both orders and stop when it gives no verdict (:mod:`~verl_arena.judges.competence`); ``False`` skips
            it.
    """

    endpoints: list[EndpointConfig] = Field(min_length=1)
    template: str = "generic"
    language: Literal["en", "zh"] = "en"
    select_template: str = "select"
    order_template: str = "order"
    temperature: float = Field(default=0.0, ge=0)
    max_tokens: int = Field(default=1024, ge=16)
    seed: int | None = None
    context_tokens: int = Field(default=32_768, ge=1024)
    tokenizer: str | None = None
    json_mode: bool = False
    extra_body: dict[str, Any] = Field(default_factory=dict)
    timeout_s: float = Field(default=120.0, gt=0)
    max_concurrency: int = Field(default=256, ge=1)
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)
    retry: RetryConfig = Field(default_factory=RetryConfig)
    failure_threshold: int = Field(default=5, ge=1)
    cooldown_s: float = Field(default=30.0, ge=0)
    down_wait_s: float = Field(default=5.0, ge=0)
    orders: Orders = "both"
    graded: Graded = "off"
    cache_path: str | None = None
    rubrics: Literal["none", "data", "generate"] = "data"
    no_answer: Literal["lose", "judge"] = "lose"
    max_field_chars: int = Field(default=24_000, ge=200)
    ensemble: EnsembleConfig | None = None
    competence_check: bool = True

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        """Refuse a removed option, and the replaced order options with the ``orders`` they spelt together."""
        old = [key for key in REPLACED_ORDER_OPTIONS if isinstance(data, Mapping) and key in data]
        if old:
            said = ", ".join(f"{key}: {json.dumps(data[key])}" for key in old)
            raise ValueError(
                f"{' and '.join(old)} are replaced by one option, orders (both, agree, drawn or given): use "
                f"`orders: {orders_from_old(data)}` instead of `{said}`"
            )
        return refuse_removed(data, _REMOVED)

    @field_validator("template")
    @classmethod
    def _pairwise_template(cls, value: str) -> str:
        load_template(value, kind="pairwise")  # a built-in exists in every language; a file names no language
        return value

    @field_validator("select_template")
    @classmethod
    def _select_template(cls, value: str) -> str:
        load_template(value, kind="select")
        return value

    @field_validator("order_template")
    @classmethod
    def _order_template(cls, value: str) -> str:
        load_template(value, kind="order")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> JudgeConfig:
        if self.max_tokens > self.context_tokens // 2:
            raise ValueError(
                f"max_tokens ({self.max_tokens}) leaves too little of context_tokens ({self.context_tokens}) for the "
                "prompt: keep max_tokens at most half of context_tokens"
            )
        reserved = {"model", "messages"} & set(self.extra_body)
        if reserved:
            raise ValueError(f"extra_body may not set {sorted(reserved)}; they are filled in by the judge")
        if self.ensemble is not None:
            self.member_configs()  # a member that does not validate fails here, naming itself
        return self

    def verdict_settings(self) -> dict[str, Any]:
        """What decides this judge's verdicts, as a JSON-ready record (``rank`` writes it on every result line, and
        ``rank --resume`` refuses a run whose record differs): the models, templates and language, the sampling, what
        the judge is shown, the order swap (or one order), rubrics, the no-answer rule and the ensemble's members.
        Addresses, keys, limits, timeouts, retries and the cache decide no verdict and are left out; ``extra_body``
        (which may carry headers) is recorded as a digest."""
        body = json.dumps(self.extra_body, sort_keys=True, default=str)
        ensemble = self.ensemble
        return {
            "models": sorted({e.model or str(e.hosted) for e in self.endpoints}),
            **self.model_dump(include=_VERDICT_FIELDS),
            # the order protocol as the records have always spelt it, so that older records stay comparable
            "order_swap": self.both_orders,
            "require_agreement": self.orders == "agree",
            **({"one_order": True} if self.orders == "drawn" else {}),
            **({"graded": self.graded} if self.graded != "off" else {}),
            "extra_body": hashlib.sha256(body.encode()).hexdigest()[:16] if self.extra_body else None,
            "ensemble": None
            if ensemble is None
            else {
                "members": [member.verdict_settings() for member in self.member_configs()],
                "samples": ensemble.samples,
                "combine": ensemble.combine,
            },
        }

    @property
    def both_orders(self) -> bool:
        """Whether every pair is judged in both orders (``orders`` ``both`` or ``agree``)."""
        return self.orders in ("both", "agree")

    @property
    def reask_room(self) -> int:
        """Reply tokens for asking again after a reply was cut at ``max_tokens``."""
        return REASK_FACTOR * self.max_tokens

    def member_configs(self) -> list[JudgeConfig]:
        """The ensemble's member configurations (this configuration with each member's changes), or ``[self]``."""
        if self.ensemble is None:
            return [self]
        base = self.model_dump(exclude={"ensemble"}, exclude_unset=True)  # a member sets what the judge set
        members = []
        for i, changes in enumerate(self.ensemble.members):
            try:
                members.append(JudgeConfig.model_validate({**base, **changes}))
            except ValidationError as exc:
                raise ValueError(problems(exc, f"ensemble.members[{i}]", model=JudgeConfig)) from None
        return members


#: the fields of a judge configuration that decide its verdicts, recorded as they are (see ``verdict_settings``)
_VERDICT_FIELDS = frozenset(
    {
        "template",
        "select_template",
        "order_template",
        "language",
        "temperature",
        "max_tokens",
        "seed",
        "json_mode",
        "context_tokens",
        "tokenizer",
        "max_field_chars",
        "rubrics",
        "no_answer",
    }
)


def window_sizing(judge: JudgeConfig, window: int, *, option: str, what: str, source: str) -> dict[str, int]:
    """The change that sizes ``judge`` to a server's context ``window``: ``context_tokens`` follows the server
    unless the configuration sets it. ``ConfigError`` when the configured one exceeds the window, or the window leaves
    less than twice ``max_tokens``.

    Args:
        option: the judge configuration's full key (``judge``, ``+reward.reward_kwargs.judge``), for messages.
        what: the window, named (``"the hosted judge's context window"``).
        source: where the window is set, for the messages' advice.
    """
    if "context_tokens" in judge.model_fields_set and judge.context_tokens > window:
        raise ConfigError(
            f"{option}.context_tokens={judge.context_tokens} exceeds {what} ({window}, {source}): lower it or leave "
            "it unset (it then follows the server)"
        )
    if window < 2 * judge.max_tokens:
        raise ConfigError(
            f"{what} ({window}) leaves too little room beside {option}.max_tokens={judge.max_tokens}: raise {source}, "
            "or lower max_tokens"
        )
    return {} if "context_tokens" in judge.model_fields_set else {"context_tokens": window}


def resolve_hosted(
    judge: JudgeConfig,
    resolve: Callable[[EndpointConfig], EndpointConfig],
    changes: Mapping[str, Any] | None = None,
) -> JudgeConfig:
    """``judge`` with every hosted endpoint (its ensemble members' too) replaced by ``resolve(endpoint)``, an
    endpoint with a ``base_url``, and the fields ``changes`` sets (the hosted server's window, tokenizer), validated
    once; ``judge`` itself when nothing changes. A field the configuration left unset stays unset (a context window
    nobody sized keeps following its server)."""

    resolved = False

    def endpoints(items: list[Any]) -> list[Any]:
        nonlocal resolved
        out = []
        for item in items:
            endpoint = item if isinstance(item, EndpointConfig) else EndpointConfig.model_validate(item)
            if endpoint.hosted:
                resolved = True
                out.append(resolve(endpoint).model_dump(exclude_unset=True))
            else:
                out.append(endpoint.model_dump(exclude_unset=True) if item is endpoint else item)
        return out

    data = judge.model_dump(exclude_unset=True)  # a field left unset stays unset (a window follows its server)
    data["endpoints"] = endpoints(list(judge.endpoints))
    if judge.ensemble is not None:
        members = []
        for member in judge.ensemble.members:
            member = dict(member)
            if "endpoints" in member:
                member["endpoints"] = endpoints(list(member["endpoints"]))
            members.append(member)
        data["ensemble"]["members"] = members
    changed = {key: value for key, value in (changes or {}).items() if getattr(judge, key) != value}
    if not resolved and not changed:
        return judge
    return parse_judge_config({**data, **changed})


def parse_judge_config(data: Mapping[str, Any] | JudgeConfig) -> JudgeConfig:
    """Validate a mapping (e.g. from YAML or OmegaConf) into a ``JudgeConfig``; ``ConfigError`` names each bad field."""
    if isinstance(data, JudgeConfig):
        return data
    return validate(JudgeConfig, dict(data), "judge", "judge configuration")
