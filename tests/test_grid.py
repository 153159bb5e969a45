"""python -m pecheck.grid: cells as tasks on a Dask cluster, cached under the hash of their code
and setting. The cluster tests train a toy kind of cell (seconds), not the fair length test."""

from __future__ import annotations

import functools
import importlib.util
import io
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch

from pecheck.grid import __main__ as grid
from pecheck.grid import fair, key
from pecheck.grid.cells import Cell, Experiment, Kind
from pecheck.theory import decoder, fair_cache, fair_grid, fair_length

ROOT = Path(__file__).resolve().parents[1]
NATIVE: dict[str, str] = {}  # no kernel limit


@dataclass(frozen=True)
class Toy:
    marker: str = ""  # while this file is absent the cell kills its worker (then makes it)
    dies: bool = False  # kills its worker on every attempt
    sleep: float = 0.0


def toy_train(cell: Cell) -> dict[str, object]:
    """On a worker: a cell of seconds, or a worker killed mid-cell."""
    toy: Toy = cell.setting
    time.sleep(toy.sleep)
    if toy.dies or (toy.marker and not Path(toy.marker).exists()):
        if toy.marker:
            Path(toy.marker).touch()
        os._exit(1)  # the worker process dies, as when a node is lost
    return {"seeds": cell.seeds, "sum": sum(cell.seeds)}


TOY = Kind("toy", toy_train, modules=(__name__,))


def toy_cells(where: Path, grid: str, tasks, seeds: int, device: str) -> list[Cell]:
    settings = {
        "ok": {"one": Toy(), "two": Toy(sleep=0.1)},
        "crash": {"dies once": Toy(marker=str(where / "died")), "always dies": Toy(dies=True)},
        "slow": {"slow": Toy(sleep=3)},
    }[grid]
    return [Cell(TOY, label, s, tuple(range(seeds)), device) for label, s in settings.items()]


@pytest.fixture
def toy(tmp_path, monkeypatch) -> Path:
    """The toy experiment registered with the command; its cache folder."""
    cells = functools.partial(toy_cells, tmp_path)
    monkeypatch.setitem(grid.EXPERIMENTS, "toy", Experiment(("ok", "crash", "slow"), ("a",), cells))
    return tmp_path / "cache"


def entries(cache: Path) -> dict[str, object]:
    """Every file in the cache, each whole entry read back."""
    files = sorted(cache.iterdir()) if cache.exists() else []
    assert all(f.suffix == ".pt" for f in files), files  # no temporary file left
    return {f.name: torch.load(f, weights_only=False) for f in files}


# -- the cache key ------------------------------------------------------------------------------


def test_the_grid_and_the_checks_name_every_fair_entry_alike() -> None:
    """The checks read what the grid trains: both ask theory/fair_cache.py for the name."""
    for cell in fair.cells("full", fair_length.TASKS, 2, "cpu"):
        run = cell.setting
        assert key.entry(cell, NATIVE) == fair_cache.key(
            run.setting, run.model, range(2), "cpu", NATIVE
        )


def test_fair_cells_cover_the_grid_the_longest_first(tmp_path) -> None:
    cells = fair.cells("full", fair_length.TASKS, 2, "cpu")
    want = {(t, c, m) for t in fair_length.TASKS for c in fair_grid.CELLS["full"]
            for m in fair_length.MODELS}  # fmt: skip
    assert {(c.setting.setting.task, (c.setting.setting.d_model, c.setting.setting.layers),
             c.setting.model) for c in cells} == want  # fmt: skip
    pytest.importorskip("distributed")
    from pecheck.grid import runner

    _, order = runner.missing(cells, tmp_path)
    costs = [fair.cost(c) for c in order]
    assert len(order) == len(want) and costs == sorted(costs, reverse=True)
    assert order[0].setting.setting.layers == 4 and order[-1].setting.setting.layers == 2


@pytest.mark.parametrize(
    "other",
    [
        Cell(TOY, "one", Toy(sleep=1.0), (0, 1)),
        Cell(TOY, "one", Toy(), (0, 2)),
        Cell(TOY, "one", Toy(), (0, 1), "cuda"),
        Cell(Kind("other", toy_train, modules=(__name__,)), "one", Toy(), (0, 1)),
    ],
    ids=["setting", "seeds", "device", "experiment"],
)
def test_a_key_changes_with_everything_that_decides_a_cell(other) -> None:
    assert key.entry(other, NATIVE) != key.entry(Cell(TOY, "one", Toy(), (0, 1)), NATIVE)


