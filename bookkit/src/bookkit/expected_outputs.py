"""Expected outputs of the problem sets, for instructors (``_build/assignments/EXPECTED.md``).

Every number is computed here by the package, so the table cannot drift from the code; the
autograded questions are checked by the hidden tests of the autograder zips, and this table
serves mainly the questions graded by hand.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.special import zeta
from scipy.stats import norm

import dpolearn as dpl
from dpolearn import audit as A
from dpolearn import gdp
from dpolearn import lower_bounds as lb
from dpolearn.accounting import advanced_composition
from dpolearn.bandits.dp_ts_ucb import dp_ts_ucb_gdp, sampling_budget
from dpolearn.bandits.kl import kl_bernoulli
from dpolearn.experiments import compare as cmp
from dpolearn.experiments.primer import ucb1_bound
from dpolearn.fullinfo import epoch_sim as es
from dpolearn.mechanisms import interval_mean as im

from . import myst
from .book import ROOT

#: The sources of the problem sets (``<set>/<set>.md``).
HERE = ROOT / "assignments"
#: The title of a question's heading (``## Question 2.3 ✎ ({{exercise:<label>}})``).
QUESTION = re.compile(r"Question (\d+\.\d+)[a-z]* .*\{\{exercise:([A-Za-z0-9_-]+)\}\}")


def question_numbers() -> dict[str, str]:
    """Map each exercise label to its question number ("2.3") in the set notebooks (the
    second-level headings of their sources, as :func:`bookkit.myst.read` reads them)."""
    numbers: dict[str, str] = {}
    for source in sorted(HERE.glob("set*/set*.md")):
        for block in myst.read(source.read_text()).walk():
            match = isinstance(block, myst.Heading) and block.level == 2 \
                and QUESTION.match(block.title)
            if match:
                numbers.setdefault(match.group(2), match.group(1))
    return numbers


def expected_rows() -> list[tuple[str, str, str]]:
    """(exercise label, quantity, expected value) for every exercise with a numeric answer."""
    rows = []
    def add(label: str, what: str, value: str) -> None:
        rows.append((label, what, value))

    # -- problem set 1
    # question 1.1: the bit is 1 with probability 3/4; Y = r + Lap(1/eps) at eps = 2
    add("ex-primer-attack", "prior 3/4: the release helps only for ε > ln 3", f"{math.log(3):.3f}")
    add("ex-primer-attack", "ε = 2: best threshold 1/2 − ln 3/(2ε), its success 1 − (√3/4)e^(−1)",
        f"{0.5 - math.log(3) / 4:.3f}, {1 - math.sqrt(3) / 4 * math.exp(-1):.3f}")
    add("ex-primer-attack", "ε = 2: threshold 1/2 / the cap e²/(1+e²)",
        f"{1 - 0.5 * math.exp(-1):.3f} / {math.exp(2) / (1 + math.exp(2)):.3f}")
    # question 1.2: Gumbel report-noisy-max with scale 1/2 on three scores (0, d, d)
    for d in (4.0, 8.0):
        add("ex-primer-rnm", f"b = 1/2, three scores, two-sided neighbour, d = {d:g}",
            f"{math.log((1 + 2 * math.exp(2 * d)) / (1 + 2 * math.exp(2 * d - 4))):.4f} (→ 4)")
        add("ex-primer-rnm", f"b = 1/2, three scores, monotone neighbour, d = {d:g}",
            f"{math.log((1 + 2 * math.exp(2 * d)) / (1 + 2 * math.exp(2 * d - 2))):.4f} (→ 2)")
    for k in (10, 100, 1000, 10_000):
        eps0 = brentq(lambda e, k=k: advanced_composition(e, 0.0, k, 1e-6).epsilon - 1.0, 1e-9, 1.0)
        add("ex-primer-code-budget", f"k = {k:,}: ε₀ basic / advanced", f"{1 / k:.2e} / {eps0:.2e}")
    add("ex-primer-code-audit",
        "exact tail log-ratio ln P₁(Y>2)/P₀(Y>2): honest / half noise (ε = 1)",
        "1.000 / 2.000")
    add("ex-cr-variance", "largest variance (at τ = 2^L − 1)", "2L³/ε²")
    add("ex-cr-variance", "smallest L with 100 L³ ≤ 2^L − 1 (tree's sd a tenth of naive's)",
        f"{next(L for L in range(1, 40) if 100 * L ** 3 <= 2 ** L - 1)}")
    add("ex-cr-fresh", "worst-case loss up to n = 2¹⁰, fresh / accumulating", "11 ε / 1 ε")
    for target in (1.0, 0.1):
        add("ex-cr-calibrate", f"input ε for ε' = {target:g}, δ' = e⁻¹⁰, v = 1.1",
            f"{im.calibrate_epsilon(target, math.exp(-10), 1.1):.6e}")
    add("ex-lazy-schedule", "pull numbers at which batches r = 0, 1, 2, 3 are processed",
        ", ".join(str(2 ** (r + 1) - 1) for r in range(4)))
    add("ex-gdp-delta0", "μ with δ(0) = 1/2, 2Φ⁻¹(3/4)", f"{2 * norm.ppf(0.75):.4f}")
    add("ex-gdp-pure", "largest ε with μ(ε) ≤ 1, ln(Φ(1/2)/Φ(−1/2))",
        f"{math.log(norm.cdf(0.5) / norm.cdf(-0.5)):.4f}")
    T6 = 10 ** 6
    mu_thm = float(dp_ts_ucb_gdp(T6, 1.0))
    mu_floor = math.sqrt(math.floor(float(sampling_budget(T6, 1.0))) / math.log(T6))
    add("ex-gdp-tight", "α = 1, T = 10⁶: μ of Theorem 4.4 / with ⌊φ⌋",
        f"{mu_thm:.4f} / {mu_floor:.4f}")
    add("ex-gdp-tight", "ε at δ = 10⁻⁵ for these two μ",
        f"{float(gdp.gdp_epsilon(1e-5, mu_thm)):.3f} / "
        f"{float(gdp.gdp_epsilon(1e-5, mu_floor)):.3f}")
    cross = brentq(lambda lt: float(dp_ts_ucb_gdp(round(math.exp(lt)), 0.0))
                   - math.sqrt(math.exp(lt) / 2),
                   math.log(1e3), math.log(1e8))
    add("ex-gdp-crossover", "T where DP-TS-UCB (α = 0) and Gaussian TS have equal GDP level",
        f"{math.exp(cross):,.3g}")
    add("ex-cmp-converse", "ratio (1 − G_μ(x)) / x for μ = 1 at x = 10⁻⁸ (unbounded as x → 0)",
        f"{(1 - float(gdp.tradeoff_gaussian(1e-8, 1.0))) / 1e-8:.0f}")
    add("ex-cmp-converse", "μ = 1: ε at which δ(ε) = 10⁻⁶",
        f"{float(gdp.gdp_epsilon(1e-6, 1.0)):.3f}")
    # -- problem set 2
    T6, gap6 = 10 ** 6, 0.05                  # question 2.1: means (0.8, 0.75), T = 10^6
    add("ex-primer-ucb-bound", "UCB1 bound at T = 10⁶, means (0.8, 0.75); pulls",
        f"{ucb1_bound([0.8, 0.75], [T6])[0]:.1f}; {ucb1_bound([0.8, 0.75], [T6])[0] / gap6:,.0f}")
    add("ex-primer-ucb-bound", "kl(0.75, 0.8)", f"{float(kl_bernoulli(0.75, 0.8)):.5f}")
    add("ex-primer-ucb-bound", "Lai–Robbins rate × ln T; pulls",
        f"{lb.lai_robbins_constant([0.8, 0.75]) * math.log(T6):.1f}; "
        f"{lb.lai_robbins_constant([0.8, 0.75]) * math.log(T6) / gap6:,.0f}")
    add("ex-primer-ucb-bound", "pulls with Pinsker's 2Δ² for kl, ln T/(2Δ²)",
        f"{math.log(T6) / (2 * gap6 ** 2):,.0f}")
    add("ex-primer-code-ucb", "UCB1 bound at T = 20,000, means (0.5, 0.45) / 0.05 T",
        f"{ucb1_bound([0.5, 0.45], [20_000])[0]:.0f} / {0.05 * 20_000:.0f}")
    policy = dpl.bandits.DPUCBBound(epsilon=1.0, split="paper")
    policy.reset(1, 2, np.random.default_rng(0))
    policy.update(1, np.array([0]), np.array([0.9]))
    bonus = {}
    for n in range(1, 65):
        policy.update(n + 1, np.array([1]), np.array([0.6]))
        if n in (31, 32, 63, 64):
            bonus[n] = policy.bonus(10_000)[0, 1]
    add("ex-cr-stall", "bonus ν/n at t = 10⁴ for n = 31, 32, 63, 64",
        ", ".join(f"{bonus[n]:.1f}" for n in (31, 32, 63, 64)))
    add("ex-pts-tail",
        "shift c log₂t/(εm), c = 1: exponent 1/ln 2 and ζ(1/ln 2) (failing rounds / K)",
        f"{1 / math.log(2):.3f} and {float(zeta(1 / math.log(2))):.2f}")
    add("ex-pts-tail", "smallest c keeping the failing rounds bounded, ln 2", f"{math.log(2):.3f}")
    for sc, sb in ((0.5, 0.5), (0.25, 0.75)):
        add("ex-pts-split", f"variance of the private sum at O = 13, split {sc}/{sb}",
            f"{2 * (3 / sc ** 2 + 2 * 9 / sb ** 2):.1f} / ε²")
    add("ex-lazy-d", "24 ln T / (Δ min(Δ, ε)), T = 10⁶, Δ = 0.1, ε = 0.05",
        f"{24 * math.log(1e6) / (0.1 * 0.05):,.0f}")
    add("ex-cmp-ties", "expected regret per saturated round, random arm order", "0.25 (= mean gap)")
    # -- problem set 3
    varied = dpl.envs.TwoPointExperts(np.array([0.3, 0.0]), np.array([0.3, 0.5]),
                                      np.array([0.0, 0.5]))       # question 3.3's example
    for n in (1, 2):
        add("ex-experts-printed", f"P(action 2), epoch of {n}, no resampling / resampling",
            " / ".join(f"{es.two_action_probability(varied, n, resample=b, scale=0.0):.4f}"
                       for b in (False, True)))
    add("ex-experts-exp",
        "swap pair G = (1, 1.5), G' = (1.5, 1): loss at b = 1; smallest b for ε = 1",
        f"{math.log(2 * math.exp(0.5) - 1):.3f}; {1 / (2 * math.log((1 + math.e) / 2)):.3f}")
    k20 = math.floor(math.log2(10 ** 6)) + 1
    adv = brentq(lambda e: advanced_composition(e, 0.0, k20, 1e-6).epsilon - 1.0, 1e-9, 1.0)
    add("ex-experts-forget", "T = 10⁶ without forgetting: ε₀ basic / advanced (δ' = 10⁻⁶)",
        f"{1 / k20:.4f} / {adv:.4f}")
    for p_true in (0.6400, 0.4687):
        n_need = math.ceil((norm.ppf(0.975) / 0.005) ** 2 * p_true * (1 - p_true))
        add("ex-experts-mc", f"draws for a 95% error below 0.005 at p = {p_true}", f"{n_need:,}")
    delta = 0.1
    kl_sum = float(kl_bernoulli(0.5 + delta, 0.5) + kl_bernoulli(0.5, 0.5 + delta))
    add("ex-lb-tv", "Δ = 0.1: TV and KL(P_i‖P_j)", f"{delta:g} and {kl_sum:.5f}")
    add("ex-lb-tv", "n samples: coupling nΔ against Pinsker √(n KL/2) at n = 1, 2, 3",
        ", ".join(f"{n * delta:.3f} / {math.sqrt(n * kl_sum / 2):.3f}" for n in (1, 2, 3)))
    eps_star = math.log(1019 / 93)
    add("ex-lb-lbinf", "K = 1024: largest ε with LB(∞) ≥ ln K/(2ε)", f"{eps_star:.3f}")
    for m in (4, 8):
        add("ex-lb-naive", f"DP Fano bound, K = 32, ε = 0.5, Δ = 0.2, m = {m}",
            f"{float(lb.dp_fano_error_bound(32, m, 0.5, 0.2)):.3g}")
    grid = np.geomspace(0.01, 10, 400)
    ratio = (lb.wu2025_regret_lower_bound(256, grid, exponent="tight")
             / lb.wu2025_regret_lower_bound(256, grid))
    add("ex-lb-tight", "K = 256: tight / paper exponent at ε = 0.01, 1, 10",
        ", ".join(f"{r:.3f}" for r in np.interp([0.01, 1.0, 10.0], grid, ratio)))
    lo, point = A.epsilon_lower_bound(5000, 10_000, 1839, 10_000)
    add("ex-audit-cp", "point estimate and exact lower bound on ε", f"{point:.3f} and {lo:.3f}")
    g = 2 / (math.exp(0.5) - 1)
    add("ex-audit-tail", "smallest deficit g (units of b) for a loss above 1.5 ε", f"{g:.2f}")
    add("ex-audit-tail", "P(event) on D' and on D",
        f"{float(A.laplace_difference_sf(g - 2, 1.0)):.3f} and "
        f"{float(A.laplace_difference_sf(g, 1.0)):.3f}")
    add("ex-audit-counter", "honest split ε/2 + ε/2 (ε = 1): worst position loss, position",
        "{:.3f}, {}".format(*A.hybrid_counter_exact_epsilon(0.5, 0.5, 1024)))
    add("ex-cmp-mu", "μ(0.5) and the ε equivalent to μ = 2.87",
        f"{float(gdp.pure_dp_to_gdp(0.5)):.3f} and {cmp.gdp_equivalent_epsilon(2.874972):.2f}")
    return rows


def expected_markdown() -> str:
    """The rows as one Markdown table, ordered by question number."""
    numbers = question_numbers()
    def key(row):
        return tuple(int(p) for p in numbers.get(row[0], "9.99").split("."))

    lines = ["# Expected outputs of the problem sets (instructors only)", "",
             "Computed by `bookkit.expected_outputs` from the package; do not hand this to "
             "students.", "",
             "| question | exercise | quantity | expected |", "|---|---|---|---:|"]
    for label, what, value in sorted(expected_rows(), key=key):
        lines.append(f"| {numbers.get(label, '(not in a set)')} | `{label}` | {what} | {value} |")
    return "\n".join(lines) + "\n"


def write_expected(path: Path) -> None:
    path.write_text(expected_markdown())


if __name__ == "__main__":
    print(expected_markdown())
