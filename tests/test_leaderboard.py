"""A third-party policy, written in its own module outside the package, goes through
check_policy and evaluate beside built-in algorithms; its audit separates an honest claim
from a false one."""
import csv
import importlib
import sys
import textwrap
import time

import numpy as np
import pytest

from dpolearn.audit import SearchAuditResult
from dpolearn.experiments.registry import SUMMARY_COLUMNS
from dpolearn.leaderboard import Leaderboard, audit_claim, evaluate, whitebox_ledger
from dpolearn.policy import PrivacyAssumptionWarning
from dpolearn.testing import check_policy

THIRD_PARTY = textwrap.dedent('''
    """A user's private explore-then-commit policy, outside dpolearn."""
    import numpy as np

    from dpolearn.accounting import PureDP
    from dpolearn.policy import Policy


    class PrivateETC(Policy):
        """Pull each arm m times, then commit to the arm of largest Laplace-noised sum.

        Each reward enters one released sum with Lap(1/epsilon) noise (sensitivity 1):
        epsilon-DP by parallel composition; the commitment is post-processing.
        """

        label = "Private ETC"

        def __init__(self, *, epsilon, m=20, noise_factor=1.0):
            if isinstance(epsilon, str) or not np.isreal(epsilon):
                raise TypeError(f"epsilon must be a real number, got {epsilon!r}")
            if not epsilon > 0:
                raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
            self.epsilon, self.m, self.noise_factor = float(epsilon), int(m), float(noise_factor)

        def reset(self, n_runs, n_arms, rng):
            self._rng, self._K = rng, n_arms
            self._sums = np.zeros((n_runs, n_arms))
            self._choice = None

        def select(self, t):
            n_runs = self._sums.shape[0]
            if t <= self.m * self._K:
                return np.full(n_runs, (t - 1) % self._K, dtype=np.int64)
            if self._choice is None:
                scale = self.noise_factor / self.epsilon
                noisy = self._sums + self._rng.laplace(0.0, scale, self._sums.shape)
                self._choice = np.argmax(noisy, axis=1)
            return self._choice

        def update(self, t, arms, rewards):
            if t <= self.m * self._K:
                self._sums[np.arange(len(arms)), arms] += rewards

        @property
        def guarantee(self):
            return PureDP(epsilon=self.epsilon)

        def params(self):
            return {"epsilon": self.epsilon, "m": self.m, "noise_factor": self.noise_factor}


    class BrokenETC(PrivateETC):
        """Three defects: a list from select, the global RNG, and a repr that drops m."""

        label = "Broken ETC"

        def select(self, t):
            arms = super().select(t)
            if t > self.m * self._K and np.random.random() < 0.05:
                arms = (arms + 1) % self._K
            return list(arms)

        def __repr__(self):
            return f"BrokenETC(epsilon={self.epsilon!r})"
''')


@pytest.fixture()
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_bandits.py").write_text(THIRD_PARTY)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("my_bandits")
    yield mod
    sys.modules.pop("my_bandits", None)


def test_third_party_policy_lives_outside_the_package(user_module):
    assert "dpolearn" not in user_module.__file__


def test_third_party_policy_passes_check_policy(user_module):
    report = check_policy(lambda epsilon, horizon: user_module.PrivateETC(epsilon=epsilon, m=5),
                          horizon=80)
    assert report.ok, str(report)


def test_broken_third_party_policy_reports_each_defect_by_name(user_module):
    report = check_policy(lambda epsilon, horizon: user_module.BrokenETC(epsilon=epsilon, m=5),
                          horizon=80, raise_on_fail=False)
    assert {"select_shape", "no_global_rng", "params_repr"} <= set(report.failed), str(report)
    assert {"guarantee", "bad_epsilon"} <= set(report.passed)


