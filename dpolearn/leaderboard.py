r"""Place your own private bandit algorithm beside the book's, on the book's instances.

:func:`evaluate` runs a policy given as a factory ``(epsilon, horizon) -> Policy`` next to
chosen built-in algorithms (by their display labels, e.g. ``"Lazy-DP-TS"``, ``"DP-SE"``) on the
Bernoulli instances of the comparison chapter (or on instances you pass), over an epsilon grid,
with the chapter's *common privacy scale*: every built-in algorithm is configured by
:func:`dpolearn.experiments.compare_setup.make_bandit_policy` (the ``"common"`` preset of
:mod:`dpolearn.experiments.catalogue`) so that its honest guarantee is the grid
value, and your policy is built with the grid value as its ``epsilon``. It also audits your
claimed guarantee at small scale (:func:`audit_claim`, a black-box lower bound on epsilon from
neighbouring reward tables, :mod:`dpolearn.audit`) and, where your policy exposes a
``privacy_ledger()``, reads it (white-box).

The result is a :class:`Leaderboard`: a table (:meth:`Leaderboard.rows`,
:meth:`Leaderboard.markdown`), a figure (:meth:`Leaderboard.figure`) and ``summary.csv`` in the
standard columns of the experiments (:meth:`Leaderboard.write_summary`).

Examples
--------
>>> from dpolearn.bandits import AnytimeLazyUCB
>>> board = evaluate(lambda epsilon, horizon: AnytimeLazyUCB(epsilon=epsilon),
...                  algorithms=["DP-SE"], instances=["2 arms (0.9, 0.6), Tossou & Dimitrakakis"],
...                  epsilons=[1.0], horizon=200, n_runs=2, audit=False)
>>> sorted({row["algorithm"] for row in board.rows()})
['Anytime-Lazy-UCB', 'DP-SE']
"""
from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from ._validation import check_bool, check_epsilon, check_positive_int
from .accounting import ApproxDP, GaussianDP, PureDP, privacy_level
from .audit import AuditResult, adversarial_pairs, audit_policy
from .envs import BernoulliBandit
from .experiments.compare_setup import (
    BANDIT_ALGORITHMS,
    EPSILONS,
    INSTANCES,
    LEADERBOARD_INSTANCES,
    SIZES,
    arm_permuted,
    comparison_checkpoints,
    epsilon_grid,
    make_bandit_policy,
)
from .experiments.registry import SUMMARY_COLUMNS, derive_seed, regret_rows
from .experiments.registry import scale as resolve_scale
from .plotting import style_of, subplots
from .policy import Policy
from .simulate import Result, simulate
from .testing import as_factory

__all__ = ["evaluate", "Leaderboard", "audit_claim", "whitebox_ledger", "DEFAULT_ALGORITHMS"]

#: Built-in algorithms placed beside yours when you name none: the strongest pure-DP
#: algorithms of the comparison chapter's leaderboard.
DEFAULT_ALGORITHMS = ("Lazy-DP-TS", "DP-SE")
_EXPERIMENT = "leaderboard"


# ------------------------------------------------------------------ audits
def audit_claim(factory, *, epsilon: float = 1.0, n_trials: int = 20_000, horizon: int = 8,
                family: Optional[str] = None, seed: int = 0,
                confidence: float = 0.95) -> AuditResult:
    """Black-box audit of a policy's claimed guarantee at small scale.

    Builds the policy with ``factory(epsilon, horizon)``, runs it ``n_trials`` times on each
    of two neighbouring reward tables of :func:`~dpolearn.audit.adversarial_pairs` (two arms,
    ``horizon`` rounds; the first reward of arm 0 is 1 or 0, so the change sits in the
    smallest private batch), and turns the frequencies of the most telling action event into
    a Clopper-Pearson lower bound on epsilon (:func:`~dpolearn.audit.audit_policy`). The
    verdict ``violated`` is True when the bound exceeds the policy's claimed epsilon.

    Parameters
    ----------
    factory : Policy subclass or callable ``(epsilon, horizon) -> Policy``
    epsilon : float
        The privacy parameter the policy is built with, > 0.
    n_trials : int
        Trials per side, >= 100.
    horizon : int
        Rounds of the neighbouring tables, >= 3.
    family : {"lazy", "counter", "rnm_ftnl"}, optional
        Which neighbouring pairs to use; default ``"lazy"`` for bandit policies and
        ``"rnm_ftnl"`` for full-information ones.
    seed : int
    confidence : float in (0, 1)

    Returns
    -------
    AuditResult
        A lower bound only: "consistent" means this pair and these events found no violation,
        not that the claim is proved.
    """
    make = as_factory(factory)
    epsilon = check_epsilon(epsilon)
    n_trials = check_positive_int("n_trials", n_trials, minimum=100)
    horizon = check_positive_int("horizon", horizon, minimum=3)
    probe = make(epsilon, horizon)
    if family is None:
        family = "rnm_ftnl" if probe.feedback == "full" else "lazy"
    pairs, events = adversarial_pairs(family, n_arms=2, horizon=horizon)
    return audit_policy(lambda: make(epsilon, horizon), pairs, events, n_trials=n_trials,
                        seed=seed, confidence=confidence,
                        delta=float(getattr(probe.guarantee, "delta", 0.0) or 0.0))


