"""Tokenizers from files are untrusted programs: normalizer chains that double a text at every step, regular
expressions that backtrack for minutes, a Rust panic, a tokenizer slower than its bound. Each is built the way the
attack on the app built it, in all three places a tokenizer comes from (a native checkpoint's metadata, a Hugging
Face folder, ``--tokenization FILE.json``), and must be refused in one line naming the part of the tokenizer and
why, within the 10 s and 3 GB of :func:`refused`."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from model_core import budgets
from model_core.io.importers import ImportOptions
from model_core.text.tokenize_deadline import TokenizeTimeout, run_within
from model_core.text.tokenizer_check import check_pattern, check_tokenizer
from tests.core.test_hostile_files import SEED_SPECIALS, Attack, marian_folder, native_with, refused, tokenizer_json

pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]

DOUBLING = {"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}


def doubling(steps: int) -> dict[str, Any]:
    """``steps`` chained Replace a → aa: a text of n a's becomes n·2^steps long."""
    return {"type": "Sequence", "normalizers": [DOUBLING] * steps}


def split_on(pattern: str) -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def word_level_json(vocab: dict[str, int], **parts: Any) -> dict[str, Any]:
    """A whole tokenizer.json (the tokenizers library's format) of a word-level model with ``parts`` set."""
    data = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"}}
    data.update(parts)
    return data


# ----------------------------------------------------------------------------------------- the structural check
def test_growth_is_composed_through_every_step():
    check_tokenizer(word_level_json({"a": 0}, normalizer=doubling(6)))  # 64 times: within the 100 allowed
    with pytest.raises(ValueError, match=r"its normalizer and pre_tokenizer can make a text 128 times longer, over the 100"):
        check_tokenizer(word_level_json({"a": 0}, normalizer=doubling(7)))
    with pytest.raises(ValueError, match=r"67,108,864 times longer"):
        check_tokenizer(word_level_json({"a": 0}, normalizer=doubling(26)))
    # a Prepend adds, it does not multiply; a Replace after it multiplies what it added
    prepend = {"type": "Prepend", "prepend": "▁" * 2000}
    check_tokenizer(word_level_json({"a": 0}, normalizer={"type": "Sequence", "normalizers": [prepend, DOUBLING]}))
    with pytest.raises(ValueError, match=r"can add 6,000 characters to a text, over the 4,096"):
        check_tokenizer(word_level_json({"a": 0}, normalizer={"type": "Sequence", "normalizers": [
            prepend, {"type": "Replace", "pattern": {"String": "▁"}, "content": "▁▁▁"}]}))
    # a pattern that matches nothing inserts its content between every two characters
    with pytest.raises(ValueError, match=r"can make a text 201 times longer"):
        check_tokenizer(word_level_json({"a": 0}, normalizer={"type": "Replace", "pattern": {"String": ""}, "content": "b" * 200}))
    # NFKC (18) after BERT's normalizer (36): each is honest, together over the budget
    bert = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True}
    check_tokenizer(word_level_json({"a": 0}, normalizer=bert))
    with pytest.raises(ValueError, match=r"648 times longer"):
        check_tokenizer(word_level_json({"a": 0}, normalizer={"type": "Sequence", "normalizers": [bert, {"type": "NFKC"}]}))


def test_counts_and_unknown_parts_are_refused():
    added = [{"id": i, "content": f"x{i}", "special": False} for i in range(budgets.MAX_VOCAB)]
    with pytest.raises(ValueError, match=r"a vocabulary of 262,145 tokens, over the 262,144 .*added tokens included"):
        check_tokenizer(word_level_json({"a": 0}, added_tokens=added))
    with pytest.raises(ValueError, match=r"its normalizer \(Mystery\) is not a normalizer this app knows"):
        check_tokenizer(word_level_json({"a": 0}, normalizer={"type": "Mystery"}))


@pytest.mark.parametrize(("pattern", "why"), [
    ("(a|a){1,20}$", "repeats a group that holds another quantifier or an alternation"),
    ("(a+)+$", "repeats a group that holds another quantifier or an alternation"),
    ("(?:x*)*", "repeats a group that holds another quantifier or an alternation"),
    (r"(a)\1", "cannot run in linear time"),
    (r"\s+(?!\S)", "cannot run in linear time"),
    (r"(?<=a)b", "cannot run in linear time"),
    (r"\s*\s*x", "two quantifiers over overlapping characters"),
    (r".*.*=.*", "two quantifiers over overlapping characters"),
    (r"\p{L}*\w+", "two quantifiers over overlapping characters"),
])
def test_patterns_that_backtrack_are_refused(pattern, why):
    with pytest.raises(ValueError, match=why):
        check_pattern(pattern)