def test_evaluate_beside_two_builtins_quick(user_module, tmp_path):
    start = time.perf_counter()
    board = evaluate(lambda epsilon, horizon: user_module.PrivateETC(epsilon=epsilon),
                     algorithms=["Lazy-DP-TS", "DP-SE"], scale="quick", audit=True,
                     audit_trials=20_000)
    elapsed = time.perf_counter() - start
    assert elapsed < 60, f"quick leaderboard took {elapsed:.1f} s"
    assert isinstance(board, Leaderboard)
    assert board.algorithms == ["Private ETC", "Lazy-DP-TS", "DP-SE"]
    n_cells = len(board.instances) * len(board.epsilons) * 3
    assert len(board.cells) == n_cells
    # every cell is on the common privacy scale: honest epsilon equals the grid value
    for c in board.cells:
        assert c["level"]["kind"] == "pure" and c["level"]["epsilon"] == pytest.approx(c["epsilon"])
    assert board.claim_mismatch == []
    # ranks within each (instance, epsilon) group are 1..3
    rows = board.rows()
    for inst in board.instances:
        for e in board.epsilons:
            assert sorted(r["rank"] for r in rows if r["instance"] == inst
                          and r["epsilon"] == e) == [1, 2, 3]
    # the honest policy's audit finds no violation; it keeps no ledger
    assert board.audit is not None and not board.audit.violated
    assert board.ledger is None
    # summary.csv in the standard columns, one row per cell
    path = board.write_summary(tmp_path)
    with open(path) as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames[:len(SUMMARY_COLUMNS)] == SUMMARY_COLUMNS
        got = list(reader)
    assert len(got) == n_cells
    assert {r["experiment"] for r in got} == {"leaderboard"}
    fig = board.figure()
    assert len([ax for ax in fig.axes if ax.lines]) == len(board.instances)
    assert "Private ETC" in board.markdown()


def test_the_audit_catches_a_false_claim(user_module):
    """Half the Laplace scale while claiming epsilon: the true level is 2 epsilon.

    With m = 1 on the two-arm tables of adversarial_pairs("lazy"), the commitment compares
    r + Z0 with 1 + Z1 (Z ~ Lap(b)). Arm 0 is chosen with probability
    P(Z0 - Z1 > 1 - r): 1/2 for r = 1 and (2 + 1/b) e^{-1/b} / 4 for r = 0, so the event's
    log-ratio is ln 2 - ln((2 + 1/b) e^{-1/b} / 2): 0.59 at b = 1 (honest, epsilon = 1)
    and 1.30 at b = 1/2 (the false claim); with 20 000 trials per side the Clopper-Pearson
    bound sits within about 0.06 of these, below 1 and above 1 respectively.
    """
    honest = audit_claim(lambda e, T: user_module.PrivateETC(epsilon=e, m=1), epsilon=1.0,
                         n_trials=20_000)
    false = audit_claim(lambda e, T: user_module.PrivateETC(epsilon=e, m=1, noise_factor=0.5),
                        epsilon=1.0, n_trials=20_000)
    assert not honest.violated and honest.epsilon_lower < 1.0
    assert false.violated and false.epsilon_lower > 1.0


def test_whitebox_ledger_of_a_builtin_gdp_policy():
    from dpolearn.bandits import DPTSUCB

    out = whitebox_ledger(lambda e, T: DPTSUCB(alpha=0.5, horizon=T, track_privacy=True),
                          horizon=500)
    assert out is not None and out["ok"] and 0 < out["spent"] <= out["claimed"]


@pytest.mark.parametrize("kw, match", [
    ({"algorithms": ["No-such-algorithm"]}, "algorithms"),
    ({"algorithms": "DP-SE"}, "algorithms"),
    ({"instances": ["no such instance"]}, "instances"),
    ({"instances": {"bad": (0.5, 1.5)}}, "instances"),
    ({"epsilons": [-1.0]}, "epsilon"),
    ({"horizon": 0}, "horizon"),
    ({"n_runs": 0}, "n_runs"),
])
def test_invalid_arguments(user_module, kw, match):
    with pytest.raises(ValueError, match=match):
        evaluate(lambda e, T: user_module.PrivateETC(epsilon=e), audit=False, **kw)


def test_full_information_policy_is_refused():
    from dpolearn.fullinfo import FTL

    with pytest.raises(TypeError, match="bandit"):
        evaluate(FTL, audit=False)


def test_same_seed_same_board(user_module):
    kw = dict(algorithms=["DP-SE"], instances=["2 arms, gap 0.1"], epsilons=[0.5, 2.0],
              horizon=300, n_runs=3, audit=False)
    a = evaluate(lambda e, T: user_module.PrivateETC(epsilon=e), **kw)
    b = evaluate(lambda e, T: user_module.PrivateETC(epsilon=e), **kw)
    assert all(np.array_equal(x["result"].regret, y["result"].regret)
               for x, y in zip(a.cells, b.cells))


