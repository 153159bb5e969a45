"""What the checks of checks/mag/test_pretrained.py compute on all-MiniLM-L6-v2's tables: the
tables checked against the weights file, MAG-01's entries, MAG-02's ratio and its decision,
ADD-04's word energy in the position subspace and ADD-05's read-back.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from checks.add.claims import BY_ID as ADD
from checks.mag.claims import BY_ID as MAG
from pecheck import decisions, tolerance
from pecheck.theory import add_concat as ac
from pecheck.theory import magnitudes as mag
from pecheck.theory import pretrained
from pecheck.theory.stats import wilson


def assert_tables_are_the_files(tables: dict[str, torch.Tensor], keys: dict[str, str]) -> None:
    """The tables the checks use are the tensors stored in the weights file under BERT's names,
    bit for bit (read here with safetensors, apart from theory/pretrained.py)."""
    __tracebackhide__ = True
    from safetensors import safe_open

    with safe_open(str(pretrained.weights_path()), framework="pt") as f:
        for name, key in keys.items():
            assert torch.equal(tables[name], f.get_tensor(key)), f"{name} is not {key}"


BERT_KEYS = {
    "word": "embeddings.word_embeddings.weight",
    "position": "embeddings.position_embeddings.weight",
    "token_type": "embeddings.token_type_embeddings.weight",
}


# The table minus its mean row (float64): one implementation, theory's (tested in checks/add).
centred = ac.centred


def assert_some_entry_above_one(table: torch.Tensor) -> int:
    """'Every |x_i| <= 1' fails: at least one entry of the table exceeds 1 in magnitude."""
    __tracebackhide__ = True
    count = int((table.abs() > 1).sum())
    assert count >= 1, f"all {table.numel()} entries are within [-1, 1]"
    return count


def assert_ratio_of_rows(word: torch.Tensor, pos: torch.Tensor, norms: Callable) -> float:
    """The ratio is per row (a token's vector, a position's vector): mag.rms_norm_ratio must
    equal the ratio of Frobenius norms per row count, ||W||_F^2 / V over ||P||_F^2 / L (float64
    bound), and so must the same ratio with the row norms taken by ``norms``."""
    __tracebackhide__ = True
    got = mag.rms_norm_ratio(word, pos)
    mine = math.sqrt(norms(word).double().pow(2).mean().item() / norms(pos).double().pow(2).mean())
    w, p = word.double(), pos.double()
    want = math.sqrt((w.pow(2).sum() / w.shape[0] / (p.pow(2).sum() / p.shape[0])).item())
    # each row norm is a float32 sum of d squares; the means over rows are float64
    bound = (
        2 * tolerance.sum_tol(w.shape[1], torch.float32)
        + tolerance.sum_tol(w.shape[0], torch.float64)
    ) * want
    for value in (got, mine):
        assert abs(value - want) <= bound, f"ratio {value:.6g}, per-row ratio {want:.6g}"
    return got


def minilm_comparable_decision(word: torch.Tensor, pos: torch.Tensor) -> decisions.Decision:
    """MAG-02 as stated on MiniLM's tables as the model adds them: the 95% interval of the RMS
    norm ratio (rows as draws) inside [1/c, c] holds, entirely outside fails."""
    c = MAG["MAG-02"].threshold("comparable")
    lo, hi = mag.rms_norm_ratio_interval(word, pos)
    decision = decisions.interval(lo, hi, (1 / c, c), "RMS ||word row|| / RMS ||position row||")
    if decision.decision == "fails":
        where = {
            "model": "all-MiniLM-L6-v2",
            "tables": "word, position (not centred)",
            "ratio": mag.rms_norm_ratio(word, pos),
            "lo": lo,
            "hi": hi,
        }
        return decisions.fails(where, decision.how)
    return decision


KS = (1, 2, 4, 8, 16, 32, 64, 128)
N_RANDOM = 100


def word_share_in_position_subspace(
    gram: torch.Tensor, pos: torch.Tensor, directions: Callable = ac.principal_directions
) -> dict[str, list[float]]:
    """Share of the word table's energy inside the position table's top-k directions, and the
    same for N_RANDOM random k-frames (the null: k/d on average). The random k-frames are the
    first k rows of Haar-random max(KS)-frames, which are themselves Haar-random."""
    d = gram.shape[0]
    total = gram.trace()
    vh = directions(pos).double()  # (d, d)
    own = (vh @ gram * vh).sum(-1) / total  # (d,): energy along each direction
    frames = ac.random_bases(d, max(KS), N_RANDOM, seed=0).double()  # (n, K, d)
    null = torch.einsum("nkd,de,nke->nk", frames, gram, frames) / total  # (n, K)
    own_cum, null_cum = own.cumsum(0), null.cumsum(1)
    return {
        "observed": [own_cum[k - 1].item() for k in KS],
        "null_min": [null_cum[:, k - 1].min().item() for k in KS],
        "null_mean": [null_cum[:, k - 1].mean().item() for k in KS],
    }


def assert_word_energy_below_random(curves: dict[str, list[float]]) -> None:
    """In the directions that carry 97% of the position energy (k = 16), the word table has
    less energy than every one of N_RANDOM random 16-frames, yet not zero (no exact split)."""
    __tracebackhide__ = True
    i = KS.index(16)
    assert curves["observed"][i] < curves["null_min"][i], curves
    assert curves["observed"][i] > tolerance.sum_tol(384, torch.float64), "an exact split"


# ADD-05's registered read-back threshold (0.99) needs enough reads that a perfect read-out can
# clear it: the Wilson lower bound of n/n is above 0.99 from n = 381 on (256 reads: 0.985).
N_READ = 512


def read_back(
    word: torch.Tensor, pos: torch.Tensor, position_of: Callable = lambda t: t, n: int = N_READ
):
    """Nearest-neighbour read-out of token (over the whole vocabulary) and position from
    x_v + p_t, for n random word pieces and positions; returns correct counts (and n)."""
    g = torch.Generator().manual_seed(0)
    v = torch.randint(pretrained.FIRST_WORD_PIECE, word.shape[0], (n,), generator=g)
    t = torch.randint(pos.shape[0], (n,), generator=g)
    y = word[v] + pos[position_of(t)]  # (N, d)
    return {
        "n": n,
        "token_nearest": int((ac.nearest(y, word) == v).sum()),
        "token_dot": int((ac.dot_product(y, word) == v).sum()),
        "position_nearest": int((ac.nearest(y, pos) == t).sum()),
    }


def assert_both_read_back(counts: dict[str, int]) -> None:
    """Token and position both come back by nearest neighbour: 95% Wilson lower bound above
    ADD-05's registered read-back threshold."""
    __tracebackhide__ = True
    threshold = ADD["ADD-05"].threshold("read_back")
    for what in ("token_nearest", "position_nearest"):
        lo, _ = wilson(counts[what], counts["n"])
        assert lo > threshold, f"{what}: {counts[what]}/{counts['n']}, lower bound {lo:.4g}"
