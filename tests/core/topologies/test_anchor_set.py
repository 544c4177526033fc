# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Win rate over K anchors (TSRL): every rollout meets every anchor in one wave, the anchor in a slot drawn with the
seed; ties and failures count 1/2; anchors come drawn from the group or marked by whoever keeps them (the data, an
anchor pool); ``score="bradley_terry"`` ranks by a fit over the graph, measured from the anchors."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers import rank

from verl_arena import Candidate, GroupResult, PairVerdict, Tournament, replay
from verl_arena.core.errors import ConfigError
from verl_arena.core.first_wave import first_wave
from verl_arena.core.topologies.anchor_set import anchor_count, peer_calls
from verl_arena.core.types import ANCHOR_KEY
from verl_arena.testing import SimulatedJudge, TableJudge


def rollouts(n: int) -> list[Candidate]:
    return [Candidate(f"r{i}", f"rollout {i}", meta={"quality": float(i)}) for i in range(n)]


def anchors(k: int) -> list[Candidate]:
    return [Candidate(f"a{j}", f"anchor {j}", meta={ANCHOR_KEY: True, "quality": 2.5 * j + 0.5}) for j in range(k)]


def marked(group: list[Candidate], judge: object, **options: object) -> GroupResult:
    return rank(group, judge, "anchor_set", **{"source": "marked", **options})


class SlotJudge:
    """Always prefers the candidate shown first: it reads nothing."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        return PairVerdict(1.0, 0.0)


class BreakingJudge:
    """Scores by a table, but a candidate whose answer says ``BREAK`` makes the judgment impossible (it forfeits)."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        if "BREAK" in a.answer:
            return PairVerdict(0.0, 1.0, forfeit=("a",))
        if "BREAK" in b.answer:
            return PairVerdict(1.0, 0.0, forfeit=("b",))
        return PairVerdict(self.scores[a.id], self.scores[b.id])


def test_points_are_win_rates_over_the_anchors_and_a_tie_counts_half():
    scores = {"r0": 1.0, "r1": 5.0, "r2": 9.0, "r3": 3.0, "a0": 2.0, "a1": 5.0}  # r1 ties a1
    group = rollouts(4) + anchors(2)
    result = marked(group, TableJudge(scores), anchors=2)
    assert result.points[:4] == [0.0, 0.75, 1.0, 0.5]
    # an anchor's points: its win rate over the rollouts it met (a1 beat r0 and r3, tied r1, lost to r2)
    assert result.points[4:] == [0.25, 0.625]
    assert result.ranks[2] == 0.0 and result.ranks[0] == max(result.ranks)


def test_every_rollout_meets_every_anchor_in_one_wave_with_the_anchor_in_a_drawn_slot():
    group = rollouts(12) + anchors(4)
    tournament = Tournament.from_options("anchor_set", source="marked", anchors=4, seed=5)
    judge = TableJudge({c.id: float(i) for i, c in enumerate(group)})
    result = asyncio.run(tournament.rank("q", group, judge))
    assert result.comparisons == tournament.judge_calls(16) == 48 and result.depth == tournament.depth(16) == 1
    met = {frozenset(pair) for pair in judge.calls}
    assert met == {frozenset({f"r{i}", f"a{j}"}) for i in range(12) for j in range(4)}
    first = [a for a, _ in judge.calls]
    assert 10 < sum(x.startswith("a") for x in first) < 38  # the anchor is shown first about half the time
    other = TableJudge(judge.scores)
    asyncio.run(Tournament.from_options("anchor_set", source="marked", anchors=4, seed=6).rank("q", group, other))
    assert sorted(other.calls) != sorted(judge.calls)  # the seed draws the slots


def test_a_failed_judgment_counts_half_and_is_counted():
    scores = {"r0": 1.0, "r1": 9.0, "a0": 5.0, "a1": 5.0}
    result = marked(rollouts(2) + anchors(2), TableJudge(scores, fail={frozenset({"r1", "a0"})}), anchors=2)
    assert result.points[:2] == [0.0, 0.75] and result.failures == 1 and result.degraded


def test_a_judge_that_only_follows_the_slot_voids_the_group():
    result = marked(rollouts(8) + anchors(2), SlotJudge(), anchors=2)
    assert result.voided and result.void_reason == "no_information" and set(result.advantages) == {0.0}


def test_a_judge_that_always_ties_voids_the_group():
    group = rollouts(4) + anchors(2)
    result = marked(group, TableJudge({c.id: 1.0 for c in group}), anchors=2)
    assert result.voided and result.void_reason == "no_information"


