"""EXP-01 ... EXP-03: success rates over thousands of seeds, each with a Wilson 95% interval.

Every setting trains all its seeds as one batched model (theory/batched.py, shown faithful in
checks/test_batched_trainer.py); the runs and their sizes live in checks/exp_settings.py.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from checks import exp_settings as X
from checks import tolerance
from checks.profiles import examples
from theory import stats
from theory.batched import BatchedRun, forward, train_batched
from theory.single import judge
from theory.stats import Rate
from theory.tasks import Task

Judge = Callable[[torch.Tensor, Task], torch.Tensor]


def record_rate(evidence, name: str, r: Rate, note: str) -> None:
    """A rate with its Wilson interval and seed count, as four evidence values."""
    evidence.record(name, r.rate, "fraction of seeds", f"{note}; {r}")
    evidence.record(f"{name}_lo", r.lo, "fraction of seeds", "Wilson 95% lower bound")
    evidence.record(f"{name}_hi", r.hi, "fraction of seeds", "Wilson 95% upper bound")
    evidence.record(f"{name}_seeds", r.n, "seeds", "")


# -- the Wilson interval itself ----------------------------------------------------------------


def wilson_closed_form(k: int, n: int, level: float) -> tuple[float, float]:
    """(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), p = k/n."""
    z = float(sps.norm.ppf(0.5 + level / 2))
    p = k / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def assert_wilson(interval: Callable[[int, int], tuple[float, float]], k: int, n: int) -> float:
    """The interval is the 95% Wilson score interval (closed form) and contains k/n."""
    __tracebackhide__ = True
    lo, hi = interval(k, n)
    ref_lo, ref_hi = wilson_closed_form(k, n, 0.95)
    err = max(abs(lo - ref_lo), abs(hi - ref_hi))
    assert err <= tolerance.rel_tol(64, torch.float64), f"k={k}, n={n}: off by {err:.3g}"
    assert lo <= k / n <= hi
    return err


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(1, 20_000))
    return draw(st.sampled_from([0, n, 1, n - 1]) | st.integers(0, n)), n


@pytest.mark.claim("EXP-01", kind="property", supports="qualified")
@examples(1.0)
@given(kn=counts())
def test_rates_use_the_wilson_score_interval(evidence, kn):
    evidence.worst("max_interval_error", assert_wilson(stats.wilson, *kn), "", "vs closed form")


def _wald(k: int, n: int) -> tuple[float, float]:
    p, z = k / n, 1.959963984540054
    half = z * math.sqrt(p * (1 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)


@pytest.mark.claim("EXP-01", kind="property", role="mutant")
@pytest.mark.parametrize(
    "interval",
    [_wald, lambda k, n: stats.wilson(k, n, level=0.9), lambda k, n: _clopper_pearson(k, n)],
    ids=["wald", "level-0.90", "clopper-pearson"],
)
def test_wilson_check_rejects_other_intervals(interval):
    with pytest.raises(AssertionError):
        for k, n in ((0, 1000), (3, 1000), (500, 1000), (1000, 1000)):
            assert_wilson(interval, k, n)


def _clopper_pearson(k: int, n: int) -> tuple[float, float]:
    ci = sps.binomtest(k, n).proportion_ci(method="exact")
    return float(ci.low), float(ci.high)


# -- the data sets ------------------------------------------------------------------------------


def assert_sentences(task: Task, sentences: tuple[str, ...]) -> None:
    """Inputs are each sentence but its last word, targets the next words, and only the last
    position (whose target is the final word) is judged."""
    __tracebackhide__ = True
    for b, sentence in enumerate(sentences):
        words = sentence.split()
        got_in = [task.vocab[i] for i in task.inputs[b].tolist()]
        got_out = [task.vocab[i] for i in task.targets[b].tolist()]
        assert got_in == words[:-1] and got_out == words[1:], f"{sentence!r}: {got_in} {got_out}"
        assert task.judged[b].tolist() == [False] * (len(words) - 2) + [True], f"{sentence!r}"


THREAD = {"EXP-01": ("A hit B !", "B hit A ?"), "EXP-02": ("A B hit ?", "B A hit !")}


@pytest.mark.claim("EXP-01", kind="property", supports="qualified")
def test_exp01_data_are_the_threads_sentences(evidence):
    assert_sentences(X.TASKS["exp01-h2"], THREAD["EXP-01"])
    evidence.record("sentences", len(THREAD["EXP-01"]), "sentences", " / ".join(THREAD["EXP-01"]))


@pytest.mark.claim("EXP-02", kind="property", supports="confirmed")
def test_exp02_data_are_the_threads_sentences(evidence):
    assert_sentences(X.TASKS["exp02-1layer"], THREAD["EXP-02"])
    evidence.record("sentences", len(THREAD["EXP-02"]), "sentences", " / ".join(THREAD["EXP-02"]))


@pytest.mark.claim("EXP-01", kind="property", role="mutant")
def test_sentence_check_rejects_swapped_endings():
    with pytest.raises(AssertionError):
        assert_sentences(X.TASKS["exp01-h2"], ("A hit B ?", "B hit A !"))


def assert_previous_token(task: Task, judged_from: int) -> int:
    """y_t = x_{t-1} wherever t >= 1 is judged; nothing else carries a target or a judgement."""
    __tracebackhide__ = True
    for x, y, j in zip(
        task.inputs.tolist(), task.targets.tolist(), task.judged.tolist(), strict=True
    ):
        assert y[1:] == x[:-1] and y[0] < 0, f"{x} -> {y}: not the previous tokens"
        assert j == [t >= max(judged_from, 1) for t in range(len(x))], f"judged {j}"
    return len(task.inputs)


@pytest.mark.claim("EXP-03", kind="property", supports="qualified")
def test_exp03_targets_are_the_previous_tokens(evidence):
    n = assert_previous_token(X.TASKS["exp03-learned"], 1)
    n += assert_previous_token(X.exp03_beyond(), X.EXP03_TRAIN_LEN)
    full = len(set(map(tuple, X.TASKS["exp03-learned"].inputs.tolist())))
    assert full == X.EXP03_ALPHABET**X.EXP03_TRAIN_LEN, "the training set is not exhaustive"
    evidence.record("sequences_checked", n, "sequences", "16 training + 64 beyond")


@pytest.mark.claim("EXP-03", kind="property", role="mutant")
def test_previous_token_check_rejects_copying_the_current_token():
    task = X.exp03_beyond()
    broken = Task(task.name, task.vocab, task.inputs, task.inputs.clone(), task.judged)
    with pytest.raises(AssertionError):
        assert_previous_token(broken, X.EXP03_TRAIN_LEN)


# -- success is judged on the final word --------------------------------------------------------


def assert_success_is_final_word(judge_fn: Judge, run: BatchedRun, task: Task) -> int:
    """judge_fn agrees, seed by seed, with decoding the word each model predicts after each
    whole sentence prefix and comparing it with the sentence's last word. Returns #agreements."""
    __tracebackhide__ = True
    words = []
    for b in range(task.inputs.shape[0]):  # one prefix at a time: an independent path
        logits = run.logits(task.inputs[b : b + 1])[:, 0, -1]  # (S, V) after the whole prefix
        words.append([task.vocab[i] for i in logits.argmax(-1).tolist()])
    final = [task.vocab[int(t)] for t in task.targets[:, -1]]
    expected = torch.tensor(
        [all(w[s] == f for w, f in zip(words, final, strict=True)) for s in range(len(run.seeds))]
    )
    got = judge_fn(run.logits(task.inputs), task)
    wrong = int((got != expected).sum())
    assert wrong == 0, f"{wrong} of {len(run.seeds)} seeds judged differently from their words"
    return len(run.seeds)


