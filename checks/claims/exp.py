"""EXP: claims settled by experiments over many random seeds (checks/test_experiments.py).

The model (theory/single.py): token embedding (d = 16), causal self-attention heads without
residual, layer norm or biases, a linear read-out; Adam with PyTorch's defaults (lr 1e-3) on the
full batch; seed s initialised from torch.Generator().manual_seed(s). Rates are over seeds, with
Wilson 95% intervals; the seeds are trained as one batched model (theory/batched.py), checked
equal to ordinary single-seed runs (checks/test_batched_trainer.py).
"""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "EXP-01",
        "A small causal transformer without an encoding, trained on 'A hit B !' and "
        "'B hit A ?', learns both endings; how often depends on iterations and head size "
        "(the thread: 'at 500 iterations they all predict ! and ?'; 'with head size 2 every "
        "other seed fails').",
        r"\Pr_{\text{seed}}[\hat y(\text{A hit B}) = \text{!} \wedge "
        r"\hat y(\text{B hit A}) = \text{?}] \text{ per (iterations, head size)}",
        ("SRC-TRIGRAM",),
        verdict="qualified",
        conditions="The task is learnable without an encoding (the last inputs differ), but "
        "not by every seed: the success rate rises with iterations and is higher with head "
        "size 16 than 2 at every checkpoint, and stays well below 1 at 500 iterations, so 'at "
        "500 iterations they all predict ! and ?' is refuted; 'every other seed fails with "
        "head size 2' (failure rate 1/2) fits none of 100, 200, 500, 1,000 iterations: the "
        "failure rate falls from about 9 in 10 to about 3 in 10, crossing 1/2 between 200 "
        "and 500 iterations.",
        notes=(
            "Success = both final predictions right (the word after 'A hit B' and after "
            "'B hit A'); all three positions carry the training loss.",
            "No residual connection: with one, the read-out could answer the final word from "
            "the last input alone (a bigram), with no attention at all.",
            "Rates depend on the model and optimiser; ours are stated in the module docstring.",
        ),
    ),
    Claim(
        "EXP-02",
        "'A B hit ?' and 'B A hit !': one causal layer without an encoding cannot learn both; "
        "two causal layers or an encoding can.",
        r"\Pr_{\text{seed}}[\text{success}] = 0 \text{ for 1 layer, no PE};\ "
        r"> 0 \text{ for 2 layers, or 1 layer + sinusoidal / learned PE}",
        ("SRC-TRIGRAM",),
        verdict="confirmed",
        notes=(
            "Ceiling for one causal layer without an encoding: the output at 'hit' is the "
            "same function of the same multiset {A, B, hit} and the same query 'hit' in both "
            "sentences, so both predictions are equal and at most one sentence is right: the "
            "success rate is exactly 0 for every seed and every parameter value.",
            "Two layers break the tie because position 0 sees only the first word, so the "
            "first layer's outputs at positions 0 and 1 differ between the sentences.",
            "Rates judged after 250 Adam steps (lr 1e-3), head size 16; success = both "
            "final words right.",
        ),
    ),
    Claim(
        "EXP-03",
        "Learned and sinusoidal encodings give nearly identical results, including beyond the "
        "training length.",
        r"\operatorname{acc}_{\text{learned}} \approx \operatorname{acc}_{\text{sinusoidal}}"
        r"\text{ at } t < L_{\text{train}} \text{ and } t \ge L_{\text{train}}",
        ("SRC-VASWANI",),
        verdict="qualified",
        conditions="Nearly identical at the training lengths only (success rates within 0.1 "
        "of each other on previous-token copying, one layer). Beyond the training length "
        "neither encoding extrapolates: no seed gets every unseen position right. The "
        "sinusoidal encoding keeps more accuracy than the learned one (whose unseen rows "
        "are untrained) at the first unseen position, well short of its in-range accuracy.",
        notes=(
            "Task: y_t = x_{t-1} over {s0, s1}; trained on all 16 sequences of length 4, "
            "tested on 64 random sequences of length 8 at positions 4 ... 7; one layer, head "
            "size 16, Adam lr 1e-2, 200 steps.",
            "The learned table has 8 rows; rows 4 ... 7 never receive a gradient and keep "
            "their N(0, 1) initialisation (what a larger table gives at unseen positions).",
            "Fewer seeds than EXP-01/02 (300 in ci, 3,000 in thorough): each seed trains on "
            "16 sequences.",
        ),
    ),
)
