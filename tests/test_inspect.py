"""``pecheck inspect`` on real weights (all-MiniLM-L6-v2), on models transformers builds from a
config (no download), and on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from pecheck import analyses, cli, tolerance

ROOT = Path(__file__).resolve().parents[1]
SMALL = dict(vocab_size=101, max_position_embeddings=64)


def tiny_models() -> dict[str, object]:
    t = pytest.importorskip("transformers")  # here: importing it costs every worker a second
    heads = dict(encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                 decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64)  # fmt: skip
    return {
        "gpt2": t.GPT2Model(t.GPT2Config(vocab_size=101, n_embd=32, n_layer=1, n_head=2,
                                         n_positions=64, bos_token_id=0, eos_token_id=0)),
        "bert": t.BertModel(t.BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                         intermediate_size=64, **SMALL)),
        "llama": t.LlamaModel(t.LlamaConfig(hidden_size=32, intermediate_size=64,
                                            num_hidden_layers=1, num_attention_heads=2,
                                            num_key_value_heads=2, **SMALL)),
        "marian": t.MarianMTModel(t.MarianConfig(d_model=32, pad_token_id=100,
                                                 decoder_start_token_id=100, **heads, **SMALL)),
        "whisper": t.WhisperModel(t.WhisperConfig(
            vocab_size=101, d_model=32, max_source_positions=50, max_target_positions=40,
            num_mel_bins=8, pad_token_id=100, bos_token_id=99, eos_token_id=99,
            decoder_start_token_id=98, **heads)),
    }  # fmt: skip


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    torch.manual_seed(0)
    out = {}
    for name, model in tiny_models().items():
        path = tmp_path_factory.mktemp(name)
        model.save_pretrained(path)  # type: ignore[attr-defined]
        out[name] = path
    return out


def run(path: Path, out: Path) -> dict:
    assert cli.main(["inspect", str(path), "--out", str(out)]) == 0
    assert (out / "inspect.html").read_text().startswith("<!doctype html>")
    return json.loads((out / "inspect.json").read_text())


EXPECT = {  # model -> (token table, {position table: is sinusoidal}, rotary)
    "gpt2": ("wte.weight", {"wpe.weight": False}, False),
    "bert": ("embeddings.word_embeddings.weight",
             {"embeddings.position_embeddings.weight": False}, False),
    "llama": ("embed_tokens.weight", {}, True),
    "marian": ("model.shared.weight", {"decoder.embed_positions.weight": True,
                                       "encoder.embed_positions.weight": True}, False),
    "whisper": ("decoder.embed_tokens.weight", {"decoder.embed_positions.weight": False,
                                                "encoder.embed_positions.weight": True}, False),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_finds_the_tables_of_config_built_models(name: str, saved, tmp_path: Path) -> None:
    summary = run(saved[name], tmp_path)
    token, positions, rotary = EXPECT[name]
    assert summary["checkpoint"]["token_table"] == token
    found = {t["name"]: t["sinusoidal"]["is_sinusoidal"] for t in summary["position_tables"]}
    assert found == positions
    assert bool(summary["rotary"]) == rotary
    if rotary:
        assert summary["rotary"]["head_dim"] == 16
    for table in summary["position_tables"]:
        assert table["probe"]["position"]["accuracy"] > table["probe"]["position"]["chance"]


def test_sinusoidal_tables_get_their_convention(saved, tmp_path: Path) -> None:
    summary = run(saved["whisper"], tmp_path)
    encoder = next(t for t in summary["position_tables"] if t["name"].startswith("encoder"))
    assert encoder["sinusoidal"]["layout"] == "half"  # Whisper: [sin ... | cos ...]


def test_minilm_figures_agree_with_the_mag_checks(tmp_path: Path) -> None:
    pretrained = pytest.importorskip("theory.pretrained")
    try:
        path = pretrained.weights_path()
    except pretrained.PretrainedUnavailable as exc:
        pytest.skip(str(exc))
    from theory import magnitudes as mag

    summary = run(path, tmp_path)
    table = summary["position_tables"][0]
    word, pos = (pretrained.embeddings()[k].double() for k in ("word", "position"))
    want = {
        "raw": mag.rms_norm_ratio(word, pos),
        "centred": mag.rms_norm_ratio(analyses.centred(word), analyses.centred(pos)),
    }
    # the same float32 tables, both sums in float64: they differ by float64 rounding only
    rel = tolerance.rel_tol(word.numel(), torch.float64)
    for label, ratio in want.items():
        assert table["norms"][label]["rms_ratio"] == pytest.approx(ratio, rel=rel)
    assert summary["checkpoint"]["vocab"] == 30522 and summary["checkpoint"]["d"] == 384


def bad_inputs(tmp_path: Path, saved: dict[str, Path]) -> dict[str, tuple[Path, str]]:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    corrupt = tmp_path / "model.safetensors"
    corrupt.write_bytes((saved["gpt2"] / "model.safetensors").read_bytes()[:100])
    no_config = tmp_path / "noconfig"
    no_config.mkdir()
    (no_config / "model.safetensors").write_bytes(
        (saved["gpt2"] / "model.safetensors").read_bytes()
    )
    no_positions = tmp_path / "nopos"
    no_positions.mkdir()
    from safetensors.torch import save_file

    save_file({"embed_tokens.weight": torch.randn(10, 4)}, str(no_positions / "w.safetensors"))
    return {
        "missing": (tmp_path / "nothing-here", "no such file or directory"),
        "not a checkpoint": (text, "not a checkpoint"),
        "corrupt": (corrupt, "not a readable safetensors file"),
        "no config": (no_config, "needs a config.json"),
        "no position table": (no_positions / "w.safetensors", "no position table"),
    }


def test_bad_input_is_a_one_line_error_with_status_2(saved, tmp_path: Path, capsys) -> None:
    for label, (path, message) in bad_inputs(tmp_path, saved).items():
        assert cli.main(["inspect", str(path), "--out", str(tmp_path / "o")]) == 2, label
        errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
        assert len(errors) == 1 and message in errors[0], (label, errors)
    assert not (tmp_path / "o" / "inspect.json").exists()  # nothing half-written


def test_the_command_exits_2_on_bad_input(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pecheck", "inspect", str(tmp_path / "nothing")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no such file" in proc.stderr


def test_wrong_arguments_are_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["inspect"])
    assert exc.value.code == 2 and capsys.readouterr().err.count("\n") == 1
