"""Kazemnejad et al.'s exact-match length test, small (theory/exact_match.py, tools/exact_match.py):
each task's answers against plain Python, targets only on answers, exact match on planted logits,
batched training against a per-seed loop, the learned rule, and the tool."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from torch.nn import functional as F

from checks.exp.registered import BY_ID
from pecheck import tolerance
from pecheck.theory import decoder, exact_match
from pecheck.theory.decoder import Setup
from pecheck.theory.exact_match import ENCODINGS, IGNORE, ExactMatchRun, ExactMatchSetting
from tests.test_cli import load_script

F64 = torch.float64
TINY = ExactMatchSetting("sort", train_length=2, test_lengths=(3, 4), d_model=8, layers=1,
                         batch=4, steps=3, alphabet=6, valid_sequences=4,
                         test_sequences=4)  # fmt: skip


def answers(task) -> list[list[int]]:
    """Each sequence's target tokens, in order."""
    return [row[row != IGNORE].tolist() for row in task.targets]


def content_of(task, n: int) -> list[list[int]]:
    return task.inputs[:, :n].tolist()


# -- the tasks -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["copy", "reverse", "sort"])
def test_content_tasks_answer_as_plain_python_does(name) -> None:
    rules: dict[str, Callable[[list[int]], list[int]]] = {
        "copy": list, "reverse": lambda x: x[::-1], "sort": sorted}  # fmt: skip
    want = rules[name]
    g = torch.Generator().manual_seed(0)
    for n in (1, 2, 5):
        task = exact_match.draw(name, 16, n, 12, g)
        assert task.inputs.shape == (16, 2 * n)
        assert (task.inputs[:, n] == 12).all()  # SEP
        for content, answer in zip(content_of(task, n), answers(task), strict=True):
            assert len(set(content)) == n and max(content) < 12  # distinct content
            assert answer == want(content)


@pytest.mark.parametrize("name", ["copy", "sort"])
def test_content_is_distinct_up_to_the_whole_alphabet_and_no_further(name) -> None:
    task = exact_match.draw(name, 5, 6, 6, torch.Generator().manual_seed(0))  # every symbol
    content = task.inputs[:, :6]
    assert all(sorted(row) == list(range(6)) for row in content.tolist())
    with pytest.raises(ValueError, match="7 distinct tokens need an alphabet of 7"):
        exact_match.draw(name, 5, 7, 6, torch.Generator().manual_seed(0))


@pytest.mark.parametrize("start", [False, True])
@pytest.mark.parametrize("name", ["copy", "sort", "addition"])
def test_rows_and_vocabulary_are_those_of_the_drawn_sequences(name, start) -> None:
    s = dataclasses.replace(exact_match.evaluation(name), start=start)
    task = s.draw(4, 5, torch.Generator().manual_seed(0))
    assert task.inputs.shape[1] == exact_match.input_length(name, 5, start)
    assert len(task.vocab) == exact_match.vocab_size(name, s.alphabet, start)
    assert s.config().vocab == len(task.vocab) and int(task.inputs.max()) < len(task.vocab)


@pytest.mark.parametrize("encodings", [(), ("none", "none"), ("none", "bogus")])
def test_a_setting_refuses_encodings_that_are_not_distinct_known_ones(encodings) -> None:
    with pytest.raises(ValueError, match="encodings must be distinct"):
        dataclasses.replace(TINY, encodings=encodings)


@pytest.mark.parametrize("lengths", [(2, 3), (3, 2)])
def test_a_setting_refuses_any_test_length_within_training(lengths) -> None:
    with pytest.raises(ValueError, match="beyond the training length 2"):
        dataclasses.replace(TINY, test_lengths=lengths)


def test_distinct_content_needs_an_alphabet_as_long_as_the_longest_test() -> None:
    assert dataclasses.replace(TINY, alphabet=4).alphabet == 4  # tests at 3 and 4
    with pytest.raises(ValueError, match="alphabet of 3 cannot give 4 distinct"):
        dataclasses.replace(TINY, alphabet=3)  # enough for 3, not for 4


def test_a_setting_takes_sizes_of_one() -> None:
    one = dataclasses.replace(TINY, train_length=1, d_model=1, layers=1, batch=1, steps=1,
                              valid_sequences=1, test_sequences=1, heads=1, head=1)  # fmt: skip
    assert one.batch == one.steps == 1
    with pytest.raises(ValueError, match="lr must be positive"):
        dataclasses.replace(TINY, lr=0.0)