@pytest.mark.parametrize("pattern", [
    " {2,}",  # what transformers' sentencepiece conversion writes (T5, mBART, NLLB)
    r"n't|'s|[.,!?]",
    r" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+",  # GPT-2's, without its lookahead
    r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}",
    r"(?:ab)+", r"\w+\s*,",
])
def test_honest_patterns_pass(pattern):
    check_pattern(pattern)


# ----------------------------------------------------------------------------------------- native metadata
def native_tokenizer(folder: Path, name: str, **backend: Any) -> Path:
    text = tokenizer_json(json.dumps({t: i for i, t in enumerate([*SEED_SPECIALS, *(f"t{i}" for i in range(25))])}), **backend)
    return native_with(folder, name, meta={"tgt_tokenizer": text})


def test_a_native_tokenizer_that_doubles_the_text_26_times_is_refused(tmp_path):
    """The 180 KB .safetensors of the attack: 7.4 GB and 70 s on its load-time probe sentence before."""
    path = native_tokenizer(tmp_path, "replace.safetensors", normalizer=doubling(26))
    refused(path, match=r"target tokenizer.*its normalizer and pre_tokenizer can make a text 67,108,864 times longer")


@pytest.mark.parametrize("pattern", ["(a|a){1,20}$", "(a+)+$"])
def test_a_native_tokenizer_with_a_pattern_is_refused(tmp_path, pattern):
    path = native_tokenizer(tmp_path, "split.safetensors", pre_tokenizer=split_on(pattern))
    refused(path, match=r"its pre_tokenizer \(Split\) uses a regular expression")


def wordpiece_model(folder: Path, cap: int = 10**7, **overrides: Any) -> Path:
    """A tiny native model whose source tokenizer is WordPiece splitting words of up to ``cap`` characters, with "a"
    and "##a" in its vocabulary: a word of a's then "b" makes it try every piece from the longest down before giving
    up (cubic: "a" × 4,000 then "b" took 3.8 s, × 8,000 ~30 s). Built here, not checked: the check refuses a big cap."""
    from safetensors.torch import save_file

    from tests.core.test_hostile_files import native_parts

    weights, meta = native_parts(**overrides)
    data = json.loads(meta["src_tokenizer"])
    vocab = data["backend"]["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.get)
    tokens[-2:] = ["a", "##a"]
    data["backend"]["model"] = {"type": "WordPiece", "unk_token": "<unk>", "continuing_subword_prefix": "##",
                                "max_input_chars_per_word": cap, "vocab": {t: i for i, t in enumerate(tokens)}}
    data["backend"]["pre_tokenizer"] = {"type": "WhitespaceSplit"}
    meta["src_tokenizer"] = json.dumps(data)
    path = folder / "wordpiece.safetensors"
    save_file(weights, str(path), metadata=meta)
    return path


def test_a_wordpiece_that_splits_huge_words_is_refused_and_an_ordinary_one_passes():
    def wordpiece(**settings: Any) -> dict[str, Any]:
        return word_level_json({}, model={"type": "WordPiece", "unk_token": "<unk>", "vocab": {"<unk>": 0, "a": 1}, **settings})

    for settings in ({}, {"max_input_chars_per_word": 100}, {"max_input_chars_per_word": budgets.MAX_WORDPIECE_WORD_CHARS}):
        check_tokenizer(wordpiece(**settings))
    with pytest.raises(ValueError, match=r"^its model \(WordPiece\) splits words of up to 10,000,000 characters "
                                         r"\(max_input_chars_per_word\), over the 200 this app allows \(a word's cost grows with the cube"):
        check_tokenizer(wordpiece(max_input_chars_per_word=10**7))
    with pytest.raises(ValueError, match=r"up to 201 characters"):
        check_tokenizer(wordpiece(max_input_chars_per_word=budgets.MAX_WORDPIECE_WORD_CHARS + 1))
    with pytest.raises(ValueError, match=r"up to more than 10\^15 characters"):
        check_tokenizer(wordpiece(max_input_chars_per_word=10**400))
    with pytest.raises(ValueError, match=r"max_input_chars_per_word is not a whole number of characters: '10000000\.0'"):
        check_tokenizer(wordpiece(max_input_chars_per_word=1e7))


def test_a_native_model_whose_wordpiece_splits_huge_words_is_refused_in_one_line(tmp_path, capsys):
    """It passed every check before, and took 3.8 s on a 4,000-character word (cubic time)."""
    from viz_app.cli import main

    path = wordpiece_model(tmp_path)
    refused(path, match=r"source tokenizer.*its model \(WordPiece\) splits words of up to 10,000,000 characters")
    assert main(["info", "--model", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("attention-scope info: error: ") and "max_input_chars_per_word" in err, err


# ----------------------------------------------------------------------------------------- Hugging Face folders
def fast_tokenizer_folder(folder: Path, **parts: Any) -> Path:
    """A tiny Marian whose tokenizer is a PreTrainedTokenizerFast read from tokenizer.json, with ``parts`` set."""
    target = marian_folder(folder)
    vocab = json.loads((target / "vocab.json").read_text(encoding="utf-8"))
    (target / "tokenizer.json").write_text(json.dumps(word_level_json(vocab, **parts)), encoding="utf-8")
    (target / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}), encoding="utf-8")
    return target


@pytest.mark.parametrize(("parts", "match"), [
    ({"normalizer": doubling(24)}, r"tokenizer\.json: its normalizer and pre_tokenizer can make a text 16,777,216 times longer"),
    ({"pre_tokenizer": split_on("(a|a){1,20}$")}, r"tokenizer\.json: its pre_tokenizer \(Split\) pattern '\(a\|a\).*' repeats a group"),
    ({"pre_tokenizer": split_on("(a+)+$")}, r"tokenizer\.json: its pre_tokenizer \(Split\) pattern '\(a\+\)\+\$' repeats a group"),
])
def test_a_hugging_face_tokenizer_json_is_checked_before_it_is_built(tmp_path, parts, match):
    pytest.importorskip("transformers")
    refused(fast_tokenizer_folder(tmp_path, **parts), match=match)


def test_an_honest_fast_tokenizer_folder_still_opens(tmp_path):
    pytest.importorskip("transformers")
    from model_core.io.importers import open_model

    target = fast_tokenizer_folder(tmp_path, pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, split_on(r"n't|'s|[.,!?]")]}, normalizer={"type": "NFKC"})
    bundle = open_model(target, ImportOptions(), device="cpu")
    assert bundle.src_tokenizer.encode("▁a") is not None


