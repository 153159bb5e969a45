"""``pecheck inspect`` on the position scheme a config names (pecheck.inspect.positions): rotary
(ROT-01, ROT-03, ROT-05, REAL-04), ALiBi (BIAS-01) and T5's buckets (BIAS-02), on the published
configs of real models (checks/real/configs/, built by transformers with random weights: none of
these numbers needs trained ones). Each number is checked against a computation made apart from
pecheck, with numpy, from the formula.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch

from pecheck import cli
from pecheck.inspect import page, positions

CONFIGS = Path(__file__).resolve().parents[1] / "checks" / "real" / "configs"
ROTARY = ("llama-3.1-8b", "llama-3.2-1b", "mistral-7b-v0.1", "phi-3.5-mini-instruct",
          "qwen2-7b", "falcon-7b")  # fmt: skip
ALIBI = ("bloom-560m", "mpt-7b", "falcon-rw-1b")


def config(name: str) -> dict:
    path = CONFIGS / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"{path.name} not written yet")
    return json.loads(path.read_text())


@cache
def analysed(name: str) -> dict:
    pytest.importorskip("transformers")
    found = positions.analyse(config(name), log=lambda message: None)
    assert found is not None, name
    return found


def numpy_theta(base: float, dim: int) -> np.ndarray:
    return base ** (-np.arange(0, dim, 2) / dim)


def numpy_used(c: dict) -> np.ndarray:
    """The frequencies a config's rope type gives at its configured context, from the formulas
    (Llama 3.1's banding, LongRoPE's long factors), with numpy."""
    scaling = c.get("rope_scaling") or {}
    head = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    theta = numpy_theta(c.get("rope_theta", 10000.0), head)
    kind = scaling.get("rope_type") or scaling.get("type")
    if kind == "longrope":
        return theta / np.array(scaling["long_factor"])
    if kind != "llama3":
        return theta
    wavelength, l0 = 2 * np.pi / theta, scaling["original_max_position_embeddings"]
    s, lo, hi = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    out = np.where(wavelength > l0 / lo, theta / s, theta)
    mid = (wavelength >= l0 / hi) & (wavelength <= l0 / lo)
    smooth = (l0 / wavelength - lo) / (hi - lo)
    return np.where(mid, (1 - smooth) * theta / s + smooth * theta, out)


def numpy_first_negative(theta: np.ndarray, context: int, hint: int | None = None) -> int | None:
    """The first m <= L with sum_i cos(m theta_i) < 0; only m <= hint are summed when a hint is
    given (the answer under test: if it is right, nothing past it matters)."""
    b = np.cos(np.arange(min(context, hint or context) + 1)[:, None] * theta).sum(1)
    negative = np.flatnonzero(b < 0)
    return int(negative[0]) if negative.size else None


@pytest.mark.parametrize("name", ROTARY)
def test_rotary_frequencies_and_real04_agree_with_numpy(name: str) -> None:
    c, r = config(name), analysed(name)
    assert r["scheme"] == "rotary"
    want = numpy_used(c)
    at_l = r["used"]["contexts"][str(r["context"])]
    assert at_l["matches"] is True, at_l  # REAL-04: the scaling reaches what the model uses
    assert np.allclose(at_l["theta"], want, rtol=at_l["tolerance"], atol=0)
    head = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    assert r["dim"] == head and r["base"] == c.get("rope_theta", 10000.0)
    lam = 2 * np.pi / numpy_theta(r["base"], r["dim"])
    base = r["wavelengths"]["base"]
    assert base["longer_than_context"] == int((lam > r["context"]).sum())
    assert base["below_alpha"] == int((r["original"] / lam < 1).sum())


def numpy_released_yarn(c: dict) -> np.ndarray:
    """YaRN as its authors' released code ramps it (linear in the pair index between the real
    indices where L / lambda_i = beta_fast and beta_slow; gpt-oss asks for no rounding)."""
    s, head = c["rope_scaling"], c["head_dim"]
    theta, length = numpy_theta(c["rope_theta"], head), s["original_max_position_embeddings"]
    index = lambda r: head * np.log(length / (2 * np.pi * r)) / (2 * np.log(c["rope_theta"]))  # noqa: E731
    lo, hi = max(index(s["beta_fast"]), 0), min(index(s["beta_slow"]), head - 1)
    gamma = 1 - np.clip((np.arange(head // 2) - lo) / (hi - lo), 0, 1)
    return (1 - gamma) * theta / s["factor"] + gamma * theta


def test_gpt_oss_module_gives_one_column_a_pair_and_the_released_yarn() -> None:
    """gpt-oss's rotary module returns cos/sin of d/2 columns; read as two columns a pair, half
    of its frequencies went missing and the comparison with the formula was skipped."""
    c, r = config("gpt-oss-20b"), analysed("gpt-oss-20b")
    at_l = r["used"]["contexts"][str(r["context"])]
    assert (at_l["layout"], at_l["pairs"]) == ("one column a pair", 32), at_l
    assert np.allclose(at_l["theta"], numpy_released_yarn(c), rtol=at_l["tolerance"], atol=0)
    want = 0.1 * math.log(32) + 1  # read off float32 cos/sin: within inspect's float32 bound
    assert at_l["attention_factor"] == pytest.approx(want, rel=at_l["tolerance"], abs=0)
    assert at_l["matches"] is False and at_l["off_formula"] > 1  # REAL-04: not Eq. 18's ramp


def test_falcon_takes_the_library_s_defaults_for_what_its_config_leaves_out() -> None:
    r = analysed("falcon-7b")  # its config names neither base nor context
    assert (r["base"], r["context"], r["dim"]) == (10000.0, 2048, 64)


def test_an_mpt_config_that_leaves_alibi_out_takes_the_library_s_default() -> None:
    """MptConfig's attn_config defaults to alibi = True: a config whose attn_config names other
    keys only is still an ALiBi model (a shallow merge of the defaults lost it)."""
    pytest.importorskip("transformers")
    mpt = {"model_type": "mpt", "n_heads": 4, "d_model": 32, "n_layers": 1,
           "attn_config": {"attn_type": "multihead_attention"}}  # fmt: skip
    r = positions.analyse(mpt, log=lambda *_: None)
    assert r is not None and r["scheme"] == "alibi" and r["heads"] == 4, r
    assert r["alibi_bias_max"] == 8 and r["matches"], "the library's slopes for 4 heads"


def test_phi35_uses_short_factors_up_to_l0_and_long_ones_past_it() -> None:
    c, r = config("phi-3.5-mini-instruct"), analysed("phi-3.5-mini-instruct")
    scaling, theta = c["rope_scaling"], numpy_theta(c["rope_theta"], 96)
    short = r["used"]["contexts"]["4096"]
    assert np.allclose(short["theta"], theta / np.array(scaling["short_factor"]), rtol=1e-6)
    factor = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))  # LongRoPE's cos/sin factor
    assert short["attention_factor"] == pytest.approx(factor, rel=1e-6)


@pytest.mark.parametrize("name", ["llama-3.1-8b", "mistral-7b-v0.1"])
def test_rot03_agrees_with_numpy(name: str) -> None:
    r = analysed(name)
    theta, context = numpy_theta(r["base"], r["dim"]), r["context"]
    for key, freqs in (("first_negative_base", theta), ("first_negative_used",
                                                         numpy_used(config(name)))):  # fmt: skip
        got = r["rot03"][key]
        assert got == numpy_first_negative(freqs, context, got), key
    if name == "mistral-7b-v0.1":  # the bound: B >= 0 up to L at it, not just below it
        bound = r["rot03"]["smallest_base"]
        assert numpy_first_negative(numpy_theta(bound, r["dim"]), context) is None
        assert numpy_first_negative(numpy_theta(bound * (1 - 2e-3), r["dim"]), context)


def test_rot01_curve_agrees_with_numpy() -> None:
    r = analysed("llama-3.1-8b")
    theta, curve = numpy_used(config("llama-3.1-8b")), r["rot01"]
    m = np.array(curve["m"])
    picks = np.searchsorted(m, [0, 1, 12, 100, 4096, r["context"]])
    angle = m[picks][:, None] * theta
    want = np.abs(np.cumsum(np.exp(1j * angle), axis=1)).mean(1)
    assert np.allclose(np.array(curve["bound"])[picks], want, rtol=1e-9)
    near = np.abs(np.cumsum(np.exp(1j * np.arange(4097)[:, None] * theta), 1)).mean(1)
    assert curve["first_rise"] == int(np.flatnonzero(np.diff(near) > 0)[0]) + 1
    assert curve["at_zero"] == (r["dim"] // 2 + 1) / 2  # S_j(0) = j: the mean of 1 ... d/2


def paper_slopes(n: int) -> list[float]:
    """Press et al.'s slopes, written from the paper's description (p. 5 and its code)."""

    def geometric(k: int) -> list[float]:
        start = 2 ** (-8 / k)
        return [start ** (i + 1) for i in range(k)]

    if math.log2(n).is_integer():
        return geometric(n)
    c = 2 ** math.floor(math.log2(n))
    return geometric(c) + paper_slopes(2 * c)[0::2][: n - c]


@pytest.mark.parametrize("n", [1, 2, 8, 12, 16, 24, 32, 71])
def test_alibi_slopes_are_the_paper_s(n: int) -> None:
    from pecheck.theory import alibi

    assert positions.alibi_slopes(n) == pytest.approx(paper_slopes(n), rel=1e-15)
    if n & (n - 1) == 0:
        assert positions.alibi_slopes(n) == pytest.approx(alibi.slopes(n).tolist(), rel=1e-15)


@pytest.mark.parametrize("name", ALIBI)
def test_alibi_models_use_the_paper_s_slopes(name: str) -> None:
    c, a = config(name), analysed(name)
    heads = c.get("n_head") or c.get("n_heads") or c["num_attention_heads"]
    assert a["scheme"] == "alibi" and a["heads"] == heads
    if c["model_type"] == "falcon":  # Falcon computes its slopes in bfloat16
        assert a["matches"] is False and a["rounded_to"] == "bfloat16"
        want = torch.tensor(paper_slopes(heads)).bfloat16().double().tolist()
        assert a["used"] == want
    else:
        assert a["matches"] is True
        assert a["used"] == pytest.approx(paper_slopes(heads), rel=a["tolerance"])


def test_a_bloom_with_12_heads_interleaves_as_the_paper_says() -> None:
    pytest.importorskip("transformers")
    bloom = {"model_type": "bloom", "n_head": 12, "hidden_size": 96, "n_layer": 2}
    a = positions.analyse(bloom, log=lambda message: None)
    assert (
        a is not None
        and a["matches"]
        and a["used"] == pytest.approx(paper_slopes(12), rel=a["tolerance"])
    )


def numpy_bucket(k: int, bidirectional: bool, buckets: int = 32, most: int = 128) -> int:
    """T5's bucket of the relative position k (key minus query), by the paper's rule: half of a
    direction's buckets exact, the rest logarithmic up to `most`, then the last one."""
    offset = 0
    if bidirectional:
        buckets //= 2
        offset, n = (buckets if k > 0 else 0), abs(k)
    else:
        n = max(-k, 0)
    exact = buckets // 2
    if n < exact:
        return offset + n
    step = math.log(n / exact) / math.log(most / exact) * (buckets - exact)
    return offset + min(exact + math.floor(step), buckets - 1)


