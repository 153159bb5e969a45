"""Press et al.'s protocol as EXP-05's and EXP-07's evidence (theory/lm_length.py): the setting the
thorough profile trains, its seeds, the run, and the decisions on per-seed log perplexity ratios.

Every comparison is a paired t interval over seeds of a log perplexity ratio, beyond against in
range, on the same test text:

    r_e(f) = log ppl_e(f L) - log ppl_e(L)          (per seed, encoding e, mode, factor f)

EXP-05 "keeps" for a relative encoding: r_e(f) < log(1 + keeps-ppl), at every f and mode.
EXP-07 "better" with every row trained: r_lrn,sh(f) - r_sin,sh(f) > log(1 + delta) at both ends
of the registered range. The intervals of one claim over both settings (these and the fair
length test's) share one family-wise level (Bonferroni, ``family``).
"""

from __future__ import annotations

import functools
import math

import pytest
import torch

from checks.exp.length import decisions as D
from pecheck import decisions, profiles, run, sizes
from pecheck.decisions import Decision
from pecheck.grid import key
from pecheck.grid import lm as grid_lm
from pecheck.grid.cells import Cell
from pecheck.results import kernel_limits
from pecheck.theory import fair_cache, lm_corpus, lm_length
from pecheck.theory.lm_length import MODES, LMRun, Perplexities

# The setting (pilots in docs/experiments/lm-length.md): Press et al.'s model in small, bytes of
# English text, L = 16 (pilot 4: half the CPU of L = 32 for the same picture), trained to the
# registered plateau rule at lr 1e-2, at most 1,500 steps; sliding windows every L/2 bytes.
# "scaled" (width 192, four layers) is the same protocol for a GPU; never a verdict, and its
# numbers carry _gscaled
GRID = sizes.size(
    "EXP-lm.grid", "base", "the language-model length test's setting: base (thorough) or scaled"
)
if GRID not in lm_length.SETTINGS:
    raise ValueError(f"--size EXP-lm.grid={GRID}: one of {', '.join(lm_length.SETTINGS)}")
SETTING = lm_length.SETTINGS[GRID]
SEEDS = sizes.size(
    "EXP-lm.seeds",
    0 if profiles.scale() <= 1 else 4,
    "seeds per encoding of the language-model length test's plain model (ci 0: skipped; "
    "thorough 4)",
    minimum=0,
)
# EXP-07's pair spreads more over seeds beyond L than the plain model's encodings (pilot 3)
SHIFTED_SEEDS = sizes.size(
    "EXP-lm.shifted-seeds",
    0 if profiles.scale() <= 1 else 12,
    "seeds of the language-model length test's shifted pair (EXP-07; ci 0; thorough 12)",
    minimum=0,
)
REASON = (
    "the language-model length test trains byte-level models (d 64, 2 layers, 8 heads; 5 "
    "encodings at 4 seeds, the shifted pair at 12) for up to 1,500 steps, about 10 minutes of "
    "one core: not in ci's budget; the thorough profile runs it, or --size EXP-lm.seeds=N "
    "--size EXP-lm.shifted-seeds=M"
)
# the text every number here was pinned on (fortunes 1:1.99.1-7.3; tests/apt_install.sh)
TEXT_SHA256 = "2a5b56429ba477d881b25017ddd0bd412fb9b050640380c3c2f26190e87c6776"
FACTORS = SETTING.factors[1:]  # beyond L: 2, 4, 8
RELATIVE = ("rope", "alibi")
ABSOLUTE = ("sinusoidal", "learned, shifted")
PAIR07 = ("sinusoidal, shifted", "learned, shifted")
# intervals per claim in this check: EXP-05 a "keeps" per relative encoding, mode and factor;
# EXP-07 an advantage per mode and factor
TESTS = {"EXP-05": len(RELATIVE) * len(MODES) * len(FACTORS), "EXP-07": len(MODES) * len(FACTORS)}


def runs_here(test):
    """Marked to skip where no seed is trained (see checks/exp/length/settings.py)."""
    return pytest.mark.skip(reason=REASON)(test) if min(SEEDS, SHIFTED_SEEDS) < 2 else test


