"""The batched policy interface every algorithm implements.

A policy plays ``n_runs`` independent copies of itself at once. Its state arrays have shape
``(n_runs, n_arms)``, so one Python step advances every run; this keeps the code close to the
papers' pseudo-code and makes paper-scale experiments affordable.
"""
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ._validation import check_positive_int, show
from .accounting import Guarantee, NotPrivate

__all__ = ["Policy", "PrivacyAssumptionWarning"]


class PrivacyAssumptionWarning(UserWarning):
    """A private policy was run where the assumption behind its guarantee fails.

    The guarantees of the book's algorithms assume rewards (or losses) in [0, 1]: that bounds
    the sensitivity of every released sum. On an environment whose values are not bounded so
    (e.g. :class:`~dpolearn.envs.GaussianBandit`), :func:`~dpolearn.simulate` issues this
    warning and records ``NotPrivate()`` as the result's guarantee. :func:`~dpolearn.evaluate`
    issues it when an audit refutes an evaluated policy's claimed guarantee.
    """


class Policy:
    """Base class of bandit and full-information policies.

    A policy declares itself once, in its constructor: :meth:`params` and ``repr`` are read
    from the constructor's signature (each argument stored on the object under its own name,
    as in scikit-learn's ``get_params``), so ``eval(repr(policy))`` rebuilds an equal policy.
    Subclasses implement ``_initialise`` (the state of fresh runs; :meth:`reset` has
    already checked ``n_runs``, ``n_arms`` and ``rng``), :meth:`select` and :meth:`update`.
    Rounds are 1-based as in the papers; arms are 0-based.

    Attributes
    ----------
    label : str
        The name the book and the legends use (e.g. ``"UCB1"``).
    feedback : {"bandit", "full"}
        ``"bandit"``: :meth:`update` receives the reward of the pulled arm, shape (n_runs,).
        ``"full"``: it receives the whole loss vector of the round, shape (n_runs, n_arms).
    horizon : int, array of ints or None
        The horizon T the policy was configured for (its constants and its guarantee depend on
        it; one entry per run when it varies over a sweep), or ``None`` for an anytime policy.
        :func:`~dpolearn.simulate` refuses to run a policy past it (:meth:`check_horizon`).
    value_range : (float, float) or None
        The interval the policy's rewards must lie in to run at all (Beta Thompson Sampling:
        ``(0, 1)``), checked by :func:`~dpolearn.simulate` against the environment before any
        round; ``None`` (the default) for any rewards.
    quiet_params : tuple of str
        Constructor arguments that :meth:`params` lists only when they differ from their
        default: ``noise_multiplier`` (a deliberately weakened variant) and, where a class
        adds them, diagnostics and secondary settings, so that the parameters of the book's
        configurations read as in the papers.
    n_runs, n_arms : int
        The shape of the current batch, set by :meth:`reset`.

    Notes
    -----
    A policy whose decisions are fixed over whole blocks of rounds derives from
    :class:`dpolearn.simulate.BlockPolicy` instead and also proposes and observes whole blocks;
    the simulator then plays it a block at a time on environments with ``has_block_sums``.

    Examples
    --------
    >>> class Greedy(Policy):
    ...     label = "Greedy"
    ...     def __init__(self, explore: int = 1):
    ...         self.explore = explore
    >>> Greedy(), Greedy(explore=3), Greedy(explore=3).params()
    (Greedy(), Greedy(explore=3), {'explore': 3})
    """

    label: str = "Policy"
    feedback: str = "bandit"
    horizon: int | None = None
    value_range: tuple[float, float] | None = None
    quiet_params: tuple[str, ...] = ("noise_multiplier",)

    # ---------------------------------------------------------------- the batch
    def reset(self, n_runs: int, n_arms: int, rng: np.random.Generator) -> None:
        """Start ``n_runs`` fresh runs on ``n_arms`` arms, drawing randomness from ``rng``.

        Checks the three arguments, stores them (``n_runs``, ``n_arms``, the generator, and
        ``_rows = arange(n_runs)``) and calls ``_initialise`` for the policy's own state.
        """
        n_runs = check_positive_int("n_runs", n_runs)
        n_arms = check_positive_int("n_arms", n_arms)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator, got {show(rng)}")
        self.n_runs, self.n_arms, self._rng = n_runs, n_arms, rng
        self._rows = np.arange(n_runs)
        self._initialise(n_runs, n_arms, rng)

    def _initialise(self, n_runs: int, n_arms: int, rng: np.random.Generator) -> None:
        """Set up the state of ``n_runs`` fresh runs (the algorithm box's initialisation)."""

    def select(self, t: int) -> np.ndarray:
        """Arms chosen in round ``t`` (1-based): integer array of shape (n_runs,)."""
        raise NotImplementedError

    def update(self, t: int, arms: np.ndarray, feedback: np.ndarray) -> None:
        """Observe the feedback of round ``t`` for the chosen ``arms``."""
        raise NotImplementedError

    def check_horizon(self, horizon: int) -> int:
        """Return ``horizon`` if the policy may run that long, else raise ``ValueError``.

        A policy configured for T rounds (``self.horizon``; with one entry per run, the
        smallest) has constants and a guarantee that hold for T rounds only.
        """
        horizon = check_positive_int("horizon", horizon)
        configured = self.horizon
        if configured is not None:
            limit = int(np.min(configured))
            if horizon > limit:
                raise ValueError(f"horizon must be <= the policy's configured horizon "
                                 f"{type(self).__name__}(horizon={limit}), got horizon={horizon}")
        return horizon

    # ---------------------------------------------------------------- privacy
    @property
    def guarantee(self) -> Guarantee:
        """The privacy guarantee of this configured policy, as a record of
        :mod:`dpolearn.accounting` (available before :meth:`reset`)."""
        return NotPrivate()

    @property
    def paper_claim(self) -> Guarantee:
        """What the paper claims for this configuration; by default the :attr:`guarantee`.
        A class whose paper claims more than standard accounting proves overrides it."""
        return self.guarantee

    # ---------------------------------------------------------------- description
    @classmethod
    def _constructor_parameters(cls) -> list[inspect.Parameter]:
        """The named arguments of ``cls.__init__`` (not ``self``, ``*args``, ``**kwargs``)."""
        if cls.__init__ is object.__init__:
            return []
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        return [p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                if p.kind in kinds]

    def params(self) -> dict[str, Any]:
        """The constructor arguments that identify this configuration, in signature order
        (written to summary files): every argument, read from the attribute of its name,
        except a :attr:`quiet_params` one at its default."""
        out = {}
        for p in self._constructor_parameters():
            value = self._argument(p.name)
            if p.name in self.quiet_params and _same(value, p.default):
                continue
            out[p.name] = value
        return out

    def _argument(self, name: str) -> Any:
        """The stored constructor argument ``name`` (an AttributeError that says so if the
        constructor kept it under another name)."""
        try:
            return getattr(self, name)
        except AttributeError:
            raise AttributeError(f"{type(self).__name__} must store its constructor argument "
                                 f"{name!r} as self.{name} (params() and repr read it), "
                                 f"got no attribute {name!r}") from None

    def __repr__(self) -> str:
        """The constructor call that rebuilds this policy, arguments at their default omitted."""
        args = []
        for p in self._constructor_parameters():
            try:
                value = self._argument(p.name)
            except AttributeError as exc:            # a repr must not raise: say what is wrong
                return f"<{exc}>"
            if p.default is p.empty or not _same(value, p.default):
                args.append(f"{p.name}={show(value)}")
        return f"{type(self).__name__}({', '.join(args)})"


def _same(value: Any, default: Any) -> bool:
    """Whether a stored argument equals its default (an array never does)."""
    if isinstance(value, np.ndarray) or isinstance(default, np.ndarray):
        return False
    if isinstance(value, bool) or isinstance(default, bool):
        return value is default
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False