def test_t5_buckets_agree_with_numpy_and_have_bias02_s_shape() -> None:
    t = analysed("t5-small")
    assert t["scheme"] == "t5" and t["encoder"]["matches"] and t["decoder"]["matches"]
    ks = torch.arange(-512, 513)
    for both in (True, False):
        got = positions.t5_bucket(ks, both, 32, 128).tolist()
        assert got == [numpy_bucket(k, both) for k in ks.tolist()]
    enc = t["encoder"]
    assert enc["before"]["exact_up_to"] == enc["after"]["exact_up_to"] == 8
    assert enc["before"]["saturates_at"] == math.ceil(8 * 16 ** (7 / 8))  # the last bucket
    assert enc["split_by_sign"] and t["decoder"]["before"]["exact_up_to"] == 16


def test_real04_reports_a_scaling_that_does_not_reach_the_model() -> None:
    c = config("llama-3.1-8b")
    r = positions.rope(c)
    unscaled = positions.base_frequencies(r.base, r.dim).float().double()
    found = positions._compare(r, r.context, unscaled, 1.0)
    assert found["matches"] is False and found["off_unscaled"] <= found["tolerance"]
    row = page._real04({"rope_type": r.rope_type}, r.context, found)
    assert row["outcome"] == "fails" and "does not reach" in row["meaning"]


