# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Evidence before an exit: whose failure is it, the candidate's or the judge's?

Under GRPO a losing candidate's advantage is negative, so a failed judgment it can cause is worth something to it: a
tie settles the judgment (half a point it would not have won), and a failure the judge declares its own (it kept
replying with a verdict id it was not asked for) voids the whole group (advantage 0 for everyone). Blaming it on a
failure alone would blame honest candidates for the judge's load; ignoring it pays the loser. Evidence decides:
the candidate is judged again beside a *control* (the same judgment, the candidate replaced by neutral text of its size
in the judge's tokens: ``meta["control"]``, which a judge that supports it renders so, see
:func:`~verl_arena.judges.blame.ProbeMaker.control`). When the failure follows the candidate (its replays fail, the
controls are answered), it forfeits; when it follows the judge (a control fails too), the judge is at fault and the
group is voided, as it was; when a replay is answered, the failures were chance and the fallback stands.

Two things make a candidate a suspect, and both are about failures that follow it rather than the group:

- **concentrated failures** (:func:`~verl_arena.core.stalls.concentrated`): once a round's failures that blame nobody
  were asked again, those still standing concentrate on one candidate (two or more of its judgments, more than half of
  those it takes part in and of all the group's failures, while its opponents pass theirs; or its only judgment, the
  group's only failure, beside opponents that passed others). Whatever their reason (a gateway's 502, a timeout,
  verdict ids the judge miscopied), each of its failed judgments is replayed beside its control, side by side
  (:data:`MIN_REPLAYS` at least, :data:`LONE_REPLAYS` for a single judgment, cycling through them), and the decision
  is taken at once (:func:`weigh_concentration`). A failure the judge answered when asked again is never a suspicion
  (infrastructure noise must not send every unlucky judgment to tracing), and a judge failing on everything shows no
  concentration at all.