# ----------------------------------------------------------------------------------------- --tokenization FILE.json
def users_tokenizer(folder: Path, **parts: Any) -> tuple[Path, dict]:
    from tests.core.test_vocabulary_choices import SPACY, checkpoint

    _, path = checkpoint(folder, SPACY + [f"x{i}" for i in range(8)], SPACY + [f"y{i}" for i in range(8)])
    file = folder / "hostile.json"
    file.write_text(json.dumps(word_level_json({t: i for i, t in enumerate(SPACY)}, **parts)), encoding="utf-8")
    return path, {"src_vocab": str(folder / "src.txt"), "tgt_vocab": str(folder / "tgt.txt"), "heads": 4, "tokenization": str(file)}


@pytest.mark.parametrize(("parts", "match"), [
    ({"normalizer": doubling(25)}, r"tokenizer hostile\.json: its normalizer and pre_tokenizer can make a text 33,554,432 times longer"),
    ({"pre_tokenizer": split_on("(a|a){1,20}$")}, r"tokenizer hostile\.json: its pre_tokenizer \(Split\) pattern .* repeats a group"),
    ({"pre_tokenizer": split_on("(a+)+$")}, r"tokenizer hostile\.json: its pre_tokenizer \(Split\) pattern .* repeats a group"),
    ({"pre_tokenizer": split_on(r"(\w)\1")}, r"tokenizer hostile\.json: its pre_tokenizer \(Split\) pattern .* cannot run in linear time"),
])
def test_a_users_tokenizer_json_is_checked_before_it_is_built(tmp_path, parts, match):
    path, options = users_tokenizer(tmp_path, **parts)
    refused(path, options, match=match)


# ----------------------------------------------------------------------------------------- the time bound
def test_tokenizing_past_its_bound_is_one_line_and_the_caller_goes_on():
    release = threading.Event()
    started = time.perf_counter()
    with pytest.raises(TokenizeTimeout, match=r"tokenizing the text took more than 0\.3 s"):
        run_within(lambda: release.wait(30), seconds=0.3)
    release.set()
    assert run_within(lambda: 7, seconds=0.3) == 7
    assert time.perf_counter() - started < 5  # the caller did not wait for the slow call


def test_a_panic_while_tokenizing_is_one_line():
    class FakePanic(BaseException):  # what pyo3_runtime.PanicException derives from
        pass

    def panics() -> None:
        raise FakePanic("called `Result::unwrap()` on an `Err` value: RetryLimitInMatchOver")

    with pytest.raises(ValueError, match=r"tokenizing the text failed in the tokenizers library \(FakePanic: called"):
        run_within(panics)


