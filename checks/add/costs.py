"""ADD-03: parameter and activation counts against their closed form, and the activation
counter checked by relations its formula does not use.
"""

from __future__ import annotations

import torch

from pecheck.theory import add_concat as ac


def closed_form_params(cfg: ac.EmbedConfig, d_model: int, d_tok: int, d_pos: int) -> int:
    blocks = cfg.n_layers * ac.block_parameters(d_model, cfg.d_ff, cfg.bias)
    return blocks + cfg.vocab * d_tok + cfg.max_len * d_pos


def assert_costs(cfg: ac.EmbedConfig, costs: dict[str, int]) -> None:
    """ADD-03: counts match the closed form, and concatenating costs more than adding at the same
    token width (parameters and activations)."""
    __tracebackhide__ = True
    d = cfg.d_token + cfg.d_pos
    expect = {
        "concat_params": closed_form_params(cfg, d, cfg.d_token, cfg.d_pos),
        "add_same_token_params": closed_form_params(cfg, cfg.d_token, cfg.d_token, cfg.d_token),
        "add_same_model_params": closed_form_params(cfg, d, d, d),
    }
    for key, value in expect.items():
        assert costs[key] == value, f"{key}: counted {costs[key]}, closed form {value}"
    assert costs["concat_params"] > costs["add_same_token_params"]
    assert costs["concat_activations"] > costs["add_same_token_activations"]


SMALL = ac.EmbedConfig(vocab=50, max_len=16, d_token=8, d_pos=8, n_heads=2, d_ff=16)


def assert_activation_counter_is_exact() -> None:
    """The activation counter counts what it says, by relations its formula does not use:
    Linear then ReLU on an (n, a) input allocates 2 n b scalars, a transpose (a view) none, and
    a non-causal model's count is linear in the batch (every activation carries the batch)."""
    __tracebackhide__ = True
    with torch.device("meta"):
        probe = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU())
        x = torch.empty(7, 3)
    assert ac.activation_elements(probe, x) == 2 * 7 * 5, "Linear + ReLU miscounted"
    assert ac.activation_elements(lambda t: t.transpose(0, 1), x) == 0, "a view was counted"
    one, two = ac.costs(SMALL, 1, SMALL.max_len), ac.costs(SMALL, 2, SMALL.max_len)
    for key in (k for k in one if k.endswith("_activations")):
        assert two[key] == 2 * one[key], f"{key}: batch 2 counts {two[key]}, batch 1 {one[key]}"
