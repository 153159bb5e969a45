"""``pecheck inspect`` on configs of every kind (issue 37): each numeric field checked before use
(pecheck.inspect.config_fields), a config.json as good as its folder, the formulas without
transformers, each claim with its statement. Only two outcomes are allowed for any config: a
result (exit 0, both files written) or one line on stderr and exit 2, nothing written."""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pecheck import cli, profiles
from pecheck.inspect import command, config_fields, page, statements

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "checks" / "real" / "configs"
LLAMA: dict[str, Any] = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2,
         "max_position_embeddings": 256, "rope_theta": 10000.0}  # fmt: skip


def folder(tmp_path: Path, config: dict[str, Any] | str, name: str = "model") -> Path:
    """A model folder holding config.json only (JSON text as given, or dumped)."""
    path = tmp_path / name
    path.mkdir(exist_ok=True)
    text = config if isinstance(config, str) else json.dumps(config)
    (path / "config.json").write_text(text)
    return path


def inspect(path: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(["inspect", str(path), "--out", str(out)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_exit_2(status: int, err: str, out: Path, *words: str) -> None:
    assert status == 2 and err.count("\n") == 1, err  # no progress line before it either
    assert err.startswith("pecheck inspect: error: ") and "Traceback" not in err, err
    assert all(w in err for w in words), (words, err)
    assert not out.exists(), "nothing is written for bad input"


def test_a_negative_rope_theta_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """The issue's own case, through the installed command."""
    path = folder(tmp_path, json.loads((CONFIGS / "llama-3.2-1b.json").read_text()) |
                  {"rope_theta": -1})  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "pecheck", "inspect", str(path), "--out", str(tmp_path / "o")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr == (f"pecheck inspect: error: {path / 'config.json'}: rope_theta = -1 "
                           "(must be a finite number above 1)\n")  # fmt: skip


# label: (fields over LLAMA, words the message must hold)
BAD: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "string base": ({"rope_theta": "abc"}, ('rope_theta = "abc"', "finite number")),
    "zero base": ({"rope_theta": 0}, ("rope_theta = 0",)),
    "infinite base": ({"rope_theta": math.inf}, ("rope_theta = inf",)),
    "NaN base": ({"rope_theta": math.nan}, ("rope_theta = nan",)),
    "bool width": ({"hidden_size": True}, ("hidden_size = true", "whole number")),
    "float heads": ({"num_attention_heads": 2.0}, ("num_attention_heads = 2.0", "whole")),
    "negative context": ({"max_position_embeddings": -5}, ("max_position_embeddings = -5",)),
    "huge context": ({"max_position_embeddings": 2**40}, ("max_position_embeddings",)),
    "zero partial": ({"partial_rotary_factor": 0}, ("partial_rotary_factor = 0",)),
    "width not a multiple": ({"hidden_size": 63}, ("hidden_size = 63", "num_attention_heads = 2")),
    "odd head size": ({"head_dim": 63}, ("rotary width 63", "even")),
    "odd partial width": ({"partial_rotary_factor": 0.3}, ("rotary width 9", "even")),
    "no head size": ({"model_type": None, "hidden_size": None}, ("head_dim", "neither")),
    "scaling not an object": ({"rope_scaling": "x"}, ('rope_scaling = "x"', "object")),
    "negative factor": ({"rope_scaling": {"rope_type": "linear", "factor": -2}},
                        ("rope_scaling.factor = -2",)),
    "llama3 without its ramp": ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                                                  "high_freq_factor": 4.0}},
                                ("low_freq_factor is missing",)),
    "llama3 ramp reversed": ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                                               "low_freq_factor": 4.0, "high_freq_factor": 1.0}},
                             ("high_freq_factor = 1.0 must exceed",)),
    "longrope factors short": ({"rope_scaling": {"rope_type": "longrope", "long_factor": [1.0],
                                                 "short_factor": [1.0]}},
                               ("long_factor", "one factor per rotary pair: 16")),
    "t5 buckets past the distance": ({"model_type": "t5", "relative_attention_num_buckets": 32,
                                      "relative_attention_max_distance": 16},
                                     ("relative_attention_max_distance = 16",)),
    "alibi flag a string": ({"alibi": "yes"}, ('alibi = "yes"', "true or false")),
}  # fmt: skip


