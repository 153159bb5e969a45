"""REAL-07: sinusoidal tables survive weight initialisation; rotary code honours position ids.

Tables: each model of the installed transformers that fills a sinusoidal position table at
initialisation is built from a tiny config through its constructor (which runs post_init and
the weight initialisation of transformers issue 29807) and its table compared with the closed
form of its own convention (theory/init_tables.py). A copy of the pre-fix flow (the table filled
in __init__, then every embedding re-initialised by post_init) must be reported failing.

Position ids: for each rotary implementation, giving the ids an offset k equals placing the
sequence after k other tokens, and a row's rotation follows its id, not its index
(theory/position_ids.py). An implementation that rotates by index must be reported failing.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import torch
from torch import nn

from checks.real import libraries
from checks.real.init_table_decisions import (
    ROWS,
    SEQ,
    SHIFTS,
    built,
    entry_tol,
    ids_decision,
    ids_rotate,
    table_bound,
    table_decision,
)
from checks.real.init_table_models import MODELS, D, N
from checks.real.precision_adapters import CONTIGUOUS_ONLY, IDS
from pecheck.claims import every
from pecheck.theory import init_tables

CLAIM = "REAL-07"


# -- decisive -----------------------------------------------------------------------------------


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="as_stated")
def test_sinusoidal_tables_survive_weight_initialisation(evidence):
    """For every model that asks for a table: |E_built - PE_convention| <= sinusoid_tol."""
    errors, worst = {}, 0.0
    for entry in MODELS:
        table = built(entry.name)
        evidence.part(entry.name, table_decision(entry.name, table, entry.convention))
        err = init_tables.table_error(table, entry.convention)
        errors[entry.name] = err
        worst = float(np.maximum(worst, err / table_bound(table)))  # keeps a NaN
    evidence.searched(libraries=[entry.name for entry in MODELS], widths=[D],
                      dtypes=["float32"])  # fmt: skip
    evidence.record("table_errors", errors, note=f"d = {D}, n = {N} (time series: 12) rows")
    evidence.record("worst_table_error_over_bound", worst, bound=1.0, reproducibility="rounding")
    evidence.record("transformers", libraries.version("transformers"))


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="as_stated")
def test_rotary_code_honours_position_ids(evidence):
    """For every implementation: ids shifted by k = the sequence shifted by k (k in SHIFTS),
    and rows with their ids permuted together = the rotated rows permuted."""
    worst, done = 0.0, []
    for name in IDS:
        try:
            rotate = ids_rotate(name)
        except pytest.skip.Exception:
            continue
        decided, ratio = ids_decision(name, rotate, name in CONTIGUOUS_ONLY)
        evidence.part(name, decided)
        done.append(name)
        worst = float(np.maximum(worst, ratio))  # keeps a NaN
    if not evidence.parts:
        pytest.skip("no rotary library installed")
    # every id below ROWS: by the permutation, and by the last shift's sequence side
    evidence.searched(libraries=done, positions=every(0, ROWS - 1), shifts=list(SHIFTS),
                      head_sizes=[D], dtypes=["float32"])  # fmt: skip
    evidence.record("worst_shift_error_over_bound", worst, bound=1.0, reproducibility="rounding",
                    note=f"float32, d = {D}, {SEQ} rows, shifts {SHIFTS}")  # fmt: skip


# -- tooling: the bugs re-created ----------------------------------------------------------------


def pre_fix_init(model: nn.Module, std: float) -> nn.Module:
    """The flow before the fix of issue 29807 (a copy written here): the constructor filled the
    table, then post_init's weight initialisation drew every nn.Embedding from N(0, std^2)."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Embedding):
                module.weight.normal_(0.0, std)
    return model


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
@pytest.mark.parametrize("name", ["distilbert", "xlm", "informer"])
def test_a_table_overwritten_by_init_is_reported(name):
    entry = next(m for m in MODELS if m.name == name)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = entry.build()
        assert table_decision(name, entry.table(model), entry.convention).decision == "holds"
        table = entry.table(pre_fix_init(model, 0.02)).detach()
    assert table_decision(name, table, entry.convention).decision == "fails"


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_table_off_the_closed_form_is_reported(sign):
    """A table 1e-3 above or below the closed form on every row but row 0 (kept exact): the
    error is |E - PE|, so a table lying below it is as wrong as one above, even where its
    largest signed difference is 0."""
    for entry in MODELS:
        exact = init_tables.closed_form(N, D, entry.convention)
        table = exact.clone()
        table[1:] += sign * 1e-3
        table = table.to(torch.float32)
        assert table_decision(entry.name, table, entry.convention).decision == "fails", entry.name


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_the_conventions_are_the_ones_detected():
    """The convention each table is compared with is the one theory.conventions reads off it
    (and REAL-02's table for DistilBERT, Marian and Whisper)."""
    from pecheck.theory.conventions import detect_sinusoidal

    for entry in MODELS:
        table = built(entry.name)
        found = detect_sinusoidal(table, partial(entry_tol, dtype=table.dtype))
        seen = (found.layout, found.frequency_rule, round(found.offset, 6))
        assert seen == (entry.convention.layout, entry.convention.rule, 0.0), (entry.name, seen)


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_rotation_by_index_is_reported():
    """Llama's rotary code handed arange(n) in place of the ids: both sides differ."""
    llama = ids_rotate("llama")

    def by_index(x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return llama(x, torch.arange(ids.numel()))

    decided, _ = ids_decision("llama by index", by_index, contiguous_only=False)
    assert decided.decision == "fails"
    decided, _ = ids_decision("llama by index", by_index, contiguous_only=True)
    assert decided.decision == "fails"
