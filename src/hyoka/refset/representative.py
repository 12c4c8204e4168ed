"""Stage 6: choose M of the N answers whose 1–10-gram distribution best matches all N.

The distribution is the document frequency of every distinct character n-gram (n = 1 to
``max_n``) of the N answers as a fraction of the answers: p_f = df_f / N, and for a subset
S of size M, q_f = df_f(S) / M. The error is the mean squared difference over the features
f. (Document frequency is what pfgen-bench's Fluency and Truthfulness read from a set.)

Hill climbing by swaps (one answer out of S, one in) from a seeded random start. With the
residual r = q − p, a swap of i out and j in changes the summed squared error by
Σ_{f∈j\\i} (2r_f/M + 1/M²) + Σ_{f∈i\\j} (−2r_f/M + 1/M²), which touches only the
features of i and j: it is evaluated exactly in a few microseconds and applied to r in
place. To find promising swaps, each round computes every answer's row sum of r with one
sparse product, ranks removals and additions by their first-order gain, and tries the best
pairs exactly, accepting each that lowers the error. When a round accepts nothing, random
swaps are tried; when those fail too, the subset is a local optimum and the climb stops.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hyoka.pfgen import encode, window_keys
from hyoka.refset.pool import Audit, PoolRecord, group_by_set, sort_records

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Presence:
    """Which features (distinct n-grams) each answer holds, as CSR rows, and their df."""

    indptr: I64
    indices: I64
    df: I64

    @property
    def num_features(self) -> int:
        return len(self.df)

    def row(self, i: int) -> I64:
        return self.indices[self.indptr[i] : self.indptr[i + 1]]


def presence_matrix(texts: Sequence[str], max_n: int = 10) -> Presence:
    """Exact n-gram ids by prefix extension (as ``ngram_index``), then (answer, id) pairs."""
    batch = encode(texts)
    owner = batch.owner()
    remaining = batch.remaining()
    ids_at = np.full(len(batch.codepoints), -1, dtype=np.int64)
    offset = 0
    pairs: list[npt.NDArray[np.uint64]] = []
    for n in range(1, max_n + 1):
        starts = np.flatnonzero(remaining >= n)
        if len(starts) == 0:
            break
        distinct, inverse = np.unique(window_keys(batch, starts, n, ids_at), return_inverse=True)
        ids = inverse.reshape(-1).astype(np.int64)
        ids_at = np.full(len(batch.codepoints), -1, dtype=np.int64)
        ids_at[starts] = ids
        packed = (owner[starts].astype(np.uint64) << np.uint64(32)) | (ids + offset).astype(
            np.uint64
        )
        pairs.append(np.unique(packed))
        offset += len(distinct)
    merged = np.sort(np.concatenate(pairs)) if pairs else np.zeros(0, dtype=np.uint64)
    rows = (merged >> np.uint64(32)).astype(np.int64)
    indices = (merged & np.uint64(0xFFFFFFFF)).astype(np.int64)
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(texts)), out=indptr[1:])
    df = np.bincount(indices, minlength=offset).astype(np.int64)
    return Presence(indptr=indptr, indices=indices, df=df)


@dataclass(frozen=True)
class ClimbResult:
    chosen: I64
    error_before: float
    error_after: float
    swaps: int
    evaluations: int
    rounds: int
    seconds: float


def _row_sums(matrix: Presence, values: F64) -> F64:
    gathered = values[matrix.indices]
    sums = np.zeros(len(matrix.indptr) - 1, dtype=np.float64)
    nonempty = np.flatnonzero(np.diff(matrix.indptr) > 0)
    if len(nonempty):
        sums[nonempty] = np.add.reduceat(gathered, matrix.indptr[nonempty])
    return sums


def hill_climb(
    matrix: Presence,
    size: int,
    *,
    seed: int = 0,
    candidates: int = 32,
    random_tries: int = 2000,
    max_swaps: int | None = None,
) -> ClimbResult:
    """Pick ``size`` rows minimising the MSE of their df fractions against all rows'."""
    started = time.perf_counter()
    rows = len(matrix.indptr) - 1
    if not 0 < size <= rows:
        raise ValueError(f"cannot choose {size} of {rows} answers")
    rng = np.random.default_rng(seed)
    inside = np.zeros(rows, dtype=bool)
    inside[rng.choice(rows, size=size, replace=False)] = True
    features = max(matrix.num_features, 1)
    target = matrix.df / rows
    counts = np.bincount(
        np.concatenate([matrix.row(i) for i in np.flatnonzero(inside).tolist()]),
        minlength=matrix.num_features,
    )
    resid = counts / size - target
    before = float(resid @ resid) / features
    step = 1.0 / size
    lengths = np.diff(matrix.indptr).astype(np.float64)
    scratch = np.zeros(matrix.num_features, dtype=np.float64)
    swaps = evaluations = rounds = 0

    def try_swap(out: int, into: int) -> bool:
        nonlocal swaps, evaluations
        evaluations += 1
        gone, come = matrix.row(out), matrix.row(into)
        scratch[gone] -= step
        scratch[come] += step
        touched = np.concatenate((gone, come))
        change = scratch[touched]
        scratch[touched] = 0.0
        old = resid[touched]
        if float(np.sum((old + change) ** 2 - old**2)) >= -1e-15:
            return False
        resid[gone] -= step
        resid[come] += step
        inside[out], inside[into] = False, True
        swaps += 1
        return True

    limit = max_swaps if max_swaps is not None else 50 * rows
    while swaps < limit:
        rounds += 1
        sums = _row_sums(matrix, resid)
        gain_out = np.where(inside, -2 * step * sums + lengths * step * step, np.inf)
        gain_in = np.where(inside, np.inf, 2 * step * sums + lengths * step * step)
        k = min(candidates, size, rows - size)
        if k == 0:
            break
        outs = np.argpartition(gain_out, k - 1)[:k]
        ins = np.argpartition(gain_in, k - 1)[:k]
        grid = gain_out[outs][:, None] + gain_in[ins][None, :]
        accepted = 0
        used_out: set[int] = set()
        used_in: set[int] = set()
        for flat in np.argsort(grid, axis=None, kind="stable").tolist():
            a, b = divmod(flat, k)
            if grid[a, b] >= 0:
                break
            o, j = int(outs[a]), int(ins[b])
            if o in used_out or j in used_in:
                continue
            if try_swap(o, j):
                accepted += 1
                used_out.add(o)
                used_in.add(j)
                if swaps >= limit:
                    break
        if accepted:
            continue
        members, others = np.flatnonzero(inside), np.flatnonzero(~inside)
        outs_r = rng.choice(members, size=random_tries)
        ins_r = rng.choice(others, size=random_tries)
        if not any(try_swap(int(o), int(j)) for o, j in zip(outs_r, ins_r, strict=True)):
            break
    resid_exact = (
        np.bincount(
            np.concatenate([matrix.row(i) for i in np.flatnonzero(inside).tolist()]),
            minlength=matrix.num_features,
        )
        / size
        - target
    )
    after = float(resid_exact @ resid_exact) / features
    return ClimbResult(
        chosen=np.flatnonzero(inside),
        error_before=before,
        error_after=after,
        swaps=swaps,
        evaluations=evaluations,
        rounds=rounds,
        seconds=time.perf_counter() - started,
    )