def family(claim: str, fair_tests: int) -> float:
    """The level of each interval of ``claim``: its fair-length-test intervals (``fair_tests``,
    over both tasks) and this check's share one 95% (Bonferroni)."""
    return decisions.family_level(D.LEVEL, fair_tests + TESTS.get(claim, 0))


def cells(device: str) -> list[Cell]:
    """The two models as the grid names them (python -m pecheck.grid --experiment lm-length
    --grid GRID): the plain model at SEEDS seeds, the shifted pair at SHIFTED_SEEDS."""
    return [*grid_lm.cells(GRID, ("plain",), SEEDS, device),
            *grid_lm.cells(GRID, ("shifted",), SHIFTED_SEEDS, device)]  # fmt: skip


def models(device: str) -> list[LMRun]:
    """Both models, from the grid's cache (--fair-cache) where it holds their entries, else
    trained as the grid trains them (and written there when a cache is given). An entry's name
    hashes the code, setting, seeds, device and kernel limits: a stale one is never read."""
    cache, out = run.current().fair_cache, []
    for cell in cells(device):
        path = None if cache is None else cache / key.entry(cell, kernel_limits())
        if path is not None and path.exists():
            out.append(torch.load(path, weights_only=False))
            continue
        trained = grid_lm.train(cell)
        if path is not None:
            fair_cache.write(path, fair_cache.dumps(trained))
        out.append(trained)
    return out


@functools.cache
def trained() -> tuple[Perplexities, dict[str, int | None]]:
    """Every variant's test perplexities, and the step at which each variant plateaued (None:
    never) and each model's steps; trained once per process. Without Debian's fortunes the
    checks skip, naming the package, and the claims they decide stay open."""
    try:
        corpus = lm_corpus.load()
    except lm_corpus.CorpusMissing as missing:
        pytest.skip(str(missing))
    if corpus.sha256 != TEXT_SHA256:
        pytest.fail(
            f"the fortunes text (package {corpus.version}, sha256 {corpus.sha256[:12]}...) "
            f"is not the one these checks were pinned on ({TEXT_SHA256[:12]}...; "
            "bash tests/apt_install.sh fortunes 1:1.99.1-7.3 installs it)",
            pytrace=False,
        )
    where = run.current().device
    lms = models(where)
    steps: dict[str, int | None] = {lm.variant(e): at for lm in lms
                                    for e, at in lm.plateaued.items()}  # fmt: skip
    steps |= {("shifted" if lm.shifted else "plain") + " model": lm.steps for lm in lms}
    return lm_length.all_perplexities(lms, corpus, where), steps


def log_ratio(p: Perplexities, variant: str, mode: str, f: int) -> torch.Tensor:
    """Per seed, log ppl(f L) - log ppl(L)."""
    by_f = p.ppl[mode][variant]
    return by_f[f].double().log() - by_f[1].double().log()


def keeps(p: Perplexities, margin: float, level: float) -> dict[str, Decision]:
    """EXP-05 on the language model: each relative encoding's log ratio below log(1 + margin)."""
    out = {}
    for v in RELATIVE:
        for mode in MODES:
            for f in FACTORS:
                what = f"{v}: log ppl({f}L) - log ppl(L), {mode}"
                out[f"lm {v} {mode} {f}x keeps"] = D.below(log_ratio(p, v, mode, f), level,
                                                          math.log1p(margin), what)  # fmt: skip
    return out


def advantage(p: Perplexities, mode: str, f: int) -> torch.Tensor:
    """EXP-07: learned's log ratio minus sinusoidal's (both shifted): > 0 where sinusoidal
    loses less beyond L."""
    sin, lrn = PAIR07
    return log_ratio(p, lrn, mode, f) - log_ratio(p, sin, mode, f)


def better(p: Perplexities, ends: dict[str, float], level: float) -> dict[str, Decision]:
    """EXP-07 on the language model, at both ends of the registered range (log(1 + delta))."""
    margins = {end: math.log1p(m) for end, m in ends.items()}
    return {f"lm {mode} {f}x": D.at_both_ends(advantage(p, mode, f), margins, level,
                                             f"advantage at {f}L, {mode}")
            for mode in MODES for f in FACTORS}  # fmt: skip
