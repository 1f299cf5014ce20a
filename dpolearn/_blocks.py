"""Block policies, and the one loop that plays them a whole block at a time.

Some algorithms decide only at the boundaries of blocks of rounds, from the sums of the rewards
(or losses) of the block just played: DP-SE's elimination epochs (a round robin over the active
arms), AdaP's episodes (one arm until its count doubles), RNM-FTNL's doubling epochs (one action
for 2^(r-1) rounds). Such a policy derives from :class:`BlockPolicy` and keeps only its decision
rule, in two methods:

* ``propose(rows, t) -> Block``: the next block of each run in ``rows``, its first round ``t``;
* ``observe(block, sums)``: the outcome of a completed block, its reward or loss sums.

:func:`play_blocks` does the rest once for every such policy: the initial round robin (when the
policy declares one), truncation of the last block at the horizon, pull counts, and the regret
at the checkpoints inside each block. It draws a block's sums from the environment's exact block
draws (``env.block_sums`` for bandits, ``env.loss_block_sums`` for full information), never from
its generator. :func:`dpolearn.simulate` calls it for a :class:`BlockPolicy` on an environment
with ``has_block_sums``, and otherwise plays the same policy round by round (``select`` and
``update``). The two are exact in law, since nothing inside a block depends on its rewards; fed
the same rewards and the same noise, they play the same arm in every round.

The names are public through :mod:`dpolearn.simulate`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_bool, check_positive_int, show
from .policy import Policy

__all__ = ["UNTIL_HORIZON", "Block", "BlockPolicy", "play_blocks"]

#: ``Block.pulls`` of a block that lasts until the horizon (it is never observed).
UNTIL_HORIZON = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Block:
    """The next block of rounds of some runs.

    Attributes
    ----------
    rows : ndarray of shape (n,)
        The runs.
    arms : ndarray of shape (n,) or (n, K)
        Integers: the arm (or action) each run commits to for the whole block. Booleans: the set
        of arms each run plays in turn, lowest index first (a round robin).
    pulls : ndarray of shape (n,)
        Pulls of each arm of the block, so the block lasts ``pulls * |set|`` rounds (``pulls``
        for a committed arm); :data:`UNTIL_HORIZON` for a block that lasts until the horizon.
    resampled : bool
        Full information: the outcome is the sums of the Bernoulli resamplings of the losses
        (each loss l replaced by a Bernoulli(l) coin), as RNM-FTNL with resampling sees them.
    """

    rows: np.ndarray
    arms: np.ndarray
    pulls: np.ndarray
    resampled: bool = False

    def __post_init__(self):
        for name in ("rows", "arms", "pulls"):
            value = getattr(self, name)
            if not isinstance(value, np.ndarray):
                value = np.asarray(value)
                object.__setattr__(self, name, value)
            if value.dtype.kind not in "iu" and not (name == "arms" and value.dtype == bool):
                raise TypeError(f"Block {name} must be integers{' or booleans' * (name == 'arms')}"
                                f", got {show(value)}")
        rows, arms, pulls = self.rows, self.arms, self.pulls
        n = rows.shape[0] if rows.ndim == 1 else -1
        if n < 0 or pulls.shape != (n,) or arms.shape[:1] != (n,) \
                or arms.ndim != (2 if arms.dtype == bool else 1):
            raise ValueError(f"Block needs rows of shape (n,), arms of shape (n,) (integers) or "
                             f"(n, K) (booleans) and pulls of shape (n,), got shapes {rows.shape}, "
                             f"{arms.shape} and {pulls.shape}")
        if n and (pulls.min() < 1 or (arms.ndim == 2 and not arms.any(axis=1).all())):
            raise ValueError(f"Block pulls must be >= 1 and every set of arms non-empty, got "
                             f"pulls {show(pulls)} and arms {show(arms)}")
        check_bool("resampled", self.resampled)

    @property
    def round_robin(self) -> bool:
        """Whether each run plays a set of arms in turn (else it commits to one arm)."""
        return self.arms.ndim == 2

    def part(self, mask: np.ndarray) -> Block:
        """The block of the runs selected by the boolean ``mask`` (shape (n,))."""
        if mask.all():
            return self
        return Block(self.rows[mask], self.arms[mask], self.pulls[mask], self.resampled)


class BlockPolicy(Policy):
    """A policy whose decisions are fixed over blocks of rounds, decided from block sums.

    A subclass implements the round-by-round interface of :class:`~dpolearn.policy.Policy`
    (``reset``, ``select``, ``update``) and, for the same algorithm, :meth:`propose` and
    :meth:`observe`; :func:`play_blocks` plays it a block at a time.

    Attributes
    ----------
    initial_round_robin : bool
        Bandits: whether rounds 1..K pull arm t - 1 in round t, each observed as a block of one
        pull (AdaP's initialisation), before the first proposed block.
    """

    initial_round_robin: bool = False

    def propose(self, rows: np.ndarray, t: np.ndarray) -> Block:
        """The next block of each run in ``rows`` (shape (n,)), starting at round ``t[i]``.

        Called after every earlier block of these runs was observed (or, for the first block,
        after :meth:`reset` and the initial round robin). The block must cover ``rows`` in
        that order.
        """
        raise NotImplementedError

    def observe(self, block: Block, sums: np.ndarray) -> None:
        """The outcome of ``block``, played to its end within the horizon.

        ``sums``: for a committed arm, the sum of its rewards in the block, shape (n,); for a
        round robin, the sum of each arm's rewards, shape (n, K), 0 outside the set; for full
        information, the sums of the block's loss vectors, shape (n_runs, K).
        """
        raise NotImplementedError


def play_blocks(policy: BlockPolicy, env, horizon: int, checkpoints, n_runs: int):
    """Play ``policy`` on ``env`` for ``horizon`` rounds, a whole block at a time.

    ``policy`` and ``env`` are reset for ``n_runs`` runs; ``env`` offers exact block draws
    (``has_block_sums``). Each run repeats: the policy proposes its next block from the round
    after the last one played; the block is played to its end or cut at the horizon; its pulls
    and the regret of the checkpoints it contains are recorded; and a block played to its end
    is drawn from the environment and observed by the policy (as the round-by-round update of
    its last round would close it). The runs whose blocks complete together are drawn in one
    call, in the order of their rows. Once every run has reached the horizon, nothing is drawn:
    no decision is left to read the last blocks' sums.

    Returns ``(regret, pulls)``: the pseudo-regret at ``checkpoints``, shape (n_runs,
    n_checkpoints), and the pulls of each arm, shape (n_runs, K).
    """
    if not isinstance(policy, BlockPolicy):
        raise TypeError(f"policy must be a BlockPolicy, got {show(policy)}")
    if not getattr(env, "has_block_sums", False):
        raise TypeError(f"env must offer exact block draws (has_block_sums), got {env!r}")
    horizon = policy.check_horizon(horizon)
    n_runs = check_positive_int("n_runs", n_runs)
    play = _Play(env, horizon, np.asarray(checkpoints), n_runs)
    if policy.initial_round_robin:                     # arm t - 1 in round t = 1..K
        every_run = np.arange(n_runs)
        for arm in range(min(env.n_arms, horizon)):
            block = Block(every_run, np.full(n_runs, arm), np.ones(n_runs, dtype=np.int64))
            play.advance(block)
            if arm + 1 < horizon:                      # n = 1 (a scalar): the round's reward
                policy.observe(block, env.block_sums(every_run, block.arms, 1).astype(float))
    live = play.t0 < horizon
    going = live.any()
    while going:
        rows = np.flatnonzero(live)
        block = policy.propose(rows, play.t0[rows] + 1)
        _check_block(block, rows, policy)
        complete = play.advance(block)
        live = play.t0 < horizon
        going = live.any()
        if going and complete.any():                   # else no later decision reads them
            done = block.part(complete)
            policy.observe(done, play.draw(done))
    return play.regret, play.pulls


def _check_block(block, rows, policy) -> None:
    if not isinstance(block, Block):
        raise TypeError(f"{type(policy).__name__}.propose must return a Block, "
                        f"got {show(block)}")
    if block.rows is not rows and not np.array_equal(block.rows, rows):
        raise ValueError(f"{type(policy).__name__}.propose must return a block of the runs "
                         f"{show(rows)}, got rows {show(block.rows)}")


class _Play:
    """The bookkeeping of :func:`play_blocks`: rounds played, pulls, regret at checkpoints."""

    def __init__(self, env, horizon, ck, n_runs):
        self.env, self.horizon, self.ck = env, horizon, ck
        self.full_information = env.feedback == "full"
        self.gaps = env.gaps_for(n_runs)
        self.regret = np.zeros((n_runs, len(ck)))
        self.pulls = np.zeros((n_runs, env.n_arms), dtype=np.int64)
        self.t0 = np.zeros(n_runs, dtype=np.int64)     # rounds played before the block
        self.reg0 = np.zeros(n_runs)                    # regret before the block

    def advance(self, block: Block) -> np.ndarray:
        """Play ``block`` until its end or the horizon; return which runs completed it."""
        rows = block.rows
        at = slice(None) if len(rows) == len(self.t0) else rows       # every run: no copies
        if self.full_information and (len(rows) != len(self.t0)
                                      or (block.pulls != block.pulls[0]).any()):
            raise ValueError(f"full-information blocks must cover every run with one length, "
                             f"got rows {show(rows)} and pulls {show(block.pulls)}")
        t0 = self.t0[at]
        if block.round_robin:                           # pulls of each arm of the set, in turn
            s = block.arms.sum(axis=1)
            length = np.minimum(block.pulls, self.horizon + 1) * s
        else:
            length = block.pulls
        played = np.minimum(length, self.horizon - t0)       # the horizon cuts the last block
        ends = t0 + played
        # the checkpoints lo..hi-1 that some of the blocks contain, and each block's rounds there;
        # in lockstep (always for full information) every block contains all of them
        first, end = t0.min(), ends.max()
        lo, hi = np.searchsorted(self.ck, [first, end], side="right")
        lockstep = self.full_information or (first == t0.max() and end == ends.min())
        if lockstep:                                    # one start, one length: scalars
            k, n = self.ck[None, lo:hi] - first, end - first
        else:
            k, n = self.ck[None, lo:hi] - t0[:, None], played
        if block.round_robin:
            at_ck = self._round_robin(rows, at, block.arms, s, k, n)
        else:
            at_ck = self._commit(rows, at, block.arms, k, n)
        if lockstep:                                    # every block contains lo..hi-1
            self.regret[at, lo:hi] = at_ck
        elif hi > lo:
            inside = (k >= 1) & (k <= played[:, None])
            self.regret[at, lo:hi] = np.where(inside, at_ck, self.regret[at, lo:hi])
        self.t0[at] = ends
        return played == length

    def _commit(self, rows, at, arm, k, played):
        """One arm for ``played`` rounds: pulls, regret; the regret after k rounds of it.
        (``at``: ``rows``, or a slice of every run.)"""
        g = self.gaps[rows, arm]
        self.pulls[rows, arm] += played
        at_ck = self.reg0[at, None] + g[:, None] * k
        self.reg0[at] += g * played
        return at_ck

    def _round_robin(self, rows, at, act, s, k, played):
        """The ``s`` arms of ``act`` in turn, lowest index first, for ``played`` rounds."""
        # P[m]: regret of the first m pulls of a cycle over the set; G = P[s], a whole cycle
        g = np.where(act, self.gaps[at], 0.0)
        order = np.argsort(~act, axis=1, kind="stable")
        P = np.concatenate([np.zeros((len(rows), 1)),
                            np.cumsum(np.take_along_axis(g, order, 1), axis=1)], axis=1)
        G = P[np.arange(len(rows)), s]
        kk = np.clip(k, 0, None)
        at_ck = self.reg0[at, None] + (kk // s[:, None]) * G[:, None] \
            + np.take_along_axis(P, kk % s[:, None], 1)
        full, extra = played // s, played % s
        rank = np.cumsum(act, axis=1)                   # 1-based rank of each arm of the set
        self.pulls[at] += act * (full[:, None] + (rank <= extra[:, None]))
        self.reg0[at] += full * G + P[np.arange(len(rows)), extra]
        return at_ck

    def draw(self, block: Block) -> np.ndarray:
        """The sums of a completed ``block``, drawn from the environment's block draws."""
        if self.full_information:                       # every run, one length (advance)
            return self.env.loss_block_sums(int(block.pulls[0]), resampled=block.resampled)
        if block.round_robin:
            # one draw per (run, arm), in or out of the set; arms outside the set count 0
            every_arm = np.arange(self.env.n_arms)[None, :]
            sums = self.env.block_sums(block.rows[:, None], every_arm, block.pulls[:, None])
            return np.where(block.arms, sums, 0).astype(float)
        return self.env.block_sums(block.rows, block.arms, block.pulls).astype(float)
