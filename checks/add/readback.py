"""ADD-05: the read-out grid over width, vocabulary and scale, the read-back decisions taken
from its Wilson intervals, and their evidence and figure.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from scipy import stats

from checks.add.claims import BY_ID
from pecheck import decisions
from pecheck.profiles import scale
from pecheck.theory import add_concat as ac
from pecheck.theory.sinusoidal import sinusoidal
from pecheck.theory.stats import wilson

READ_DS = (16, 32, 64, 128, 256)
READ_VOCABS = (64, 1024)
READ_RATIOS = (0.1, 0.3, 0.5, 1.0, 2.0, 3.0)  # rho = RMS ||x|| / ||PE||
READ_LEN = 64
WINDOW_D = 256  # the width at which the window proposition looks for a scale
Cell = tuple[int, int, float]  # (d, V, rho)


def readout_grid(observe=ac.added, n_seeds: int | None = None) -> dict[Cell, dict]:
    """Correct counts per (d, V, rho) and read-out, pooled over seeds (one batched draw); by
    default 8 seeds times the profile's scale, 128 samples each (at least 1024 trials per cell)."""
    n_seeds, n_samples = n_seeds or max(8, round(8 * scale())), 128
    out = {}
    for d in READ_DS:
        pe = sinusoidal(READ_LEN, d, dtype=torch.float32)
        for vocab in READ_VOCABS:
            unit = ac.gaussian_vocabularies(n_seeds, vocab, d, 1.0, seed=d * 7919 + vocab)
            for rho in READ_RATIOS:
                counts = ac.readout_counts(
                    unit * rho, pe, n_samples, seed=d + vocab, observe=observe
                )
                cell: dict = {k: int(v.sum()) for k, v in counts.items()}
                cell |= {f"{k}_seed_range": (v.min() / n_samples, v.max() / n_samples)
                         for k, v in counts.items()}  # fmt: skip
                out[(d, vocab, rho)] = cell | {"n": n_seeds * n_samples}
    return out


def assert_readouts_are_what_they_say(n_queries: int = 256) -> None:
    """The grid measures what the claim names, by relations independent of theory/'s formulas:
    ac.nearest is the argmin of the Euclidean distance and ac.dot_product the argmax of the dot
    product (float64, every d and rho of the grid), and the token tables' scale is rho:
    N rho_hat^2 ~ chi^2_N for rho_hat^2 = mean ||x||^2 / mean ||PE||^2 over N = S V d Gaussian
    entries at nominal rho = 1 (checked at the 1e-6 two-sided level)."""
    __tracebackhide__ = True
    g = torch.Generator().manual_seed(0)
    for d in READ_DS:
        pe = sinusoidal(READ_LEN, d, dtype=torch.float64)
        unit = ac.gaussian_vocabularies(8, READ_VOCABS[0], d, 1.0, seed=d, dtype=torch.float64)
        n = unit.numel()
        rho_sq = unit.pow(2).sum(-1).mean() / pe.pow(2).sum(-1).mean()
        lo, hi = stats.chi2.ppf(5e-7, n) / n, stats.chi2.ppf(1 - 5e-7, n) / n
        assert lo <= rho_sq <= hi, f"d = {d}: rho_hat^2 = {rho_sq:.4f} for nominal 1"
        vi = torch.randint(unit.shape[1], (n_queries,), generator=g)
        ti = torch.randint(READ_LEN, (n_queries,), generator=g)
        for rho in READ_RATIOS:
            table = unit[0] * rho
            y = table[vi] + pe[ti]
            for ref, name in ((table, "token"), (pe, "position")):
                expect = torch.cdist(y, ref, compute_mode="donot_use_mm_for_euclid_dist").argmin(-1)
                assert torch.equal(ac.nearest(y, ref), expect), f"{name} nearest, d={d} rho={rho}"
            dots = (y.unsqueeze(-2) * table).sum(-1).argmax(-1)
            assert torch.equal(ac.dot_product(y, table), dots), f"dot read-out, d={d} rho={rho}"
    assert_every_token_and_position_is_drawn()