def test_the_encoding_through_the_bound_is_the_librarys_own():
    from model_core import Tokenizer

    tok = Tokenizer.word_level(["the", "cat", "猫"])
    text = "The cat, 猫, the dog."
    direct = tok.backend.encode(text, add_special_tokens=False)
    assert tok.encode(text) == direct.ids
    assert tok.encode_typed(text)[1] == [text[a:b] for a, b in direct.offsets]


def test_ctrl_c_ends_a_wait_for_a_slow_tokenizer(tmp_path):
    """The library's ``encode`` holds Python's lock: Ctrl-C sent at 15 s took effect at 92 s. Through
    :func:`bounded_encode` the text is tokenised in another thread, waited for in 0.1 s slices, so the interrupt
    ends the command long before the tokenizer would."""
    import signal
    import subprocess
    import sys

    hostile = json.dumps(word_level_json({"a": 0, "<unk>": 1}, pre_tokenizer=split_on("(a|a){1,20}$")))
    script = tmp_path / "slow.py"
    script.write_text(
        "import sys\n"
        "from tokenizers import Tokenizer\n"
        "from model_core.text.tokenize_deadline import bounded_encode\n"
        f"backend = Tokenizer.from_str({hostile!r})  # built unchecked: the pattern backtracks for minutes\n"
        "try:\n"
        "    print('waiting', flush=True)  # inside the try: the interrupt may come at once\n"
        "    bounded_encode(backend, 'a' * 5000 + 'b', seconds=600)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(130)\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "waiting"
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)  # the tokenizer alone runs for minutes (269 s on a quiet machine)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and out.strip() == "interrupted"


# ----------------------------------------------------------------------------------------- for benchmarks/bench_hostile.py
#: each tokenizer attack as ``benchmarks/bench_hostile.py`` opens it (its refusal in one line, bounded)
TOKENIZER_ATTACKS: dict[str, Attack] = {
    "native: 26 chained Replace a→aa": Attack(
        "180 KB .safetensors: 70 s, 7.4 GB, exit 0",
        lambda folder: (native_tokenizer(folder, "replace.safetensors", normalizer=doubling(26)), {}),
        r"67,108,864 times longer"),
    "native: Split (a|a){1,20}$": Attack(
        "", lambda folder: (native_tokenizer(folder, "split.safetensors", pre_tokenizer=split_on("(a|a){1,20}$")), {}),
        r"uses a regular expression"),
    "HF folder: 24 chained Replace": Attack(
        "export: 100 s, 5.0 GB, 33,554,434 tokens",
        lambda folder: (fast_tokenizer_folder(folder, normalizer=doubling(24)), {}),
        r"16,777,216 times longer", ("transformers",)),
    "HF folder: Split (a|a){1,20}$": Attack(
        "269 s on a 5,001-character source",
        lambda folder: (fast_tokenizer_folder(folder, pre_tokenizer=split_on("(a|a){1,20}$")), {}),
        r"repeats a group", ("transformers",)),
    "HF folder: Split (a+)+$": Attack(
        "Rust panic, 4 stderr lines naming no file",
        lambda folder: (fast_tokenizer_folder(folder, pre_tokenizer=split_on("(a+)+$")), {}),
        r"repeats a group", ("transformers",)),
    "--tokenization: 25 chained Replace": Attack(
        "70 s, 2.7 GB", lambda folder: users_tokenizer(folder, normalizer=doubling(25)), r"33,554,432 times longer"),
    "--tokenization: Split (a|a){1,20}$": Attack(
        "", lambda folder: users_tokenizer(folder, pre_tokenizer=split_on("(a|a){1,20}$")), r"repeats a group"),
    "--tokenization: Split (a+)+$": Attack(
        "", lambda folder: users_tokenizer(folder, pre_tokenizer=split_on("(a+)+$")), r"repeats a group"),
}


def test_a_timeout_while_tokenising_names_the_file_the_tokenizer_came_from(tiny_checkpoint, monkeypatch):
    from model_core.io.importers import open_model

    bundle = open_model(tiny_checkpoint, ImportOptions(), device="cpu")
    release = threading.Event()

    class Slow:  # a tokenizer whose rules take longer than the bound on this text
        def encode_batch(self, texts, add_special_tokens=False):
            release.wait(30)
            return []

    monkeypatch.setattr(budgets, "TOKENIZE_SECONDS", 0.3)
    bundle.src_tokenizer.backend = Slow()
    try:
        with pytest.raises(TokenizeTimeout, match=rf"^tokenizing the text with {tiny_checkpoint.name}'s source tokenizer "
                                                  r"took more than 0\.3 s"):
            bundle.src_tokenizer.encode("w1 w2")
    finally:
        release.set()