# ------------------------------------------------------------------ the chapter's policies
def _chapter_namespace():
    """Execute the code cells of book/own_bandit.md that define its policies (not the ones
    that run experiments) in one namespace, as the chapter does."""
    from pathlib import Path

    from bookkit import myst

    text = (Path(__file__).resolve().parents[1] / "book" / "own_bandit.md").read_text()
    cells = [b for b in myst.read(text).walk() if isinstance(b, myst.CodeCell)]
    assert cells, "own_bandit.md has no code cells"
    ns: dict = {}
    for cell in cells:
        body = cell.code           # without the cell's options (``:tags:``)
        if body.lstrip().startswith(("import", "class", "from")):
            exec(compile(body, "own_bandit.md", "exec"), ns)
    return ns


def test_chapter_draft_fails_the_contract_checks_the_chapter_names():
    ns = _chapter_namespace()
    report = check_policy(ns["LazyMOSSDraft"], raise_on_fail=False)
    assert {"reproducible", "no_global_rng", "bad_epsilon"} <= set(report.failed), str(report)


def test_chapter_audit_catches_the_half_noise_variant_and_passes_the_fix():
    ns = _chapter_namespace()
    assert check_policy(ns["LazyMOSSHalfNoise"], raise_on_fail=False).ok
    assert check_policy(ns["LazyMOSS"], raise_on_fail=False).ok
    half = audit_claim(ns["LazyMOSSHalfNoise"], epsilon=1.0, n_trials=20_000, seed=1)
    fixed = audit_claim(ns["LazyMOSS"], epsilon=1.0, n_trials=20_000, seed=1)
    assert half.violated and half.epsilon_lower > 1.0
    assert not fixed.violated


# ------------------------------------------------------------------ an honest board
def _honest_and_half_noise(user_module):
    class HalfNoiseETC(user_module.PrivateETC):
        """Half the Laplace scale while claiming epsilon (truly 2 epsilon-DP)."""

        label = "Half-noise ETC"

    honest = lambda e, T: user_module.PrivateETC(epsilon=e, m=1)          # noqa: E731
    half = lambda e, T: HalfNoiseETC(epsilon=e, m=1, noise_factor=0.5)    # noqa: E731
    return honest, half


SMALL = dict(algorithms=["DP-SE"], instances=["2 arms, gap 0.1"], epsilons=[0.5, 1.0],
             horizon=200, n_runs=2)


def test_evaluate_marks_a_refuted_claim_in_table_figure_and_warning(user_module):
    honest, half = _honest_and_half_noise(user_module)
    with pytest.warns(PrivacyAssumptionWarning, match="Half-noise ETC.*VIOLATED"):
        board = evaluate([honest, half], audit_trials=5_000, **SMALL)
    assert board.labels == ["Private ETC", "Half-noise ETC"]
    assert board.algorithms == ["Private ETC", "Half-noise ETC", "DP-SE"]
    assert board.violated == ["Half-noise ETC"]
    assert board.audits["Half-noise ETC"].violated and not board.audits["Private ETC"].violated
    # by default the searching auditor, which chose its own tables, certified on fresh runs
    assert all(isinstance(a, SearchAuditResult) and a.n_trials == 5_000 and a.n_pairs == 32
               for a in board.audits.values())
    # the table: an audit column, and the claim shown as claimed, never as verified
    rows = {r["algorithm"]: r for r in board.rows() if r["epsilon"] == 1.0}
    assert rows["Half-noise ETC"]["audit"].startswith("VIOLATED")
    assert rows["Private ETC"]["audit"].startswith("consistent")
    assert rows["DP-SE"]["audit"] == ""
    assert rows["Half-noise ETC"]["privacy"] == "1-DP (claimed)", rows
    table = board.markdown()
    line = next(x for x in table.splitlines() if "| Half-noise ETC |" in x)
    assert "| VIOLATED (ε ≥ " in line and "(claimed)" in line
    assert "| audit |" in table.splitlines()[0]
    summary = {r["algorithm"]: r for r in board.summary_rows()}
    assert summary["Half-noise ETC"]["audit"].startswith("VIOLATED")
    # the figure: the legend names the refuted claim and red crosses sit on its points
    fig = board.figure()
    texts = [t.get_text() for lg in fig.legends + [ax.get_legend() for ax in fig.axes]
             if lg is not None for t in lg.get_texts()]
    assert "Half-noise ETC (privacy claim VIOLATED)" in texts, texts
    assert "Private ETC" in texts and "Private ETC (privacy claim VIOLATED)" not in texts
    crosses = [ln for ax in fig.axes for ln in ax.lines if ln.get_marker() == "X"]
    assert len(crosses) == 1 and list(crosses[0].get_xdata()) == [0.5, 1.0]