def whitebox_ledger(factory, *, epsilon: float = 1.0, horizon: int = 2_000, n_runs: int = 4,
                    seed: int = 0) -> Optional[Dict[str, Any]]:
    """Read the privacy ledger of a policy that keeps one, after a run on a Bernoulli instance.

    A policy may define ``privacy_ledger()`` returning, per run, the privacy loss its releases
    composed to for the worst single reward (in the unit of its guarantee: epsilon for
    ``PureDP``/``ApproxDP``, mu for ``GaussianDP``); see
    :meth:`dpolearn.bandits.DPTSUCB.privacy_ledger` for the book's example. Returns
    ``{"spent": largest ledger value, "claimed": the guarantee's value, "ok": spent <=
    claimed}`` or None when the policy keeps no ledger.
    """
    make = as_factory(factory)
    policy = make(check_epsilon(epsilon), check_positive_int("horizon", horizon))
    ledger = getattr(policy, "privacy_ledger", None)
    if not callable(ledger):
        return None
    if hasattr(policy, "track_privacy") and not policy.track_privacy:
        return None
    simulate(policy, BernoulliBandit([0.7, 0.5, 0.3]), horizon, n_runs, seed=seed,
             checkpoints=[horizon], progress=False)
    spent = float(np.max(ledger()))
    g = policy.guarantee
    if isinstance(g, GaussianDP):
        claimed = float(np.max(g.mu))
    elif isinstance(g, (PureDP, ApproxDP)):
        claimed = float(np.max(g.epsilon))
    else:
        claimed = math.inf
    return {"spent": spent, "claimed": claimed, "ok": spent <= claimed * (1 + 1e-9)}


