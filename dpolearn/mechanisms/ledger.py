"""The release ledger: an optional recorder to which every mechanism reports its releases.

Every mechanism of :mod:`dpolearn.mechanisms` (and every built-in policy that adds noise
itself) passes each release through :func:`report_release`: the exact value, the noisy
value, the privacy cost of one release and the sensitivity that cost assumes. With no
recorder active (the normal case) the call returns the noisy value at the cost of one global
lookup. :func:`dpolearn.testing.check_privacy` activates a recorder to see, for every reward,
which releases it entered and at what cost, and to replay the releases of one reward stream on
a neighbouring one.
"""
from __future__ import annotations

from contextlib import contextmanager

__all__ = ["report_release", "recording", "active_recorder"]

_recorder = None                       # the recorder in use, or None (nothing is recorded)


def active_recorder():
    """The recorder in use, or None."""
    return _recorder


@contextmanager
def recording(recorder):
    """Make ``recorder`` receive every release reported inside the ``with`` block.

    The recorder is an object with a method ``release(source, exact, released, *, scale,
    sensitivity, noise, cost, where)`` returning what the policy sees; recorders do
    not nest.
    """
    global _recorder
    if _recorder is not None:
        raise RuntimeError("a release recorder is already active; recorders do not nest")
    _recorder = recorder
    try:
        yield recorder
    finally:
        _recorder = None


def report_release(source, exact, released, *, scale=None, sensitivity=1.0, noise="laplace",
                   cost=None, where=None):
    """Report a release to the active recorder; return what the caller must use.

    Parameters
    ----------
    source : str
        Which mechanism releases (e.g. ``"lazy mean"``); the same call site always uses the
        same name.
    exact, released : float or ndarray
        The value before noise and the noisy value, of one shape.
    scale : float or ndarray broadcastable to it
        The noise scale the release declares: the Laplace scale b (``noise="laplace"``,
        one release costs ``sensitivity / b`` in epsilon) or the Gaussian standard deviation
        sigma (``noise="gaussian"``, it costs ``sensitivity / sigma`` in mu). None for the
        outputs of a continual counter (then give ``cost``).
    sensitivity : float or ndarray broadcastable to it
        Largest change of one element of ``exact`` when one reward changes.
    noise : {"laplace", "gaussian"}
    cost : float, ndarray or callable returning one, optional
        For the outputs of a continual counter: each element is one stream's current output,
        and ``cost`` is the epsilon that the whole stream of outputs costs one item of it
        (a callable is called only while a recorder is active).
    where : bool ndarray, optional
        The elements that are releases (the others are ignored).

    Returns
    -------
    The ``released`` value, or, while a recorder replays another stream, that stream's.
    """
    recorder = _recorder
    if recorder is None:
        return released
    return recorder.release(source, exact, released, scale=scale, sensitivity=sensitivity,
                            noise=noise, cost=cost, where=where)
