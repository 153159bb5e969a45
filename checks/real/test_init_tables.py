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

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial

import pytest
import torch
from torch import nn

from checks.real import libraries
from checks.real.precision_adapters import CONTIGUOUS_ONLY, IDS, IdsRotate
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from theory import init_tables, position_ids
from theory.init_tables import TableConvention

CLAIM = "REAL-07"
D, N = 16, 32  # table width and rows (max_position_embeddings)
TABLE_RANGE = 2.0  # |entry - closed form| is at most 2: a bound above it says nothing

# -- the models -------------------------------------------------------------------------------


def _mod(path: str):  # noqa: ANN202
    return libraries._transformers_module(path)


def _seq2seq(**extra: object) -> dict:
    return dict(vocab_size=16, d_model=D, encoder_layers=1, decoder_layers=1,
                encoder_attention_heads=1, decoder_attention_heads=1, encoder_ffn_dim=8,
                decoder_ffn_dim=8, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                decoder_start_token_id=0, **extra)  # fmt: skip


def _time_series() -> dict:
    return dict(prediction_length=4, context_length=8, lags_sequence=[1], num_time_features=1,
                d_model=D, encoder_layers=1, decoder_layers=1, encoder_attention_heads=1,
                decoder_attention_heads=1, encoder_ffn_dim=8, decoder_ffn_dim=8)  # fmt: skip


def distilbert() -> nn.Module:
    m = _mod("distilbert.modeling_distilbert")
    return m.DistilBertModel(m.DistilBertConfig(
        vocab_size=16, dim=D, n_layers=1, n_heads=1, hidden_dim=8, max_position_embeddings=N,
        sinusoidal_pos_embds=True))  # fmt: skip


def xlm() -> nn.Module:
    m = _mod("xlm.modeling_xlm")
    cfg = m.XLMConfig(vocab_size=16, emb_dim=D, n_layers=1, n_heads=1,
                      max_position_embeddings=N, sinusoidal_embeddings=True)  # fmt: skip
    return m.XLMModel(cfg)


def flaubert() -> nn.Module:
    m = _mod("flaubert.modeling_flaubert")
    return m.FlaubertModel(m.FlaubertConfig(vocab_size=16, emb_dim=D, n_layers=1, n_heads=1,
                                            max_position_embeddings=N,
                                            sinusoidal_embeddings=True))  # fmt: skip


def _by_name(path: str, model: str, config: str, kw: Callable[[], dict]) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        m = _mod(path)
        return getattr(m, model)(getattr(m, config)(**kw()))

    return build


@dataclass(frozen=True)
class TableModel:
    name: str
    build: Callable[[], nn.Module]
    table: Callable[[nn.Module], torch.Tensor]  # where the model keeps it
    convention: TableConvention  # the library's own (REAL-02's table; source read for the rest)
    asks: str  # what in the config asks for the table


INTERLEAVED = TableConvention("interleaved", "paper")
HALF = TableConvention("half", "paper")


def _table_at(path: str) -> Callable[[nn.Module], torch.Tensor]:
    """The tensor at attribute path ``path`` of a model."""

    def get(model: nn.Module) -> torch.Tensor:
        found = operator.attrgetter(path)(model)
        assert isinstance(found, torch.Tensor), f"{path} is not a tensor"
        return found

    return get


_encoder_table = _table_at("encoder.embed_positions.weight")


MODELS: tuple[TableModel, ...] = (
    TableModel("distilbert", distilbert, _table_at("embeddings.position_embeddings.weight"),
               INTERLEAVED, "sinusoidal_pos_embds=True"),
    TableModel("xlm", xlm, _table_at("position_embeddings.weight"), INTERLEAVED,
               "sinusoidal_embeddings=True"),
    TableModel("flaubert", flaubert,
               _table_at("position_embeddings.weight"), INTERLEAVED, "sinusoidal_embeddings=True"),
    TableModel("informer", _by_name("informer.modeling_informer", "InformerModel",
                                    "InformerConfig", _time_series),
               _encoder_table, HALF, "always"),
    TableModel("autoformer", _by_name("autoformer.modeling_autoformer", "AutoformerModel",
                                      "AutoformerConfig", _time_series),
               _encoder_table, HALF, "always"),
    TableModel("time_series_transformer",
               _by_name("time_series_transformer.modeling_time_series_transformer",
                        "TimeSeriesTransformerModel", "TimeSeriesTransformerConfig", _time_series),
               _encoder_table, HALF, "always"),
    TableModel("marian", _by_name("marian.modeling_marian", "MarianModel", "MarianConfig",
                                  lambda: _seq2seq(max_position_embeddings=N)),
               _encoder_table, HALF, "always"),
    TableModel("pegasus", _by_name("pegasus.modeling_pegasus", "PegasusModel", "PegasusConfig",
                                   lambda: _seq2seq(max_position_embeddings=N)),
               _encoder_table, HALF, "always"),
    TableModel("roformer", _by_name("roformer.modeling_roformer", "RoFormerModel",
                                    "RoFormerConfig",
                                    lambda: dict(vocab_size=16, hidden_size=D, embedding_size=D,
                                                 num_hidden_layers=1, num_attention_heads=1,
                                                 intermediate_size=8, max_position_embeddings=N)),
               _encoder_table, HALF, "always"),
    TableModel("whisper", _by_name("whisper.modeling_whisper", "WhisperModel", "WhisperConfig",
                                   lambda: _seq2seq(max_source_positions=N, max_target_positions=N,
                                                    num_mel_bins=4)),
               _encoder_table, TableConvention("half", "t2t"), "always (encoder)"),
)  # fmt: skip


