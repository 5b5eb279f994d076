"""Training, evaluation and the train/eval commands on tiny configurations."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch
from conftest import tiny_model

from model_core import StepDecoder, load_model
from model_core.inference.bundle import ModelBundle
from model_core.training.evaluation import alignment_error_rate, batch_greedy, evaluate
from model_core.training.tasks import HeldOut, prepare_task
from model_core.training.trainer import TrainControl, Trainer, TrainSettings, noam_lr
from viz_app.cli import main


def _copy_bundle(seed=0, dropout=None):
    data = prepare_task("copy", n_train=300, n_valid=40, n_test=20, seed=seed)
    torch.manual_seed(seed)
    from model_core import Seq2SeqTransformer

    config = data.config("tiny")
    model = Seq2SeqTransformer(config if dropout is None else replace(config, dropout=dropout))
    return ModelBundle(model, data.src_tokenizer, data.tgt_tokenizer, name="copy"), data


def test_a_few_steps_lower_the_loss():
    bundle, data = _copy_bundle()
    events = []
    trainer = Trainer(bundle, data.train, data.valid, TrainSettings(epochs=3, batch_size=32, warmup_steps=20, log_every=5),
                      callback=events.append)
    trainer.run()
    epochs = [e for e in events if e.kind == "epoch"]
    assert len(epochs) == 3
    assert epochs[-1].val_loss < epochs[0].val_loss < math.log(len(data.tgt_tokenizer)) + 0.5
    assert events[-1].kind == "done" and any(e.tokens_per_second > 0 for e in events if e.kind == "step")


def test_stop_and_resume_keep_the_best_checkpoint(tmp_path):
    bundle, data = _copy_bundle()
    out = tmp_path / "copy.safetensors"
    control = TrainControl()

    def stop_after_first_epoch(event):
        if event.kind == "epoch":
            control.stop()

    trainer = Trainer(bundle, data.train, data.valid, TrainSettings(epochs=5, batch_size=32, warmup_steps=20),
                      out, stop_after_first_epoch, control)
    trainer.run()
    assert out.exists() and trainer.epoch == 1
    saved = load_model(out, device="cpu")
    assert saved.metadata["epoch"] == 1 and saved.metadata["val_loss"] == pytest.approx(trainer.best_val)
    fresh_bundle, _ = _copy_bundle(seed=1)
    again = Trainer(fresh_bundle, data.train, data.valid, TrainSettings(epochs=2, batch_size=32, warmup_steps=20), out)
    assert again.load_resume() and again.step == trainer.step and again.epoch == 1
    again.run()
    assert again.epoch == 2


@pytest.mark.parametrize("batching", ["pools", "sorted"])
def test_a_run_stopped_mid_epoch_and_resumed_ends_with_the_weights_of_one_never_stopped(tmp_path, batching):
    """The resume file keeps where the epoch drew its batches from, how many are done and the dropout generator: the
    resumed run trains on the same batches in the same order with the same dropout, so it ends bit for bit where an
    uninterrupted run ends (a recipe's model is reproducible however often its training was stopped)."""
    settings = TrainSettings(epochs=2, batch_size=32, warmup_steps=20, log_every=1, batching=batching)
    bundle, data = _copy_bundle(dropout=0.1)  # the dropout generator is part of what must be restored
    Trainer(bundle, data.train, data.valid, settings).run()
    control = TrainControl()
    steps_per_epoch = math.ceil(len(data.train) / settings.batch_size)

    def stop_mid_second_epoch(event):
        if event.kind == "step" and event.step == steps_per_epoch + 3:
            control.stop()

    out = tmp_path / "copy.safetensors"
    stopped_bundle, _ = _copy_bundle(dropout=0.1)
    stopped = Trainer(stopped_bundle, data.train, data.valid, settings, out, stop_mid_second_epoch, control)
    stopped.run()
    assert stopped.epoch == 1 and stopped.step == steps_per_epoch + 3
    resumed_bundle, _ = _copy_bundle(seed=1, dropout=0.1)  # other weights and another torch seed: all must come from the file
    resumed = Trainer(resumed_bundle, data.train, data.valid, settings, out)
    assert resumed.load_resume()
    resumed.run()
    assert resumed.step == 2 * steps_per_epoch
    for (name, want), got in zip(bundle.model.state_dict().items(), resumed_bundle.model.state_dict().values(), strict=True):
        assert torch.equal(want, got), name


def test_pause_blocks_until_resumed():
    control = TrainControl()
    control.pause()
    assert not control.run_event.is_set()
    control.resume()
    assert control.run_event.is_set()
    control.stop()
    assert control.stopped


def test_noam_schedule_peaks_at_warmup():
    lrs = [noam_lr(s, 128, 100, 1.0) for s in (1, 50, 100, 200, 400)]
    assert lrs[2] == max(lrs) and lrs[0] < lrs[1] and lrs[3] > lrs[4]


def test_batch_greedy_equals_session_greedy():
    model = tiny_model(seed=3)
    sources = [[4, 5, 6, 2], [7, 8, 9, 10, 11, 2], [12, 2]]
    batched = batch_greedy(model, sources, max_steps=9)
    for src, ids in zip(sources, batched, strict=True):
        assert ids == StepDecoder(model, src, max_steps=9).run()


def test_alignment_error_rate():
    gold = {(0, 0), (1, 2), (2, 1)}
    assert alignment_error_rate(gold, gold) == 0.0
    assert alignment_error_rate({(0, 1), (1, 0), (2, 2)}, gold) == 1.0
    assert alignment_error_rate({(0, 0), (1, 0)}, gold) == pytest.approx(1 - 2 / 5)


def test_evaluate_reports_scores_and_per_head_aer():
    bundle, data = _copy_bundle()
    report = evaluate(bundle, data.test[:10], task="copy")
    assert report.n == 10 and 0 <= report.exact_match <= 1 and 0 <= report.bleu <= 100
    assert len(report.aer_per_layer) == 2 and len(report.aer_per_head[0]) == bundle.config.n_heads
    assert "exact match" in report.format()
    perfect = evaluate(bundle, [HeldOut("a b", "a b", ((0,), (1,)))], task="x")
    assert perfect.n == 1


def test_train_and_eval_commands(tmp_path, capsys):
    out = tmp_path / "copy.safetensors"
    assert main(["train", "--task", "copy", "--config", "tiny", "--epochs", "1", "--n-train", "200",
                 "--device", "cpu", "--out", str(out)]) == 0
    assert out.exists() and not (tmp_path / "copy.safetensors.partial").exists()
    assert main(["eval", "--model", str(out), "--n", "20", "--device", "cpu"]) == 0
    text = capsys.readouterr().out
    assert "exact match" in text and "BLEU" in text and "layer 0" in text


def test_train_on_a_tsv_corpus_with_bpe(tmp_path):
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("".join(f"the cat {i}\tle chat {i}\n" for i in range(60)), encoding="utf-8")
    data = prepare_task(str(corpus), seed=0)
    assert data.src_tokenizer.kind == "bpe" and len(data.train) > 40 and data.test
    assert data.train[0][1][-1] == data.tgt_tokenizer.eos_id


@pytest.mark.parametrize(("content", "message"), [
    (b"only one column\n", "line 1"),
    (b"a\tb\n\tc\n", "line 2"),
    (b"ok\tfine\n\xff\xfe\tbad\n", "line 2"),
    (b"", "empty|no pairs"),
])
def test_train_rejects_a_malformed_tsv_with_the_line(tmp_path, capsys, content, message):
    corpus = tmp_path / "bad.tsv"
    corpus.write_bytes(content)
    assert main(["train", "--task", str(corpus), "--out", str(tmp_path / "m.safetensors"), "--config", "tiny"]) == 2
    err = capsys.readouterr().err
    assert __import__("re").search(message, err) and "Traceback" not in err


def test_bleu_of_chinese_references_counts_characters():
    """A TSV task with Chinese targets joins tokens with a space, but its references are unspaced Chinese: under
    sacrebleu's 13a tokenizer a line was one word, and 100 % exact match read as BLEU 0.00."""
    import sacrebleu

    from model_core.training.evaluation import bleu_tokenizer

    refs = ["安娜想要红色的车吗？", "小猫在桌子上"]
    assert bleu_tokenizer(refs, " ") == bleu_tokenizer(refs, "") == "zh"
    assert bleu_tokenizer(["le chat noir"], " ") == "13a"
    assert sacrebleu.corpus_bleu(refs, [refs], tokenize=bleu_tokenizer(refs)).score == pytest.approx(100.0)
    assert sacrebleu.corpus_bleu(refs, [refs], tokenize="13a").score == 0.0  # the old figure for the same lines


def test_eval_finds_the_recorded_tsv_beside_the_model_or_says_where_it_looked(tmp_path, capsys, monkeypatch):
    """A TSV task is recorded by its file name only: `eval` run from another folder said "unknown task 'pairs.tsv':
    choose from en-fr, …", as if the name were wrong."""
    work = tmp_path / "work"
    work.mkdir()
    corpus = work / "pairs.tsv"
    corpus.write_text("".join(f"the cat {i}\tle chat {i}\n" for i in range(60)), encoding="utf-8")
    out = work / "m.safetensors"
    monkeypatch.chdir(work)
    assert main(["train", "--task", "pairs.tsv", "--config", "tiny", "--epochs", "1", "--device", "cpu",
                 "--out", str(out)]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    capsys.readouterr()
    assert main(["eval", "--model", str(out), "--n", "5", "--device", "cpu"]) == 0  # found beside the model
    assert "exact match" in capsys.readouterr().out
    corpus.rename(tmp_path / "moved.tsv")
    assert main(["eval", "--model", str(out), "--n", "5", "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "trained on pairs.tsv" in err[0] and "--task" in err[0]


def test_pooled_batches_change_every_epoch_and_spread_copies_of_one_pair():
    """With the whole set sorted once, the forty rehearsed copies of a set phrase filled one batch every epoch (one
    step an epoch: the phrase was not learnt); pooled batches hold each pair once an epoch, mixed anew."""
    import random

    from model_core.training.trainer import make_batches

    rng = random.Random(0)
    pairs = [([1] * (2 + i % 9), [1] * (3 + i % 7)) for i in range(30000)] + [([1, 2], [1, 2, 3])] * 40
    copies = set(range(30000, 30040))  # the pools hold 6,400 pairs: about 8 copies each
    epochs = [make_batches(pairs, 64, rng) for _ in range(2)]
    for batches in epochs:
        assert sorted(i for b in batches for i in b) == list(range(len(pairs)))
        assert max(len(copies & set(b)) for b in batches) <= 16
        assert all(len(b) <= 64 for b in batches)
    assert {tuple(b) for b in epochs[0]} != {tuple(b) for b in epochs[1]}
    sorted_once = make_batches(pairs, 64, rng, "sorted")
    assert max(len(copies & set(b)) for b in sorted_once) >= 32  # one or two batches of copies: what pools avoid
    with pytest.raises(ValueError, match="unknown batching"):
        make_batches(pairs, 64, rng, "random")


def test_a_resume_file_with_damaged_draws_restarts_its_epoch_as_before(tmp_path):
    """Draws that random.Random or torch cannot take (a damaged or edited file) are ignored: the epoch restarts,
    reseeded, as resume files from before they were kept do; the weights and the schedule still load."""
    bundle, data = _copy_bundle()
    out = tmp_path / "copy.safetensors"
    settings = TrainSettings(epochs=1, batch_size=32, warmup_steps=20)
    Trainer(bundle, data.train, data.valid, settings, out).run()
    resume = out.with_name(out.name + ".resume.pt")
    state = torch.load(resume, weights_only=True)
    assert state["epoch_draws"].shape == (626,) and state["batches_done"] == 0
    state["epoch_draws"] = torch.full((626,), -5, dtype=torch.int64)  # no Mersenne Twister state
    torch.save(state, resume)
    again = Trainer(_copy_bundle(seed=1)[0], data.train, data.valid, TrainSettings(epochs=2, batch_size=32), out)
    assert again.load_resume() and again.epoch == 1 and again._epoch_draws is None
    again.run()
    assert again.epoch == 2
