"""From a task name (or a user's TSV file) to tokenizers and id pairs ready for training.

Toy grammars and algorithmic tasks use word-level tokenizers over their own lexicon; a user's
corpus gets BPE tokenizers trained on it. Held-out sentences come from the generators' test split,
so evaluation never sees a training sentence.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from ..config import ModelConfig, preset
from ..data import TASKS, generate, load_tsv, rehearsed
from ..text.tokenizers import Tokenizer

Pair = tuple[list[int], list[int]]  # (source ids with specials, target ids ending with <eos>): what training reads

DEFAULT_SIZES = {"en-fr": 24000, "en-zh": 24000, "copy": 12000, "reverse": 12000, "sort": 12000, "en-fr-a1": 80000,
                 "en-zh-a1": 80000, "en-fr-a1plus": 200000, "en-zh-a1plus": 200000}


@dataclass(frozen=True)
class HeldOut:
    """A held-out pair as text, with the gold alignment (per target token) when the task has one."""

    src_text: str
    tgt_text: str
    alignment: tuple[tuple[int, ...], ...] | None = None
    word_start: tuple[bool, ...] = ()  # empty: every target token begins a word


@dataclass
class TaskData:
    name: str
    src_tokenizer: Tokenizer
    tgt_tokenizer: Tokenizer
    train: list[Pair]
    valid: list[Pair]
    test: list[HeldOut]
    tgt_joiner: str = " "

    def config(self, size: str = "small", **overrides) -> ModelConfig:
        """A model config of preset ``size`` whose vocabularies and max_len fit this task."""
        longest = max(max(len(s), len(t)) for s, t in self.train)
        fields = dict(src_vocab_size=len(self.src_tokenizer), tgt_vocab_size=len(self.tgt_tokenizer),
                      max_len=max(64, 2 * longest))
        return preset(size, **{**fields, **overrides})


def encode_pair(src: Tokenizer, tgt: Tokenizer, source: str, target: str, config_like: dict) -> Pair:
    s = src.encode(source)
    if config_like.get("src_add_bos"):
        s = [src.bos_id, *s]
    if config_like.get("src_add_eos", True):
        s = [*s, src.eos_id]
    return s, [*tgt.encode(target), tgt.eos_id]


def prepare_task(task: str, n_train: int | None = None, n_valid: int = 500, n_test: int = 500, seed: int = 0) -> TaskData:
    """Generate (or read) the corpus, build tokenizers and encode the splits."""
    if task in TASKS:
        n_train = n_train or DEFAULT_SIZES[task]
        train_ex = generate(task, n_train + n_valid, seed=seed, split="train")
        test_ex = generate(task, n_test, seed=seed, split="test")
        src_tok = Tokenizer.build_word_level(e.src for e in train_ex + test_ex)
        tgt_tok = Tokenizer.build_word_level(e.tgt for e in train_ex + test_ex)
        pairs = [encode_pair(src_tok, tgt_tok, e.src_text, e.tgt_text, {}) for e in train_ex]
        joiner = train_ex[0].tgt_joiner if train_ex else " "
        test = [HeldOut(e.src_text, e.tgt_text, e.alignment, e.word_start) for e in test_ex]
        train = pairs[:n_train] + [encode_pair(src_tok, tgt_tok, e.src_text, e.tgt_text, {}) for e in rehearsed(task)]
        return TaskData(task, src_tok, tgt_tok, train, pairs[n_train:], test, joiner)
    path = Path(task)
    if not path.exists():
        raise ValueError(f"unknown task {task!r}: choose from {', '.join(TASKS)} or give a .tsv file")
    rows = load_tsv(path)
    rng = random.Random(seed)
    rows = rows[:]
    rng.shuffle(rows)
    n_hold = max(1, len(rows) // 20) if len(rows) >= 20 else 0
    test_rows, valid_rows, train_rows = rows[:n_hold], rows[n_hold : 2 * n_hold], rows[2 * n_hold :]
    vocab = max(200, min(8000, len(train_rows) // 2))
    src_tok = Tokenizer.train_bpe((s for s, _ in train_rows), vocab_size=vocab)
    tgt_tok = Tokenizer.train_bpe((t for _, t in train_rows), vocab_size=vocab)
    enc = lambda rs: [encode_pair(src_tok, tgt_tok, s, t, {}) for s, t in rs]
    test = [HeldOut(s, t) for s, t in test_rows]
    return TaskData(path.stem, src_tok, tgt_tok, enc(train_rows), enc(valid_rows), test)


# ----------------------------------------------------------------------------- the shipped demo models
@dataclass(frozen=True)
class DemoSpec:
    task: str
    epochs: int
    n_train: int
    size: str = "small"
    seed: int = 0
    overrides: dict = field(default_factory=dict)
    batching: str = "pools"  # model_core.training.trainer.make_batches


# the `small` preset: d_model 128, 4 heads, 3 + 3 layers, d_ff 512 (about 6 MB as float32). en-fr and en-zh are the A1
# grammar's (model_core.data.a1: a lexicon of 710 words, twenty constructions, sentences of six words on average),
# pre-norm: post-norm en-fr sat on the plateau where the decoder writes fluent French that ignores the source
# (validation loss 1.4 after six epochs with seed 0, 1.57 after three with seed 1; the lexicon gives French 1,300 word
# forms, Chinese 700 characters), and post-norm en-zh reached 96.2 % exact match after 13 epochs, where pre-norm en-fr
# was at 97.2 % after 3. The closed list (set phrases, weather, days) is rehearsed forty more times (data.a1.REHEARSALS).
# Batches are drawn from shuffled pools (make_batches): with the whole set sorted once by length, the forty copies of
# a set phrase filled one batch, one step an epoch, and en-fr missed "please", "nice to meet you" and "what is your
# name" after 10 epochs and after 20 alike (log p of enchanté −3.3, of vous −7).
DEMOS: dict[str, DemoSpec] = {
    "en-fr": DemoSpec("en-fr-a1", epochs=10, n_train=80000, overrides={"norm_position": "pre"}),
    "en-zh": DemoSpec("en-zh-a1", epochs=10, n_train=80000, overrides={"norm_position": "pre"}),
    # 2 + 2 layers and 8 epochs on 8,000 sequences reached 81 %, the small preset 30 epochs on 12,000 97.8 %: the errors
    # are runs of a repeated symbol counted wrong, which more sequences (and no dropout: nothing to regularise) fix
    "reverse": DemoSpec("reverse", epochs=40, n_train=24000, overrides={"dropout": 0.0}, batching="sorted"),
}

# The next en-fr and en-zh models, in training: the A1+ grammar (model_core.data.a1plus: coordination, at-places and
# transport, the time, health, "which", sentences up to 20 words, 9 % of them 15 words or more). They replace DEMOS'
# en-fr and en-zh (and their tests' task) only when they meet the floors: held-out exact match >= 98 %, 20-word grammar
# sentences >= 95 %, content-word AER of the best layer <= 5 %. Until then the shipped models keep their task, whose
# held-out sentences the tests read. The same `small` preset (the window's speed and the 10 MB a shipped model may
# weigh); 2.5 times the sentences, which are twice as long on average, and more epochs.
NEXT_DEMOS: dict[str, DemoSpec] = {
    "en-fr": DemoSpec("en-fr-a1plus", epochs=16, n_train=200000, overrides={"norm_position": "pre"}),
    "en-zh": DemoSpec("en-zh-a1plus", epochs=16, n_train=200000, overrides={"norm_position": "pre"}),
}