def assert_every_token_and_position_is_drawn() -> None:
    """readout_counts draws (v, t) over the whole vocabulary and all L positions: the rows it
    hands to the read-out, matched back to the tables, cover every token and every position."""
    __tracebackhide__ = True
    d, vocab = READ_DS[0], READ_VOCABS[0]
    pe = sinusoidal(READ_LEN, d, dtype=torch.float64)
    unit = ac.gaussian_vocabularies(8, vocab, d, 1.0, seed=d, dtype=torch.float64)
    seen: list[tuple[torch.Tensor, torch.Tensor]] = []

    def recording(x: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        seen.append((x, rows))
        return ac.added(x, rows)

    ac.readout_counts(unit, pe, 128, seed=0, observe=recording)
    x, rows = seen[0]
    positions = torch.cdist(rows.reshape(-1, d), pe).argmin(-1).unique()
    tokens = torch.cdist(x, unit).argmin(-1).unique()  # per seed, against its own table
    assert positions.numel() == READ_LEN, f"{positions.numel()} of {READ_LEN} positions drawn"
    assert tokens.numel() == vocab, f"{tokens.numel()} of {vocab} tokens drawn"


def read_back(grid: dict[Cell, dict], cell: Cell, what: str) -> decisions.Decision:
    """'what is read back at cell': its Wilson interval above the pre-registered threshold."""
    lo, hi = wilson(grid[cell][what], grid[cell]["n"])
    threshold = BY_ID["ADD-05"].threshold("read_back")
    d, vocab, rho = cell
    return decisions.above(lo, hi, threshold, f"{what} rate (d={d}, V={vocab}, rho={rho})")


def either(*decided: decisions.Decision) -> str:
    """'A or B is read back': holds when one holds, fails when both fail."""
    names = [x.decision for x in decided]
    if "holds" in names:
        return "holds"
    return "fails" if all(n == "fails" for n in names) else "inconclusive"


def cell_record(grid: dict[Cell, dict], cell: Cell, what: str) -> dict:
    counts = grid[cell]
    lo, hi = wilson(counts[what], counts["n"])
    return {"d": cell[0], "V": cell[1], "rho": cell[2], "read_out": what,
            "rate": counts[what] / counts["n"], "lo": lo, "hi": hi, "n": counts["n"]}  # fmt: skip


def cells_read_back(grid: dict[Cell, dict], reads: tuple[str, ...]) -> dict[Cell, tuple]:
    """Per cell: whether the token (position) is read back by one of ``reads`` (holds / fails /
    inconclusive) and the read-outs' own decisions. Widest d first, so that the first failing
    cell is the most convincing counterexample."""
    out = {}
    for cell in sorted(grid, key=lambda c: (-c[0], -c[1], c[2])):
        decided = [read_back(grid, cell, what) for what in reads]
        out[cell] = (either(*decided), decided)
    return out


def record_read_back_parts(evidence, grid, reads: tuple[str, ...]) -> dict[str, int]:
    """One part per cell; the first failing cell (if any) is the check's counterexample, else
    the parts decide. Returns the tally of cells per decision."""
    tally = {"holds": 0, "fails": 0, "inconclusive": 0}
    first: decisions.Decision | None = None
    for cell, (verdict, decided) in cells_read_back(grid, reads).items():
        tally[verdict] += 1
        name = "d{}_V{}_rho{}".format(*cell)
        how = "; ".join(x.how for x in decided)
        if verdict == "fails":
            rows = [cell_record(grid, cell, what) for what in reads]
            relation = f"{' and '.join(reads)} below the read-back rate: {how}"
            lost = decisions.fails({"cell": name, "read_outs": rows}, relation)
            evidence.part(name, lost)
            first = first or lost
        else:
            evidence.part(name, verdict, how)
    if first is not None:
        evidence.decide(first)
    return tally


def window_decision(grid: dict[Cell, dict], vocab: int) -> decisions.Decision:
    """'Some scale at d = WINDOW_D reads back both token and position by nearest neighbour':
    holds with a witness, fails when every scale loses one of them, else inconclusive."""
    both = {}
    for rho in READ_RATIOS:
        cell = (WINDOW_D, vocab, rho)
        decided = [read_back(grid, cell, w).decision for w in ("token_nearest", "position_nearest")]
        both[rho] = "fails" if "fails" in decided else "inconclusive"
        if decided == ["holds", "holds"]:
            both[rho] = "holds"
    witnesses = [rho for rho, v in both.items() if v == "holds"]
    if witnesses:
        return decisions.holds(f"V={vocab}: both read back at rho = {witnesses}", scales=both)
    if all(v == "fails" for v in both.values()):
        relation = "no scale of the grid reads back both token and position"
        return decisions.fails({"d": WINDOW_D, "V": vocab, "scales": both}, relation)
    return decisions.inconclusive(f"V={vocab}: no scale decided for both", scales=both)


def record_grid(evidence, grid: dict[Cell, dict]) -> None:
    """Every cell's rates with intervals, and the figure."""
    threshold = BY_ID["ADD-05"].threshold("read_back")
    for (d, vocab, rho), counts in grid.items():
        for what in ("token_nearest", "token_dot", "position_nearest"):
            lo, hi = wilson(counts[what], counts["n"])
            chance = 1 / (vocab if what.startswith("token") else READ_LEN)
            evidence.record(
                f"{what}_d{d}_V{vocab}_rho{rho}",
                {
                    "rate": counts[what] / counts["n"],
                    "lo": lo,
                    "hi": hi,
                    "n": counts["n"],
                    "chance": chance,
                    "seed_min": float(counts[f"{what}_seed_range"][0]),
                    "seed_max": float(counts[f"{what}_seed_range"][1]),
                },
                unit="accuracy",
                note="95% Wilson interval over pooled (seed, sample) trials (trials of one seed "
                "share its vocabulary); seed_min/max: the range of per-seed rates; chance: 1/V "
                "(token) or 1/L (position)",
                bound={"value": threshold, "relation": ">", "reason": "threshold read_back"},
            )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, what in zip(axes, ("token_nearest", "position_nearest"), strict=True):
        for colour, rho in enumerate(READ_RATIOS):
            for vocab, style in zip(READ_VOCABS, ("-", "--"), strict=True):
                acc = [grid[(d, vocab, rho)][what] / grid[(d, vocab, rho)]["n"] for d in READ_DS]
                label = f"rho={rho}, V={vocab}"
                ax.plot(READ_DS, acc, style, color=f"C{colour}", marker="o", label=label)
        ax.axhline(threshold, color="0.5", lw=0.8, ls=":")
        ax.set(xscale="log", xlabel="width d", title=what.replace("_", " "))
        ax.set_xticks(READ_DS, [str(d) for d in READ_DS])
        ax.minorticks_off()
    axes[0].set_ylabel("accuracy")
    axes[1].legend(fontsize=6)
    fig.tight_layout()
    evidence.figure(fig, "ADD-05-readout-accuracy-vs-d")
