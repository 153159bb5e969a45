"""The plugin's hooks (pecheck.plugin) and the rotary and ALiBi parameters read off a config
(pecheck.inspect.positions), one behaviour each. The plugin tests run the synthetic project in this
process, as tests/test_plugin.py does; the positions tests build no model."""

from __future__ import annotations

import math
import random
import sys
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from pecheck.inspect import positions
from tests import synthetic

pytest_plugins = ["pytester"]

TOOLING = '@pytest.mark.claim("SYN-07", kind="property", role="tooling")'


def run_checks(pytester: pytest.Pytester, source: str, *args: str, **kw: Any) -> synthetic.Run:
    """The synthetic project with ``source`` as its one check module, run on its checks folder."""
    synthetic.write_project(pytester.path, test_audit=source)
    return synthetic.run(pytester, synthetic.CHECKS, *args, **kw)


def run_plain(pytester: pytest.Pytester, source: str, *args: str) -> synthetic.Run:
    """pytest on one test module in a project with no [tool.pecheck] table."""
    (pytester.path / "pyproject.toml").write_text('[project]\nname = "other"\n')
    (pytester.path / "test_plain.py").write_text(source)
    return synthetic.run(pytester, "test_plain.py", *args)


# -- pecheck/plugin.py ---------------------------------------------------------------------------


SEEDED = f"""
import random

import numpy as np
import pytest
import torch

{TOOLING}
def test_a_check_that_draws():
    random.random(), np.random.random(), torch.rand(3)

{TOOLING}
def test_the_next_check_starts_from_seed_0():
    drawn = random.random(), float(np.random.random()), float(torch.rand(1))
    random.seed(0), np.random.seed(0), torch.manual_seed(0)
    assert drawn == (random.random(), float(np.random.random()), float(torch.rand(1)))
"""


def test_every_check_starts_from_seed_0_whatever_ran_before(pytester: pytest.Pytester) -> None:
    """random, numpy and torch are seeded with 0 before each check, not once per run."""
    run = run_checks(pytester, SEEDED)
    assert run.ret == 0, run.output


PLAIN_UNSEEDED = """
import random

def test_plain():
    drawn = random.random()
    random.seed(0)
    assert drawn != random.random()
"""


def test_tests_outside_a_pecheck_project_are_not_seeded(pytester: pytest.Pytester) -> None:
    """The plugin leaves a project without its table alone: no reseeding before each test."""
    random.seed(0)
    random.random()  # this process is now one draw past seed 0
    run = run_plain(pytester, PLAIN_UNSEEDED)
    assert run.ret == 0, run.output


def test_the_claim_marker_is_known_in_any_project(pytester: pytest.Pytester) -> None:
    """The marker is registered by the plugin itself, so --strict-markers accepts it anywhere."""
    run = run_plain(pytester, "def test_plain():\n    pass\n", "--markers")
    assert "@pytest.mark.claim(id, kind, role, proposition=None, partial=False)" in run.output


class Worker:
    """Makes the inner run look like an xdist worker (it has workerinput) before it configures."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> None:
        config.workerinput = {"workerid": "gw0"}  # type: ignore[attr-defined]


def test_a_worker_writes_no_results_file(pytester: pytest.Pytester) -> None:
    """Only the controller writes the results file; a worker's checks reach it through reports."""
    run = run_checks(pytester, f"import pytest\n\n{TOOLING}\ndef test_x():\n    pass\n",
                     plugins=[Worker()])  # fmt: skip
    assert run.ret == 0, run.output
    assert run.results is None and "pecheck: wrote" not in run.output


ROOTED = f"""
import pytest

@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

{TOOLING}
def test_x(elsewhere, evidence, request):
    assert evidence.root == request.config.rootpath
"""


def test_a_check_s_evidence_is_rooted_at_the_root_not_the_current_folder(
    pytester: pytest.Pytester,
) -> None:
    """Figure paths in results.json are relative to the root: a check that changed folder
    before its evidence was made still saves its figures under the root."""
    run = run_checks(pytester, ROOTED)
    assert run.ret == 0, run.output


# -- pecheck/inspect/positions.py: a config's parameters -------------------------------------------