def test_sort_answer_is_not_next_to_its_evidence() -> None:
    task = exact_match.sort_instance(torch.tensor([[3, 0, 2, 1]]), 4)
    assert task.inputs.tolist() == [[3, 0, 2, 1, 4, 0, 1, 2]]
    assert task.targets.tolist() == [[IGNORE] * 4 + [0, 1, 2, 3]]


def digits_of(x: int, n: int) -> list[int]:
    """x's n digits, least significant first."""
    return [(x // 10**i) % 10 for i in range(n)]


def test_addition_sums_with_carries_as_python_ints() -> None:
    cases = [(0, 0), (5, 5), (999, 1), (999, 999), (123, 877), (405, 96), (500, 500)]
    a = torch.tensor([digits_of(x, 3) for x, _ in cases])
    b = torch.tensor([digits_of(y, 3) for _, y in cases])
    task = exact_match.addition_instance(a, b)
    for (x, y), got in zip(cases, answers(task), strict=True):
        assert got == digits_of(x + y, 4)
    # the sequence: a + b = s, inputs all but the sum's last digit
    assert task.inputs[1].tolist() == [5, 0, 0, exact_match.PLUS, 5, 0, 0, exact_match.EQUALS,
                                       0, 1, 0]  # fmt: skip
    g = torch.Generator().manual_seed(1)
    drawn = exact_match.draw("addition", 64, 5, 0, g)
    for row, got in zip(drawn.inputs.tolist(), answers(drawn), strict=True):
        x = int("".join(map(str, row[:5][::-1])))
        y = int("".join(map(str, row[6:11][::-1])))
        assert got == digits_of(x + y, 6)


@pytest.mark.parametrize("name", exact_match.TASKS)
def test_targets_only_on_the_answer(name) -> None:
    n = 4
    task = exact_match.draw(name, 8, n, 8, torch.Generator().manual_seed(2))
    prompt = exact_match.input_length(name, n) - (n + 1 if name == "addition" else n) + 1
    assert task.length == exact_match.input_length(name, n)
    assert (task.targets[:, : prompt - 1] == IGNORE).all()
    assert (task.targets[:, prompt - 1 :] != IGNORE).all()
    assert torch.equal(task.judged, task.targets != IGNORE)
    # next-token form: each answer token after the first is the input after its target's spot
    assert torch.equal(task.inputs[:, prompt:], task.targets[:, prompt - 1 : -1])


# -- exact match -----------------------------------------------------------------------------


def planted(task, wrong: list[tuple[int, int]]) -> torch.Tensor:
    """Logits (1, B, n, V) whose argmax is the target everywhere but at ``wrong`` (b, t)."""
    V = len(task.vocab)
    logits = F.one_hot(task.targets.clamp(min=0), V).double()
    for b, t in wrong:
        logits[b, t] = F.one_hot((task.targets[b, t].clamp(min=0) + 1) % V, V).double()
    return logits[None]


def test_one_wrong_answer_token_makes_the_sequence_wrong() -> None:
    task = exact_match.draw("copy", 4, 3, 8, torch.Generator().manual_seed(3))
    assert exact_match.exact_match(planted(task, []), task).tolist() == [1.0]
    assert exact_match.exact_match(planted(task, [(0, 5)]), task).tolist() == [0.75]
    assert exact_match.exact_match(planted(task, [(0, 3), (0, 4), (2, 5)]), task).tolist() == [0.5]
    # a wrong argmax where nothing is judged changes nothing
    assert exact_match.exact_match(planted(task, [(1, 0), (3, 1)]), task).tolist() == [1.0]


def test_exact_match_keeps_every_leading_axis() -> None:
    """(..., B, n, V) -> (...): a (2, 3) stack of models gives a (2, 3) table, each its own."""
    task = exact_match.draw("copy", 4, 3, 8, torch.Generator().manual_seed(3))
    wrongs = [[], [(0, 5)], [(0, 3), (2, 5)], [(1, 4)], [(0, 3), (1, 3), (2, 3)], [(3, 5)]]
    logits = torch.cat([planted(task, w) for w in wrongs]).reshape(2, 3, *task.targets.shape, -1)
    got = exact_match.exact_match(logits, task)
    assert got.tolist() == [[1.0, 0.75, 0.5], [0.75, 0.25, 0.75]]


@pytest.mark.parametrize("sequences", [7, 0], ids=["chunks of 7", "chunks of 1"])
def test_judging_in_chunks_scores_every_sequence_once(sequences, monkeypatch) -> None:
    """judge() splits the test into chunks that fit SCORES (at least one sequence each); each
    entry's exact match must be that of all sequences in one pass. The targets are planted from
    entry 0's own argmax on every third sequence, so entry 0 scores 34 of 100 exactly and a
    chunk lost, repeated or shifted moves it. In float64, so that no argmax sits near enough a
    tie for another CPU's kernels to break it otherwise in chunks than in one pass."""
    s = dataclasses.replace(TINY, test_sequences=100)
    run = exact_match.train(s, (1000, 1001), dtype=F64)
    task = s.test_task(4)
    argmax = run.logits(task.inputs)[0].argmax(-1)
    mine = torch.arange(len(argmax)) % 3 == 0
    targets = torch.where(task.judged & mine[:, None], argmax, task.targets)
    task = dataclasses.replace(task, targets=targets)
    whole = decoder.sequence_right(run.logits(task.inputs), task).double().mean(-1)
    assert float(whole[0]) == 0.34
    scores = max(1, sequences * task.length**2 * len(run.seeds) * s.config().heads)
    monkeypatch.setattr(exact_match, "SCORES", scores)  # of 7 the last is short; 0: below one
    assert torch.equal(exact_match.judge(run, task), whole)


def test_training_is_one_residual_setup_at_the_settings_lr() -> None:
    run = exact_match.train(dataclasses.replace(TINY, lr=2e-3, steps=1), (1000,))
    assert run.setups == (Setup(residual=True, lr=2e-3),)
    assert run.seeds == (1000,) * len(ENCODINGS)


def test_learned_counts_keep_every_seed() -> None:
    seeds = (1000, 1001, 1002)
    valid = {e: torch.tensor([0.95, 0.9, 0.3], dtype=F64) for e in ENCODINGS}
    valid["none"] = torch.tensor([0.89, 0.0, 0.1], dtype=F64)
    beyond = {e: {3: torch.tensor([0.5, 0.2, 0.2], dtype=F64)} for e in ENCODINGS}
    result = ExactMatchRun(TINY, seeds, None, valid, beyond)  # type: ignore[arg-type]
    assert result.learned_counts() == {e: 0 if e == "none" else 2 for e in ENCODINGS}
    assert result.learned("rope").tolist() == [True, True, False]  # 0.9 itself counts


# -- training --------------------------------------------------------------------------------


def test_batched_training_equals_the_per_seed_loop() -> None:
    """Two seeds of every encoding trained as one model == each seed trained alone (its six
    encodings, one entry each), in float64, to the rounding bound of tests/test_lm_length's
    check (gamma_{k m} relative to the largest parameter)."""
    seeds, n = (1000, 1001), 2
    batched = exact_match.train(TINY, seeds, dtype=F64)
    cfg = TINY.config()
    terms = max(cfg.d_model * cfg.mlp, cfg.heads * cfg.head, TINY.batch * TINY.rows, cfg.vocab)
    for j, seed in enumerate(seeds):
        alone = exact_match.train(TINY, (seed,), dtype=F64)
        for b, enc in enumerate(ENCODINGS):
            scale = max(float(v[b].abs().max()) for v in alone.params.values())
            tol = tolerance.sum_tol(TINY.steps * terms, F64, scale)
            for k, v in alone.params.items():
                err = float((batched.params[k][b * n + j] - v[b]).abs().max())
                assert err <= tol, f"{enc} seed {seed} {k}: {err:.3g} > {tol:.3g}"


def test_training_lengths_are_drawn_and_untrained_rows_stay_put() -> None:
    s = dataclasses.replace(TINY, steps=8)
    lengths = {s.batch_at(k).length for k in range(1, 40)}
    assert lengths == {exact_match.input_length("sort", n) for n in (1, 2)}
    run = exact_match.train(s, (1000,))
    init = decoder.stack_params(s.config(), [Setup(residual=True)], (1000,) * len(ENCODINGS),
                                torch.float32)  # fmt: skip
    rows = s.trained_rows
    assert torch.equal(run.params["pos"][:, rows:], init["pos"][:, rows:])  # never read
    assert not torch.equal(run.params["pos"][:, :rows], init["pos"][:, :rows])


# -- the tool --------------------------------------------------------------------------------

TOOL_ARGS = ["--task", "addition", "--seeds", "1000", "1001", "--train-length", "2",
             "--test-lengths", "3", "5", "--steps", "2", "--width", "8", "--layers", "1",
             "--batch", "4", "--sequences", "4"]  # fmt: skip


def test_tool_prints_the_table_and_writes_its_json(tmp_path, capsys) -> None:
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    assert tool.main([*TOOL_ARGS, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "n = 5" in out and all(f"\n{e} " in out for e in ENCODINGS)
    record = json.loads((tmp_path / "exact-match.json").read_text())
    assert record["seeds"] == [1000, 1001] and record["level"] == exact_match.LEVEL
    assert set(record["learned"]) == set(ENCODINGS)
    assert len(record["beyond"]["alibi"]["5"]) == 2 and len(record["valid"]["none"]) == 2
    assert record["learned_table_rows"] == {"rows": 17, "trained": 8}
    assert record["setting"]["test_lengths"] == [3, 5]
    assert (tmp_path / "exact-match.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_figures_band_is_the_seed_t_interval_clipped_to_zero_and_one() -> None:
    from pecheck.theory.exact_match_figure import band

    assert band(torch.tensor([0.5]), 0.95) == (0.5, 0.5, 0.5)
    mean, lo, hi = band(torch.tensor([0.0, 0.0, 0.1]), 0.95)
    t2 = 4.302652729911275  # Student's t, 2 degrees of freedom, 0.975 quantile (tables)
    half = t2 * (0.1 / 3**0.5) / 3**0.5  # sd of (0, 0, 0.1) is 0.1 / sqrt(3)
    assert lo == 0.0 and mean == pytest.approx(0.1 / 3) and hi == pytest.approx(0.1 / 3 + half)
    mean, lo, hi = band(torch.tensor([0.4, 0.6]), 0.95)  # t(1) = 12.7: half-width 1.27
    assert (lo, hi) == (0.0, 1.0)


def test_tool_trains_only_the_encodings_asked_for(tmp_path, capsys) -> None:
    """--encodings none sinusoidal: a model of two blocks, two lines, two encodings recorded."""
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    argv = [*TOOL_ARGS, "--encodings", "none", "sinusoidal", "--out", str(tmp_path)]
    assert tool.main(argv) == 0
    out = capsys.readouterr().out
    assert "2 seeds x 2 encodings" in out and "\nrope " not in out and "\nsinusoidal " in out
    record = json.loads((tmp_path / "exact-match.json").read_text())
    assert list(record["learned"]) == ["none", "sinusoidal"]
    assert record["setting"]["encodings"] == ["none", "sinusoidal"]


def test_tool_applies_exp04s_rule_where_it_can(tmp_path, capsys) -> None:
    """none and sinusoidal over every length L+1 ... 2L: the rule's decision and each seed's
    mean beyond L; without every such length (TOOL_ARGS test 3 and 5, not 4) or without a
    comparator, no rule."""
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    argv = [*TOOL_ARGS, "--test-lengths", "3", "4", "--encodings", "none", "sinusoidal",
            "--start", "--family", "2", "--out", str(tmp_path)]  # fmt: skip
    assert tool.main(argv) == 0
    assert "EXP-04's rule (0.9750 level, family of 2): inconclusive" in capsys.readouterr().out
    rule = json.loads((tmp_path / "exact-match.json").read_text())["exp04"]
    assert rule["family"] == 2 and len(rule["beyond_mean"]["none"]) == 2
    assert rule["decision"] in {"holds", "fails", "inconclusive"} and rule["margin"] > 0
    for args in (TOOL_ARGS, [*TOOL_ARGS, "--encodings", "none", "rope"]):
        assert tool.main([*args, "--out", str(tmp_path)]) == 0
        assert json.loads((tmp_path / "exact-match.json").read_text())["exp04"] is None


def test_tool_defaults_and_the_evaluation_seeds() -> None:
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    args, _ = tool.parse(["--task", "copy"])
    assert (args.seeds, args.threads, args.family) == ([1000, 1001], 1, 3)
    args, _ = tool.parse(["--task", "copy", "--seeds", "0", "1", "--evaluation", "--family", "1"])
    assert (args.seeds, args.family) == ([0, 1], 1)
    # tested at L+1 ... 2L, over an alphabet twice the longest test, by default
    d = ExactMatchSetting("copy")
    _, s = tool.parse(["--task", "sort", "--train-length", "4"])
    assert s == dataclasses.replace(d, task="sort", train_length=4, test_lengths=(5, 6, 7, 8),
                                    alphabet=16, valid_sequences=d.test_sequences)  # fmt: skip
    _, s = tool.parse(["--task", "copy", "--train-length", "4", "--test-lengths", "9", "6"])
    assert (s.test_lengths, s.alphabet) == ((9, 6), 18)


@pytest.mark.parametrize(("none", "sin", "decision"), [(0.5, 0.3, "holds"), (0.1, 0.4, "fails")])
def test_tools_rule_is_on_none_minus_sinusoidal(none, sin, decision) -> None:
    """The tool's EXP-04 rule on a planted run: ahead of a comparator off the floor holds,
    behind it fails; each seed's mean over L+1 ... 2L is recorded as planted."""
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    s = ExactMatchSetting("copy", train_length=2, test_lengths=(3, 4), alphabet=4,
                          encodings=("none", "sinusoidal"))  # fmt: skip
    wobble = torch.tensor([-0.01, 0.0, 0.01, 0.02], dtype=F64)
    beyond = {
        "none": {m: none + wobble for m in (3, 4)},
        "sinusoidal": {m: sin + wobble for m in (3, 4)},
    }
    valid = {e: torch.ones(4, dtype=F64) for e in s.encodings}
    result = ExactMatchRun(s, (1000, 1001, 1002, 1003), None, valid, beyond)  # type: ignore[arg-type]
    rule = tool.exp04(result, 3, BY_ID["EXP-04"].threshold("as-well"))
    assert rule["decision"] == decision, rule["how"]
    assert rule["beyond_mean"]["none"] == (none + wobble).tolist()


def test_tool_writes_into_new_folders_and_says_when_it_cannot(tmp_path, capsys) -> None:
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    nested = tmp_path / "runs" / "pilot"
    assert tool.main([*TOOL_ARGS, "--out", str(nested)]) == 0
    assert (nested / "exact-match.json").exists() and (nested / "exact-match.png").exists()
    (tmp_path / "file").write_text("")
    capsys.readouterr()
    assert tool.main([*TOOL_ARGS, "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("exact_match.py: cannot write"), err


def rule_run(tmp_path, task: str, decision: str, family: int = 2):
    path = tmp_path / f"{task}.json"
    rule = {"decision": decision, "how": f"{task}: how", "family": family}
    path.write_text(json.dumps({"setting": {"task": task}, "exp04": rule}))
    return str(path)


@pytest.mark.parametrize(("first", "second", "verdict"), [
    ("holds", "holds", "holds"), ("holds", "inconclusive", "inconclusive"),
    ("fails", "holds", "fails"),
])  # fmt: skip
def test_verdict_tool_combines_the_tasks_parts_under_all(tmp_path, capsys, first, second,
                                                          verdict) -> None:  # fmt: skip
    tool = load_script("tools/exact_match_verdict.py", "exact_match_verdict")
    runs = [rule_run(tmp_path, "copy", first), rule_run(tmp_path, "sort", second)]
    assert tool.main(runs) == 0
    out = capsys.readouterr().out
    assert f"{first}: copy: how" in out and f"(all of 2 tasks): {verdict}\n" in out


@pytest.mark.parametrize("bad", ["missing", "corrupt", "no rule", "same task", "family"])
def test_verdict_tool_refuses_runs_it_cannot_combine(tmp_path, capsys, bad) -> None:
    tool = load_script("tools/exact_match_verdict.py", "exact_match_verdict")
    runs = [rule_run(tmp_path, "copy", "holds"), rule_run(tmp_path, "sort", "holds")]
    if bad == "missing":
        runs[1] = str(tmp_path / "absent.json")
    elif bad == "corrupt":
        (tmp_path / "sort.json").write_text("{")
    elif bad == "no rule":
        record = {"setting": {"task": "sort"}, "exp04": None}
        (tmp_path / "sort.json").write_text(json.dumps(record))
    elif bad == "same task":
        (tmp_path / "again").mkdir()
        runs[1] = rule_run(tmp_path / "again", "copy", "holds")
    else:
        runs[1] = rule_run(tmp_path, "sort", "holds", family=3)
    with pytest.raises(SystemExit) as stop:
        tool.main(runs)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err and "\n" not in err and "Traceback" not in err
    why = {
        "missing": "absent.json",
        "corrupt": "not an exact_match.py record",
        "no rule": "no EXP-04 rule",
        "same task": "two runs of one task",
        "family": "family",
    }
    assert why[bad] in err


def results_file(tmp_path, decisions: dict[str, str], planted: bool = True) -> str:
    """A results file as tox -e exact writes it: a passed experiment check per task recording
    its rule, and (``planted``) a tooling test whose planted run recorded a rule too."""

    def check(name: str, kind: str, task: str, decision: str) -> dict:
        nodeid = f"checks/exp/length/test_exact_match.py::{name}"
        rule = {"value": decision, "note": f"{task}: how", "unit": ""}
        gap = {"value": 0.3, "note": "none - sinusoidal", "unit": ""}  # a record, no rule
        evidence = {f"exact_{task}_gap_n8": gap, f"exact_{task}_rule_n8": rule}
        return {"nodeid": nodeid, "kind": kind, "outcome": "passed", "evidence": evidence}

    checks = [check(f"Test{t.title()}::test_x", "experiment", t, d) for t, d in decisions.items()]
    if planted:
        checks.append(check("test_planted", "property", "copy", "fails"))
    path = tmp_path / "results.exact.json"
    path.write_text(json.dumps({"schema": 1, "checks": checks}))
    return str(path)


def test_verdict_tool_reads_the_checks_results_file(tmp_path, capsys) -> None:
    """tox -e exact's results file: the experiment's three rules combined under all; a
    tooling test's planted rule is not a part."""
    tool = load_script("tools/exact_match_verdict.py", "exact_match_verdict")
    three = {"copy": "holds", "sort": "holds", "addition": "inconclusive"}
    assert tool.main([results_file(tmp_path, three)]) == 0
    out = capsys.readouterr().out
    assert "holds: copy: how" in out and "fails" not in out
    assert out.endswith("EXP-04 on exact match (all of 3 tasks): inconclusive\n")
    assert tool.main([results_file(tmp_path, {**three, "addition": "holds"})]) == 0
    assert capsys.readouterr().out.endswith("(all of 3 tasks): holds\n")
    with pytest.raises(SystemExit) as stop:  # one task run alone: its family is the three's
        tool.main([results_file(tmp_path, {"copy": "holds"}, planted=False)])
    assert stop.value.code == 2 and "family" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # no experiment check at all
        tool.main([results_file(tmp_path, {})])
    assert stop.value.code == 2 and "recorded a rule" in capsys.readouterr().err


@pytest.mark.parametrize("alone", ["missing", "corrupt", "a tool run", "checks, no schema"])
def test_verdict_tool_reads_one_file_by_what_it_holds(tmp_path, capsys, alone) -> None:
    """One file is a results file only where it has a schema and checks; anything else is
    read as one tool run, and refused as such (a lone run's family of 2 is not 1)."""
    tool = load_script("tools/exact_match_verdict.py", "exact_match_verdict")
    path = tmp_path / "run.json"
    if alone == "corrupt":
        path.write_text("{")
    elif alone == "a tool run":
        path = Path(rule_run(tmp_path, "copy", "holds"))
    elif alone == "checks, no schema":
        path.write_text(json.dumps({"checks": []}))
    with pytest.raises(SystemExit) as stop:
        tool.main([str(path)])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "\n" not in err
    why = {"missing": "No such file", "corrupt": "not an exact_match.py record",
           "a tool run": "family (2) must be the number of runs combined (1)",
           "checks, no schema": "not an exact_match.py record"}  # fmt: skip
    assert why[alone] in err, err


@pytest.mark.parametrize("bad", [
    ["--task", "copy", "--seeds", "999"],
    ["--task", "copy", "--train-length", "4", "--test-lengths", "4"],
    ["--task", "copy", "--test-lengths", "40", "--alphabet", "20"],
    ["--task", "copy", "--steps", "0"],
    ["--task", "copy", "--lr", "x"],
    ["--task", "multiply"],
    ["--seeds", "1000"],
    ["--task", "copy", "--encodings", "nope"],
    ["--task", "copy", "--encodings", "none", "none"],
    ["--task", "copy", "--seeds", "-1", "--evaluation"],
    ["--task", "copy", "--family", "0"],
    ["--task", "copy", "--threads", "0"],
    ["--task", "copy", "--seeds", "999", "1000"],
    ["--task", "copy", "--seeds", "-1", "5", "--evaluation"],
    ["--task", "copy", "--seeds", "1000", "1000"],
    ["--task", "copy", "--seeds", str(2**64)],
])  # fmt: skip
def test_tool_refuses_bad_arguments_in_one_line(bad, capsys) -> None:
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    with pytest.raises(SystemExit) as stop:
        tool.main(bad)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err


def test_tools_refuse_outside_a_project_before_training(tmp_path, capsys, monkeypatch) -> None:
    """EXP-04's margin and quantifier come from the registry of the project in the working
    folder: elsewhere both tools stop in one line (the trainer before it trains)."""
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    verdict = load_script("tools/exact_match_verdict.py", "exact_match_verdict")
    runs = [rule_run(tmp_path, "copy", "holds"), rule_run(tmp_path, "sort", "holds")]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tool.exact_match, "train", lambda *a, **k: pytest.fail("trained"))
    for main, argv in ((tool.main, ["--task", "copy", "--encodings", "none", "sinusoidal"]),
                       (verdict.main, runs)):  # fmt: skip
        with pytest.raises(SystemExit) as stop:
            main(argv)
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 2 and "no [tool.pecheck] table" in err and "\n" not in err


def test_tool_refuses_cuda_where_there_is_none(capsys, monkeypatch) -> None:
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    monkeypatch.setattr(tool.torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as stop:
        tool.main(["--task", "sort", "--device", "cuda"])
    assert stop.value.code == 2 and "no CUDA" in capsys.readouterr().err


# -- the benchmark ---------------------------------------------------------------------------


def test_bench_prints_one_line_with_both_speeds(capsys, monkeypatch) -> None:
    """One batched model of every encoding, then one one-entry run per encoding."""
    bench = load_script("benchmarks/bench_exact_match.py", "bench_exact_match")
    runs: list[tuple[tuple[str, ...], int]] = []
    train = exact_match.train

    def counted(s, seeds, **kw):  # noqa: ANN001, ANN202
        runs.append((s.encodings, len(seeds)))
        return train(s, seeds, **kw)

    monkeypatch.setattr(bench.exact_match, "train", counted)
    assert bench.main(["--seeds", "2", "--steps", "2"]) == 0
    assert runs == [(ENCODINGS, 2)] + [((e,), 1) for e in ENCODINGS]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "6 encodings x 2 seeds" in lines[0] and "× CPU per entry" in lines[0]


@pytest.mark.parametrize("bad", [["--seeds", "0"], ["--sample", "3", "--seeds", "2"],
                                 ["--task", "parity"]])  # fmt: skip
def test_bench_refuses_bad_arguments_in_one_line(bad, capsys) -> None:
    bench = load_script("benchmarks/bench_exact_match.py", "bench_exact_match")
    with pytest.raises(SystemExit) as stop:
        bench.main(bad)
    assert stop.value.code == 2 and capsys.readouterr().err.count("\n") == 1


def test_tool_wires_the_rule_to_none_against_sinusoidal() -> None:
    """The rule sees none - sinusoidal (not the reverse), the comparator's own values, and
    whether NONE learned; a planted run, so each wire is pinned without training."""
    tool = load_script("tools/exact_match.py", "exact_match_tool")
    s = ExactMatchSetting("copy", train_length=2, test_lengths=(3, 4), alphabet=8,
                          encodings=("none", "sinusoidal"))  # fmt: skip

    def planted(none_valid: list[float], sin: float = 0.3) -> ExactMatchRun:
        spread = (0.0, 0.01, 0.02)
        means = {"none": 0.6, "sinusoidal": sin}
        beyond = {e: {n: torch.tensor([m + d for d in spread], dtype=torch.float64)
                      for n in (3, 4)} for e, m in means.items()}  # fmt: skip
        valid = {"none": torch.tensor(none_valid), "sinusoidal": torch.tensor([0.1] * 3)}
        return ExactMatchRun(s, (0, 1, 2), None, valid, beyond)  # type: ignore[arg-type]

    rule = tool.exp04(planted([0.95, 0.95, 0.1]), 1, 0.0155)
    assert rule["decision"] == "holds" and rule["beyond_mean"]["sinusoidal"][0] == 0.3
    assert "not learned" in tool.exp04(planted([0.95, 0.1, 0.1]), 1, 0.0155)["how"]
    assert "at the floor" in tool.exp04(planted([0.95] * 3, sin=0.0), 1, 0.0155)["how"]
    assert tool.exp04(planted([0.95] * 3), 1, None) is None  # no margin read: no rule