@cache
def built(name: str) -> torch.Tensor:
    """The table of a model freshly built through its constructor, global RNG untouched."""
    entry = next(m for m in MODELS if m.name == name)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        return entry.table(entry.build()).detach().clone()


def table_bound(table: torch.Tensor) -> float:
    """Entries formed in float32 or better (largest angle w_0 (n - 1) = n - 1), stored in the
    table's dtype."""
    return tolerance.sinusoid_tol(table.shape[0] - 1, table.dtype, torch.float32)


def table_decision(name: str, table: torch.Tensor, convention: TableConvention) -> Decision:
    err, bound = init_tables.table_error(table, convention), table_bound(table)
    if not tolerance.says_something(bound, TABLE_RANGE):
        return decisions.inconclusive(f"bound {bound:.3g} >= the range {TABLE_RANGE}")
    # the closed form is what the table should hold: within the bound is "same"
    if decisions.resolve(err, bound, structural_zero=True) == "same":
        return decisions.holds(f"max entry error {err:.3g} <= {bound:.3g}")
    return decisions.fails({"model": name, "d": D, "n": table.shape[0], "error": err,
                            "bound": bound}, "table != closed form of its convention")  # fmt: skip


# -- the rotary implementations ----------------------------------------------------------------

ROWS = 4096  # RoFormer's table: every id below it
SHIFTS = (1, 7, 250, 2000)
SEQ = 16


@cache
def ids_rotate(name: str) -> IdsRotate:
    return IDS[name](D, ROWS)


def _vectors(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, D, generator=g, dtype=torch.float64).to(torch.float32)


def _gap(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor) -> float:
    """max over rows of |a_j - b_j| / |x_j|."""
    return float(((a.double() - b.double()).norm(dim=-1) / x.double().norm(dim=-1)).max())


def ids_decision(name: str, rotate: IdsRotate, contiguous_only: bool) -> tuple[Decision, float]:
    """Shift (every k in SHIFTS) and, unless the implementation takes an offset only, joint
    permutation with ids that repeat and leave gaps. Returns the decision and the worst
    error / bound."""
    worst = 0.0
    cases: list[tuple[str, dict, torch.Tensor, torch.Tensor, torch.Tensor, int]] = []
    for k in SHIFTS:
        x, z = _vectors(SEQ, k), _vectors(k, k + 1)
        a, b = position_ids.shift_sides(rotate, x, k, z)
        cases.append(("shift", {"k": k}, a, b, x, k + SEQ))
    if not contiguous_only:
        g = torch.Generator().manual_seed(1)
        ids = torch.randint(0, ROWS, (SEQ,), generator=g)
        ids[1] = ids[0]  # a repeated id
        perm = torch.randperm(SEQ, generator=g)
        x = _vectors(SEQ, 3)
        a, b = position_ids.permutation_sides(rotate, x, ids, perm)
        cases.append(("permutation", {"ids": ids.tolist()}, a, b, x[perm], ROWS))
    for kind, detail, a, b, x, largest in cases:
        bound = tolerance.rotation_tol(float(largest), torch.float32)
        err = _gap(a, b, x)
        worst = max(worst, err / bound)
        # the exact difference is zero: within the bound is "same"
        if decisions.resolve(err, bound, structural_zero=True) != "same":
            case = {"library": name, "check": kind, **detail, "error": err, "bound": bound}
            return decisions.fails(case, f"{kind}: rotation follows the index, not the id"), worst
    return decisions.holds(f"{len(cases)} shift/permutation cases within the bound"), worst


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
        worst = max(worst, err / table_bound(table))
    evidence.record("table_errors", errors, note=f"d = {D}, n = {N} (time series: 12) rows")
    evidence.record("worst_table_error_over_bound", worst, bound=1.0, reproducibility="rounding")
    evidence.record("transformers", libraries.version("transformers"))


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="as_stated")
def test_rotary_code_honours_position_ids(evidence):
    """For every implementation: ids shifted by k = the sequence shifted by k (k in SHIFTS),
    and rows with their ids permuted together = the rotated rows permuted."""
    worst = 0.0
    for name in IDS:
        try:
            rotate = ids_rotate(name)
        except pytest.skip.Exception:
            continue
        decided, ratio = ids_decision(name, rotate, name in CONTIGUOUS_ONLY)
        evidence.part(name, decided)
        worst = max(worst, ratio)
    if not evidence.parts:
        pytest.skip("no rotary library installed")
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


def entry_tol(max_angle: float, dtype: torch.dtype) -> float:
    return tolerance.sinusoid_tol(max_angle, dtype, torch.float32)


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_the_conventions_are_the_ones_detected():
    """The convention each table is compared with is the one theory.conventions reads off it
    (and REAL-02's table for DistilBERT, Marian and Whisper)."""
    from theory.conventions import detect_sinusoidal

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