# ------------------------------------------------------------------ the board
@dataclass
class Leaderboard:
    """What :func:`evaluate` produced.

    Attributes
    ----------
    label : str
        The evaluated policy's label.
    cells : list of dict
        One per (algorithm, instance, epsilon): keys ``algorithm``, ``instance``, ``epsilon``
        (None for algorithms without one), ``result`` (:class:`~dpolearn.simulate.Result`)
        and ``level`` (the guarantee on the common scale,
        :func:`~dpolearn.accounting.privacy_level`).
    instances : dict
        Instance name -> Bernoulli means.
    epsilons : tuple of float
        The grid.
    horizon, n_runs : int
    audit : AuditResult or None
        The black-box audit of the evaluated policy's claim (None if not run).
    ledger : dict or None
        :func:`whitebox_ledger` of the evaluated policy (None if it keeps no ledger).
    claim_mismatch : list of str
        Grid values at which the evaluated policy's own guarantee is not the grid value
        (then it is not on the common privacy scale there).
    """

    label: str
    cells: List[Dict[str, Any]]
    instances: Dict[str, tuple]
    epsilons: tuple
    horizon: int
    n_runs: int
    audit: Optional[AuditResult] = None
    ledger: Optional[Dict[str, Any]] = None
    claim_mismatch: List[str] = field(default_factory=list)

    def __post_init__(self):
        if not isinstance(self.label, str):
            raise TypeError(f"label must be a str, got {self.label!r}")
        if not isinstance(self.cells, list):
            raise TypeError(f"cells must be a list of dicts, got {self.cells!r}")
        if not isinstance(self.instances, dict):
            raise TypeError(f"instances must be a dict, got {self.instances!r}")
        check_positive_int("horizon", self.horizon)
        check_positive_int("n_runs", self.n_runs)
        if self.audit is not None and not isinstance(self.audit, AuditResult):
            raise TypeError(f"audit must be an AuditResult or None, got {self.audit!r}")

    @property
    def algorithms(self) -> List[str]:
        """Algorithm labels in board order (the evaluated policy first)."""
        seen: List[str] = []
        for c in self.cells:
            if c["algorithm"] not in seen:
                seen.append(c["algorithm"])
        return seen

    def rows(self) -> List[Dict[str, Any]]:
        """The table: one row per cell, sorted by instance, epsilon, then mean final regret.

        Keys: ``instance``, ``epsilon``, ``algorithm``, ``privacy``, ``final_regret_mean``,
        ``final_regret_se``, ``rank`` (1 = lowest mean regret among the cells of that
        instance and epsilon; epsilon-free algorithms are ranked at every epsilon).
        """
        out = []
        for inst in self.instances:
            for e in self.epsilons:
                group = [c for c in self.cells if c["instance"] == inst
                         and (c["epsilon"] == e or c["epsilon"] is None)]
                group.sort(key=lambda c: c["result"].final_mean)
                for rank, c in enumerate(group, start=1):
                    out.append({"instance": inst, "epsilon": e, "algorithm": c["algorithm"],
                                "privacy": c["level"]["text"],
                                "final_regret_mean": c["result"].final_mean,
                                "final_regret_se": c["result"].final_se, "rank": rank})
        return out

    def ranks(self) -> Dict[str, float]:
        """Mean rank of each algorithm over every (instance, epsilon) group (1 is best)."""
        acc: Dict[str, List[int]] = {}
        for row in self.rows():
            acc.setdefault(row["algorithm"], []).append(row["rank"])
        return {a: float(np.mean(r)) for a, r in acc.items()}

    def markdown(self, instance: Optional[str] = None) -> str:
        """A Markdown table of mean final regret ± standard error: algorithms by epsilon."""
        insts = [instance] if instance is not None else list(self.instances)
        head = ("| instance | algorithm | privacy at ε = 1 | "
                + " | ".join(f"ε = {e:g}" for e in self.epsilons) + " |\n|---|---|---|"
                + "---:|" * len(self.epsilons) + "\n")
        lines = []
        for inst in insts:
            for alg in self.algorithms:
                cells = {c["epsilon"]: c for c in self.cells
                         if c["algorithm"] == alg and c["instance"] == inst}
                if not cells:
                    continue
                shown = []
                for e in self.epsilons:
                    c = cells.get(e, cells.get(None))
                    shown.append("" if c is None else
                                 f"{c['result'].final_mean:,.1f} ± {c['result'].final_se:,.1f}")
                ref = cells.get(1.0, cells.get(None, next(iter(cells.values()))))
                lines.append(f"| {inst} | {alg} | {ref['level']['text']} | "
                             + " | ".join(shown) + " |")
        return head + "\n".join(lines)

    def summary_rows(self) -> List[Dict[str, Any]]:
        """``summary.csv`` rows: the columns of
        :data:`~dpolearn.experiments.registry.SUMMARY_COLUMNS`, plus ``privacy``."""
        rows = []
        for c in self.cells:
            for row in regret_rows(_EXPERIMENT, c["instance"], [c["result"]],
                                   epsilon=c["epsilon"]):
                row["privacy"] = c["level"]["text"]
                rows.append(row)
        return rows

    def write_summary(self, path: Union[str, os.PathLike]) -> Path:
        """Write :meth:`summary_rows` to ``path`` (a file, or a directory to hold
        ``summary.csv``); returns the file written."""
        path = Path(path)
        if path.is_dir():
            path = path / "summary.csv"
        rows = self.summary_rows()
        extra = sorted({k for r in rows for k in r} - set(SUMMARY_COLUMNS))
        with open(path, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=SUMMARY_COLUMNS + extra)
            writer.writeheader()
            writer.writerows(rows)
        return path

    def figure(self):
        """Final regret against epsilon, one panel per instance (named above it); the evaluated
        policy is the thick black line with star markers. Error bars are 1.96 standard errors."""
        names = list(self.instances)
        ncols = 1 if len(names) == 1 else 2
        nrows = math.ceil(len(names) / ncols)
        fig, axes = subplots(nrows, ncols, sharex=True)
        eps = np.asarray(self.epsilons, dtype=float)
        for ax, inst in zip(axes.flat, names):
            for alg in self.algorithms:
                cells = [c for c in self.cells if c["algorithm"] == alg and c["instance"] == inst]
                mine = alg == self.label
                # the evaluated policy: thick black stars; the others: their book-wide style
                look = ({"color": "k", "linestyle": "-", "marker": "*"} if mine
                        else style_of(alg))
                style = {**look, "lw": 2.6 if mine else 1.4, "zorder": 3 if mine else 2}
                if len(cells) == 1 and cells[0]["epsilon"] is None:
                    # one level at every epsilon: dotted, with the algorithm's colour and marker
                    # (two such levels may share a colour, never a marker)
                    ax.plot(eps, np.full(eps.shape, cells[0]["result"].final_mean),
                            label=f"{alg} (no ε)", **{**style, "linestyle": ":"})
                    continue
                cells.sort(key=lambda c: c["epsilon"])
                x = np.array([c["epsilon"] for c in cells])
                m = np.array([c["result"].final_mean for c in cells])
                se = np.array([c["result"].final_se for c in cells])
                ax.errorbar(x, m, yerr=1.96 * se, ms=9 if mine else 4, capsize=2, label=alg,
                            **style)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xticks(eps)
            ax.set_xticklabels([f"{v:g}" for v in eps])
            ax.minorticks_off()
            ax.set_ylabel(f"final regret at T = {self.horizon:,}")
            ax.text(0.0, 1.02, inst, transform=ax.transAxes, va="bottom")
        for i, ax in enumerate(list(axes.flat)[:len(names)]):
            if i + ncols >= len(names):                 # the lowest panel of its column
                ax.set_xlabel("privacy parameter ε")
                ax.xaxis.set_tick_params(labelbottom=True)
        handles, labels = axes.flat[0].get_legend_handles_labels()
        spare = list(axes.flat)[len(names):]
        for ax in spare:
            ax.axis("off")
        if spare:
            spare[0].legend(handles, labels, loc="center")
        else:
            fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 4))
        return fig