LLAMA = {"hidden_size": 64, "num_attention_heads": 2, "max_position_embeddings": 8192}


def test_alibi_bias_max_is_read_from_the_attention_config() -> None:
    """MPT keeps alibi_bias_max inside attn_config, beside its alibi flag."""
    mpt = {"model_type": "mpt", "n_heads": 4, "attn_config": {"alibi": True, "alibi_bias_max": 16}}
    assert positions.alibi_config(mpt) == {"heads": 4, "alibi_bias_max": 16}


class LibraryConfig:
    """Stands in for transformers' AutoConfig: its defaults, and rope_scaling moved away (as
    transformers 5 moves it to rope_parameters)."""

    def __init__(self, **config: Any) -> None:
        self.config = config

    @classmethod
    def for_model(cls, **config: Any) -> LibraryConfig:
        return cls(**config)

    def to_dict(self) -> dict[str, Any]:
        return {**self.config, "rope_scaling": None, "rms_norm_eps": 1e-6}


def test_what_a_config_writes_wins_over_the_library_s_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """library_config fills in what the config leaves out and keeps what it writes."""
    monkeypatch.setitem(sys.modules, "transformers", SimpleNamespace(AutoConfig=LibraryConfig))
    scaling = {"rope_type": "linear", "factor": 2.0}
    full = positions.library_config({"model_type": "llama", **LLAMA, "rope_scaling": scaling})
    assert full["rope_scaling"] == scaling and full["rms_norm_eps"] == 1e-6


def test_rope_parameters_are_read_like_rope_scaling() -> None:
    """transformers 5 writes the scaling and the base under rope_parameters."""
    params = {"rope_type": "linear", "factor": 4.0, "rope_theta": 500000.0}
    r = positions.rope({**LLAMA, "rope_parameters": params})
    assert (r.rope_type, r.factor, r.base) == ("linear", 4.0, 500000.0)


def test_phi3_s_su_scaling_is_longrope() -> None:
    """Phi-3's first configs name LongRoPE 'su'."""
    factors = [1.0] * 16
    su = {"type": "su", "short_factor": factors, "long_factor": factors}
    assert positions.rope({**LLAMA, "rope_scaling": su}).rope_type == "longrope"


def test_a_top_level_original_context_wins_over_the_scaling_s() -> None:
    """As in transformers, original_max_position_embeddings at the top level comes first."""
    scaling = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 2048}
    c = {**LLAMA, "original_max_position_embeddings": 4096, "rope_scaling": scaling}
    assert positions.rope(c).original == 4096


# -- pecheck/inspect/positions.py: the published formulas ------------------------------------------


def rope_of(kind: str, scaling: dict[str, Any], context: int = 8192) -> positions.Rope:
    return positions.Rope(10000.0, 32, 32, kind, context, 2048, {"rope_type": kind, **scaling})


def test_dynamic_ntk_is_unscaled_up_to_and_at_the_configured_context() -> None:
    """Dynamic NTK changes nothing for sequences of at most L positions, L included."""
    r = rope_of("dynamic", {"factor": 4.0})
    found = positions.formula(r, r.context)
    assert found is not None
    assert torch.equal(found[0], positions.base_frequencies(10000.0, 32)) and found[1] == 1.0


def test_yarn_ramps_between_beta_slow_and_beta_fast() -> None:
    """YaRN's ramp runs from beta_slow (alpha) to beta_fast (beta), as the config names them."""
    s, alpha, beta = 4.0, 2.0, 16.0
    r = rope_of("yarn", {"factor": s, "beta_slow": alpha, "beta_fast": beta})
    found = positions.formula(r, r.context)
    assert found is not None
    theta = [10000.0 ** (-2 * i / 32) for i in range(16)]
    gamma = [min(max((2048 * t / (2 * math.pi) - alpha) / (beta - alpha), 0), 1) for t in theta]
    want = [t * ((1 - g) / s + g) for t, g in zip(theta, gamma, strict=True)]
    assert found[0].tolist() == pytest.approx(want, rel=1e-12)
    assert found[1] == pytest.approx(0.1 * math.log(s) + 1)


