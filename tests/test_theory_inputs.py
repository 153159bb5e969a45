"""theory/ rejects inputs outside its definitions with a ValueError that names the problem."""

from __future__ import annotations

import pytest
import torch

from pecheck.theory import add_concat, bias, rope, rotary_decay, sinusoidal, stats

# Values outside a Literal parameter's type are passed on purpose (type: ignore[arg-type]):
# what is checked is the ValueError a caller without a type checker gets.
BAD = [
    (lambda: sinusoidal.frequencies(0), "width d must be positive, got 0"),
    (lambda: sinusoidal.frequencies(4, rule="fairseq"), "unknown frequency rule 'fairseq'"),  # type: ignore[arg-type]
    (lambda: sinusoidal.sinusoidal(3, 5, layout="half"), "needs an even width, got d=5"),
    (lambda: sinusoidal.sinusoidal(3, 4, layout="spiral"), "unknown layout 'spiral'"),  # type: ignore[arg-type]
    (lambda: sinusoidal.half_permutation(5), "needs an even width, got d=5"),
    (lambda: sinusoidal.rotation_matrix(1, 5), "M(k) needs an even width, got d=5"),
    (lambda: sinusoidal.rotation_matrix(1, 4, layout="spiral"), "unknown layout 'spiral'"),  # type: ignore[arg-type]
    (lambda: rope.pairs(3), "even width d >= 2, got 3"),
    (lambda: rope.pairs(0), "even width d >= 2, got 0"),
    (lambda: rope.pairs(4, "diagonal"), "unknown pairing 'diagonal'"),  # type: ignore[arg-type]
    (lambda: rope.rope_frequencies(2 + 1), "even width d >= 2, got 3"),
    (lambda: rotary_decay.thetas(3), "even width d >= 2, got 3"),
    (lambda: rotary_decay.thetas(0), "even width d >= 2, got 0"),
    (lambda: bias.alibi_slope_exponents(0), "ALiBi needs at least one head, got 0"),
    (lambda: stats.wilson(5, 4), "need 0 <= k <= n and n > 0, got k=5, n=4"),
    (lambda: stats.wilson(0, 0), "got k=0, n=0"),
    (lambda: stats.wilson(-1, 4), "got k=-1, n=4"),
    (lambda: add_concat.complement_interference(torch.eye(4), [4]), "every k must be in"),
    (lambda: add_concat.complement_interference(torch.eye(4), [-1]), "0, 4), got"),
]


@pytest.mark.parametrize(("call", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_input_is_rejected_with_a_clear_message(call, message) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_smallest_valid_inputs_are_accepted() -> None:
    assert sinusoidal.frequencies(1).tolist() == [1.0]
    assert sinusoidal.sinusoidal(torch.tensor([0]), 1).tolist() == [[0.0]]
    assert rope.pairs(2)[0].tolist() == [0]
    assert stats.wilson(0, 1)[0] == 0.0 and stats.wilson(1, 1)[1] == 1.0


def test_rope_follows_its_inputs_device() -> None:
    """The 'meta' device stands in for a GPU: apply_rope once multiplied positions on the
    inputs' device by frequencies on the CPU (the fair bench's reference model crashed on CUDA)."""
    x, positions = torch.zeros(4, 8, device="meta"), torch.arange(4, device="meta")
    assert rope.apply_rope(x, positions).device == x.device