# ------------------------------------------------------------------ evaluate
def _resolve_instances(instances) -> Dict[str, tuple]:
    if instances is None:
        return {name: INSTANCES[name] for name in LEADERBOARD_INSTANCES}
    if isinstance(instances, Mapping):
        out = {}
        for name, means in instances.items():
            arr = np.asarray(means, dtype=float)
            if arr.ndim != 1 or arr.size < 2 or np.any(~((arr >= 0) & (arr <= 1))):
                raise ValueError(f"instances[{name!r}] must be >= 2 Bernoulli means in [0, 1], "
                                 f"got {means!r}")
            out[str(name)] = tuple(float(v) for v in arr)
        if not out:
            raise ValueError(f"instances must not be empty, got {instances!r}")
        return out
    if isinstance(instances, str):
        instances = [instances]
    unknown = [n for n in instances if n not in INSTANCES]
    if unknown or not list(instances):
        raise ValueError(f"instances must be names among {sorted(INSTANCES)} or a dict "
                         f"name -> means, got {instances!r}")
    return {n: INSTANCES[n] for n in instances}


def _run_cell(policy: Policy, means, horizon, n_runs, seed, order_seed) -> Result:
    rows = arm_permuted(np.repeat(np.asarray(means, dtype=float)[None, :], n_runs, axis=0),
                        order_seed)
    return simulate(policy, BernoulliBandit(rows), horizon, n_runs, seed=seed,
                    checkpoints=comparison_checkpoints(horizon), progress=False)