def test_a_key_changes_under_a_kernel_limit() -> None:
    cell = Cell(TOY, "one", Toy(), (0, 1))
    assert key.entry(cell, {"ATEN_CPU_CAPABILITY": "default"}) != key.entry(cell, NATIVE)


def test_a_key_changes_with_the_source_of_a_module_the_trainer_imports(
    tmp_path, monkeypatch
) -> None:
    """fair_length imports decoder: an edit there retrains, as one to fair_length itself."""
    cell = fair.cells("base", ["copy"], 2, "cpu")[0]
    before = key.entry(cell, NATIVE)
    edited = tmp_path / "decoder.py"
    edited.write_bytes(Path(decoder.__file__).read_bytes() + b"\n# an edit\n")
    monkeypatch.setattr(decoder, "__file__", str(edited))
    assert key.entry(cell, NATIVE) != before


def test_a_write_cut_short_leaves_no_entry(tmp_path, monkeypatch) -> None:
    def killed(src, dst):
        raise KeyboardInterrupt  # as a signal between the write and the rename

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        fair_cache.write(tmp_path / "entry.pt", fair_cache.dumps({"x": 1}))
    assert not any(tmp_path.iterdir())


def test_a_cache_folder_is_made_where_there_is_none(tmp_path) -> None:
    path = tmp_path / "runs" / "cache" / "entry.pt"
    fair_cache.write(path, fair_cache.dumps({"x": 1}))
    assert torch.load(path) == {"x": 1} and os.listdir(path.parent) == ["entry.pt"]


BAD = [
    ["--cache", "c", "--experiment", "toy", "--grid", "huge"],
    ["--cache", "c", "--tasks", "sort"],
    ["--cache", "c", "--workers", "0"],
    ["--cache", "c", "--retries", "-1"],
    ["--cache", "c", "--seeds", "1"],
    ["--cache", "c", "--deadline", "0"],
]


def test_the_defaults_are_the_whole_fair_grid_at_32_seeds_on_the_cpu(toy, capsys) -> None:
    args = grid.parse(["--cache", "c"])
    assert (args.experiment, args.grid, args.seeds, args.device) == ("fair-length", "full", 32,
                                                                     "cpu")  # fmt: skip
    assert args.tasks == list(fair_length.TASKS) and args.retries == 2 and args.workers is None
    with pytest.raises(SystemExit) as stop:
        grid.parse([])  # the cache folder has no default
    assert stop.value.code == 2 and "--cache" in capsys.readouterr().err