@pytest.mark.parametrize("score", ["win_rate", "bradley_terry", "gaussian"])
def test_a_rollout_that_breaks_the_judge_gains_nothing(score):
    group = rollouts(4) + anchors(2)
    group[3] = Candidate("r3", "BREAK the judge")
    judge = BreakingJudge({"r0": 1.0, "r1": 2.0, "r2": 3.0, "a0": 5.0, "a1": 6.0})
    result = marked(group, judge, anchors=2, score=score)
    assert not result.voided and result.forfeited[3]
    assert result.ranks[3] == max(result.ranks) and result.rewards[3] == min(result.rewards)


def test_a_group_without_its_marked_anchors_fails_naming_the_option_and_the_group():
    with pytest.raises(ConfigError, match=r"group 'g7'.*option 'anchors' = 2.*has 0 marked of 4"):
        tournament = Tournament.from_options("anchor_set", source="marked", anchors=2)
        asyncio.run(tournament.rank("q", rollouts(4), TableJudge({}), group_id="g7"))
    with pytest.raises(ConfigError, match=r"group 'g8'.*has 1 marked of 5"):
        asyncio.run(
            Tournament.from_options("anchor_set", source="marked", anchors=2).rank(
                "q", rollouts(4) + anchors(1), TableJudge({}), group_id="g8"
            )
        )
    with pytest.raises(ConfigError, match=r"group 'g9': option 'anchors' is 3 marked anchors.*only 3 candidates"):
        Tournament.from_options("anchor_set", source="marked", anchors=3).impl.check_group(3, "group 'g9'")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"anchors": 0}, "option 'anchors' must be an integer >= 1"),
        ({"source": "data"}, "option 'source' must be one of 'drawn', 'marked', 'pool'"),
        ({"score": "elo"}, "option 'score' must be one of"),
        (
            {"pool": True},
            "option 'pool' is replaced by source: pool .it was source: marked with pool: true.; got "
            "pool=True with source='drawn'",
        ),
        ({"pool": 1, "source": "marked"}, "option 'pool' is replaced by source: pool"),
        ({"peers": -1, "score": "bradley_terry"}, "option 'peers' must be an integer >= 0"),
        ({"peers": 2}, "option 'peers' .2. needs score='bradley_terry' or 'gaussian'"),
        ({"score": "gauss"}, "option 'score' must be one of 'win_rate', 'bradley_terry', 'gaussian', got 'gauss'"),
        ({"scoring": "bradley_terry"}, "anchor_set' fits Bradley-Terry itself.*use its option score: bradley_terry"),
    ],
)
def test_options_are_checked_where_they_enter(options, message):
    with pytest.raises(ConfigError, match=message):
        Tournament.from_options("anchor_set", **options)


def test_drawn_anchors_are_at_most_half_the_group_and_judged_like_marked_ones():
    for n, k in ((2, 1), (5, 2), (8, 4), (16, 4)):
        result = rank(rollouts(n), SimulatedJudge(noise=0.5, seed=n), "anchor_set", seed=n)
        assert len(result.details["anchors"]) == k == anchor_count(n, Tournament("anchor_set").impl.options)
        assert result.comparisons == (n - k) * k
        assert Tournament.from_options("anchor_set").judge_calls(n) == (n - k) * k


def test_a_pool_still_filling_draws_the_anchors_it_lacks_from_the_rollouts():
    group = rollouts(8) + anchors(1)
    result = marked(group, SimulatedJudge(noise=0.5), anchors=3, source="pool")
    assert result.details["marked_anchors"] == [8] and len(result.details["anchors"]) == 3
    assert 8 in result.details["anchors"] and result.comparisons == 6 * 3


def test_the_former_pool_switch_is_read_as_source_pool_with_one_warning_and_a_recorded_result_replays(caplog):
    from verl_arena.core.topologies import anchor_set

    anchor_set._warn_pool_renamed.cache_clear()
    old = {"anchors": 3, "source": "marked", "pool": True, "score": "win_rate", "peers": 0}
    with caplog.at_level("WARNING"):
        assert Tournament.from_options("anchor_set", **old) == Tournament.from_options(
            "anchor_set", **{**old, "pool": False, "source": "pool"}
        )
        Tournament.from_options("anchor_set", **old)
    assert sum("is spelt `source: pool` now" in r.message for r in caplog.records) == 1
    result = marked(rollouts(8) + anchors(1), SimulatedJudge(noise=0.5), anchors=3, source="pool")
    recorded = {**result.to_dict(), "options": {**{k: v for k, v in result.options.items() if k != "source"}, **old}}
    assert asyncio.run(replay(recorded)).ranks == result.ranks


