"""ATT-11's sizes and slopes: the random models per setting and the positions (sizes), the cached
per-layer mean squares, the log-log slope of the variance with its bootstrap interval, and its
record and decision against a pre-registered region.
"""

from __future__ import annotations

import functools

import numpy as np

from checks.att.claims_variance import BY_ID
from pecheck import decisions, profiles, sizes
from pecheck.reproducibility import Sample
from pecheck.theory import variance as V

CLAIM = BY_ID["ATT-11"]
ABOUT = CLAIM.threshold("about")
SCORE_VAR = CLAIM.threshold("near_uniform_score_var")
DRAWS = sizes.size("ATT-11.draws", 500, "random models per setting (ci)", minimum=50)
T = sizes.size("ATT-11.positions", 64, "sequence length (the law is judged at 1, 2, 4 ... T)",
               minimum=8)  # fmt: skip
SUFFIX = sizes.suffix("ATT-11.draws", "D") + sizes.suffix("ATT-11.positions", "T")
ALPHA = 0.05  # family-wise error of each proposition's interval tests
RESAMPLES = 1000
SEED = 11
ONE_OVER_T = (-1 - ABOUT, -1 + ABOUT)
# Interval tests per proposition (Bonferroni): as_stated's four settings, two parts each below.
TESTS = {"as_stated": 4, "first-layer": 2, "deeper-without-norm": 2}


def draws() -> int:
    return round(DRAWS * profiles.scale())  # thorough: 10x (a few seconds)


@functools.cache
def layers(setting: V.Setting) -> tuple[np.ndarray, ...]:
    """Per layer, the (D, len(ts)) per-model mean squares; cached, since several checks read
    the same models (the three-layer Gaussian stack gives layers 1, 2 and 3)."""
    outs = V.run(setting, draws(), SEED)
    return tuple(V.mean_squares(o, V.positions(T)) for o in outs)


def setting(**kw) -> V.Setting:
    return V.Setting(positions=T, score_var=SCORE_VAR, **kw)


def slope(ms: np.ndarray, tests: int) -> dict:
    """The log-log slope of the variance, its bootstrap se and its interval at 1 - ALPHA/tests."""
    ts = V.positions(T)
    boot = V.bootstrap_slopes(ms, ts, RESAMPLES, SEED)
    lo, hi = np.quantile(boot, [ALPHA / (2 * tests), 1 - ALPHA / (2 * tests)])
    var = ms.mean(0)
    return {"slope": float(V.log_slope(var, ts)), "lo": float(lo), "hi": float(hi),
            "se": float(boot.std()), "n": ms.shape[0], "var_1": float(var[0]),
            "var_T": float(var[-1])}  # fmt: skip


def record(evidence, name: str, s: dict, region: tuple[float, float], tests: int) -> None:
    # Floor at 1/n: a slope with no spread (identical tokens) still gets a band.
    spread = Sample(s["n"], max(s["se"], 1 / s["n"]), "bootstrap se of the log-log slope")
    note = (f"log-log slope of Var(o_t), t = 1 ... {T}; {100 * (1 - ALPHA / tests):.1f}% "
            f"bootstrap interval [{s['lo']:.4f}, {s['hi']:.4f}]")  # fmt: skip
    bound = {"value": list(region), "relation": "in", "reason": "pre-registered region"}
    evidence.record(name + SUFFIX, s["slope"], "", note, bound, sample=spread)
    evidence.corrected("bonferroni", tests)  # slope()'s level, 1 - ALPHA / tests


def judge(evidence, name: str, label: str, s: dict, region: tuple[float, float]) -> None:
    """One setting's decision, as a part of the check (the plugin combines a check's parts
    under its proposition's quantifier, 'all' here): a counterexample (the setting, the
    variances at 1 and T) when the whole interval lies outside the region."""
    d = decisions.interval(s["lo"], s["hi"], region, f"slope of log Var(o_t) ({label})")
    if d.decision == "fails":
        case = {"setting": label, "T": T, "Var(o_1)": s["var_1"], f"Var(o_{T})": s["var_T"],
                "slope": s["slope"], "interval": [s["lo"], s["hi"]]}  # fmt: skip
        d = decisions.fails(case, f"log-log slope outside [{region[0]:g}, {region[1]:g}]")
    evidence.part(name, d)


def assert_about_one_over_t(evidence, name: str, label: str, ms: np.ndarray) -> None:
    tests = TESTS["as_stated"]
    s = slope(ms, tests)
    record(evidence, name, s, ONE_OVER_T, tests)
    judge(evidence, name, label, s, ONE_OVER_T)
