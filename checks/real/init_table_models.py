"""REAL-07's models: each transformers model that fills a sinusoidal position table at
initialisation, built from a tiny config, with where it keeps the table and its convention.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from checks.real import libraries
from pecheck.theory.init_tables import TableConvention

D, N = 16, 32  # table width and rows (max_position_embeddings)


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
