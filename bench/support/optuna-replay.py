"""Optuna's TPE (default settings) on a measured search space, for bench/bayesian-optimizer-compare.

    /usr/bin/python3 bench/support/optuna-replay.py FILE.csv SEED BUDGET  ->  one JSON line

Run with Debian's python3-optuna (3.1). The parameters are the columns before `status`. Numeric
parameters are given to Optuna as integers over their sorted ranks (so TPE sees the order, as
kerneltune's GP does through its rank encoding); text parameters are categorical.

Optuna cannot be told the valid set, so it proposes invalid combinations. Those cost nothing in
practice (the constraint is known before anything runs), so they are not counted as evaluations;
each is told the worst value seen so far, so TPE learns to avoid them as kerneltune's GP does with
failures. A combination Optuna proposes again is not measured again: it is told its known value
and not counted. A configuration whose status is not `ok` counts as an evaluation and is told the
worst value. Optuna gets at most 5 × BUDGET proposals in all (late in a run it keeps proposing
what it already has, and each proposal costs it more than the last). Output: the evaluations (counted as above) at which the best came within 5% and 1% of
the space's best, null when not within BUDGET.
"""
import csv
import json
import sys

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)


def main() -> None:
    path, seed, budget = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    header = rows[0]
    status_at = header.index('status')
    time_at = header.index('time_ms')
    names = header[:status_at]
    body = rows[1:]

    def numeric(v: str) -> bool:
        try:
            float(v)
            return True
        except ValueError:
            return False

    values = []
    for p in range(status_at):
        distinct = sorted({r[p] for r in body})
        if all(numeric(v) for v in distinct):
            distinct = sorted(distinct, key=float)
            values.append(('rank', distinct))
        else:
            values.append(('cat', distinct))
    table = {}
    best_value = float('inf')
    for r in body:
        ok = r[status_at] == 'ok' and r[time_at] != ''
        v = float(r[time_at]) if ok else None
        table[tuple(r[:status_at])] = v
        if v is not None:
            best_value = min(best_value, v)

    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(direction='minimize', sampler=sampler)
    evaluations = 0
    worst = None
    seen = {}
    to5 = to1 = None
    best = float('inf')
    trials = 0
    while evaluations < budget and trials < 5 * budget and to1 is None:
        trials += 1
        trial = study.ask()
        key = []
        for name, (kind, vs) in zip(names, values):
            if kind == 'rank':
                key.append(vs[trial.suggest_int(name, 0, len(vs) - 1)])
            else:
                key.append(trial.suggest_categorical(name, vs))
        key = tuple(key)
        if key not in table:
            if worst is None:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(trial, worst)
            continue
        if key in seen:
            study.tell(trial, seen[key])
            continue
        evaluations += 1
        v = table[key]
        if v is not None:
            worst = v if worst is None else max(worst, v)
            best = min(best, v)
            told = v
        else:
            told = worst
        seen[key] = told
        if told is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(trial, told)
        if to5 is None and best <= best_value * 1.05:
            to5 = evaluations
        if to1 is None and best <= best_value * 1.01:
            to1 = evaluations
    print(json.dumps({'seed': seed, 'to5': to5, 'to1': to1, 'evaluations': evaluations, 'trials': trials}))


main()