def test_an_unaudited_claim_is_shown_as_claimed(user_module):
    honest, _ = _honest_and_half_noise(user_module)
    board = evaluate(honest, audit=False, **SMALL)
    assert board.audit is None and board.audits == {}
    row = next(r for r in board.rows() if r["algorithm"] == "Private ETC")
    assert row["privacy"].endswith("(claimed)") and row["audit"] == "not run"
    line = next(x for x in board.markdown().splitlines() if "| Private ETC |" in x)
    assert "(claimed) | not run |" in line


def test_markdown_headers_follow_the_grid(user_module):
    honest, _ = _honest_and_half_noise(user_module)
    board = evaluate(honest, audit=False, **{**SMALL, "epsilons": [0.25, 4.0]})
    head = board.markdown().splitlines()[0]
    assert "ε = 1 " not in head and "privacy at ε = 0.25" in head
    assert "ε = 0.25 | ε = 4 |" in head
    # the privacy column shows each algorithm's guarantee at that grid value
    line = next(x for x in board.markdown().splitlines() if "| DP-SE |" in x)
    assert "| 0.25-DP |" in line


def test_markdown_refuses_an_unknown_instance(user_module):
    honest, _ = _honest_and_half_noise(user_module)
    board = evaluate(honest, audit=False, **SMALL)
    with pytest.raises(ValueError, match="instance.*'nope'"):
        board.markdown(instance="nope")
    assert "2 arms, gap 0.1" in board.markdown(instance="2 arms, gap 0.1")


def test_every_panel_keeps_two_labelled_ticks_on_its_log_axes(user_module):
    honest, _ = _honest_and_half_noise(user_module)
    board = evaluate(honest, audit=False, algorithms=["DP-SE", "Lazy-DP-TS"],
                     instances=["2 arms, gap 0.1", "2 arms, gap 0.4",
                                "5 arms (0.75 ... 0.25), Hu & Hegde"],
                     epsilons=[0.5, 1.0, 2.0], horizon=300, n_runs=3)
    fig = board.figure()
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.lines]
    assert len(panels) == 3
    for ax in panels:
        low, high = ax.get_ylim()
        shown = [(t.get_position()[1], t.get_text()) for t in ax.get_yticklabels()
                 if t.get_text() and low <= t.get_position()[1] <= high]
        assert len(shown) >= 2, (ax.get_ylim(), shown)
        assert all(float(text.replace(",", "")) == pytest.approx(y, rel=0.01)
                   for y, text in shown), shown


def test_evaluated_labels_must_differ(user_module):
    honest, _ = _honest_and_half_noise(user_module)
    with pytest.raises(ValueError, match="Private ETC"):
        evaluate([honest, honest], audit=False, **SMALL)
    with pytest.raises(ValueError, match="factory"):
        evaluate([], audit=False, **SMALL)


def test_write_summary_is_atomic(user_module, tmp_path):
    honest, _ = _honest_and_half_noise(user_module)
    board = evaluate(honest, audit=False, **SMALL)
    out = tmp_path / "out"
    out.mkdir()
    path = board.write_summary(out)
    before = path.read_bytes()

    class Unprintable:
        def __str__(self):
            raise RuntimeError("killed half-way")

    rows = board.summary_rows()
    rows[-1]["privacy"] = Unprintable()          # the last row fails after the others
    board.summary_rows = lambda: rows
    with pytest.raises(RuntimeError, match="half-way"):
        board.write_summary(out)
    assert path.read_bytes() == before, "a failed write truncated the old summary"
    assert sorted(p.name for p in out.iterdir()) == ["summary.csv"], "temporary file left"


def test_evaluate_marks_a_failed_white_box_check_that_the_audit_misses():
    """A lazy mean that never forgets passes a small black-box audit; the board's white-box
    check (check_privacy) still refutes its claim, in the table and the warning."""
    from test_check_privacy import NeverForgets, _LazyIndex

    honest = lambda e, T: _LazyIndex(epsilon=e)          # noqa: E731
    forgets_nothing = lambda e, T: NeverForgets(epsilon=e)   # noqa: E731
    with pytest.warns(PrivacyAssumptionWarning, match="never forgets"):
        board = evaluate([honest, forgets_nothing], audit_trials=2_000, **SMALL)
    assert board.checks["lazy index"].ok
    assert not board.checks["never forgets"].ok
    assert board.violated == ["never forgets"]
    row = next(r for r in board.rows()
               if r["algorithm"] == "never forgets" and r["epsilon"] == 1.0)
    assert "VIOLATED white-box check (ledger" in row["audit"], row