def test_bradley_terry_ranks_a_rollout_that_beats_every_anchor_first_measured_from_the_anchors():
    scores = {"r0": 1.0, "r1": 4.0, "r2": 9.0, "r3": 6.0, "a0": 3.0, "a1": 5.0, "a2": 7.0}
    result = marked(rollouts(4) + anchors(3), TableJudge(scores), anchors=3, score="bradley_terry")
    assert result.ranks[2] == 0.0 and result.ranks.count(0.0) == 1
    assert result.points[0] < result.points[1] < result.points[3] < result.points[2]
    assert sum(result.points[4:]) == pytest.approx(0.0, abs=1e-6)  # strengths measured from the anchors' mean


@pytest.mark.parametrize("options", [{"source": "marked", "anchors": 2}, {"source": "drawn", "anchors": 3}])
@pytest.mark.parametrize("score", ["win_rate", "bradley_terry", "gaussian"])
@pytest.mark.parametrize("kind", ["winner", "score"])
def test_the_match_log_replays_without_a_judge(options, score, kind):
    group = rollouts(9) + (anchors(2) if options["source"] == "marked" else [])
    judge = SimulatedJudge(kind=kind, noise=1.0, drift=1.0, seed=3)
    result = rank(group, judge, "anchor_set", score=score, seed=4, **options)
    stored = json.loads(json.dumps(result.to_dict()))
    again = asyncio.run(replay(stored))
    for field in ("ids", "ranks", "rewards", "points", "comparisons", "depth", "voided"):
        assert getattr(again, field) == getattr(result, field), field


def test_the_first_wave_is_everyone_against_the_anchors_once_they_are_known():
    tournament = Tournament.from_options("anchor_set", source="marked", anchors=2, seed=1)
    assert first_wave(tournament, rollouts(6)) is None  # the anchors have not joined the group yet
    wave = first_wave(tournament, rollouts(6) + anchors(2))
    assert wave is not None and {frozenset(p) for p in wave} == {
        frozenset({f"r{i}", f"a{j}"}) for i in range(6) for j in range(2)
    }


