r"""Private counting under continual observation: binary (tree), logarithmic and hybrid counters.

A continual-release counter reads a stream :math:`x_1, x_2, \dots` with :math:`x_i \in [0, 1]`
and after every item releases a noisy prefix sum :math:`\sum_{s \le n} x_s`, such that the whole
sequence of releases is differentially private with respect to changing one item.

Every counter here is **batched over independent streams**: its state arrays have a leading
``shape`` (e.g. ``(n_runs, n_arms)``: one stream per arm per run), and :meth:`step` advances all
streams, or only those selected by ``where``. Each class offers

* an incremental implementation that follows the algorithm box of Chan, Shi and Song (2011)
  line by line (``step``, ``output``);
* a closed form, ``noise_process``: the release at position n equals the true prefix sum plus a
  data-independent noise process, which can be drawn for all positions at once;
* ``variance(n)``, the analytic variance of the release error at stream position n;
* ``guarantee`` (standard accounting) and, where the paper claims more, ``paper_claim``.

:class:`CounterNoise` advances the same noise processes one stream per row (the pulled arm of
every run), which is what the DP-UCB bandits use for speed; the bandit then releases
"exact sum + noise", which is the closed form above.

Layout: one module per counter, ``binary.py`` (:class:`BinaryCounter`), ``logarithmic.py``
(:class:`LogarithmicCounter`), ``hybrid.py`` (:class:`HybridCounter`) and ``counter_noise.py``
(:class:`CounterNoise`); the hybrid counter's budget split, tree cost, guarantee and error bound
in ``budget.py``, the bit arithmetic in ``_bits.py``. Every name is importable from here.

References
----------
.. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14(3),
   2011: Algorithm 2 (binary mechanism), Algorithm 3 (logarithmic), Algorithm 4 (hybrid).
.. [TD16] Tossou and Dimitrakakis, "Algorithms for differentially private multi-armed bandits",
   AAAI 2016, Section 2.3 and Lemma B.2.
"""
from ._bits import lowest_set_bit, popcount
from .binary import BinaryCounter
from .budget import hybrid_budget_split, hybrid_error_bound, hybrid_guarantee, tree_scale_factor
from .counter_noise import CounterNoise
from .hybrid import HybridCounter
from .logarithmic import LogarithmicCounter

__all__ = ["BinaryCounter", "LogarithmicCounter", "HybridCounter", "CounterNoise",
           "lowest_set_bit", "popcount", "hybrid_error_bound", "tree_scale_factor",
           "hybrid_budget_split", "hybrid_guarantee"]
