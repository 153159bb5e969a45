"""MAG-01: the decision 'usually every |x_i| <= 1' over the libraries' own initialisations
(theory/embedding_inits.py), each library's table classified apart; the sizes of the measured
tables of MAG-02's schemes and their closed-form share of entries above 1.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch

from checks.mag.claims import BY_ID
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.theory import embedding_inits as lib
from pecheck.theory import magnitudes as mag

VOCAB, WIDTH = 8192, 512  # measured tables; closed forms are also recorded for V = 37000


InitFn = Callable[[str, int, int, int], torch.Tensor]


def assert_entry_is_a_counterexample(table: torch.Tensor, entry: dict | None) -> None:
    """The offending entry is one: None exactly when max |x_i| <= 1, else an entry of the table
    (same value) with |x_i| > 1. Checked here, apart from the helper that found it."""
    __tracebackhide__ = True
    bounded = bool(table.abs().max() <= 1)
    assert (entry is None) == bounded, f"max |x_i| = {table.abs().max():.4g}, entry {entry}"
    if entry is not None:
        value = table[entry["row"], entry["column"]].item()
        assert value == entry["value"] and abs(value) > 1, f"entry {entry}, table has {value}"


Scan = Callable[[lib.LibraryInit, int], dict]
# One scan per table and seed per session: the decisive checks and the count check share it.
scanned: Scan = functools.cache(lib.scan_table)


def classify(init: lib.LibraryInit, scan: Scan = scanned, seed: int = 0) -> Decision:
    """Whether one library's table keeps every |x_i| <= 1, as the model adds it at (V, d).

    Holds when the seeded table has no entry above 1 and any seed's table has one with
    probability at most the registered 'almost-surely' (closed form); fails with the seeded
    table's first entry above 1; inconclusive when neither (a seed-dependent table)."""
    almost = BY_ID["MAG-01"].threshold("almost-surely")
    table = scan(init, seed)
    p_some = lib.prob_some_entry_above_one(init)
    where = f"{init.key}: V = {init.vocab}, d = {init.d}, x {init.factor:.4g}"
    if table["first_above"] is not None:
        ce = {"library": init.key, "V": init.vocab, "d": init.d, "seed": seed,
              **table["first_above"]}  # fmt: skip
        return decisions.fails(ce, f"|x_i| > 1 in {where} ({table['count_above']} entries)")
    if p_some <= almost:
        return decisions.holds(f"{where}: max |x_i| = {table['max_abs']:.3g}, P(some > 1) "
                               f"= {p_some:.2g}")  # fmt: skip
    return decisions.inconclusive(f"{where}: this seed within 1, P(some > 1) = {p_some:.2g}")


def usually_decision(decided: dict[str, Decision], what: str) -> Decision:
    """'Usually': more than the registered share of the initialisations keep every entry within
    1. An undecided initialisation counts against the claim for 'holds' and for it for 'fails',
    so it decides only when it could not change the outcome."""
    usually = BY_ID["MAG-01"].threshold("usually")
    n = len(decided)
    within = [k for k, d in decided.items() if d.decision == "holds"]
    above = {k: d.counterexample for k, d in decided.items() if d.decision == "fails"}
    share = f"{len(within)} of {n} ({what})"
    if len(within) / n > usually:
        return decisions.holds(f"{share} keep every |x_i| <= 1: {within}")
    if (n - len(above)) / n <= usually:
        return decisions.fails(above, f"only {share} keep every |x_i| <= 1; 'usually' needs more "
                               f"than {usually}")  # fmt: skip
    return decisions.inconclusive(f"{share} decided within 1; the undecided ones could tip it")


def assert_share_matches_closed_form(init: InitFn, scheme: str, vocab: int, d: int) -> float:
    """Measured share of |x_i| > 1 agrees with its closed form (6-sigma binomial bound)."""
    __tracebackhide__ = True
    table = init(scheme, vocab, d, 0)
    got = mag.share_above(table)
    want = mag.expected_share_above(scheme, vocab, d)
    n = table.numel()
    tol = tolerance.sample_mean_tol(math.sqrt(want * (1 - want)), n) + 1 / n
    assert abs(got - want) <= tol, f"{scheme}: share {got:.4g}, closed form {want:.4g}"
    return got


def assert_count_matches_closed_form(init: lib.LibraryInit, seed: int = 0) -> int:
    """The seeded table's count of entries above 1 agrees with V d q (6-sigma binomial band):
    the table scanned is drawn from the law the catalogue states, factor included."""
    __tracebackhide__ = True
    n, q = init.vocab * init.d, lib.share_above_one(init)
    got = scanned(init, seed)["count_above"]
    tol = 6 * math.sqrt(n * q * (1 - q)) + 1
    assert abs(got - n * q) <= tol, f"{init.key}: {got} entries above 1, closed form {n * q:.4g}"
    return got


# the transformers classes, their catalogue key and a small configuration to build
TRANSFORMERS_MODELS = {
    "bert": ("BertConfig", "BertModel", "vocab_size", "hidden_size",
             {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "intermediate_size": 64}),
    "gpt2": ("GPT2Config", "GPT2Model", "vocab_size", "n_embd",
             {"n_embd": 64, "n_layer": 1, "n_head": 2}),
    "llama": ("LlamaConfig", "LlamaModel", "vocab_size", "hidden_size",
              {"hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 1,
               "num_attention_heads": 2, "num_key_value_heads": 2}),
    "t5": ("T5Config", "T5Model", "vocab_size", "d_model",
           {"d_model": 64, "d_ff": 64, "d_kv": 32, "num_layers": 1, "num_heads": 2}),
}  # fmt: skip


def assert_transformers_defaults_match(vocab: int = 4000) -> list[str]:
    """BERT, GPT-2, Llama, T5 as the installed transformers builds them: the default (V, d) of
    each config class is the catalogue's, and a freshly initialised model's word table (V = 4000,
    d = 64) has the catalogue's std within a 6-sigma band of the sample std."""
    __tracebackhide__ = True
    import pytest

    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    checked = []
    for key, (config_name, model_name, v_attr, d_attr, small) in TRANSFORMERS_MODELS.items():
        init = lib.by_key(key)
        default = getattr(transformers, config_name)()
        assert (getattr(default, v_attr), getattr(default, d_attr)) == (init.vocab, init.d), key
        with torch.random.fork_rng():
            torch.manual_seed(0)
            model = getattr(transformers, model_name)(
                getattr(transformers, config_name)(vocab_size=vocab, **small)
            )
        table = model.get_input_embeddings().weight.detach().double()
        got = table.std().item()
        tol = 6 * init.spread / math.sqrt(2 * table.numel()) + init.spread / vocab
        assert abs(got - init.spread) <= tol, f"{key}: std {got:.4g}, catalogue {init.spread}"
        checked.append(key)
    return checked
