"""``report`` and ``align`` as a data-parallel job (2 gloo processes on the CPU, started as torchrun starts them:
through the environment): the same files as one process, and a failed rank stops the job with one line and no file.

Each process is a fresh interpreter (``spawn``) running the real command line, ``viz_app.cli.main``; the single
process runs the same way without the launcher's variables, so both sides compute with one torch thread.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import random
import signal
import socket
import sys
from pathlib import Path

import pytest

from model_core.analysis import ranks as ranks_module
from model_core.analysis.ranks import backend_for, launched
from tests.conftest import tiny_bundle

N_PAIRS = 240  # 15 batches of 16: rank 0 runs 8, rank 1 runs 7 (the last round has one batch)
BATCH = "16"
JOIN_S = 300  # a hung rank fails the test (after dumping its stack) instead of hanging the suite


def _corpus(folder: Path) -> dict[str, Path]:
    """A tiny model and a corpus of short pairs with gold links (one unknown word in ~5%)."""
    from model_core import save_model

    bundle = tiny_bundle(11)
    files = {name: folder / name for name in ("tiny.safetensors", "c.tsv", "src.txt", "tgt.txt", "gold.txt")}
    save_model(files["tiny.safetensors"], bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="tiny")
    r = random.Random(3)
    rows = []
    for _ in range(N_PAIRS):
        src = [f"w{r.randrange(20)}" for _ in range(r.randint(1, 7))]
        tgt = [f"t{r.randrange(20)}" for _ in range(r.randint(1, 7))]
        gold = [f"{r.randrange(len(src))}{r.choice('-?')}{j}" for j in range(len(tgt))]
        rows.append((" ".join(src), " ".join(tgt), " ".join(gold)))
    files["c.tsv"].write_text("".join(f"{s}\t{t}\n" for s, t, _ in rows), encoding="utf-8")
    for k, name in enumerate(("src.txt", "tgt.txt", "gold.txt")):
        files[name].write_text("".join(row[k] + "\n" for row in rows), encoding="utf-8")
    return files


def _commands(files: dict[str, Path], out: Path) -> list[list[str]]:
    model = ["--model", str(files["tiny.safetensors"]), "--device", "cpu", "--batch-size", BATCH]
    return [["report", *model, "--corpus", str(files["c.tsv"]), "--gold", str(files["gold.txt"]), "--out", str(out / "card")],
            ["align", *model, "--src-file", str(files["src.txt"]), "--tgt-file", str(files["tgt.txt"]),
             "--gold", str(files["gold.txt"]), "--layer", "0", "--out", str(out / "links.txt")]]


def _worker(rank: int, world: int, ports: list[int], commands: list[list[str]], logs: str, fault: str) -> None:
    """One process of the job: the launcher's variables (for a world over 1), then each command line in turn, each
    on a port of its own (torchrun runs one command per process; a reused port could meet the last one's store).

    ``fault``: ``raise`` or ``exit`` makes rank 1 fail at its second batch of each command (an exception, or death
    without a word); ``term`` makes it send rank 0 the SIGTERM a launcher sends when a rank ended in error; ``short``
    gives it a corpus one pair shorter.
    """
    import torch

    torch.set_num_threads(1)
    if world > 1:
        os.environ.update(WORLD_SIZE=str(world), RANK=str(rank), LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1")
    if rank == 0:
        Path(logs).with_name("rank0.pid").write_text(str(os.getpid()))
    if fault == "short" and rank == 1:  # this rank's copy of the corpus lacks its last line
        import model_core.analysis.report as report

        real_read = report.read_tsv
        report.read_tsv = lambda path: list(real_read(path))[:-1]
    elif fault and rank == 1:
        import model_core.analysis.data_parallel as data_parallel
        import model_core.analysis.report as report

        real, calls = report.forced_batch, []

        def faulty(*args, **kwargs):
            if kwargs.get("capture", True):
                calls.append(1)
                if len(calls) % 2 == 0:
                    if fault == "exit":
                        os._exit(3)
                    if fault == "term":  # what torchrun does to the others when a rank ends in error
                        os.kill(int(Path(logs).with_name("rank0.pid").read_text()), signal.SIGTERM)
                        return real(*args, **kwargs)
                    raise RuntimeError("injected fault in the model")
            return real(*args, **kwargs)

        report.forced_batch = data_parallel.forced_batch = faulty
    from viz_app.cli import main

    codes = []
    with open(f"{logs}.out", "w", encoding="utf-8") as out, open(f"{logs}.err", "w", encoding="utf-8") as err:
        sys.stdout, sys.stderr = out, err
        faulthandler.dump_traceback_later(JOIN_S - 30, exit=True, file=err)  # a hung rank says where, and ends
        for argv, port in zip(commands, ports, strict=True):
            os.environ["MASTER_PORT"] = str(port)
            codes.append(main(argv))
            out.flush()
            err.flush()
    Path(f"{logs}.codes").write_text(" ".join(map(str, codes)), encoding="utf-8")


def _free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _launch(world: int, commands: list[list[str]], logs: Path, fault: str = "") -> list[tuple[object, str, str]]:
    """(each command's exit status, or the process's exit code if it died; stdout; stderr) of each rank, once all
    have ended."""
    ctx = multiprocessing.get_context("spawn")
    ports = _free_ports(len(commands))
    procs = [ctx.Process(target=_worker, args=(rank, world, ports, commands, str(logs / f"rank{rank}"), fault))
             for rank in range(world)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(JOIN_S)
    hung = [p for p in procs if p.is_alive()]
    for p in hung:
        p.kill()
    assert not hung, "a rank hung"
    out = []
    for rank, p in enumerate(procs):
        text = [(logs / f"rank{rank}.{kind}").read_text(encoding="utf-8") if (logs / f"rank{rank}.{kind}").exists() else ""
                for kind in ("codes", "out", "err")]
        out.append((text[0] if p.exitcode == 0 else p.exitcode, *text[1:]))
    return out


def test_a_process_is_one_of_several_only_under_a_launcher():
    assert not launched({})
    assert not launched({"WORLD_SIZE": "1", "RANK": "0"})  # torchrun --nproc_per_node 1: one process, as always
    assert not launched({"WORLD_SIZE": "2"})
    assert launched({"WORLD_SIZE": "2", "RANK": "1"})


def test_each_rank_runs_on_its_own_gpu_and_exchanges_through_gloo(monkeypatch):
    import torch

    chosen = []
    monkeypatch.setattr(ranks_module, "resolve_device", lambda name: torch.device("cuda" if name != "cpu" else "cpu"))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_device", chosen.append)
    assert backend_for("cpu", 1) == ("gloo", torch.device("cpu"))
    assert backend_for("auto", 1) == ("cpu:gloo,cuda:nccl", torch.device("cuda", 1))
    assert chosen == [torch.device("cuda", 1)]
    with pytest.raises(ValueError, match=r"LOCAL_RANK 2 needs GPU 2, but this machine has 2: .*--nproc_per_node 2\)$"):
        backend_for("cuda", 2)


def test_two_ranks_write_what_one_process_writes(tmp_path):
    files = _corpus(tmp_path)
    bad = tmp_path / "bad.tsv"  # line 101 without its tab: the same one line as one process, said once
    lines = files["c.tsv"].read_text(encoding="utf-8").splitlines()
    bad.write_text("\n".join([*lines[:100], lines[100].replace("\t", " "), *lines[101:]]) + "\n", encoding="utf-8")
    results = {}
    for world in (1, 2):
        out = tmp_path / f"world{world}"
        out.mkdir()
        report, align = _commands(files, out)
        bad_report = [*report[:report.index("--corpus") + 1], str(bad), "--out", str(out / "bad")]
        results[world] = _launch(world, [report, align, bad_report, report], out)  # the last: the card exists
        assert [code for code, _, _ in results[world]] == ["0 0 2 2"] * world, results[world]
    one, two = tmp_path / "world1", tmp_path / "world2"
    for name in ("heads.csv", "unusual.csv", "report.html"):
        assert (two / "card" / name).read_bytes() == (one / "card" / name).read_bytes(), name
    assert (two / "links.txt").read_bytes() == (one / "links.txt").read_bytes()
    assert len((one / "links.txt").read_text(encoding="utf-8").splitlines()) == N_PAIRS
    printed_one = results[1][0][1].replace(str(one), "OUT")
    assert results[2][0][1].replace(str(two), "OUT") == printed_one  # the AER table and the counts, from rank 0
    assert f"{N_PAIRS} sentence pairs" in printed_one and f"over {N_PAIRS} pairs" in printed_one
    assert results[2][1][1] == "" and results[2][1][2] == ""  # rank 1 says nothing
    assert results[2][0][2].replace(str(two), "OUT") == results[1][0][2].replace(str(one), "OUT") == (
        f"attention-scope report: error: {bad} line 101 has 1 tab-separated column, expected 2 (source<TAB>target)\n"
        "attention-scope report: error: OUT/card/heads.csv exists; pass --force to overwrite it\n")
    assert not (one / "bad").exists() and not (two / "bad").exists()
    rows = (one / "card" / "heads.csv").read_text(encoding="utf-8").splitlines()
    assert rows[-1].split(",")[3] == str(N_PAIRS)  # every sentence counted once


def _leftovers(out: Path) -> list[str]:
    """What the commands left in ``out`` (the logs aside)."""
    return sorted(p.name for p in out.rglob("*") if not p.name.startswith("rank"))


def test_a_rank_that_raises_stops_the_job_with_one_line_naming_it_and_no_file(tmp_path):
    files = _corpus(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (rank0, rank1) = _launch(2, _commands(files, out), out, fault="raise")
    assert rank0[0] == rank1[0] == "2 2", (rank0, rank1)  # both commands failed on both ranks, status 2
    lines = rank0[2].splitlines()
    assert lines == ["attention-scope report: error: rank 1 of 2 failed: RuntimeError: injected fault in the model",
                     "attention-scope align: error: rank 1 of 2 failed: RuntimeError: injected fault in the model"]
    assert rank1[2] == "" and rank0[1] == rank1[1] == ""
    assert _leftovers(out) == []  # no card, no Pharaoh file, no temporary file


def test_a_rank_that_dies_without_a_word_stops_the_job_and_leaves_no_file(tmp_path):
    files = _corpus(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (rank0, rank1) = _launch(2, _commands(files, out)[1:], out, fault="exit")  # align: rank 0 has its file open
    assert rank1[0] == 3 and rank0[0] == "2", (rank0, rank1)
    lines = rank0[2].splitlines()
    assert len(lines) == 1 and lines[0].startswith("attention-scope align: error: rank 0 of 2 lost contact with rank 1"), lines
    assert _leftovers(out) == []


def test_the_launcher_s_sigterm_stops_a_rank_with_one_line_and_its_temporary_file_removed(tmp_path):
    files = _corpus(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (rank0, rank1) = _launch(2, _commands(files, out)[1:], out, fault="term")  # align: rank 0 has its file open
    assert rank0[0] == rank1[0] == "2", (rank0, rank1)
    assert rank0[2].splitlines() == ["attention-scope align: error: rank 0 of 2 was stopped by the launcher (another rank "
                                     "ended first; the launcher's report names it)"]
    assert rank1[2].startswith("attention-scope align: error: rank 1 of 2 lost contact with rank 0")  # what it saw
    assert _leftovers(out) == []


def test_a_corpus_that_differs_between_machines_is_refused(tmp_path):
    files = _corpus(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    report = _commands(files, out)[0]
    without_gold = report[:report.index("--gold")] + report[report.index("--gold") + 2:]  # gold would tell first
    (rank0, rank1) = _launch(2, [without_gold], out, fault="short")  # 239 pairs: the same rounds, one short
    assert rank0[0] == rank1[0] == "2", (rank0, rank1)
    assert rank0[2].splitlines() == [f"attention-scope report: error: the ranks read from {N_PAIRS - 1} to {N_PAIRS} "
                                     "sentence pairs: every machine needs the same files"]
    assert rank1[2] == ""
    assert _leftovers(out) == []


def test_a_gold_link_past_its_pair_is_refused_over_ranks_as_in_one_process(tmp_path):
    files = _corpus(tmp_path)
    gold = files["gold.txt"].read_text(encoding="utf-8").splitlines()
    gold[100] = "99-0"  # line 101: no pair has a hundredth source word (batch 4 of 32: rank 1's share under two ranks)
    files["gold.txt"].write_text("\n".join(gold) + "\n", encoding="utf-8")
    for world in (1, 2):
        out = tmp_path / f"world{world}"
        out.mkdir()
        results = _launch(world, _commands(files, out), out)
        assert [code for code, _, _ in results] == ["2 2"] * world, results
        lines = results[0][2].splitlines()
        assert len(lines) == 2 and all("gold.txt line 101: link 99-0 is outside pair 101" in line for line in lines), lines
        assert all(err == "" for _, _, err in results[1:])  # the other rank says nothing
        assert _leftovers(out) == []
