"""The counting protocol shared by the Python baselines of bench/bayesian-optimizer-compare.

optuna-replay.py (Optuna's TPE or CMA-ES) and rf-replay.py (a random-forest optimizer) both import
it, so every baseline reads a measured space and counts evaluations the same way:

- The parameters are the CSV's columns before `status`. A column whose values are all numbers is
  handed to the optimizer as its sorted ranks (so it sees the order, as kerneltune's GP does through
  its rank encoding); any other column is categorical.
- A proposal outside the CSV's rows (the valid set) costs nothing in practice (the constraint is
  known before anything runs): it is not counted, and the optimizer is told the worst value seen so
  far (None, a failed trial, before anything ran).
- A configuration proposed again is not measured again: it is told its known value, not counted.
- A configuration whose status is not `ok` counts as an evaluation and is told the worst value.
- At most 5 × BUDGET proposals in all (late in a run a sampler keeps proposing what it has).

The result is the evaluations (counted as above) at which the best came within 5% and 1% of the
space's best, None when not within BUDGET; a run stops at 1%.
"""
import csv
from typing import Callable, Optional


def numeric(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


class Space:
    """A measured space: `names`, `values` ((kind, sorted distinct values) per parameter: kind is
    'rank' or 'cat'), `table` (key tuple -> time, None when the row failed) and `best_value`."""

    def __init__(self, path: str) -> None:
        with open(path, newline='') as f:
            rows = list(csv.reader(f))
        header = rows[0]
        status_at = header.index('status')
        time_at = header.index('time_ms')
        self.names = header[:status_at]
        body = rows[1:]
        self.values = []
        for p in range(status_at):
            distinct = sorted({r[p] for r in body})
            if all(numeric(v) for v in distinct):
                self.values.append(('rank', sorted(distinct, key=float)))
            else:
                self.values.append(('cat', distinct))
        self.table = {}
        self.best_value = float('inf')
        for r in body:
            ok = r[status_at] == 'ok' and r[time_at] != ''
            v = float(r[time_at]) if ok else None
            self.table[tuple(r[:status_at])] = v
            if v is not None:
                self.best_value = min(self.best_value, v)


Ask = Callable[[], tuple]  # () -> (handle, key tuple)
Tell = Callable[[object, Optional[float]], None]  # (handle, value or None for a failed trial)


def run(space: Space, seed: int, budget: int, ask: Ask, tell: Tell) -> dict:
    evaluations = 0
    trials = 0
    worst = None
    seen = {}
    to5 = to1 = None
    best = float('inf')
    while evaluations < budget and trials < 5 * budget and to1 is None:
        trials += 1
        handle, key = ask()
        if key not in space.table:
            tell(handle, worst)
            continue
        if key in seen:
            tell(handle, seen[key])
            continue
        evaluations += 1
        v = space.table[key]
        if v is not None:
            worst = v if worst is None else max(worst, v)
            best = min(best, v)
            told = v
        else:
            told = worst
        seen[key] = told
        tell(handle, told)
        if to5 is None and best <= space.best_value * 1.05:
            to5 = evaluations
        if to1 is None and best <= space.best_value * 1.01:
            to1 = evaluations
    return {'seed': seed, 'to5': to5, 'to1': to1, 'evaluations': evaluations, 'trials': trials}
