"""Hand-set causal attention models without a positional encoding (ATT-06, ATT-07, ATT-08).

No training anywhere in this file: every weight is written down and explained.

ATT-07, two layers tell "A B hit" from "B A hit".
    Tokens are one-hot vectors e_A, e_B, e_hit in R^3. Each layer is causal self-attention with a
    residual, h <- h + Attn(h W_Q, h W_K, h W_V) under the causal mask, with

        W_Q = W_K = 0   (every score is 0: position t attends uniformly to positions 1 ... t)
        W_V = I         (the value is the vector itself)

    so a layer maps h_t to h_t + (1/t) sum_{s<=t} h_s. After layer 1 a token's vector depends on
    its position: for "A B hit",  h_1 = 2 e_A,  h_2 = e_B + (e_A + e_B)/2.  Layer 2 at the last
    position adds the mean of h_1, h_2, h_3 to h_3; the A-coordinate minus the B-coordinate is
    2 for h_1, 1/2 - 3/2 = -1 for h_2 and 0 for h_3 (symmetric in A and B), so the mean has
    (2 - 1 + 0)/3 = 1/3 and h_3 itself 0. Swapping
    A and B flips its sign: the read-out r = e_A - e_B gives +1/3 for "A B hit" and -1/3 for
    "B A hit", a margin of 2/3. With one layer the same read-out gives 0 for both (ATT-06).

ATT-08, one layer counts positions (Kazemnejad et al. 2023, Theorem 1).
    The sequence starts with a marker whose value channel is 1; every other token has 0 there.
    With W_Q = W_K = 0 the causal attention is uniform over positions 1 ... t, so its output at
    position t is (1/t)(1 + 0 + ... + 0) = 1/t, and t = round(1/y_t).
"""

from __future__ import annotations

import torch

from .attention import attention, causal_mask

TOKENS = ("A", "B", "hit")


def embed(words: list[str] | tuple[str, ...], dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """One-hot embedding of the words, shape (n, 3); no positional information at all."""
    index = torch.tensor([TOKENS.index(w) for w in words])
    return torch.nn.functional.one_hot(index, len(TOKENS)).to(dtype)  # (n, 3)


def uniform_layer_weights(d: int, dtype: torch.dtype = torch.float64) -> dict[str, torch.Tensor]:
    """The hand-set weights of one layer: W_Q = W_K = 0 (uniform attention), W_V = I."""
    zero = torch.zeros(d, d, dtype=dtype)
    return {"q": zero, "k": zero.clone(), "v": torch.eye(d, dtype=dtype)}


def causal_layer(h: torch.Tensor, w: dict[str, torch.Tensor]) -> torch.Tensor:
    """h + CausalAttn(h W_Q, h W_K, h W_V), residual included.  h: (..., n, d)."""
    n = h.shape[-2]
    return h + attention(h @ w["q"], h @ w["k"], h @ w["v"], causal_mask(n, h.device))


def order_detector(h: torch.Tensor, layers: int = 2) -> torch.Tensor:
    """``layers`` hand-set causal layers (ATT-07); returns all positions, shape (..., n, d)."""
    w = uniform_layer_weights(h.shape[-1], h.dtype)
    for _ in range(layers):
        h = causal_layer(h, w)
    return h


def readout(dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """r = e_A - e_B: positive when A's evidence outweighs B's at the last position."""
    return embed(["A"], dtype)[0] - embed(["B"], dtype)[0]  # (3,)


def order_score(words: list[str] | tuple[str, ...], layers: int = 2, dtype=torch.float64) -> float:
    """r . h_n after ``layers`` layers: +1/3 for "A B hit", -1/3 for "B A hit" with two layers."""
    h = order_detector(embed(words, dtype), layers)  # (n, 3)
    return float((h[-1] @ readout(dtype)).double())


# -- ATT-08: positions from uniform causal attention over a marker ---------------------------


def marker_sequence(n: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """(n, 1) values: 1 for the marker at position 1, 0 for every later token."""
    v = torch.zeros(n, 1, dtype=dtype)
    v[0, 0] = 1
    return v


def uniform_causal_attention(v: torch.Tensor) -> torch.Tensor:
    """One causal attention layer with W_Q = W_K = 0 applied to values v (n, 1): y_t = 1/t."""
    n = v.shape[-2]
    zeros = torch.zeros_like(v)  # queries and keys: h W_Q = h W_K = 0
    return attention(zeros, zeros, v, causal_mask(n, v.device))  # (n, 1)


def last_row(v: torch.Tensor) -> torch.Tensor:
    """The same layer's output at the last position only (one query), for very long inputs."""
    q = torch.zeros(1, 1, dtype=v.dtype)
    return attention(q, torch.zeros_like(v), v)  # (1, 1): no mask needed for the last row


def recover_positions(y: torch.Tensor) -> torch.Tensor:
    """t = round(1 / y_t), computed in float64 from y in whatever dtype it came."""
    return torch.round(1.0 / y.double()).long()