def evaluate(factory: Union[type, Callable[[Any, int], Policy]], *,
             algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
             instances: Union[None, Sequence[str], Mapping[str, Sequence[float]]] = None,
             epsilons: Optional[Sequence[float]] = None, horizon: Optional[int] = None,
             n_runs: Optional[int] = None, scale: Optional[str] = None, seed: int = 0,
             audit: bool = True, audit_trials: int = 20_000) -> Leaderboard:
    """Run a policy beside built-in algorithms on common instances over an epsilon grid.

    Parameters
    ----------
    factory : Policy subclass or callable ``(epsilon, horizon) -> Policy``
        Builds a fresh copy of the evaluated policy for one grid value (a scalar epsilon).
        A bandit policy (``feedback == "bandit"``).
    algorithms : sequence of str
        Display labels of built-in algorithms, keys of
        :data:`~dpolearn.experiments.compare_setup.BANDIT_ALGORITHMS` (e.g. ``"Lazy-DP-TS"``,
        ``"DP-SE"``, ``"UCB1"``); each is configured to be honestly epsilon-private at each
        grid value (:func:`~dpolearn.experiments.compare_setup.make_bandit_policy`) and runs only at
        the grid values it supports.
    instances : sequence of names, dict name -> means, or None
        Names of :data:`~dpolearn.experiments.compare_setup.INSTANCES`, your own Bernoulli
        instances, or None for the comparison chapter's leaderboard instances.
    epsilons : sequence of float, optional
        The grid (default :data:`~dpolearn.experiments.compare_setup.EPSILONS`).
    horizon, n_runs : int, optional
        Default: the comparison chapter's sizes at ``scale``.
    scale : {"quick", "paper"}, optional
        Default ``$DPOLEARN_SCALE`` or ``"quick"``.
    seed : int
        Every cell's seed is derived from (algorithm, instance, epsilon, seed); the arm order
        of each instance is shuffled per run, the same for every algorithm.
    audit : bool
        Also run :func:`audit_claim` (at epsilon = 1, ``audit_trials`` per side) and
        :func:`whitebox_ledger` on the evaluated policy.
    audit_trials : int
        Trials per side of the audit, >= 100 (checked even when ``audit=False``).

    Returns
    -------
    Leaderboard
    """
    make = as_factory(factory)
    unknown = [a for a in algorithms if a not in BANDIT_ALGORITHMS]
    if isinstance(algorithms, str) or unknown:
        raise ValueError(f"algorithms must be a list of labels among {sorted(BANDIT_ALGORITHMS)}, "
                         f"got {algorithms!r}")
    insts = _resolve_instances(instances)
    grid = tuple(float(check_epsilon(e)) for e in (EPSILONS if epsilons is None else epsilons))
    if not grid:
        raise ValueError(f"epsilons must hold at least one value, got {epsilons!r}")
    sizes = SIZES[resolve_scale(scale)]
    horizon = check_positive_int("horizon", sizes["horizon"] if horizon is None else horizon)
    n_runs = check_positive_int("n_runs", sizes["n_runs"] if n_runs is None else n_runs)
    seed = check_positive_int("seed", seed, minimum=0)
    audit = check_bool("audit", audit)
    audit_trials = check_positive_int("audit_trials", audit_trials, minimum=100)

    probe = make(grid[0], horizon)
    if not isinstance(probe, Policy) or probe.feedback != "bandit":
        raise TypeError(f"factory must build a bandit Policy (feedback='bandit'), got {probe!r}")
    label = probe.label
    if label in algorithms:
        raise ValueError(f"the evaluated policy's label {label!r} equals a built-in label in "
                         f"algorithms; give it its own label")

    cells, mismatch = [], []
    for name, means in insts.items():
        order = derive_seed(_EXPERIMENT, "arm order", name, seed)
        for e in grid:
            policy = make(e, horizon)
            res = _run_cell(policy, means, horizon, n_runs,
                            derive_seed(_EXPERIMENT, label, name, e, seed), order)
            level = privacy_level(res.guarantee, e)
            if level["kind"] in ("pure", "approx") and not math.isclose(level["epsilon"], e):
                mismatch.append(f"ε = {e:g}: guarantee {res.guarantee!r}")
            res.params = dict(res.params, instance=name)
            cells.append({"algorithm": label, "instance": name, "epsilon": e, "result": res,
                          "level": level})
        for alg in algorithms:
            supported = epsilon_grid(alg)
            values = [e for e in grid if e in supported] if supported else [None]
            for e in values:
                policy = make_bandit_policy(alg, e, horizon)
                res = _run_cell(
                    policy,
                    means,
                    horizon,
                    n_runs,
                    derive_seed(_EXPERIMENT, alg, name, "no epsilon" if e is None else e, seed),
                    order,
                )
                res.label = alg
                res.params = dict(res.params, instance=name)
                cells.append({"algorithm": alg, "instance": name, "epsilon": e, "result": res,
                              "level": privacy_level(res.guarantee, e)})
    board = Leaderboard(label=label, cells=cells, instances=insts, epsilons=grid,
                        horizon=horizon, n_runs=n_runs, claim_mismatch=sorted(set(mismatch)))
    if audit:
        board.audit = audit_claim(make, epsilon=1.0, n_trials=audit_trials, seed=seed)
        board.ledger = whitebox_ledger(make, epsilon=1.0, seed=seed)
    return board
