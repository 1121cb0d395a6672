"""A random-forest optimizer (SMAC-style) on a measured search space, for bench/bayesian-optimizer-compare.

    /usr/bin/python3 bench/support/rf-replay.py FILE.csv SEED BUDGET  ->  one JSON line

Run with Debian's python3-sklearn (1.2). A baseline, not kerneltune's design: 10 random valid
configurations first, then after every evaluation a RandomForestRegressor (50 trees, sklearn's
defaults otherwise: bootstrap, fully grown trees, all features per split; random_state SEED) is
refitted on every measured configuration, and the free configuration with the largest expected
improvement is measured next. The inputs are the parameters' ranks (as Optuna gets them, and as
kerneltune's GP encodes ordinal parameters), a categorical value its index among the sorted values
(a forest splits on it as on an ordinal; the spaces here have none). The target is log(time), as
kerneltune's GP models it: runtimes span orders of magnitude. EI uses the mean and the standard
deviation of the 50 trees' predictions, as SMAC does. Candidates are the VALID set, the CSV's rows,
minus those measured (kerneltune's BO is told the valid set too), so this optimizer never proposes
an invalid or a repeated configuration; the counting is bench/support/replay_protocol.py's all the
same (a failed configuration counts and is told the worst value, the first one before any success
is left out of the fit).
"""
import json
import math
import sys

import numpy as np
from scipy.stats import norm
from sklearn.ensemble import RandomForestRegressor

from replay_protocol import Space, run

INITIAL = 10
TREES = 50


def main() -> None:
    path, seed, budget = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    space = Space(path)
    keys = list(space.table)
    index = [{v: i for i, v in enumerate(vs)} for _, vs in space.values]
    x = np.array([[index[p][v] for p, v in enumerate(k)] for k in keys], dtype=float)
    rng = np.random.RandomState(seed)
    free = np.ones(len(keys), dtype=bool)
    measured: list = []  # (row, log value) of the configurations told a value

    def ask():
        candidates = np.flatnonzero(free)
        if len(measured) < INITIAL or len({y for _, y in measured}) < 2:
            pick = candidates[rng.randint(len(candidates))]
        else:
            rows = [r for r, _ in measured]
            y = np.array([v for _, v in measured])
            forest = RandomForestRegressor(n_estimators=TREES, random_state=seed).fit(x[rows], y)
            per_tree = np.stack([t.predict(x[candidates]) for t in forest.estimators_])
            mu, sd = per_tree.mean(axis=0), per_tree.std(axis=0)
            gap = y.min() - mu
            with np.errstate(divide='ignore', invalid='ignore'):
                z = gap / sd
                ei = np.where(sd > 0, gap * norm.cdf(z) + sd * norm.pdf(z), np.maximum(gap, 0))
            pick = candidates[int(np.argmax(ei))]
        free[pick] = False
        return pick, keys[pick]

    def tell(row, value):
        if value is not None:
            measured.append((row, math.log(value)))

    print(json.dumps(run(space, seed, budget, ask, tell)))


main()