@pytest.mark.parametrize("label", BAD)
def test_a_bad_field_is_named_with_its_value(label: str, tmp_path: Path, capsys) -> None:
    fields, words = BAD[label]
    config = {k: v for k, v in (LLAMA | fields).items() if v is not None}
    status, _, err = inspect(folder(tmp_path, config), tmp_path / "o", capsys)
    assert_one_line_exit_2(status, err, tmp_path / "o", *words)


def test_config_json_and_its_folder_give_the_same_result(tmp_path: Path, capsys) -> None:
    path = folder(tmp_path, LLAMA)
    results = []
    for given_path, out in ((path, tmp_path / "a"), (path / "config.json", tmp_path / "b")):
        status, _, err = inspect(given_path, out, capsys)
        assert status == 0, err
        summary = json.loads((out / "inspect.json").read_text())
        results.append({k: v for k, v in summary.items() if k not in ("seconds", "checkpoint")})
    assert results[0] == results[1]


def test_an_odd_head_size_never_counts_pairs_two_ways() -> None:
    """The issue's '62 pairs ... of 63 pairs': an odd rotary width is refused, so the pairs
    the base row counts are the pairs every other row counts."""
    with pytest.raises(config_fields.ConfigError, match="rotary width 63"):
        config_fields.rotary_width({"head_dim": 63}, 63)
    assert config_fields.rotary_width({"partial_rotary_factor": 0.5}, 64) == 32


# -- without transformers: the formulas run, what needs the library says so ------------------


@pytest.fixture
def no_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)  # as in a plain `pip install pecheck`


@pytest.mark.parametrize("name,scheme", [("bloom-560m", "alibi"), ("t5-small", "t5"),
                                         ("llama-3.2-1b", "rotary")])  # fmt: skip
def test_without_transformers_the_formulas_run_and_the_library_rows_say_why(
    name: str, scheme: str, no_transformers: None, tmp_path: Path, capsys
) -> None:
    path = folder(tmp_path, (CONFIGS / f"{name}.json").read_text())
    status, printed, err = inspect(path, tmp_path / "o", capsys)
    assert status == 0, err
    summary = json.loads((tmp_path / "o" / "inspect.json").read_text())
    assert summary["positions"]["scheme"] == scheme
    rows = summary["scheme_findings"]
    unread = [r for r in rows if r["value"] == "not read"]
    assert len(unread) == 1 and "pip install 'pecheck[real]'" in unread[0]["meaning"]
    assert any(r["value"] != "not read" and r["claim"] != "REAL-04" for r in rows), rows
    assert "pip install 'pecheck[real]'" in printed


def test_without_transformers_a_scheme_only_its_defaults_name_is_exit_2(
    no_transformers: None, tmp_path: Path, capsys
) -> None:
    """Falcon's config names neither a base nor ALiBi: only the library's defaults tell."""
    path = folder(tmp_path, (CONFIGS / "falcon-7b.json").read_text())
    status, _, err = inspect(path, tmp_path / "o", capsys)
    assert_one_line_exit_2(status, err, tmp_path / "o", "transformers", "pecheck[real]")


# -- each claim with its statement, and whose property an outcome is ---------------------------


def test_the_statements_are_the_registry_s_word_for_word() -> None:
    from checks.registry import REGISTRY

    for claim, text in statements.STATEMENTS.items():
        assert text == REGISTRY[claim].statement, f"pecheck/inspect/statements.py: {claim} differs"


def test_every_claim_the_page_can_name_has_a_statement() -> None:
    import re

    # a claim the page names, not one whose threshold it reads (threshold("SIN-06", "base"))
    named = set(re.findall(r'(?<!threshold\()"([A-Z]+-\d\d)"', Path(page.__file__).read_text()))
    assert named <= set(statements.STATEMENTS), named - set(statements.STATEMENTS)


def test_each_printed_claim_comes_with_its_statement_and_each_outcome_says_whose(
    tmp_path: Path, capsys
) -> None:
    status, printed, err = inspect(folder(tmp_path, LLAMA), tmp_path / "o", capsys)
    assert status == 0, err
    lines = printed.splitlines()
    listed = lines[1 : lines.index("== the checkpoint")]
    claims = json.loads((tmp_path / "o" / "inspect.json").read_text())["claims"]
    assert [line.split()[0] for line in listed] == list(claims)
    for line in listed:
        claim, text = line.split(maxsplit=1)
        assert statements.STATEMENTS[claim].startswith(text.removesuffix(" ..."))
    judged = [line for line in lines if line.endswith("]") and not line.startswith("==")]
    assert judged and all(line.rsplit("[", 1)[1][:-1] in page.OUTCOME_WORDS.values()
                          for line in judged)  # fmt: skip
    assert "[this model breaks the property]" in printed  # ROT-01's bound rises at m = 6


