"""Time dpolearn's batched simulator against plain per-run Python loops.

    .venv/bin/python benchmarks/bench.py [--horizon 100000] [--runs 20 100] [--ref-runs 4]

For UCB1, Lazy-DP-TS and DP-UCB on K = 5 arms (means 0.75, 0.625, 0.5, 0.375, 0.25,
epsilon = 1) it times one batched `dpolearn.simulate` call for each number of runs, and the
per-run reference loop of `reference.py` on `--ref-runs` runs. A per-run loop costs the same for
every run, so its time for R runs is R times its measured time per run; the script prints both
the measured and the scaled figures and the speed-up ratio. It also prints both sides'
final regrets (a sanity check that the same algorithm is timed; the reference mean
rests on only `--ref-runs` runs, so expect a wide sampling error).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import reference  # benchmarks/reference.py: this script's folder is on sys.path

import dpolearn as dpl

MEANS = (0.75, 0.625, 0.5, 0.375, 0.25)
EPSILON = 1.0


def _policies():
    from dpolearn.bandits import DPUCB, LazyDPTS

    return {
        "UCB1": (lambda: dpl.UCB1(), reference.ucb1_run, {}),
        "Lazy-DP-TS": (lambda: LazyDPTS(epsilon=EPSILON), reference.lazy_dp_ts_run,
                       {"epsilon": EPSILON}),
        "DP-UCB": (lambda: DPUCB(epsilon=EPSILON, split="paper"), reference.dp_ucb_run,
                   {"epsilon": EPSILON, "split": "paper"}),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=100_000)
    parser.add_argument("--runs", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--ref-runs", type=int, default=4)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)

    rows = []
    for name, (make, ref_fn, ref_kwargs) in _policies().items():
        rng = np.random.default_rng(12345)
        start = time.perf_counter()
        ref_regrets = [ref_fn(MEANS, args.horizon, rng, **ref_kwargs) for _ in range(args.ref_runs)]
        ref_per_run = (time.perf_counter() - start) / args.ref_runs
        for n_runs in args.runs:
            res = dpl.simulate(make(), dpl.BernoulliBandit(MEANS), args.horizon, n_runs, seed=1,
                               checkpoints=[args.horizon], progress=False)
            ours = res.wall_time
            ref_time = ref_per_run * n_runs
            rows.append({"algorithm": name, "horizon": args.horizon, "n_runs": n_runs,
                         "batched_s": round(ours, 2), "per_run_loop_s": round(ref_time, 1),
                         "speedup": round(ref_time / ours, 1),
                         "batched_regret": round(res.final_mean, 1),
                         "loop_regret": round(float(np.mean(ref_regrets)), 1)})
            print(f"{name:12s} T={args.horizon} runs={n_runs:4d}  batched {ours:7.2f} s   "
                  f"per-run loop {ref_time:8.1f} s (measured {ref_per_run:.2f} s/run on "
                  f"{args.ref_runs} runs)   speed-up {ref_time / ours:6.1f}x   final regret "
                  f"{res.final_mean:.0f} vs {np.mean(ref_regrets):.0f}", flush=True)
    info = {"machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
                       f"{__import__('os').cpu_count()} cores, Python {platform.python_version()}, "
                       f"numpy {np.__version__}", "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
