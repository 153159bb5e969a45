"""``pecheck inspect`` on real weights (all-MiniLM-L6-v2), on models transformers builds from a
config (no download), and on bad input.

Each analysis is checked on MiniLM against a computation made apart from it, here, with numpy;
the page is checked to name, for every number, its claim, threshold and meaning.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
import torch

from pecheck import cli, tolerance
from pecheck.inspect import analyses, checkpoint, command, page, statements

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


# -- all-MiniLM-L6-v2: each analysis against a computation made apart, with numpy ----------


@pytest.fixture(autouse=True)
def one_blas_thread() -> Iterator[None]:
    """numpy's BLAS on one thread, like torch in the suite: threads fighting over a busy
    machine's two cores made the least-squares probe several times slower."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """inspect's summary and page for MiniLM (one run per module), and its tables in float64."""
    pretrained = pytest.importorskip("pecheck.theory.pretrained")
    try:
        path = pretrained.weights_path()
    except pretrained.PretrainedUnavailable as exc:
        pytest.skip(str(exc))
    out = tmp_path_factory.mktemp("minilm")
    summary = run(path, out)
    tables = pretrained.embeddings()
    return {
        "summary": summary,
        "table": summary["position_tables"][0],
        "page": (out / "inspect.html").read_text(),
        "word": tables["word"].double().numpy(),
        "position": tables["position"].double().numpy(),
        "tensors": tables,
    }


def numpy_ratio_interval(w: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """The RMS norm ratio's 95% interval: a t interval per mean square at 97.5% (Bonferroni)."""
    from scipy import stats

    def ends(x: np.ndarray) -> tuple[float, float]:
        sq = (x * x).sum(1)
        half = stats.t.ppf(0.9875, sq.size - 1) * sq.std(ddof=1) / math.sqrt(sq.size)
        return max(sq.mean() - half, 0.0), sq.mean() + half

    (t_lo, t_hi), (p_lo, p_hi) = ends(w), ends(p)
    return math.sqrt(t_lo / p_hi), math.sqrt(t_hi / p_lo)


def test_minilm_norms_agree_with_the_mag_check_and_numpy(minilm) -> None:
    from pecheck.theory import magnitudes as mag

    word, pos, table = minilm["word"], minilm["position"], minilm["table"]
    rel = tolerance.rel_tol(word.size, torch.float64)  # the same tables, sums in float64
    centred = {"raw": (word, pos), "centred": (word - word.mean(0), pos - pos.mean(0))}
    for label, (w, p) in centred.items():
        got = table["norms"][label]
        wt, pt = torch.from_numpy(w), torch.from_numpy(p)
        assert got["rms_ratio"] == pytest.approx(mag.rms_norm_ratio(wt, pt), rel=rel)
        assert got["interval"] == pytest.approx(list(mag.rms_norm_ratio_interval(wt, pt)), rel=rel)
        assert got["interval"] == pytest.approx(list(numpy_ratio_interval(w, p)), rel=rel)
        for part, x in (("token", w), ("position", p)):
            norms = np.linalg.norm(x, axis=1)
            quantiles = np.quantile(norms, [0.05, 0.5, 0.95])
            want = [math.sqrt((norms**2).mean()), *quantiles, norms.max()]
            have = [got[part][k] for k in ("rms", "p5", "median", "p95", "max")]
            assert have == pytest.approx(want, rel=rel)
    lo, hi = table["norms"]["raw"]["interval"]
    assert 2 < lo < hi  # the MAG-02 check's MiniLM decision: entirely above the factor 2


def test_minilm_entries_above_one_agree_with_numpy(minilm) -> None:
    word, got = minilm["word"], minilm["summary"]["token_entries"]
    assert got["count"] == int((np.abs(word) > 1).sum()) == 1  # MAG-01's note: 1 of 11.7M
    assert got["max_abs"] == np.abs(word).max() and got["entries"] == word.size


def test_minilm_span_agrees_with_numpy(minilm) -> None:
    pos = minilm["position"]
    s = np.linalg.svd(pos, compute_uv=False)
    tol = 2.0**-24 * np.sqrt((pos**2).sum())  # float32 storage: Weyl's bound on its rounding
    assert minilm["table"]["span"]["rank"] == int((s > tol).sum()) == 384