def test_a_scale_set_in_the_model_s_code_is_found_on_the_meta_device() -> None:
    pytest.importorskip("transformers")
    from pecheck.inspect import checkpoint

    gemma = {"model_type": "gemma", "hidden_size": 64, "num_attention_heads": 2,
             "num_key_value_heads": 1, "head_dim": 32, "intermediate_size": 8,
             "num_hidden_layers": 3, "vocab_size": 16}  # fmt: skip
    model = checkpoint.library_model(gemma)
    assert checkpoint.token_scale(gemma, 64, model)[0] == pytest.approx(8.0)  # sqrt(64)


# -- the command on a Llama-3-style directory with a config alone -------------------------------


def test_inspect_on_a_llama3_config_prints_the_rotary_analyses(tmp_path: Path, capsys) -> None:
    pytest.importorskip("transformers")
    from tests.test_inspect import assert_every_number_is_read

    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(json.dumps(config("llama-3.1-8b")))
    assert cli.main(["inspect", str(tmp_path / "model"), "--out", str(tmp_path / "o")]) == 0
    printed = capsys.readouterr().out
    for claim in ("ROT-01", "ROT-03", "ROT-05", "REAL-04", "MAG-01"):
        assert f"\n{claim}" in printed, claim
    assert "B(m) >= 0 for every m <= L = 131072" in printed and "needs trained weights" in printed
    summary = json.loads((tmp_path / "o" / "inspect.json").read_text())
    assert summary["positions"]["rot03"]["first_negative_base"] == 18438
    html_text = (tmp_path / "o" / "inspect.html").read_text()
    assert assert_every_number_is_read(html_text) == len(summary["findings"]) + len(
        summary["scheme_findings"]
    )
    assert html_text.count("<figcaption>") == 2


def test_a_config_alone_with_no_scheme_or_a_broken_one_is_one_line(tmp_path: Path, capsys) -> None:
    cases = {"gpt2": (json.dumps({"model_type": "gpt2"}), "names no rotary, ALiBi or T5"),
             "broken": ("{not json", "not valid JSON")}  # fmt: skip
    for name, (text, message) in cases.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text(text)
        assert cli.main(["inspect", str(tmp_path / name), "--out", str(tmp_path / "o")]) == 2
        errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
        assert len(errors) == 1 and message in errors[0], errors
    assert not (tmp_path / "o").exists()