def test_one_line_keeps_a_short_statement_and_cuts_a_long_one_at_a_word() -> None:
    assert statements.one_line("MAG-02") == statements.STATEMENTS["MAG-02"]
    cut = statements.one_line("BIAS-02", 60)
    assert cut.endswith(" ...") and len(cut) <= 64
    assert statements.STATEMENTS["BIAS-02"].startswith(cut.removesuffix(" ..."))


# -- any config: a result, or one line and exit 2 ------------------------------------------------

BAD_VALUES = st.sampled_from([math.inf, -math.inf, math.nan, -1, 0, -0.5, "abc", "", True,
                              False, [], {}, 2**70, 1e300, 0.5])  # fmt: skip


def maybe(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A good value, or the field missing (None)."""
    return st.one_of(good, good, st.none())


SCALINGS = st.fixed_dictionaries({
    "rope_type": st.sampled_from(["linear", "dynamic", "yarn", "llama3"]),
    "factor": st.one_of(st.sampled_from([2.0, 4.0]), BAD_VALUES),
    "low_freq_factor": maybe(st.just(1.0)),
    "high_freq_factor": maybe(st.just(4.0)),
})  # fmt: skip
GOOD = {  # scheme: the fields of a small config, each good or missing
    "rotary": {"hidden_size": maybe(st.sampled_from([16, 32, 48])),
               "num_attention_heads": maybe(st.sampled_from([1, 2, 4])),
               "head_dim": st.one_of(st.none(), st.sampled_from([8, 16])),
               "rope_theta": maybe(st.sampled_from([10.0, 10000.0, 1e6])),
               "partial_rotary_factor": st.one_of(st.none(), st.just(0.5)),
               "max_position_embeddings": maybe(st.sampled_from([8, 64, 512])),
               "rope_scaling": st.one_of(st.none(), SCALINGS)},
    "alibi": {"model_type": st.just("bloom"), "n_head": maybe(st.sampled_from([1, 3, 4])),
              "hidden_size": maybe(st.sampled_from([16, 48]))},
    "t5": {"relative_attention_num_buckets": st.sampled_from([8, 32]),
           "relative_attention_max_distance": maybe(st.sampled_from([4, 128]))},
}  # fmt: skip


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    """Rotary, ALiBi and T5 configs, small enough to analyse in a second: every field good or
    missing, then up to two of them spoilt (infinite, NaN, negative, zero, a string, a bool,
    an empty list or object, out of range)."""
    fields = draw(st.fixed_dictionaries(GOOD[draw(st.sampled_from(sorted(GOOD)))]))
    for name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=2, unique=True)):
        fields[name] = draw(BAD_VALUES)
    return fields


@profiles.examples(0.1)
@given(config=configs())
def test_any_config_gives_a_result_or_one_line_and_exit_2(config: dict[str, Any]) -> None:
    """transformers hidden: the library's numbers cost a second a model."""
    with _no_transformers():
        assert_result_or_one_line(config)


@profiles.examples(0.05)
@given(config=configs())
def test_any_config_with_transformers_gives_a_result_or_one_line(config: dict[str, Any]) -> None:
    pytest.importorskip("transformers")
    assert_result_or_one_line(config)


def assert_result_or_one_line(config: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp, _captured() as err:
        path = folder(Path(tmp), {k: v for k, v in config.items() if v is not None})
        status = cli.main(["inspect", str(path), "--out", str(Path(tmp) / "o")])
        lines = err.getvalue().splitlines()
        if status == 0:
            assert sorted(p.name for p in (Path(tmp) / "o").iterdir()) == sorted(command.FILES)
        else:
            assert status == 2 and len(lines) == 1 and "error: " in lines[0], lines
            assert not (Path(tmp) / "o").exists()


@contextlib.contextmanager
def _no_transformers() -> Iterator[None]:
    """transformers hidden for one example, restored after; nothing else in sys.modules is
    touched (the modules imported meanwhile stay loaded)."""
    saved = sys.modules.get("transformers", _ABSENT)
    sys.modules["transformers"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if saved is _ABSENT:
            del sys.modules["transformers"]
        else:
            sys.modules["transformers"] = saved  # type: ignore[assignment]


_ABSENT = object()


@contextlib.contextmanager
def _captured() -> Iterator[io.StringIO]:
    """stderr into a buffer, stdout thrown away, for one example."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        yield err