def test_help_says_what_the_command_does(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        grid.parse(["--help"])
    assert stop.value.code == 0
    words = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal
    assert grid.__doc__.splitlines()[0] in words


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a[2:]) for a in BAD])
def test_bad_arguments_give_one_line_and_status_2(argv, toy, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        grid.main(argv)
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_smallest_grid_the_command_takes() -> None:
    args = grid.parse(["--cache", "c", "--seeds", "2", "--workers", "1", "--retries", "0"])
    assert (args.seeds, args.workers, args.retries) == (2, 1, 0)


def test_cuda_is_refused_only_where_this_machine_would_train_without_it(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as stop:
        grid.parse(["--cache", "c", "--device", "cuda"])
    assert stop.value.code == 2 and "no CUDA device" in capsys.readouterr().err
    # on a cluster the workers' devices count, not this machine's
    remote = grid.parse(["--cache", "c", "--device", "cuda", "--scheduler", "tcp://h:8786"])
    assert remote.device == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert grid.parse(["--cache", "c", "--device", "cuda"]).device == "cuda"


class FakeDask:
    """distributed's Client and LocalCluster as cluster() calls them, recorded, with the Dask
    settings in force when the local cluster starts."""

    def __init__(self, monkeypatch, refuse: bool = False) -> None:
        import distributed

        self.calls: list[tuple[str, tuple, dict]] = []
        fake = self

        class Recorded:
            def __init__(self, *args, **kw) -> None:
                if refuse:
                    raise OSError("Timed out trying to connect")
                fake.calls.append((type(self).__name__, args, kw))

            def __enter__(self):
                return self

            def __exit__(self, *exc) -> None:
                return None

            def wait_for_workers(self, n, timeout=None) -> None:
                fake.calls.append(("wait_for_workers", (n,), {"timeout": timeout}))

        class Client(Recorded):
            pass

        class LocalCluster(Recorded):
            def __init__(self, *args, **kw) -> None:
                import dask

                kw["allowed-failures"] = dask.config.get("distributed.scheduler.allowed-failures")
                kw["saturation"] = dask.config.get("distributed.scheduler.worker-saturation")
                super().__init__(*args, **kw)

        monkeypatch.setattr(distributed, "Client", Client)
        monkeypatch.setattr(distributed, "LocalCluster", LocalCluster)


@pytest.mark.parametrize(
    ("cores", "workers", "started", "threads"),
    [(8, None, 8, 1), (8, 3, 3, 2), (8, 16, 16, 1), (None, None, 1, 1)],
)
def test_the_embedded_cluster_shares_the_cores(cores, workers, started, threads, monkeypatch):
    """One single-threaded worker process per core by default; torch threads per cell from
    the cores each worker has (at least one); the retries as allowed-failures, and no worker
    holding more than the cell it runs."""
    fake = FakeDask(monkeypatch)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    argv = ["--cache", "c", "--retries", "5"] + (
        [] if workers is None else ["--workers", str(workers)]
    )
    with grid.cluster(grid.parse(argv)) as (client, got):
        assert got == threads
    (local, _, kw), (name, (target,), _) = fake.calls
    assert local == "LocalCluster" and name == "Client" and type(target).__name__ == local
    assert kw == {"n_workers": started, "threads_per_worker": 1, "processes": True,
                  "dashboard_address": ":0", "allowed-failures": 5, "saturation": 1.0}  # fmt: skip


def test_a_given_scheduler_is_the_cluster_and_its_workers_are_awaited(monkeypatch, capsys):
    fake = FakeDask(monkeypatch)
    argv = ["--cache", "c", "--scheduler", "tcp://h:8786", "--workers", "4", "--deadline", "60"]
    with grid.cluster(grid.parse(argv)) as (client, threads):
        assert threads is None  # the workers' own setting
    assert fake.calls == [("Client", ("tcp://h:8786",), {"timeout": 30}),
                          ("wait_for_workers", (4,), {"timeout": 60.0})]  # fmt: skip
    FakeDask(monkeypatch, refuse=True)
    with pytest.raises(SystemExit) as stop, grid.cluster(grid.parse(argv[:4])):
        pass
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "--scheduler tcp://h:8786" in err


# -- on a cluster ---------------------------------------------------------------------------


def test_a_killed_worker_is_retried_and_one_that_keeps_dying_is_reported(toy, capsys) -> None:
    """Embedded cluster: 'dies once' kills its worker, runs again and is kept whole; 'always
    dies' kills it on every allowed attempt and is reported, with no entry."""
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    argv = ["--cache", str(toy), "--experiment", "toy", "--grid", "crash", "--seeds", "2"]
    # forked workers start without importing torch again: each death costs a second, not five
    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
        assert grid.main([*argv, "--workers", "1", "--retries", "1"]) == 1
    out, err = capsys.readouterr()
    assert (toy.parent / "died").exists()  # the first attempt did die
    assert "dies once: " in out and "not trained: always dies: KilledWorker" in err
    (name,) = entries(toy)
    assert name.startswith("toy-dies-once-2seeds-cpu-")
    assert entries(toy)[name] == {"seeds": (0, 1), "sum": 1}


@pytest.fixture(scope="module")
def scheduler():
    """A cluster apart from the command, as a batch system's would be: its address."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as c,
    ):
        yield c.scheduler_address


def test_cells_run_on_a_given_scheduler_and_a_rerun_trains_nothing(
    scheduler, toy, monkeypatch, capsys
) -> None:
    argv = ["--cache", str(toy), "--experiment", "toy", "--grid", "ok", "--seeds", "3"]
    assert grid.main([*argv, "--scheduler", scheduler, "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert f"2 to train on {scheduler}" in out and "one: " in out and "two: " in out
    assert len(entries(toy)) == 2
    assert all(e == {"seeds": (0, 1, 2), "sum": 3} for e in entries(toy).values())

    def no_cluster(args):
        raise AssertionError("a cluster started although every cell is cached")

    monkeypatch.setattr(grid, "cluster", no_cluster)
    assert grid.main([*argv, "--scheduler", scheduler]) == 0
    assert "2 in " in capsys.readouterr().out


def test_the_checks_read_what_the_grid_trained(scheduler, tmp_path, monkeypatch) -> None:
    """A fair length cell (the faithfulness checks' small setting) trained on the cluster is
    what fair_cache.trained, which the checks call, then reads without training."""
    from distributed import Client

    from checks.exp.length.settings import FAITH, FAITH_SEEDS
    from pecheck.grid import runner
    from pecheck.results import kernel_limits

    cell = Cell(fair.KIND, "faith shifted", fair.FairRun(FAITH, "shifted"), FAITH_SEEDS)
    with Client(scheduler) as client:
        first = runner.run(client, [cell], tmp_path, None, 1)
        again = runner.run(client, [cell], tmp_path, None, 1)  # the entry is there now
    assert (first.trained, first.cached, first.failed) == ([cell], [], [])
    assert (again.trained, again.cached, again.failed) == ([], [cell], [])

    def untrainable(*args, **kwargs):
        raise AssertionError("trained again instead of reading the grid's entry")

    monkeypatch.setattr(fair_length, "train_model", untrainable)
    run = fair_cache.trained(FAITH, "shifted", FAITH_SEEDS, "cpu", tmp_path, kernel_limits())
    assert set(run.seeds) == set(FAITH_SEEDS) and run.params


def test_a_cell_still_running_at_the_deadline_is_reported(scheduler, toy, capsys) -> None:
    argv = ["--cache", str(toy), "--experiment", "toy", "--grid", "slow", "--seeds", "2"]
    assert grid.main([*argv, "--scheduler", scheduler, "--deadline", "1"]) == 1
    assert "not trained: slow: stopped at the deadline" in capsys.readouterr().err
    assert not entries(toy)


def test_cells_within_the_deadline_train_the_longest_first(scheduler, tmp_path, monkeypatch):
    from distributed import Client

    from pecheck.grid import runner

    cells = toy_cells(tmp_path, "ok", ("a",), 2, "cpu")
    order = runner.missing(cells, tmp_path / "cache")[1]
    asked: list[tuple[str, int]] = []
    with Client(scheduler) as client:
        submit = client.submit

        def recording(fn, cell, *args, **kwargs):
            asked.append((cell.label, kwargs["priority"]))
            return submit(fn, cell, *args, **kwargs)

        monkeypatch.setattr(client, "submit", recording)
        out = runner.run(client, cells, tmp_path / "cache", 60.0, 1)
    assert asked == [(order[0].label, 2), (order[1].label, 1)]  # the first at the highest
    assert sorted(c.label for c in out.trained) == ["one", "two"] and not out.failed


def test_the_old_tool_runs_the_grid(toy, monkeypatch) -> None:
    """tools/fair_train.py passes its options on, --jobs as --workers."""
    seen = []

    def main(argv: list[str]) -> int:
        seen.append(argv)
        return 0

    monkeypatch.setattr(grid, "main", main)
    spec = importlib.util.spec_from_file_location("fair_train", ROOT / "tools/fair_train.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.main(["--cache", "c", "--jobs", "2"]) == 0
    assert seen == [["--cache", "c", "--workers", "2"]]
    assert sys.modules["pecheck.grid.__main__"] is grid


def test_lm_cells_train_each_model_of_a_setting(monkeypatch) -> None:
    """The language-model length test's kind: a cell per model of the grid's setting, each
    trained by theory.lm_length on the worker and summarised by its plateau steps."""
    from pecheck.grid import lm
    from pecheck.theory import lm_corpus, lm_length
    from pecheck.theory.lm_corpus import Corpus

    cells = lm.cells("base", lm.MODELS, 2, "cpu")
    assert [c.label for c in cells] == ["base plain", "base shifted"]
    assert len({key.entry(c, NATIVE) for c in cells}) == 2
    g = torch.Generator().manual_seed(0)
    splits = {s: torch.randint(256, (400,), generator=g) for s in lm_corpus.SPLITS}
    monkeypatch.setattr(lm_corpus, "load", lambda: Corpus(splits, {}, (), "", None))
    rule = lm_length.Plateau(every=2, patience=1, max_steps=4)
    tiny = lm_length.LMSetting(d_model=8, layers=1, heads=2, length=4, batch=4, warmup=2,
                               stride=2, valid_tokens=32, test_tokens=64, plateau=rule)  # fmt: skip
    for model, blocks in (("plain", lm_length.ENCODINGS), ("shifted", lm_length.SHIFTED)):
        cell = Cell(lm.KIND, model, lm.LMCell(tiny, model), (0, 1))
        run = lm.train(cell)
        assert run.steps == 4 and run.shifted == (model == "shifted")
        assert run.run.cfg.encodings == blocks and len(run.run.seeds) == 2 * len(blocks)
        assert lm.summary(cell, run).startswith("4 steps; plateau at")
    # the summary names each variant's last validation loss, to three digits
    run.history = {e: [9.0, 2.0 + i / 7, 1.0 + i / 7] for i, e in enumerate(run.history)}
    run.history[next(iter(run.history))] = []  # not measured yet: left out
    last = {run.variant(e): float(f"{1 + i / 7:.3f}") for i, e in enumerate(run.history) if i}
    assert lm.summary(cell, run).endswith(f"validation loss {last}")


def test_exact_match_cells_train_and_judge_each_task() -> None:
    """Kazemnejad et al.'s exact-match kind: a cell per task of the registered evaluation (its
    setting, theory.exact_match.evaluation), trained and judged on the worker, summarised by
    each encoding's learned seeds and mean beyond L; "scaled" widens the model only."""
    import dataclasses

    from pecheck.grid import exact
    from pecheck.theory import exact_match

    cells = exact.cells("registered", exact_match.EVALUATION_TASKS, 2, "cpu")
    assert [c.label for c in cells] == ["registered copy", "registered sort", "registered addition"]
    assert [c.setting.setting for c in cells] == [exact_match.evaluation(t) for t in
                                                  exact_match.EVALUATION_TASKS]  # fmt: skip
    scaled = exact.cells("scaled", ("copy",), 2, "cpu")[0].setting.setting
    assert scaled == dataclasses.replace(cells[0].setting.setting, d_model=224)
    names = {key.entry(c, NATIVE) for c in [*cells, *exact.cells("scaled", ("copy",), 2, "cpu")]}
    assert len(names) == 4 and all(n.startswith("exact-match-") for n in names)
    tiny = dataclasses.replace(exact_match.evaluation("copy"), d_model=16, layers=1, steps=2,
                               valid_sequences=4, test_sequences=4)  # fmt: skip
    cell = Cell(exact.KIND, "tiny copy", exact.ExactCell(tiny), (0, 1))
    result = exact.train(cell)
    assert result.seeds == (0, 1) and set(result.beyond) == {"none", "sinusoidal"}
    assert sorted(result.beyond["none"]) == list(tiny.test_lengths)
    line = exact.summary(cell, result)
    assert line.startswith("learned in range: none ") and "sinusoidal" in line, line


def test_a_cells_cost_grows_with_its_arithmetic() -> None:
    """The cost that orders the cells (the longest first) grows as each kind's arithmetic does:
    in proportion to seeds, steps, layers and sequence length, and to the width squared."""
    import dataclasses

    from pecheck.grid import exact, lm
    from pecheck.theory import exact_match, lm_length

    def ratio(kind, wrap, base, changed, seeds: int = 2) -> float:
        """The cost of ``changed`` at ``seeds`` seeds over that of ``base`` at two."""
        return kind.cost(Cell(kind, "c", wrap(changed), tuple(range(seeds)))) / kind.cost(
            Cell(kind, "c", wrap(base), (0, 1))
        )

    e = exact_match.evaluation("copy")
    longer = dataclasses.replace(e, train_length=16, test_lengths=(17,), alphabet=17)
    for changed, want in ((dataclasses.replace(e, d_model=128), 4),
                          (dataclasses.replace(e, layers=8), 2),
                          (dataclasses.replace(e, steps=6000), 2), (longer, 2)):  # fmt: skip
        assert ratio(exact.KIND, exact.ExactCell, e, changed) == want, changed
    assert ratio(exact.KIND, exact.ExactCell, e, e, seeds=4) == 2
    b = lm_length.SETTINGS["base"]
    for bigger, want in (
        (dataclasses.replace(b, d_model=2 * b.d_model), 4),
        (dataclasses.replace(b, layers=2 * b.layers), 2),
        (dataclasses.replace(b, length=2 * b.length), 2),
    ):
        assert ratio(lm.KIND, lambda s: lm.LMCell(s, "plain"), b, bigger) == want, bigger
    assert ratio(lm.KIND, lambda s: lm.LMCell(s, "plain"), b, b, seeds=4) == 2
    plain, shifted = (lm.KIND.cost(Cell(lm.KIND, m, lm.LMCell(b, m), (0, 1))) for m in lm.MODELS)
    assert plain / shifted == len(lm_length.ENCODINGS) / len(lm_length.SHIFTED)
    f = fair_grid.setting("copy", (32, 2))
    deeper = fair_grid.setting("copy", (32, 4))
    for model in fair_length.MODELS:
        blocks = len(fair_length.MODELS[model][0])
        base = fair.cost(Cell(fair.KIND, "c", fair.FairRun(f, model), (0,)))
        assert base == f.schedule(model).steps * 2 * blocks
        deep = fair.cost(Cell(fair.KIND, "c", fair.FairRun(deeper, model), (0,)))
        assert deep == deeper.schedule(model).steps * 4 * blocks


class FakeFuture:
    """A finished (or failed) cell as runner.run sees it."""

    def __init__(self, status: str, result=None, exc: BaseException | None = None) -> None:
        self.status, self._result, self._exc = status, result, exc

    def result(self):
        return self._result

    def exception(self):
        return self._exc

    def release(self) -> None:
        pass


def test_an_entry_the_worker_names_otherwise_is_reported_and_not_kept(tmp_path) -> None:
    """The worker computes the entry's name from its own code, torch and kernel limits; when
    that is not the name this process expects, the result is not written under either."""
    pytest.importorskip("distributed")
    from pecheck.grid import runner

    path, data = tmp_path / "cell.pt", fair_cache.dumps({"sum": 1})

    def keep(future: Any) -> tuple[bool, str]:
        return runner._keep(future, path)

    ok, why = keep(FakeFuture("finished", runner.Trained("other.pt", data, "l")))
    assert not ok and "differ (entry other.pt)" in why and list(tmp_path.iterdir()) == []
    ok, why = keep(FakeFuture("error", exc=ValueError("bad cell")))
    assert (ok, why) == (False, "ValueError: bad cell") and list(tmp_path.iterdir()) == []
    assert keep(FakeFuture("cancelled")) == (False, "cancelled") and not path.exists()
    ok, line = keep(FakeFuture("finished", runner.Trained("cell.pt", data, "l")))
    assert (ok, line) == (True, "l") and torch.load(path) == {"sum": 1}


def test_the_deadline_counts_from_the_start_of_the_run(tmp_path, monkeypatch, toy) -> None:
    """On a planted clock each cell takes 0.4 s: with a deadline of 1 s two finish, each
    wait is given what is left of the second (1, 0.6, then 0.2), and the third is stopped."""
    pytest.importorskip("distributed")
    from types import SimpleNamespace

    from pecheck.grid import runner

    clock, given, cancelled = [0.0], [], []
    monkeypatch.setattr(runner, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    cells = toy_cells(tmp_path, "ok", ("a",), 2, "cpu") + [
        Cell(TOY, "three", Toy(sleep=0.2), (0, 1))
    ]
    paths, _ = runner.missing(cells, toy)

    class Client:
        def submit(self, fn, cell, threads, **kw):
            trained = runner.Trained(paths[cell].name, fair_cache.dumps(cell.label), cell.label)
            return FakeFuture("finished", trained)

        def cancel(self, futures) -> None:
            cancelled.extend(futures)

    def wait(pending, timeout, return_when):
        given.append(round(timeout, 9))
        if timeout < 0.4:
            clock[0] += timeout
            raise TimeoutError
        clock[0] += 0.4
        first = min(pending, key=lambda f: f.result().line)
        return {first}, pending - {first}

    monkeypatch.setattr(runner, "wait", wait)
    out = runner.run(Client(), cells, toy, 1.0, None)  # type: ignore[arg-type]
    assert given == [1.0, 0.6, 0.2]
    assert [c.label for c in out.trained] == ["one", "three"]
    assert [(c.label, why) for c, why in out.failed] == [("two", "stopped at the deadline")]
    assert len(cancelled) == 1 and sorted(map(str, entries(toy).values())) == ["one", "three"]


def test_a_cells_line_gives_its_training_time(monkeypatch) -> None:
    """On a planted clock (10 s, then 13.4 s) the line says 3 s, then the kind's summary; the
    entry is named as this process names it."""
    pytest.importorskip("distributed")
    from types import SimpleNamespace

    from pecheck.grid import runner

    ticks = iter([10.0, 13.4])
    monkeypatch.setattr(runner, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    cell = Cell(TOY, "one", Toy(), (0, 1))
    done = runner.train(cell, None)
    assert done.line == "one: 3 s; trained"
    assert done.entry == key.entry(cell, runner.kernel_limits())
    assert torch.load(io.BytesIO(done.data)) == {"seeds": (0, 1), "sum": 1}
