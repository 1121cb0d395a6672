"""Optuna's TPE or CMA-ES (default settings) on a measured search space, for bench/bayesian-optimizer-compare.

    /usr/bin/python3 bench/support/optuna-replay.py FILE.csv SEED BUDGET [--sampler tpe|cmaes|cmaes-margin]  ->  one JSON line

Run with Debian's python3-optuna (3.1); `--sampler cmaes` (Optuna's `CmaEsSampler(seed)`) also
needs Debian's python3-cmaes (0.9.1); `--sampler cmaes-margin` is `CmaEsSampler(seed, with_margin=True)`.
The default is `tpe` (`TPESampler(seed)`). Numeric parameters are given to Optuna as integers
over their sorted ranks; text parameters are categorical (CMA-ES does not model those: Optuna samples them with its independent sampler, random
search by default). How proposals are counted, and the output, are bench/support/replay_protocol.py's:
invalid and repeated proposals are not counted (invalid ones are told the worst value seen so far),
failed configurations count and are told the worst value, at most 5 × BUDGET proposals.
"""
import argparse
import json
import warnings

import optuna

from replay_protocol import Space, run

optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.filterwarnings('ignore', category=optuna.exceptions.ExperimentalWarning)  # with_margin's


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument('path')
    ap.add_argument('seed', type=int)
    ap.add_argument('budget', type=int)
    ap.add_argument('--sampler', choices=['tpe', 'cmaes', 'cmaes-margin'], default='tpe')
    a = ap.parse_args()
    space = Space(a.path)
    if a.sampler == 'tpe':
        sampler = optuna.samplers.TPESampler(seed=a.seed)
    else:
        # with_margin: CMA-ES with Margin (Optuna 3.1, experimental) keeps an integer parameter's
        # distribution from collapsing onto one value, which the default CMA-ES does here.
        sampler = optuna.samplers.CmaEsSampler(seed=a.seed, with_margin=a.sampler == 'cmaes-margin')
    study = optuna.create_study(direction='minimize', sampler=sampler)

    def ask():
        trial = study.ask()
        key = []
        for name, (kind, vs) in zip(space.names, space.values):
            if kind == 'rank':
                key.append(vs[trial.suggest_int(name, 0, len(vs) - 1)])
            else:
                key.append(trial.suggest_categorical(name, vs))
        return trial, tuple(key)

    def tell(trial, value):
        if value is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(trial, value)

    print(json.dumps(run(space, a.seed, a.budget, ask, tell)))


main()