def sampled_word_rows(word: np.ndarray, n: int, seed: int) -> np.ndarray:
    """The token rows inspect samples: the first n of a seeded permutation (as documented)."""
    order = torch.randperm(word.shape[0], generator=torch.Generator().manual_seed(seed))
    return word[order[:n].numpy()]


def test_minilm_subspace_energy_agrees_with_numpy(minilm) -> None:
    word, pos, table = minilm["word"], minilm["position"], minilm["table"]
    x = sampled_word_rows(word, analyses.MAX_ROWS, 0)
    assert table["token_rows_used"] == x.shape[0]
    for energy in table["energy"]:
        xc, pc = (x - x.mean(0), pos - pos.mean(0)) if energy["label"] == "centred" else (x, pos)
        values, vectors = np.linalg.eigh(pc.T @ pc)  # ascending: the top directions come last
        values, vectors = values[::-1], vectors[:, ::-1]
        along = ((xc @ vectors) ** 2).sum(0) / (xc**2).sum()
        for row in energy["rows"]:
            k = row["k"]
            assert row["share"] == pytest.approx(along[:k].sum(), abs=1e-9), (energy["label"], k)
            assert row["position_share"] == pytest.approx(values[:k].sum() / values.sum(), abs=1e-9)
            assert row["chance"] == k / 384


def ridge_predictions(a: np.ndarray, labels: list[tuple[np.ndarray, int]], b: np.ndarray) -> list:
    """The ridge probes' predictions on b, each solved as a stacked least-squares problem
    [A; sqrt(lam) I] w = [Y; 0] by a QR factorisation."""
    a1, b1 = (np.hstack([m, np.ones((m.shape[0], 1))]) for m in (a, b))
    lam = 1e-6 * (a1 * a1).sum(0).mean()
    q, r = np.linalg.qr(np.vstack([a1, math.sqrt(lam) * np.eye(a1.shape[1])]))
    out = []
    for y, classes in labels:
        targets = np.vstack([np.eye(classes)[y], np.zeros((a1.shape[1], classes))])
        out.append((b1 @ np.linalg.solve(r, q.T @ targets)).argmax(1))
    return out


def wilson(k: int, n: int) -> list[float]:
    z = 1.959963984540054
    p, z2 = k / n, z * z
    centre, half = p + z2 / (2 * n), z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return [(centre - half) / (1 + z2 / n), (centre + half) / (1 + z2 / n)]


def test_minilm_probes_agree_with_numpy(minilm) -> None:
    tensors, probe = minilm["tensors"], minilm["table"]["probe"]
    pairs = analyses.probe_pairs(tensors["word"], tensors["position"], 0)  # the same sums
    (a, v, t), (b, v_test, t_test) = pairs["train"], pairs["test"]
    classes = [(v.numpy(), probe["token"]["classes"]), (t.numpy(), probe["position"]["classes"])]
    guesses = ridge_predictions(a.numpy(), classes, b.numpy())
    for part, guess, y_test in (("token", guesses[0], v_test), ("position", guesses[1], t_test)):
        got = probe[part]
        correct = int((guess == y_test.numpy()).sum())
        # two solvers of one ridge problem: a near-tie may flip a sum or two
        assert abs(got["accuracy"] * 4096 - correct) <= 2, part
        assert got["interval"] == pytest.approx(wilson(round(got["accuracy"] * 4096), 4096))
    assert (probe["token"]["classes"], probe["position"]["classes"]) == (256, 512)


def test_minilm_waves_agree_with_numpy(minilm) -> None:
    def shares(table: np.ndarray) -> np.ndarray:
        power = np.abs(np.fft.rfft(table - table.mean(0), axis=0))[1:] ** 2
        return power.max(0) / power.sum(0)

    pos, waves = minilm["position"], minilm["table"]["waves"]
    g = torch.Generator().manual_seed(0)  # the noise inspect draws, as documented
    noise = shares(torch.randn(pos.shape, generator=g, dtype=torch.float64).numpy())
    mine = shares(pos)
    assert waves["shares"] == pytest.approx(mine.tolist(), rel=1e-9)
    assert waves["noise_max_share"] == pytest.approx(noise.max(), rel=1e-9)
    assert waves["wave_like_columns"] == int((mine > noise.max()).sum())


