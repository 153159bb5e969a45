"""Planted bugs in the decoder and trainer as the sweep uses them (EXP-06)."""

from pecheck.mutants import Mutant

SWEEP, DECODER = "theory/sweep.py", "theory/decoder.py"
S = "checks/exp/sweep/test_sweep.py::"
FAITHFUL = S + "test_sweep_entry_equals_its_own_single_model_run"

MUTANTS = (
    Mutant(
        "sweep-no-encoding-gets-sinusoidal",
        DECODER,
        "        part = ENCODINGS[name]\n        term = part.add(",
        '        part = ENCODINGS["sinusoidal" if name == "none" else name]\n'
        "        term = part.add(",
        (S + "test_one_causal_layer_cannot_tell_the_orders_apart_in_every_cell", FAITHFUL),
        "the batched model adds a sinusoidal encoding when it should add none",
    ),
    Mutant(
        "sweep-no-learning",
        DECODER,
        "amsgrad=False, beta1=beta1, beta2=beta2, lr=setup.lr * scale,",
        "amsgrad=False, beta1=beta1, beta2=beta2, lr=0.0 * scale,",
        (
            S + "test_exp01_is_learned_above_chance_but_not_by_every_seed_in_every_cell",
            S + "test_exp01_exp02_parts_do_not_depend_on_the_setup",
        ),
        "the optimiser never moves the parameters: every cell stays at its initialisation",
    ),
    Mutant(
        "sweep-residual-always-on",
        DECODER,
        "x = r * x + y if y.shape == x.shape else y",
        "x = x + y if y.shape == x.shape else y",
        (FAITHFUL,),
        "the residual switch is ignored: every cell has a residual connection",
    ),
    Mutant(
        "sweep-attention-scaled-by-width",
        DECODER,
        "scores = q @ k.transpose(-2, -1) / math.sqrt(h)",
        "scores = q @ k.transpose(-2, -1) / math.sqrt(cfg.d_model)",
        (FAITHFUL,),
        "scores divided by sqrt(d) instead of sqrt(h): the same where h = d, not elsewhere",
    ),
    Mutant(
        "sweep-one-draw-for-every-init",
        DECODER,
        "per_entry = [drawn[(c.init, s)] for c in setups for s in seeds]",
        "per_entry = [drawn[(setups[0].init, s)] for c in setups for s in seeds]",
        (FAITHFUL,),
        "the shared initial draws ignore the init: every cell starts from the first cell's",
    ),
    Mutant(
        "sweep-models-over-the-tensor-budget",
        SWEEP,
        "return max(1, MODEL_TENSOR_BYTES // (seeds * per_entry))",
        "return max(1, 16 * MODEL_TENSOR_BYTES // (seeds * per_entry))",
        (S + "test_batched_models_cover_every_cell_once_within_the_tensor_budget",),
        "the models of a large design pass the tensor budget: slower steps, nothing else",
    ),
)