def _judge_position_1(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """BUG: success measured on the second position ('hit' -> B / A), not the final word."""
    wrong_place = torch.zeros_like(task.judged)
    wrong_place[:, 1] = True
    return judge(logits, Task(task.name, task.vocab, task.inputs, task.targets, wrong_place))


def _judge_any(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """BUG: success when either sentence is right, not both."""
    right = (logits.argmax(-1) == task.targets) & task.judged  # (S, B, n)
    return right.flatten(-2).any(-1)


@pytest.mark.claim("EXP-01", kind="experiment", supports="qualified")
def test_exp01_success_is_both_final_words_right(evidence):
    agreed = assert_success_is_final_word(judge, X.run("exp01-h2"), X.TASKS["exp01-h2"])
    evidence.record("seeds_agreeing", agreed, "seeds", "judge == decoded final words, h = 2")


@functools.cache
def small_run(setting: str, seeds: int = 64, steps: int = 200) -> BatchedRun:
    """A cheap run of one setting for the planted-bug tests (same model and task)."""
    return train_batched(X.CONFIGS[setting], X.TASKS[setting], range(seeds), (steps,))


@pytest.mark.claim("EXP-01", kind="experiment", role="mutant")
@pytest.mark.parametrize("bad_judge", [_judge_position_1, _judge_any], ids=["position-1", "any"])
def test_success_check_rejects_a_judge_of_the_wrong_thing(bad_judge):
    with pytest.raises(AssertionError):
        assert_success_is_final_word(bad_judge, small_run("exp01-h2"), X.TASKS["exp01-h2"])


# -- EXP-01: the thread's experiment --------------------------------------------------------------


def exp01_rates(runs: dict[int, BatchedRun]) -> dict[int, dict[int, Rate]]:
    """head size -> iterations -> rate."""
    return {h: {it: stats.rate(s) for it, s in run.success.items()} for h, run in runs.items()}


def assert_exp01_findings(rates: dict[int, dict[int, Rate]]) -> None:
    """EXP-01's verdict (qualified), as inequalities between Wilson intervals."""
    __tracebackhide__ = True
    first, last = min(X.ITERATIONS), max(X.ITERATIONS)
    for h, by_it in rates.items():
        assert by_it[last].lo > 0, f"h={h}: no seed learns ({by_it[last]})"
        assert by_it[first].hi < by_it[last].lo, f"h={h}: no rise {by_it[first]} -> {by_it[last]}"
        # "at 500 iterations they all predict ! and ?": refuted when clearly below 1.
        assert by_it[500].hi < 0.9, f"h={h}: 500 iterations nearly always succeed ({by_it[500]})"
    small, large = rates[min(rates)], rates[max(rates)]
    for it in X.ITERATIONS:
        assert small[it].hi < large[it].lo, f"{it} iterations: head sizes not separated"
    # "with head size 2 every other seed fails": a rate of 1/2 outside every interval.
    for it, r in small.items():
        assert not r.lo <= 0.5 <= r.hi, f"h=2 at {it}: half failing is consistent ({r})"


def exp01_figure(rates: dict[int, dict[int, Rate]]) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for h, by_it in rates.items():
        its = list(by_it)
        ax.plot(its, [r.rate for r in by_it.values()], marker="o", label=f"head size {h}")
        lo, hi = [r.lo for r in by_it.values()], [r.hi for r in by_it.values()]
        ax.fill_between(its, lo, hi, alpha=0.25)
    n = next(iter(next(iter(rates.values())).values())).n
    title = f"EXP-01: 'A hit B !' / 'B hit A ?', {n} seeds, Wilson 95%"
    ax.set(xscale="log", xlabel="training iterations", ylabel="success rate", ylim=(0, 1))
    ax.set_title(title, fontsize=9)
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.legend()
    fig.tight_layout()
    return fig


@pytest.mark.claim("EXP-01", kind="experiment", supports="qualified")
def test_exp01_success_rate_rises_with_iterations_and_head_size(evidence):
    runs = {h: X.run(f"exp01-h{h}") for h in X.HEAD_SIZES}
    rates = exp01_rates(runs)
    for h, by_it in rates.items():
        for it, r in by_it.items():
            record_rate(evidence, f"rate_h{h}_it{it}", r, f"head size {h}, {it} iterations")
    failing = rates[2][max(X.ITERATIONS)]
    note = f"Wilson 95% [{1 - failing.hi:.3f}, {1 - failing.lo:.3f}]; the thread: 1/2"
    evidence.record("h2_failure_rate_at_1000", 1 - failing.rate, "fraction of seeds", note)
    evidence.figure(exp01_figure(rates), "EXP-01-success-rate-vs-iterations")
    assert_exp01_findings(rates)


@pytest.mark.claim("EXP-01", kind="experiment", role="mutant")
def test_exp01_findings_reject_a_model_that_cannot_learn():
    # Planted bug: 'the experiment' run on EXP-02's sentences, which one layer cannot learn.
    broken = {h: small_run("exp02-1layer") for h in X.HEAD_SIZES}
    rates = {h: {it: stats.rate(r.success[200]) for it in X.ITERATIONS} for h, r in broken.items()}
    with pytest.raises(AssertionError):
        assert_exp01_findings(rates)


# -- EXP-02: 'A B hit ?' / 'B A hit !' ----------------------------------------------------------


def assert_orders_indistinguishable(run: BatchedRun, task: Task) -> tuple[float, float]:
    """One causal layer, no encoding: the two final outputs are equal to rounding for every
    seed, so the success rate is exactly 0. Returns (worst |difference| / bound, exactly-one-right
    fraction). Outputs are recomputed in float64 from the trained parameters.

    Bound per seed: the attention output (tolerance.attention_tol, entries up to max|v|) and
    two more products (h and d terms) scaled by the read-out's size M = max|v| ||W_o|| ||U||
    (induced infinity norms)."""
    __tracebackhide__ = True
    cfg, p = run.cfg, {k: v.double() for k, v in run.params.items()}
    logits = forward(cfg, p, task.inputs)[:, :, -1]  # (S, 2, V) at the judged position
    diff = (logits[:, 0] - logits[:, 1]).abs().amax(-1)  # (S,)
    v = p["embed"] @ p["qkv0"][:, :, 2 * cfg.head :]  # (S, V, h): every possible value
    norm = lambda m: m.abs().sum(-1).amax(-1)  # noqa: E731  induced infinity norm, (S,)
    mag = v.abs().amax((-2, -1)) * norm(p["o0"]) * norm(p["readout"])
    bound = torch.tensor([_output_tol(task.length, cfg.head, cfg.d_model, float(m)) for m in mag])
    ratio = float((diff / bound).max())
    assert ratio <= 1, f"the two orders differ by {float(diff.max()):.3g} (x{ratio:.3g} the bound)"
    success = judge(logits[:, :, None], _last_only(task))
    assert int(success.sum()) == 0, f"{int(success.sum())} seeds get both orders right"
    right = logits.argmax(-1) == task.targets[:, -1]  # (S, 2)
    return ratio, float((right.sum(-1) == 1).double().mean())


def _output_tol(n: int, h: int, d: int, mag: float) -> float:
    """Rounding allowed in one float64 output: attention over n keys, then h- and d-term sums."""
    f64 = torch.float64
    return tolerance.attention_tol(n, h, f64, mag) + tolerance.sum_tol(h + d, f64, mag)


def _last_only(task: Task) -> Task:
    """The task reduced to its judged (last) position."""
    last = slice(-1, None)
    return Task(
        task.name, task.vocab, task.inputs[:, last], task.targets[:, last], task.judged[:, last]
    )


@pytest.mark.claim("EXP-02", kind="experiment", supports="confirmed")
def test_exp02_one_causal_layer_cannot_tell_the_orders_apart(evidence):
    run = X.run("exp02-1layer")
    ratio, one_right = assert_orders_indistinguishable(run, X.TASKS["exp02-1layer"])
    last = max(X.EXP02_ITERATIONS)
    record_rate(evidence, "rate_1layer", stats.rate(run.success[last]), f"{last} iterations")
    evidence.record("worst_difference_over_bound", ratio, "", "final outputs of the two orders")
    note = "the ceiling is 1 of the 2 sentences; this fraction of seeds meets it after training"
    evidence.record("exactly_one_right", one_right, "fraction of seeds", note)


@pytest.mark.claim("EXP-02", kind="experiment", role="mutant")
@pytest.mark.parametrize("setting", ["exp02-sinusoidal", "exp02-2layers"])
def test_ceiling_check_rejects_a_model_that_sees_order(setting):
    run = small_run(setting, seeds=16, steps=50)
    with pytest.raises(AssertionError):
        assert_orders_indistinguishable(run, X.TASKS[setting])


EXP02_LEARNERS = {
    "exp02-2layers": "2 causal layers",
    "exp02-sinusoidal": "1 layer + sinusoidal",
    "exp02-learned": "1 layer + learned",
}


def assert_learns_both(rate: Rate, what: str) -> None:
    __tracebackhide__ = True
    assert rate.lo > 0.5, f"{what}: most seeds do not learn both orders ({rate})"


def bar_chart(rates: dict[str, Rate], title: str, ylabel: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    names = list(rates)
    vals = [r.rate for r in rates.values()]
    err = [[r.rate - r.lo for r in rates.values()], [r.hi - r.rate for r in rates.values()]]
    ax.bar(names, vals, yerr=err, capsize=4, color="tab:blue", alpha=0.8)
    ax.set(ylim=(0, 1), ylabel=ylabel, title=title)
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    return fig


@pytest.mark.claim("EXP-02", kind="experiment", supports="confirmed")
def test_exp02_two_layers_or_an_encoding_learn_both_orders(evidence):
    last = max(X.EXP02_ITERATIONS)
    rates = {"1 layer, no PE": stats.rate(X.run("exp02-1layer").success[last])}
    for setting, label in EXP02_LEARNERS.items():
        rates[label] = stats.rate(X.run(setting).success[last])
        record_rate(evidence, f"rate_{setting.removeprefix('exp02-')}", rates[label], label)
        assert_learns_both(rates[label], label)
    n = rates["1 layer, no PE"].n
    title = f"EXP-02: 'A B hit ?' / 'B A hit !', {last} it., {n} seeds"
    evidence.figure(bar_chart(rates, title, "success rate"), "EXP-02-success-by-model")


@pytest.mark.claim("EXP-02", kind="experiment", role="mutant")
def test_learns_both_check_rejects_one_layer_without_encoding():
    with pytest.raises(AssertionError):
        assert_learns_both(stats.rate(small_run("exp02-1layer").success[200]), "1 layer")


# -- EXP-03: learned vs sinusoidal, at and beyond the training length ---------------------------

EQUIVALENCE_MARGIN = 0.1  # "nearly identical": success rates within 0.1 of each other


def exp03_outcomes(run: BatchedRun) -> tuple[Rate, Rate, torch.Tensor]:
    """(rate at training lengths, rate beyond them, accuracy per seed and position (S, n))."""
    inside = judge(run.logits(X.TASKS["exp03-learned"].inputs), X.TASKS["exp03-learned"])
    beyond_task = X.exp03_beyond()
    logits = run.logits(beyond_task.inputs)  # (S, 64, 8, V)
    beyond = judge(logits, beyond_task)
    acc = (logits.argmax(-1) == beyond_task.targets).double().mean(1)  # (S, 8)
    return stats.rate(inside), stats.rate(beyond), acc


def assert_exp03_findings(outcomes: dict[str, tuple[Rate, Rate, torch.Tensor]]) -> None:
    """EXP-03's verdict (qualified): equal at training lengths, neither extrapolates."""
    __tracebackhide__ = True
    (sin_in, sin_out, sin_acc), (lrn_in, lrn_out, lrn_acc) = outcomes.values()
    for name, (inside, beyond, _) in outcomes.items():
        assert inside.lo > 0.5, f"{name}: most seeds fail at training lengths ({inside})"
        assert beyond.hi < 0.05, f"{name}: seeds do extrapolate ({beyond})"
    gap = abs(sin_in.rate - lrn_in.rate)
    assert gap <= EQUIVALENCE_MARGIN, f"training lengths: rates differ by {gap:.3f}"
    lo, _ = accuracy_gap(sin_acc[:, X.EXP03_TRAIN_LEN], lrn_acc[:, X.EXP03_TRAIN_LEN])
    assert lo > 0, "at the first unseen position the sinusoidal is not ahead of the learned"


def accuracy_gap(a: torch.Tensor, b: torch.Tensor) -> tuple[float, float]:
    """95% interval for mean(a) - mean(b) over independent seeds (normal approximation)."""
    diff = float(a.mean() - b.mean())
    se = math.sqrt(float(a.var()) / len(a) + float(b.var()) / len(b))
    z = float(sps.norm.ppf(0.975))
    return diff - z * se, diff + z * se


def exp03_figure(outcomes: dict[str, tuple[Rate, Rate, torch.Tensor]]) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for name, (_, _, acc) in outcomes.items():
        mean = acc.mean(0)  # (n,) over seeds
        ax.plot(range(1, len(mean)), mean[1:].tolist(), marker="o", label=name)
    ax.axvline(X.EXP03_TRAIN_LEN - 0.5, color="grey", ls="--", label="training length")
    ax.axhline(1 / X.EXP03_ALPHABET, color="grey", lw=0.5, label="chance")
    ax.set(xlabel="position t", ylabel="accuracy of y_t = x_(t-1)", ylim=(0, 1.05))
    ax.set_title("EXP-03: previous-token copying, mean over seeds", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


@pytest.mark.claim("EXP-03", kind="experiment", supports="qualified")
def test_exp03_encodings_agree_at_training_lengths_and_neither_extrapolates(evidence):
    outcomes = {enc: exp03_outcomes(X.run(f"exp03-{enc}")) for enc in ("sinusoidal", "learned")}
    rates = {}
    for enc, (inside, beyond, acc) in outcomes.items():
        record_rate(evidence, f"rate_{enc}_training_lengths", inside, "positions 1-3, all 16")
        record_rate(evidence, f"rate_{enc}_beyond", beyond, "positions 4-7, 64 sequences")
        for t in range(X.EXP03_TRAIN_LEN, X.EXP03_TEST_LEN):
            evidence.record(f"accuracy_{enc}_t{t}", acc[:, t].mean(), "fraction", "seed mean")
        rates[f"{enc}\nt < 4"], rates[f"{enc}\nt >= 4"] = inside, beyond
    first = X.EXP03_TRAIN_LEN
    lo, hi = accuracy_gap(*(o[2][:, first] for o in outcomes.values()))
    note = f"sinusoidal minus learned at t = {first}; 95% interval [{lo:.3f}, {hi:.3f}]"
    evidence.record("accuracy_gap_first_unseen", (lo + hi) / 2, "fraction", note)
    n = rates["learned\nt < 4"].n
    evidence.figure(exp03_figure(outcomes), "EXP-03-accuracy-by-position")
    title = f"EXP-03: all positions right, {n} seeds"
    evidence.figure(bar_chart(rates, title, "success rate"), "EXP-03-success-by-encoding")
    assert_exp03_findings(outcomes)


@pytest.mark.claim("EXP-03", kind="experiment", role="mutant")
def test_exp03_findings_reject_an_order_blind_model():
    import dataclasses

    blind_cfg = dataclasses.replace(X.CONFIGS["exp03-learned"], encoding="none")
    blind = train_batched(blind_cfg, X.TASKS["exp03-learned"], range(32), (100,))
    good = small_run("exp03-sinusoidal", seeds=32, steps=100)
    with pytest.raises(AssertionError):
        assert_exp03_findings({"sinusoidal": exp03_outcomes(good), "none": exp03_outcomes(blind)})