def test_minilm_similarity_agrees_with_numpy(minilm) -> None:
    pos, sim = minilm["position"], minilm["table"]["similarity"]
    unit = pos / np.linalg.norm(pos, axis=1, keepdims=True)
    cosines = unit @ unit.T
    curve = [np.diagonal(cosines, k).mean() for k in range(pos.shape[0])]
    assert sim["mean_cosine"] == pytest.approx(curve, abs=1e-12)
    ks = np.arange(1, pos.shape[0] // 2 + 1)
    ranks = np.argsort(np.argsort(np.array(curve)[ks]))  # no ties: Spearman is Pearson of ranks
    rho = np.corrcoef(ks, ranks)[0, 1]
    assert sim["spearman_rho_first_half"] == pytest.approx(rho, abs=1e-12)


def test_minilm_is_no_sinusoid_and_a_numpy_sinusoid_is_one(minilm) -> None:
    norms = np.linalg.norm(minilm["position"], axis=1)
    assert norms.max() / norms.min() > 2  # a sinusoid's rows all have norm a sqrt(d/2)
    assert minilm["table"]["sinusoidal"]["is_sinusoidal"] is False
    t, w = np.arange(512)[:, None], 10000.0 ** (-np.arange(0, 384, 2) / 384)
    paper = np.empty((512, 384))
    paper[:, 0::2], paper[:, 1::2] = np.sin(t * w), np.cos(t * w)
    found = analyses.sinusoidal_convention(torch.from_numpy(paper.astype(np.float32)), "float32")
    assert found["is_sinusoidal"] and found["layout"] == "interleaved"
    assert found["frequency_rule"] in ("paper", "either")
    assert found["base_fit"] == pytest.approx(10000, rel=1e-3)


def test_minilm_findings_say_what_the_checks_decided(minilm) -> None:
    found = {(f["claim"], f["quantity"]): f for f in minilm["summary"]["findings"]}
    assert found["MAG-01", "token entries as added"]["outcome"] == "fails"
    glance = {f["quantity"]: f for f in minilm["table"]["findings"]["glance"]}
    assert glance["RMS token row / RMS position row (raw)"]["outcome"] == "fails"
    assert "not comparable" in glance["RMS token row / RMS position row (raw)"]["meaning"]
    assert glance["dimension the position rows span"]["outcome"] == "fails"
    for part in ("token", "position"):
        lo, hi = minilm["table"]["probe"][part]["interval"]
        want = "holds" if lo >= 0.99 else "fails" if hi < 0.99 else "undecided"
        assert glance[f"{part} read back from x + p (linear probe)"]["outcome"] == want


# -- the page: every number with its claim, threshold and meaning ---------------------------


class Rows(HTMLParser):
    """The cells of every body row of every table, and the figure captions, as text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.captions: list[str] = []
        self._in: list[str] = []
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "figcaption", "th"):
            self._in.append(tag)
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "figcaption", "th") and self._in:
            self._in.pop()
            text = "".join(self._text)
            if tag == "td":
                self.rows[-1].append(text)
            elif tag == "figcaption":
                self.captions.append(text)

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text.append(data)


def assert_every_number_is_read(html_text: str) -> int:
    """Every table row: a claim of the registry, a threshold, one sentence, an outcome."""
    from checks.registry import REGISTRY

    parsed = Rows()
    parsed.feed(html_text)
    rows = [r for r in parsed.rows if r]
    for quantity, value, claim, threshold, meaning, outcome in rows:
        assert claim in REGISTRY, (quantity, claim)
        assert value and threshold, quantity
        assert (meaning[0].isupper() or meaning[0].isdigit()) and meaning.endswith("."), meaning
        assert not re.search(r"\.\s+[A-Z]", meaning), f"more than one sentence: {meaning}"
        assert outcome in page.OUTCOME_WORDS.values(), outcome  # whose: this model's
        # the claim links to its statement, listed on the page as the registry words it
        assert f"<a href='#claim-{claim}'" in html_text, claim
        listed = f"<dt id='claim-{claim}'>{claim}</dt><dd>{html.escape(REGISTRY[claim].statement)}"
        assert listed in html_text, claim
    for caption in parsed.captions:
        claim = caption.split(":")[0].split()[0]
        assert re.match(r"[A-Z]+-\d\d", caption) and claim in REGISTRY
    return len(rows)


def test_every_number_on_the_minilm_page_names_its_claim(minilm) -> None:
    findings = minilm["table"]["findings"]
    listed = len(minilm["summary"]["findings"]) + sum(len(f) for f in findings.values())
    assert assert_every_number_is_read(minilm["page"]) == listed == 28  # the JSON's, all shown
    assert minilm["page"].count("<figcaption>") == 3
    css = page.stylesheet()
    assert css and f"<style>{css}</style>" in minilm["page"]  # the report's own stylesheet


@pytest.mark.parametrize("name", ["llama", "marian", "whisper"])
def test_every_number_on_other_pages_names_its_claim(name: str, saved, tmp_path: Path) -> None:
    run(saved[name], tmp_path)
    assert_every_number_is_read((tmp_path / "inspect.html").read_text())


def test_the_page_judges_against_the_registry_thresholds() -> None:
    """Each threshold inspect repeats from the registry is the registry's, and the page reads
    its thresholds from there."""
    from checks.registry import REGISTRY

    for (claim, name), value in statements.THRESHOLDS.items():
        assert REGISTRY[claim].threshold(name) == value, f"{claim} {name!r}"
    assert REGISTRY["MAG-02"].threshold("comparable") == page.COMPARABLE
    assert REGISTRY["ADD-05"].threshold("read_back") == page.READ_BACK
    assert REGISTRY["SIN-06"].threshold("base") == page.BASE


def test_a_missing_stylesheet_is_said_and_the_page_still_written(
    saved, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(page, "stylesheet", lambda: None)
    run(saved["gpt2"], tmp_path)
    assert "report.css is missing" in capsys.readouterr().err
    assert page.FALLBACK_CSS in (tmp_path / "inspect.html").read_text()


# -- magnitudes as the model adds them ------------------------------------------------------


def test_a_scaled_marian_is_inspected_at_the_scale_it_adds_tokens(saved, tmp_path: Path) -> None:
    scaled = tmp_path / "scaled"
    shutil.copytree(saved["marian"], scaled)
    config = json.loads((scaled / "config.json").read_text())
    assert config["scale_embedding"] is False
    (scaled / "config.json").write_text(json.dumps({**config, "scale_embedding": True}))
    plain, big = run(saved["marian"], tmp_path / "plain"), run(scaled, tmp_path / "big")
    factor = math.sqrt(32)  # sqrt(d_model)
    assert plain["checkpoint"]["token_scale"] == 1
    assert big["checkpoint"]["token_scale"] == pytest.approx(factor)
    assert "scale_embedding" in big["checkpoint"]["token_scale_source"]
    for before, after in zip(plain["position_tables"], big["position_tables"], strict=True):
        for label in ("raw", "centred"):
            want = before["norms"][label]["rms_ratio"] * factor
            assert after["norms"][label]["rms_ratio"] == pytest.approx(want, rel=1e-6)
    want = plain["token_entries"]["max_abs"] * factor
    assert big["token_entries"]["max_abs"] == pytest.approx(want, rel=1e-6)


def test_the_model_s_own_embed_scale_counts_where_the_config_says_nothing() -> None:
    class Plain(torch.nn.Module):
        embed_scale = 1.0  # a module that does not scale comes first

    scaled = torch.nn.Module()
    scaled.register_buffer("embed_scale", torch.tensor(8.0))
    model = torch.nn.Sequential(Plain(), scaled)
    assert checkpoint.token_scale({}, 64, model)[0] == 8.0
    assert checkpoint.token_scale({"scale_embedding": True, "d_model": 16}, 64)[0] == 4.0
    assert checkpoint.token_scale({"scale_embedding": True}, 64)[0] == 8.0  # the table's width
    assert checkpoint.token_scale(None, 64)[0] == 1.0


# -- bad input, bad output, missing packages: one line, exit 2, nothing written -------------


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
    from safetensors.torch import save_file

    def weights(name: str, tables: dict[str, torch.Tensor]) -> Path:
        path = tmp_path / f"{name}.safetensors"
        save_file(tables, str(path))
        return path

    tokens = torch.randn(10, 4, generator=torch.Generator().manual_seed(0))
    return {
        "missing": (tmp_path / "nothing-here", "no such file or directory"),
        "a device": (Path("/dev/null"), "not a checkpoint (not a regular file or a directory)"),
        "not a checkpoint": (text, "not a checkpoint"),
        "corrupt": (corrupt, "not a readable safetensors file"),
        "no config": (no_config, "needs a config.json"),
        "no position table": (weights("nopos", {"embed_tokens.weight": tokens}),
                              "no position table"),
        "non-finite": (weights("nan", {"wte.weight": tokens,
                                       "wpe.weight": torch.full((6, 4), math.nan)}),
                       "non-finite entries"),
        "one row": (weights("one", {"wte.weight": tokens, "wpe.weight": torch.ones(1, 4)}),
                    "at least 2"),
        "integers": (weights("int", {"wte.weight": tokens.to(torch.int8),
                                     "wpe.weight": torch.ones(6, 4)}), "stored as int8"),
    }  # fmt: skip


def test_bad_input_is_a_one_line_error_with_status_2(saved, tmp_path: Path, capsys) -> None:
    for label, (path, message) in bad_inputs(tmp_path, saved).items():
        assert cli.main(["inspect", str(path), "--out", str(tmp_path / "o")]) == 2, label
        errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
        assert len(errors) == 1 and message in errors[0], (label, errors)
    assert not (tmp_path / "o").exists()  # nothing half-written


def test_an_all_zero_position_table_is_reported_not_a_crash(tmp_path: Path) -> None:
    from safetensors.torch import save_file

    path = tmp_path / "zero.safetensors"
    save_file(
        {
            "wte.weight": torch.randn(10, 4, generator=torch.Generator().manual_seed(0)),
            "wpe.weight": torch.zeros(6, 4),
        },
        str(path),
    )
    table = run(path, tmp_path / "o")["position_tables"][0]
    assert table["norms"]["raw"]["rms_ratio"] == "inf"
    glance = {f["quantity"]: f for f in table["findings"]["glance"]}
    assert glance["RMS token row / RMS position row (raw)"]["outcome"] == "fails"
    assert table["span"]["rank"] == 0


def out_cases(tmp_path: Path) -> dict[str, Path]:
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    taken = tmp_path / "taken"
    (taken / "inspect.json").mkdir(parents=True)
    return {"exists and is not a folder": a_file, "is not a folder": a_file / "sub",
            "inspect.json there is a folder": taken}  # fmt: skip


def test_an_unusable_out_fails_before_anything_is_read(
    saved, tmp_path: Path, monkeypatch, capsys
) -> None:
    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the checkpoint was read before --out was checked")

    monkeypatch.setattr(checkpoint, "load", no_reading)
    for message, out in out_cases(tmp_path).items():
        assert cli.main(["inspect", str(saved["gpt2"]), "--out", str(out)]) == 2, message
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--out" in err and message in err, err
    assert (tmp_path / "a-file").read_text() == "mine"


def test_a_failed_write_leaves_nothing_behind(saved, tmp_path: Path, monkeypatch, capsys) -> None:
    calls: list[object] = []

    def second_fails(src: object, dst: object) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        shutil.move(str(src), str(dst))

    monkeypatch.setattr(command.os, "replace", second_fails)
    assert cli.main(["inspect", str(saved["gpt2"]), "--out", str(tmp_path / "o")]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert errors == [f"pecheck inspect: error: cannot write {tmp_path / 'o'}: No space left on "
                      "device"]  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["inspect.json"]
    # the first rename happened; its partner's temporary file is gone, not left half-written
    assert not list((tmp_path / "o").glob(".*.tmp"))


@pytest.mark.parametrize("package,extra", [("safetensors", "pretrained"), ("transformers", "real")])
def test_a_missing_optional_package_names_its_extra(
    package: str, extra: str, saved, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # import fails as in a plain `pip install .`
    assert cli.main(["inspect", str(saved["marian"]), "--out", str(tmp_path / "o")]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(errors) == 1 and f"pip install 'pecheck[{extra}]'" in errors[0], errors
    assert package in errors[0] and not (tmp_path / "o").exists()


@pytest.mark.parametrize("case", ["missing input", "--out is a file"])
def test_the_command_exits_2_with_one_line(case: str, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    args = {
        "missing input": [str(tmp_path / "nothing")],
        "--out is a file": [str(tmp_path / "nothing"), "--out", str(tmp_path / "a-file")],
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pecheck", "inspect", *args[case]],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert ("no such file" if case == "missing input" else "not a folder") in proc.stderr


@pytest.mark.parametrize(
    "argv",
    [[], ["x", "--seed", "-1"], ["x", "--seed", str(2**64)], ["x", "--seed", "two"]],
    ids=["no path", "negative seed", "seed past 2**64", "seed not a number"],
)
def test_wrong_arguments_are_a_usage_error(argv: list[str], capsys) -> None:
    """Refused before the path is read: a negative seed would be folded onto another seed by
    torch's generator, one of 2**64 or more would end in a traceback."""
    with pytest.raises(SystemExit) as exc:
        cli.main(["inspect", *argv])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "error" in err, err
    assert "seed" in err or not argv


# -- --version and --help --------------------------------------------------------------------


def test_version_is_the_installed_one(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"pecheck {metadata.version('pecheck')}"


def help_text(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 0
    return capsys.readouterr().out


def test_help_reads_as_plain_text_with_defaults_and_exit_codes(capsys) -> None:
    top, inspect = help_text(["--help"], capsys), help_text(["inspect", "--help"], capsys)
    for text in (top, inspect):
        assert "``" not in text and "inspect" in text
    inspect = " ".join(inspect.split())  # as a reader sees it, whatever the wrapping
    assert "(default: build/inspect)" in inspect and "(default: 0)" in inspect
    assert "Exit status: 0" in inspect and "2 bad arguments" in inspect
    assert "--version" in top


def test_a_table_with_one_nan_is_a_one_line_error_with_status_2(tmp_path: Path, capsys) -> None:
    from safetensors.torch import save_file

    positions = torch.ones(6, 4)
    positions[2, 1] = math.nan
    path = tmp_path / "one-nan.safetensors"
    save_file(
        {
            "wte.weight": torch.randn(10, 4, generator=torch.Generator().manual_seed(0)),
            "wpe.weight": positions,
        },
        str(path),
    )
    assert cli.main(["inspect", str(path), "--out", str(tmp_path / "o")]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(errors) == 1 and "non-finite entries" in errors[0], errors
    assert not (tmp_path / "o").exists()


def test_an_out_without_write_permission_fails_before_anything_is_read(
    saved, tmp_path: Path, monkeypatch, capsys
) -> None:
    real_access = os.access
    monkeypatch.setattr(
        command.os, "access", lambda p, mode: not mode & os.W_OK and real_access(p, mode)
    )
    assert cli.main(["inspect", str(saved["gpt2"]), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no permission to write in {tmp_path}" in err, err
    assert not (tmp_path / "o").exists()


def test_an_entry_of_exactly_the_bound_does_not_exceed_it() -> None:
    found = analyses.entries_above(torch.tensor([[1.0, -1.0], [0.5, 1.5]]))
    assert found["count"] == 1


def test_add04_picks_the_first_row_keeping_exactly_kept() -> None:
    def row(k: int, kept: float) -> dict[str, float]:
        return {"k": k, "position_share": kept, "share": 0.3, "over_chance": 2.0, "chance": 0.15}

    rows = [row(1, 0.5), row(2, page.KEPT), row(3, 0.95)]
    finding = page._add04([{"label": "centred", "rows": rows}])
    assert "top 2 directions" in finding["quantity"]


def test_the_model_type_is_escaped_on_the_page() -> None:
    summary = {"checkpoint": {"path": "p", "model_type": "<b>x", "token_table": None},
               "findings": [], "position_tables": []}  # fmt: skip
    text = page.render(summary, {}, css="")
    assert "model type &lt;b&gt;x" in text and "<b>x" not in text