class AnchorTieJudge:
    """Ties every judgment that shows an anchor; orders two rollouts by their quality."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        if a.meta.get(ANCHOR_KEY) or b.meta.get(ANCHOR_KEY):
            return PairVerdict(0.5, 0.5)
        return PairVerdict(a.meta["quality"], b.meta["quality"])


def test_no_peers_plays_and_scores_as_before():
    # pinned from the topology before option 'peers' existed: the same pairs, slots and points
    result = rank(rollouts(6), SimulatedJudge(noise=1.0, seed=2), "anchor_set", anchors=2, seed=7, peers=0)
    assert [m.players for m in result.matches] == [(0, 2), (4, 2), (5, 0), (5, 4), (0, 3), (3, 4), (0, 1), (1, 4)]
    assert result.points == [0.0, 0.5, 0.5, 0.5, 0.75, 1.0]
    group = rollouts(6) + anchors(2)
    result = marked(group, SimulatedJudge(noise=1.0, seed=2), anchors=2, score="bradley_terry", seed=7)
    assert [m.players for m in result.matches][:3] == [(5, 7), (6, 5), (0, 7)] and len(result.matches) == 12
    assert result.points[3] == 3.286320044 and result.points[6] == -1.798406707


@pytest.mark.parametrize(("r", "k", "m"), [(7, 2, 1), (8, 2, 1), (8, 3, 2), (9, 1, 4), (6, 2, 3), (5, 2, 9)])
def test_every_rollout_meets_k_anchors_and_m_peers_each_pair_once_in_one_wave(r, k, m):
    options = {"anchors": k, "score": "bradley_terry", "peers": m}
    result = marked(rollouts(r) + anchors(k), SimulatedJudge(noise=1.0, seed=r), seed=r + m, **options)
    tournament = Tournament.from_options("anchor_set", source="marked", **options)
    assert result.comparisons == r * k + peer_calls(r, m) == tournament.judge_calls(r + k) == len(result.matches)
    assert result.depth == 1 == tournament.depth(r + k)
    assert peer_calls(r, m) == (r * min(m, r - 1)) // 2
    assert len({frozenset(x.players) for x in result.matches}) == len(result.matches)
    for i in range(r):
        met = [p for x in result.matches if i in x.players for p in x.players if p != i]
        assert sorted(p for p in met if p >= r) == list(range(r, r + k))
        peers = len([p for p in met if p < r])
        # an odd number of rollouts with an odd M leaves one rollout a peer short
        assert peers == min(m, r - 1) or (r * m % 2 and peers == m - 1)
    again = marked(rollouts(r) + anchors(k), SimulatedJudge(noise=1.0, seed=r), seed=r + m, **options)
    assert again.to_dict() == result.to_dict()
    other = marked(rollouts(r) + anchors(k), SimulatedJudge(noise=1.0, seed=r), seed=r + m + 1, **options)
    assert [x.players for x in other.matches] != [x.players for x in result.matches]


def test_peers_break_the_ties_of_equal_anchor_records():
    group = [rollouts(6)[i] for i in (3, 0, 5, 1, 4, 2)] + anchors(2)
    tied = marked(group, AnchorTieJudge(), anchors=2, score="bradley_terry", seed=3)
    assert len(set(tied.points[:6])) == 1  # every rollout tied both anchors: nothing tells them apart
    result = marked(group, AnchorTieJudge(), anchors=2, score="bradley_terry", peers=5, seed=3)
    qualities = [c.meta["quality"] for c in group[:6]]
    assert sorted(range(6), key=result.points.__getitem__) == sorted(range(6), key=qualities.__getitem__)
    assert len(set(result.points[:6])) == 6


def test_the_first_wave_with_peers_holds_the_peers_pairs_and_the_log_replays():
    tournament = Tournament.from_options(
        "anchor_set", source="marked", anchors=2, score="bradley_terry", peers=2, seed=1
    )
    wave = first_wave(tournament, rollouts(6) + anchors(2))
    assert wave is not None and len(wave) == 6 * 2 + 6
    assert sum(a.startswith("r") and b.startswith("r") for a, b in wave) == 6
    group = rollouts(9)
    result = rank(group, SimulatedJudge(kind="winner", noise=1.0, seed=3), "anchor_set", score="bradley_terry", peers=3)
    again = asyncio.run(replay(json.loads(json.dumps(result.to_dict()))))
    for field in ("ids", "ranks", "rewards", "points", "comparisons", "depth", "voided"):
        assert getattr(again, field) == getattr(result, field), field


def test_gaussian_orders_rollouts_of_the_same_win_record_by_the_judge_s_scores():
    # a noiseless judge whose every call shifts both scores by its own calibration drift: the margins are exact
    group = rollouts(6) + anchors(2)  # rollouts of quality 0..5, anchors 0.5 and 3.0
    judge = SimulatedJudge(noise=0.0, drift=1.0, seed=1)
    for score in ("win_rate", "bradley_terry"):
        tied = marked(group, judge, anchors=2, score=score)
        # r1, r2 (and r4, r5) each beat the same anchor and lose to the same one: one record, one score
        assert tied.points[1] == tied.points[2] and tied.points[4] == tied.points[5], score
    result = marked(group, SimulatedJudge(noise=0.0, drift=1.0, seed=1), anchors=2, score="gaussian")
    assert result.points[:6] == sorted(result.points[:6]) and len(set(result.points[:6])) == 6
    # strengths in the judge's own units, measured from the anchors' mean quality (1.75)
    assert sum(result.points[6:]) == pytest.approx(0.0, abs=1e-6)
    assert result.points[:6] == pytest.approx([q - 1.75 for q in range(6)], abs=0.02)


def test_gaussian_leaves_a_failed_compare_out_and_a_winner_only_judge_ties_equal_records():
    scores = {"r0": 1.0, "r1": 9.0, "r2": 6.0, "a0": 5.0, "a1": 7.0}
    failing = TableJudge(scores, fail={frozenset({"r1", "a0"})})
    result = marked(rollouts(3) + anchors(2), failing, anchors=2, score="gaussian")
    assert result.failures == 1 and result.degraded and not result.voided
    assert result.points[0] < result.points[2] < result.points[1]  # r1 still placed by its compare with a1
    # a judge that only names winners: every margin +-1, every level equal; the same record against the same
    # anchors is the same score
    group = rollouts(6) + anchors(2)
    result = marked(group, SimulatedJudge(kind="winner", noise=0.0), anchors=2, score="gaussian")
    assert result.points[1] == result.points[2] and result.points[4] == result.points[5]
    assert result.points[0] < result.points[1] < result.points[3] < result.points[4]


def test_gaussian_points_are_exact_under_relabelling_and_peers_accept_it():
    group = rollouts(7) + anchors(3)
    options = {"anchors": 3, "score": "gaussian", "seed": 2}
    a = marked(group, SimulatedJudge(noise=0.7, drift=1.0, seed=5), **options)
    perm = [4, 8, 0, 9, 2, 6, 1, 3, 7, 5]
    b = marked([group[p] for p in perm], SimulatedJudge(noise=0.7, drift=1.0, seed=5), **options)
    by_id = dict(zip(b.ids, b.points, strict=True))
    assert [by_id[cid] for cid in a.ids] == a.points
    result = marked(group, SimulatedJudge(noise=0.0, drift=1.0, seed=5), peers=2, **options)
    assert result.comparisons == 7 * 3 + 7
    assert result.points[:7] == sorted(result.points[:7]) and len(set(result.points[:7])) == 7
