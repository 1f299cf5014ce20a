"""What every mechanism class shares: its guarantee for given parameters, without keeping one."""
from __future__ import annotations

__all__ = ["GuaranteeFor"]


class GuaranteeFor:
    """Mixin: ``Mechanism.guarantee_for(**params)`` is the ``guarantee`` of
    ``Mechanism(**params)`` (one stream where the class needs a batch shape), so the record
    has one formula, the ``guarantee`` property, and bad parameters fail as the constructor
    fails."""

    #: Positional arguments that build one stream (a batch shape), before ``params``.
    _one_stream: tuple = ()

    @classmethod
    def guarantee_for(cls, **params):
        """The privacy record of this mechanism built with the keyword arguments ``params``.

        Raises the constructor's ``ValueError`` or ``TypeError`` (naming the parameter) for a
        bad value.
        """
        return cls(*cls._one_stream, **params).guarantee