def select_representative(
    records: Sequence[PoolRecord],
    size: int,
    question_id: str,
    audit: Audit,
    *,
    max_n: int = 10,
    seed: int = 0,
    allow_fewer: bool = False,
) -> list[PoolRecord]:
    from hyoka.refset.length import check_size

    audit.before = sum(r.count for r in records)
    kept: list[PoolRecord] = []
    stats: dict[str, dict[str, float | int]] = {}
    for set_name, group in group_by_set(records).items():
        if len(group) <= size:
            if len(group) < size and not allow_fewer:
                check_size(question_id, set_name, len(group), size, "representative-stage")
            kept.extend(group)
            continue
        climb = hill_climb(presence_matrix([r.text for r in group], max_n), size, seed=seed)
        chosen = set(climb.chosen.tolist())
        kept.extend(group[i] for i in sorted(chosen))
        audit.removed(
            f"set {set_name}: not in the representative {size}",
            [r for i, r in enumerate(group) if i not in chosen],
        )
        stats[set_name] = {
            "mse_before": climb.error_before,
            "mse_after": climb.error_after,
            "swaps": climb.swaps,
            "evaluations": climb.evaluations,
            "rounds": climb.rounds,
            "seconds": round(climb.seconds, 3),
        }
    audit.after = sum(r.count for r in kept)
    audit.stats = {"climb": stats}
    return sort_records(kept)