- **stragglers** (only with a clock lent by the runtime, :class:`Pace`): in a round of pairwise judgments, once every
  judgment but those of one candidate was answered and they have been pending :data:`PATIENCE` times as long as the
  rest of the round took (and at least the pace's floor, half the judge's request timeout), a control of each (two at
  most) is asked beside it. If the controls are answered and the candidate's judgments are still pending after as long
  again, or failed meanwhile, it forfeits provisionally: the round goes on without waiting, and up to :data:`PROBES` of
  the straggling judgments keep running as its probes (the others are stopped: they would only hold the judge's slots)
  (:func:`watch_stragglers`). A probe that fails proves it (it forfeits); one that is answered clears it (the group is
  played again from memory with the answer). A judge that is busy for everyone would otherwise let a candidate that
  stalls it only where it takes part hold the whole group until its deadline voids it.

The tournament (:meth:`~verl_arena.core.tournament.Tournament.rank`) plays the group with every suspect forfeiting,
leaves that result in its :class:`GroupWatch` (``interim``) while a straggler's probes are still out, then waits for
them. When the group's deadline comes first, the runtime answers with the interim result and counts the forfeit as
unproven (:mod:`verl_arena.outcomes.exits`). Every suspicion and its outcome is kept in :class:`Suspicions` and
recorded in the result (``details["exits"]``: which candidate, the cause, which judgments were replayed, each replay's
and control's outcome, the decision), which a replay of the match log reads back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from verl_arena.core.concurrency import gather_or_cancel
from verl_arena.core.errors import JudgeError
from verl_arena.core.spending import tally
from verl_arena.core.stalls import concentrated
from verl_arena.core.types import CONTROL_KEY, Candidate, GroupResult, Match

__all__ = [
    "LONE_REPLAYS",
    "MIN_REPLAYS",
    "PATIENCE",
    "PROBES",
    "GroupWatch",
    "Pace",
    "Suspicion",
    "Suspicions",
    "WeighingArena",
    "as_control",
    "replay_beside_control",
    "watch_stragglers",
    "weigh",
    "weigh_concentration",
]

logger = logging.getLogger(__name__)

#: the least replays (each beside its control) that weigh a concentrated candidate's failures: its failed judgments,
#: cycled until there are this many. A judge failing at random fails all of them and answers every control rarely
MIN_REPLAYS = 4
#: the least replays that weigh a candidate whose one judgment failed (and failed again when asked again): one
#: judgment is weaker evidence than two, and chance must fail more replays to blame it
LONE_REPLAYS = 6
#: a round's judgments straggle once pending this many times as long as the rest of the round took
PATIENCE = 2.0
#: a straggler's pending judgments kept running as its probes (beside as many controls); the rest are stopped, so that
#: a candidate that stalls the judge does not hold its slots for everyone's judgments while its evidence comes in
PROBES = 2
#: what decides a suspicion: it ``forfeit``s (the failures followed it), the judge is at fault (``judge_fault``: a
#: control failed too), the failures were chance (``cleared``: a replay was answered), the evidence is still out
#: (``pending``), or the group's deadline came before it (``unproven``, set by the runtime)
Decision = Literal["forfeit", "judge_fault", "cleared", "pending", "unproven"]
#: what made the candidate a suspect
Trigger = Literal["concentrated", "straggler"]


def as_control(candidate: Candidate) -> Candidate:
    """``candidate`` marked to be judged as its control: neutral text of its size in the judge's tokens."""
    return dataclasses.replace(candidate, meta={**candidate.meta, CONTROL_KEY: True})


@dataclass
class Suspicion:
    """One suspect's failures weighed: who, why, what was replayed and what came of it.

    Args:
        candidate: the suspect's id.
        player: its index in the group.
        cause: the reasons of the failures that made it a suspect, e.g. ``"http_502 x2"``, ``"straggled"``.
        trigger: ``"concentrated"`` or ``"straggler"`` (see the module docstring).
        judgments: the judgments replayed, as their players were shown.
        probes: each replay's outcome (``"failed"``, ``"answered"``, ``"pending"``).
        controls: each replay's control's outcome.
        decision: see :data:`Decision`.
    """

    candidate: str
    player: int
    cause: str
    trigger: Trigger
    judgments: list[list[int]]
    probes: list[str]
    controls: list[str]
    decision: Decision

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``details["exits"]``)."""
        return dataclasses.asdict(self)

    def describe(self) -> str:
        """One line for the log: the candidate, the cause and the evidence."""
        probes, controls = Counter(self.probes), Counter(self.controls)
        seen = ", ".join(f"{n} {o}" for o, n in sorted(probes.items()))
        beside = ", ".join(f"{n} {o}" for o, n in sorted(controls.items()))
        return (
            f"candidate {self.candidate} ({self.cause}, {self.trigger}): replays {seen}; controls {beside}: "
            f"{self.decision}"
        )


class Pace(Protocol):
    """A clock the runtime lends a group's tournament, to tell judgments that straggle behind their round."""

    #: no judgment straggles before it has been pending this long (seconds)
    floor_s: float

    def now(self) -> float:
        """Monotonic seconds."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""


@dataclass
class GroupWatch:
    """What the runtime lends one group's tournament and reads back if the group's deadline comes first.

    Args:
        pace: the clock that tells stragglers (``None``: none are looked for).
        interim: set by the tournament: the group's result with every suspect forfeiting, while a suspect's probes are
            still out (``None``: no such result, or the evidence cleared a suspect since).
        failures: every judgment of the group that failed so far, by reason, those asked again since included: what
            used the group's time, named when its deadline voids it.
    """

    pace: Pace | None = None
    interim: GroupResult | None = None
    failures: Counter[str] = dataclasses.field(default_factory=Counter)


class Suspicions:
    """Every suspicion of one group, across the plays of its tournament, and the probes still out.

    Args:
        records: suspicions decided before (a replay reads them back from ``details["exits"]``).
    """

    def __init__(self, records: Iterable[Mapping[str, Any]] = ()) -> None:
        self.records: dict[int, Suspicion] = {int(r["player"]): Suspicion(**r) for r in records}
        #: what the probes and controls spent (counted in the group's usage)
        self.spent: Counter[str] = Counter()
        self._probes: dict[int, list[asyncio.Future[Any]]] = {}

    def known(self, player: int) -> Suspicion | None:
        """The suspicion of ``player``, if there was one."""
        return self.records.get(player)

    @property
    def pending(self) -> bool:
        """Whether some suspect's probes are still out."""
        return any(r.decision == "pending" for r in self.records.values())

    def add(self, record: Suspicion, probes: Sequence[asyncio.Future[Any]] = ()) -> None:
        """Keep ``record``; ``probes``: the judgments still running as its probes (a straggler's)."""
        self.records[record.player] = record
        if probes:
            self._probes[record.player] = list(probes)
            for i, probe in enumerate(probes):
                if probe.done():  # failed already, beside its answered control
                    self._probed(record.player, i, probe)
                else:
                    probe.add_done_callback(lambda done, p=record.player, i=i: self._probed(p, i, done))

    def cleared(self) -> set[int]:
        """The suspects the evidence cleared."""
        return {p for p, r in self.records.items() if r.decision == "cleared"}

    async def settle(self) -> None:
        """Wait for every probe still out."""
        out = [probe for probes in self._probes.values() for probe in probes]
        if out:
            await asyncio.wait(out)

    async def stop(self) -> None:
        """Stop the probes still out (the tournament is over or was cancelled), once what they sent is counted."""
        out = [probe for probes in self._probes.values() for probe in probes]
        for probe in out:
            probe.cancel()
        await asyncio.gather(*out, return_exceptions=True)

    def record(self) -> list[dict[str, Any]]:
        """The suspicions as ``details["exits"]`` keeps them, by candidate position."""
        return [self.records[p].to_dict() for p in sorted(self.records)]

    def _probed(self, player: int, index: int, done: asyncio.Future[Any]) -> None:
        """A straggler's probe came back: failed (proves it once all have), answered (clears it) or cancelled."""
        record = self.records[player]
        if done.cancelled():
            return
        outcome, usage = done.result()
        self.spent.update(usage)
        record.probes[index] = "failed" if isinstance(outcome, JudgeError) else "answered"
        if record.decision != "pending":
            return
        if record.probes[index] == "answered":
            record.decision = "cleared"
        elif all(p == "failed" for p in record.probes):
            record.decision = "forfeit"


class WeighingArena(Protocol):
    """What the checks here use of the arena whose round they weigh (:class:`~verl_arena.core.arena.Arena`)."""

    candidates: list[Candidate]
    group: str
    exits: Suspicions

    @property
    def matches(self) -> list[Match]: ...

    async def ask(self, kind: str, shown: Sequence[Candidate], k: int = 0) -> Any: ...


async def _answered(ask: Awaitable[Any]) -> bool:
    try:
        await ask
    except JudgeError:
        return False
    return True


async def replay_beside_control(arena: WeighingArena, match: Match, player: int) -> tuple[bool, bool]:
    """``match`` asked again as it was shown, and beside it, at the same time, the same judgment with ``player``
    replaced by its control: whether each was answered."""
    shown = [arena.candidates[p] for p in match.players]
    control = [as_control(c) if p == player else c for p, c in zip(match.players, shown, strict=True)]
    probe, beside = await asyncio.gather(
        _answered(arena.ask(match.kind, shown, match.k)), _answered(arena.ask(match.kind, control, match.k))
    )
    return probe, beside


def _cause(failed: Sequence[Match]) -> str:
    counts = Counter(m.reason for m in failed)
    return ", ".join(r if c == 1 else f"{r} x{c}" for r, c in sorted(counts.items()))


async def weigh(arena: WeighingArena, player: int, failed: Sequence[Match]) -> Suspicion:
    """The evidence on ``player`` from its ``failed`` judgments: each replayed beside its control
    (:data:`MIN_REPLAYS` at least), and the decision (see the module docstring)."""
    count = max(MIN_REPLAYS if len(failed) > 1 else LONE_REPLAYS, len(failed))
    replays = [failed[i % len(failed)] for i in range(count)]
    with tally() as spent:
        outcomes = await gather_or_cancel([replay_beside_control(arena, m, player) for m in replays])
    arena.exits.spent.update(spent)
    probes = ["answered" if ok else "failed" for ok, _ in outcomes]
    controls = ["answered" if ok else "failed" for _, ok in outcomes]
    decision: Decision = (
        "cleared" if "answered" in probes else "forfeit" if all(c == "answered" for c in controls) else "judge_fault"
    )
    judgments = [list(m.players) for m in replays]
    candidate = arena.candidates[player].id
    return Suspicion(candidate, player, _cause(failed), "concentrated", judgments, probes, controls, decision)


async def weigh_concentration(
    arena: WeighingArena, matches: list[Match], stalled: set[int]
) -> tuple[list[Match], set[int]]:
    """After a round (and its asks again): weigh every candidate the failures still standing now concentrate on that
    failed in this round and was not weighed before. Returns the round's matches, those of a candidate the evidence
    puts on the judge marked ``judge_fault`` (the tournament voids the group), and the candidates that forfeit from now
    on (the caller settles this round's failures as their forfeits)."""
    settled = ("compare", "select")
    log = [  # the judge's own failures are no candidate's suspicion
        m for m in (*arena.matches, *matches) if m.kind in settled and not (set(m.players) & stalled or m.judge_fault)
    ]
    out, forfeiting = list(matches), set()
    for player in concentrated(log, stalled):
        mine = [i for i, m in enumerate(out) if m.failed and m.kind in settled and player in m.players]
        if arena.exits.known(player) is not None or not mine:
            continue
        record = await weigh(arena, player, [m for m in log if m.failed and player in m.players])
        arena.exits.add(record)
        logger.debug("%s: %s", arena.group, record.describe())
        if record.decision == "forfeit":
            forfeiting.add(player)
        elif record.decision == "judge_fault":
            for i in mine:
                out[i] = dataclasses.replace(out[i], judge_fault=True)
    return out, forfeiting


def _common(pairs: Sequence[tuple[int, int]], pending: Iterable[int]) -> set[int]:
    """The players every one of the pending pairs (by index) shows."""
    common: set[int] | None = None
    for i in pending:
        common = set(pairs[i]) if common is None else common & set(pairs[i])
    return common or set()


def _suspects(pairs: Sequence[tuple[int, int]], pending: set[int], answered: set[int], known: Suspicions) -> list[int]:
    """Who a round's pending pairs are waiting on: the players every pending pair shows and no answered pair does
    (one that was judged beside someone else is fine), and that were never suspected (the evidence on one that was has
    spoken); none while the pending pairs share no such player."""
    seen = {p for i in answered for p in pairs[i]}
    found = sorted(p for p in _common(pairs, pending) - seen if known.known(p) is None) if answered else []
    return found if len(found) == len(_common(pairs, pending) - seen) else []


async def _all_or_timer(waits: Sequence[asyncio.Future[Any]], seconds: float, pace: Pace) -> None:
    """Wait until every one of ``waits`` is done, or ``seconds`` passed."""
    timer = asyncio.ensure_future(pace.sleep(max(0.0, seconds)))
    every = asyncio.ensure_future(asyncio.wait(waits))
    try:
        await asyncio.wait({every, timer}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        timer.cancel()
        every.cancel()


async def watch_stragglers(
    arena: WeighingArena,
    pace: Pace,
    pairs: Sequence[tuple[int, int]],
    asks: Sequence[asyncio.Future[Any]],
    show: Callable[[int, int], list[Candidate]],
) -> tuple[list[Any], int | None]:
    """Await a round's pairwise ``asks`` (one per pair, each giving ``(verdict or JudgeError, usage)``), looking for a
    straggler (module docstring). Returns each ask's result, ``None`` for the asks left running as a suspect's
    probes, and that suspect (``None``: none). ``show(a, b)``: the pair as the judge is shown it."""
    started = pace.now()
    pending = set(range(len(asks)))
    while pending:
        await asyncio.wait([asks[i] for i in pending], return_when=asyncio.FIRST_COMPLETED)
        pending = {i for i in pending if not asks[i].done()}
        suspects = _suspects(pairs, pending, set(range(len(asks))) - pending, arena.exits)
        if not pending or not suspects:
            continue
        late = {i: asks[i] for i in sorted(pending)}
        suspect = await _straggler(arena, pace, {i: pairs[i] for i in late}, late, suspects, started, show)
        if suspect is not None:
            mine = [i for i in late if suspect in pairs[i]]
            kept = mine[:PROBES]  # the others would only hold the judge's slots: they are settled as forfeits
            for i in mine[PROBES:]:
                asks[i].cancel()
            _suspected(arena, suspect, [pairs[i] for i in kept], [asks[i] for i in kept], min(2, len(late)))
            return [None if i in mine else a.result() for i, a in enumerate(asks)], suspect
        await asyncio.wait(late.values())  # no straggler: the round waits for them as it always did
        pending = set()
    return [a.result() for a in asks], None


async def _straggler(
    arena: WeighingArena,
    pace: Pace,
    pairs: Mapping[int, tuple[int, int]],
    late: Mapping[int, asyncio.Future[Any]],
    suspects: Sequence[int],
    started: float,
    show: Callable[[int, int], list[Candidate]],
) -> int | None:
    """Once the rest of a round was answered and only the ``late`` asks (of ``pairs``) of one or two ``suspects`` are
    pending: wait out the patience, ask controls beside them (each suspect replaced in up to two of its pairs), and
    name the suspect whose controls were answered, alone, while its pairs are not, once they stayed pending as long
    again or failed meanwhile (their probes, already in); ``None`` when the pairs come back first, one of them is
    answered, or no control clears one suspect's size alone."""
    waiting = list(late.values())
    rest = pace.now() - started
    await _all_or_timer(waiting, max(PATIENCE * rest, pace.floor_s) - rest, pace)
    if all(w.done() for w in waiting):
        return None
    sample = list(pairs.values())[:2]
    controls = {p: [asyncio.ensure_future(_control(arena, show(*pair), pair, p)) for pair in sample] for p in suspects}
    every = [c for cs in controls.values() for c in cs]
    asked = pace.now()
    try:
        while not any(_answered_ask(w) for w in waiting):
            clear = [p for p, cs in controls.items() if all(c.done() and c.result()[0] for c in cs)]
            if len(clear) == 1:
                await _all_or_timer(waiting, pace.now() - asked, pace)  # as long again as the controls took
                clear = [p for p, cs in controls.items() if all(c.done() and c.result()[0] for c in cs)]
                if len(clear) == 1 and not any(_answered_ask(w) for w in waiting):
                    return clear[0]
            if all(c.done() for c in every) or all(w.done() for w in waiting):
                return None  # no control cleared one suspect alone (the judge's trouble at this size), or all came back
            running = [f for f in (*waiting, *every) if not f.done()]
            await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        return None
    finally:
        for c in every:
            c.cancel()  # a no-op once it is done
        await asyncio.gather(*every, return_exceptions=True)  # what they sent is counted before the group ends
        for c in every:
            if not c.cancelled() and c.exception() is None:
                arena.exits.spent.update(c.result()[1])


def _answered_ask(ask: asyncio.Future[Any]) -> bool:
    """Whether a round's ask came back with a verdict (not a ``JudgeError``)."""
    return ask.done() and not ask.cancelled() and not isinstance(ask.result()[0], JudgeError)


async def _control(
    arena: WeighingArena, shown: list[Candidate], pair: tuple[int, int], player: int
) -> tuple[bool, dict[str, int]]:
    """The pair as shown, ``player`` replaced by its control: whether it was answered, and what it spent."""
    control = [as_control(c) if p == player else c for p, c in zip(pair, shown, strict=True)]
    with tally() as spent:
        ok = await _answered(arena.ask("compare", control))
    return ok, dict(spent)


def _suspected(
    arena: WeighingArena,
    player: int,
    pairs: Sequence[tuple[int, int]],
    probes: Sequence[asyncio.Future[Any]],
    controls: int,
) -> None:
    """Record ``player`` as a straggler whose pending ``pairs`` keep running as its ``probes``, beside which its
    ``controls`` were answered."""
    record = Suspicion(
        candidate=arena.candidates[player].id,
        player=player,
        cause="straggled",
        trigger="straggler",
        judgments=[list(pair) for pair in pairs],
        probes=["pending"] * len(pairs),
        controls=["answered"] * controls,
        decision="pending",
    )
    arena.exits.add(record, probes)
    logger.debug("%s: %s", arena.group, record.describe())