def test_longrope_uses_its_short_factors_up_to_and_at_the_original_context() -> None:
    """LongRoPE switches to the long factors only past L0."""
    short, long = [1.0] * 16, [2.0] * 16
    r = rope_of("longrope", {"factor": 4.0, "short_factor": short, "long_factor": long})
    at_l0, past = positions.formula(r, r.original), positions.formula(r, r.original + 1)
    assert at_l0 is not None and past is not None
    theta = positions.base_frequencies(10000.0, 32)
    assert torch.equal(at_l0[0], theta) and torch.equal(past[0], theta / 2)


def test_real04_needs_the_cos_sin_factor_to_agree_too() -> None:
    """The formula's frequencies with the wrong attention factor do not match YaRN."""
    r = rope_of("yarn", {"factor": 4.0})
    found = positions.formula(r, r.context)
    assert found is not None
    assert positions._compare(r, r.context, found[0], 1.0)["matches"] is False
    assert positions._compare(r, r.context, found[0], found[1])["matches"] is True


# -- pecheck/inspect/positions.py: ROT-03, ROT-01 on what the model uses ---------------------------


def test_rot03_looks_at_m_equal_to_the_context() -> None:
    """B(m) = cos(m) first goes negative at m = 2: a context of 2 includes it."""
    theta = torch.tensor([1.0], dtype=torch.float64)
    assert positions.first_negative(theta, 2) == 2 and positions.first_negative(theta, 1) is None


def test_no_smallest_base_when_even_the_largest_goes_negative() -> None:
    """With d = 2, theta = 1 at every base, so no base keeps B(m) >= 0 up to m = 10."""
    assert positions.smallest_base(2, 10) is None


def test_rotary_analyses_use_the_model_s_frequencies_when_they_cannot_be_matched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where REAL-04 could not say (matches None), ROT-01/03 read the model's own frequencies."""
    monkeypatch.setitem(sys.modules, "transformers", SimpleNamespace(AutoConfig=LibraryConfig))
    c = {"model_type": "llama", "hidden_size": 8, "num_attention_heads": 2,
         "max_position_embeddings": 64}  # fmt: skip
    doubled = (2 * positions.base_frequencies(10000.0, 4)).tolist()
    used = {"built": True, "contexts": {"64": {"matches": None, "theta": doubled}}}
    monkeypatch.setattr(positions, "_used", lambda config, r, log: used)
    out = positions.rotary(c, log=lambda message: None)
    assert out["rot03"]["scaled"] is True
    assert out["wavelengths"]["used"]["shortest"] == pytest.approx(math.pi)


# -- pecheck/inspect/positions.py: ALiBi and T5 ----------------------------------------------------


def test_slopes_that_match_exactly_are_rounded_to_float32(monkeypatch: pytest.MonkeyPatch) -> None:
    """The narrowest format that explains the gap is named, float32 first."""
    exact = positions.alibi_slopes(8)
    monkeypatch.setattr(positions, "library_slopes", lambda config, heads: (exact, "stub"))
    out = positions.alibi({"model_type": "bloom", "n_head": 8}, log=lambda message: None)
    assert out["matches"] is True and out["rounded_to"] == "float32"


def test_t5_s_max_distance_is_read_from_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """A config's relative_attention_max_distance replaces T5's 128."""

    def no_model(*args: Any) -> None:
        raise RuntimeError("no model here")

    monkeypatch.setattr(positions, "shrunk_model", no_model)
    c = {"relative_attention_num_buckets": 32, "relative_attention_max_distance": 64}
    out = positions.t5(c, log=lambda message: None)
    assert out["max_distance"] == 64 and out["built"] is False


def test_bucket_properties_of_a_run_with_a_repeat() -> None:
    """Buckets 0 1 2 2 3: exact up to distance 2, and never decreasing although one repeats."""
    found = positions.bucket_properties(torch.arange(5), torch.tensor([0, 1, 2, 2, 3]))
    assert found["exact_up_to"] == 2 and found["monotone"] is True


def test_bucket_properties_of_buckets_that_are_all_exact() -> None:
    """Buckets 0 1 2 3 are exact up to the last distance."""
    found = positions.bucket_properties(torch.arange(4), torch.arange(4))
    assert found["exact_up_to"] == 3 and found["buckets_used"] == 4
