"""Every file a tokenizer reads is bounded: the decoder and post-processor as the normalizers are, added tokens by
their characters, vocabulary files counted while read, paths inside ``tokenizer_config.json`` held to the folder, and
decoding run in the bounded child. Each hostile input is rebuilt from a small folder, as the attack built it, and
must be refused in one line (or opened) within the 10 s and 3 GB of :func:`refused`."""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

from model_core import budgets
from model_core.io.importers import ImportOptions, open_model
from model_core.text.tokenize_worker import TokenizeWorker
from model_core.text.tokenizer_check import check_tokenizer
from model_core.text.vocab_counts import count_json_keys, count_lines, count_sentencepiece_pieces
from tests.core.test_hostile_files import Attack, bounded, refused
from tests.core.test_hostile_files import marian_folder as _marian_folder
from tests.core.test_hostile_tokenizers import fast_tokenizer_folder, users_tokenizer, word_level_json

pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]

def marian_folder(folder: Path) -> Path:
    """A tiny Marian saved by save_pretrained into ``folder`` (made if needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    return _marian_folder(folder)


DOUBLING_DOTS = {"type": "Replace", "pattern": {"String": "."}, "content": ".."}


def doubling_decoder(steps: int) -> dict[str, Any]:
    """The attack's decoder: ``steps`` chained Replace . → .. (each doubles every dot of a translation)."""
    return {"type": "Sequence", "decoders": [DOUBLING_DOTS] * steps}


# ----------------------------------------------------------------------------------------- decoders and post-processors
def test_a_decoder_that_doubles_the_translation_is_refused_from_its_description():
    check_tokenizer(word_level_json({"a": 0}, decoder=doubling_decoder(6)))  # 64 times: within the 100 allowed
    with pytest.raises(ValueError, match=r"^its decoder can make a translation 1,099,511,627,776 times longer, over the 100"):
        check_tokenizer(word_level_json({"a": 0}, decoder=doubling_decoder(40)))
    with pytest.raises(ValueError, match=r"its decoder \(Mystery\) is not a decoder this app knows"):
        check_tokenizer(word_level_json({"a": 0}, decoder={"type": "Mystery"}))
    honest = {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                                               {"type": "ByteFallback"}, {"type": "Fuse"},
                                               {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    check_tokenizer(word_level_json({"a": 0}, decoder=honest))  # what transformers writes for T5 and Llama


def test_a_post_processor_that_adds_or_repeats_tokens_is_refused():
    def template(single: list, ids: int = 1) -> dict[str, Any]:
        return {"type": "TemplateProcessing", "single": single, "pair": single,
                "special_tokens": {"</s>": {"id": "</s>", "ids": [0] * ids, "tokens": ["</s>"] * ids}}}

    eos = {"SpecialToken": {"id": "</s>", "type_id": 0}}
    text = {"Sequence": {"id": "A", "type_id": 0}}
    check_tokenizer(word_level_json({"a": 0}, post_processor=template([text, eos])))  # Marian's: the text, then </s>
    with pytest.raises(ValueError, match=r"its post_processor adds 100,000 tokens to a text, over the 4,096"):
        check_tokenizer(word_level_json({"a": 0}, post_processor=template([text, eos], ids=100_000)))
    with pytest.raises(ValueError, match=r"its post_processor repeats a text's tokens 500 times, over the 100"):
        check_tokenizer(word_level_json({"a": 0}, post_processor=template([text] * 500)))


def test_a_hugging_face_folder_whose_decoder_doubles_the_translation_is_refused_at_load(tmp_path):
    """It opened, then the first translation aborted the app (2.3 GB asked for in ``decode``, 92 lines of Rust)."""
    pytest.importorskip("transformers")
    refused(fast_tokenizer_folder(tmp_path, decoder=doubling_decoder(40)),
            match=r"^tiny-marian: tokenizer\.json: its decoder can make a translation .* times longer")


def test_a_users_tokenizer_whose_decoder_doubles_the_translation_is_refused(tmp_path):
    path, options = users_tokenizer(tmp_path, decoder=doubling_decoder(40))
    refused(path, options, match=r"tokenizer hostile\.json: its decoder can make a translation")


def test_decoding_with_a_tokenizer_from_a_file_runs_in_the_bounded_child():
    """A decoder the check would refuse, built unchecked: the child runs out of its memory, the app gets one line."""
    hostile = json.dumps(word_level_json({".": 0, "<unk>": 1}, decoder=doubling_decoder(40)))
    worker = TokenizeWorker(hostile, "hostile.json", memory=256 << 20)
    try:
        with bounded(), pytest.raises(ValueError, match=r"^decoding the translation with hostile\.json (needed more than its "
                                                        r"256 MB|took more than 3 s)"):  # whichever bound it meets first
            worker.join([".", "."], seconds=3)
        assert TokenizeWorker(json.dumps(word_level_json({".": 0}, decoder=doubling_decoder(3))), None).join(["."]) == "." * 8
    finally:
        worker.close()


def test_a_bpe_tokenizer_from_a_file_decodes_in_its_child_as_the_library_does():
    from tokenizers import decoders

    from model_core import Tokenizer

    tok = Tokenizer.train_bpe(["the black cat sees the small dog"] * 20, vocab_size=60, min_frequency=1)
    tok.backend.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.Strip(" ", 1, 0)])
    tok._own = None
    assert not tok.own_rules  # not one of the app's pipelines: decoded in the child
    ids = tok.encode("the black cat")
    tokens = [tok.id_to_token(i) for i in ids]
    try:
        assert tok.decode(ids) == tok.backend.decoder.decode(tokens)
        assert tok._worker is not None and tok._worker.running
    finally:
        tok.close()


# ----------------------------------------------------------------------------------------- added tokens and affixes
def long_added_tokens(count: int, length: int) -> list[dict[str, Any]]:
    return [{"id": 100 + i, "content": f"{i:08d}" + "x" * (length - 8), "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": True, "special": False} for i in range(count)]


def test_added_tokens_are_bounded_by_their_characters(tmp_path):
    """The attack: 140,000 added tokens of 430 characters (60 MB, within the file and token budgets) aborted the load
    in the library's added-token matcher at 3.7 GB. 2,100 tokens of 500 characters pass every other budget too."""
    added = long_added_tokens(2_100, 500)
    with pytest.raises(ValueError, match=r"added tokens of 1,050,000 characters together, over the 1,048,576"):
        check_tokenizer(word_level_json({"a": 0}, added_tokens=added))
    pytest.importorskip("transformers")
    (tmp_path / "hf").mkdir()
    refused(fast_tokenizer_folder(tmp_path / "hf", added_tokens=added),
            match=r"tokenizer\.json: added tokens of 1,050,000 characters together")
    (tmp_path / "user").mkdir()
    path, options = users_tokenizer(tmp_path / "user", added_tokens=added)
    refused(path, options, match=r"tokenizer hostile\.json: added tokens of 1,050,000 characters")


def test_added_tokens_listed_in_tokenizer_config_are_counted(tmp_path):
    pytest.importorskip("transformers")
    folder = marian_folder(tmp_path)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["additional_special_tokens"] = [token["content"] for token in long_added_tokens(2_100, 500)]
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    refused(folder, match=r"^tiny-marian: tokenizer_config\.json: added tokens of 1,050,014 characters together")  # </s> <unk> <pad>


def test_a_long_subword_prefix_is_refused():
    """A 20 MB WordPiece prefix made a 3-word export take 12 s."""
    model = {"type": "WordPiece", "unk_token": "<unk>", "vocab": {"<unk>": 0, "a": 1}, "continuing_subword_prefix": "#" * 5000}
    with pytest.raises(ValueError, match=r"its model \(WordPiece\) continuing_subword_prefix is 5,000 characters long, over the 100"):
        check_tokenizer(word_level_json({}, model=model))
    check_tokenizer(word_level_json({}, model={**model, "continuing_subword_prefix": "##"}))


# ----------------------------------------------------------------------------------------- vocabulary files counted while read
def spm_with_pieces(path: Path, pieces: int) -> Path:
    """A sentencepiece model's protocol buffer with ``pieces`` pieces (field 1, each a message with its text in field 1)."""
    def field(number: int, payload: bytes) -> bytes:
        return _varint(number << 3 | 2) + _varint(len(payload)) + payload

    piece = field(1, field(1, b"\xe2\x96\x81x"))
    path.write_bytes(piece * pieces)
    return path


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def test_the_counts_are_exact_on_honest_files(tmp_path):
    pytest.importorskip("sentencepiece")
    import sentencepiece

    folder = marian_folder(tmp_path)
    spm = sentencepiece.SentencePieceProcessor(model_file=str(folder / "source.spm"))
    assert count_sentencepiece_pieces(folder / "source.spm", "source.spm") == spm.get_piece_size()
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    assert count_json_keys(folder / "vocab.json", "vocab.json") == len(vocab)
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\nab c", encoding="utf-8")
    assert count_lines(tmp_path / "merges.txt", "merges.txt") == 3


@pytest.mark.parametrize(("name", "make", "match"), [
    ("merges.txt", lambda p: p.write_bytes(b"#version: 0.2\n" + b"a b\n" * 300_000), r"merges\.txt holds 300,001 lines, over the 262,144"),
    ("vocab.json", lambda p: p.write_text(json.dumps({f"t{i}": i for i in range(300_000)})), r"vocab\.json holds 300,000 entries"),
    ("source.spm", lambda p: spm_with_pieces(p, 300_000), r"source\.spm holds more than 262,144 pieces"),
])
def test_vocabulary_files_over_the_budget_are_refused_before_they_are_parsed(tmp_path, name, make, match):
    """FSMT's merges.txt of 10.5 M merges loaded in 14 s at 3.1 GB; a 4.2 M-piece source.spm took 9 s; a 3.3 M-entry
    vocab.json was refused only after parsing (8.8 s). Each is counted from its bytes now."""
    pytest.importorskip("transformers")
    folder = marian_folder(tmp_path)
    make(folder / name)
    refused(folder, match=rf"^tiny-marian: {match}")


def test_a_file_that_is_not_a_sentencepiece_model_is_refused(tmp_path):
    pytest.importorskip("transformers")
    folder = marian_folder(tmp_path)
    (folder / "source.spm").write_bytes(b"\x0a\xff\xff\xff\xff\x0f")
    refused(folder, match=r"^tiny-marian: source\.spm is not a sentencepiece model \(a field runs past its end\)")


# ----------------------------------------------------------------------------------------- a tokenizer that panics
def precompiled_folder(folder: Path) -> Path:
    """A fast tokenizer whose ``Precompiled`` normalizer holds a random 4 KB trie: the library panics on the first text
    (index out of bounds) and Rust printed three lines on the terminal before the app's line."""
    rng = random.Random(1)
    trie = bytes(rng.randrange(256) for _ in range(4096))
    charsmap = base64.b64encode(len(trie).to_bytes(4, "little") + trie + b"ab\0").decode()
    return fast_tokenizer_folder(folder, normalizer={"type": "Precompiled", "precompiled_charsmap": charsmap})


def test_a_tokenizer_that_panics_is_refused_in_one_line_and_prints_nothing(tmp_path, capfd):
    pytest.importorskip("transformers")
    message = refused(precompiled_folder(tmp_path), match=r"^tiny-marian: tokenizing the text with tokenizer\.json failed in the "
                                                          r"tokenizers library \(PanicException")
    assert len(message) <= 300
    captured = capfd.readouterr()
    assert "panicked" not in captured.err and "panicked" not in captured.out


# ----------------------------------------------------------------------------------------- paths inside tokenizer_config.json
def with_tokenizer_config(folder: Path, **changes: Any) -> Path:
    path = folder / "tokenizer_config.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), **changes}), encoding="utf-8")
    return folder


def opened(folder: Path) -> Any:
    with bounded(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return open_model(folder, ImportOptions(), device="cpu")


def notices_of(bundle: Any) -> list[dict[str, Any]]:
    return [n for n in bundle.metadata.get("notices") or () if n["code"] == "tokenizer_settings_ignored"]


def test_sentencepiece_never_reads_a_file_a_config_names(tmp_path):
    """``sp_model_kwargs: {"model_file": "/dev/zero"}`` read until memory ran out; a FIFO there blocked for good."""
    pytest.importorskip("transformers")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in ("/dev/zero", str(fifo)):
        folder = marian_folder(tmp_path / target.strip("/").replace("/", "_"))
        with_tokenizer_config(folder, sp_model_kwargs={"model_file": target})
        bundle = opened(folder)
        assert bundle.src_tokenizer.encode("the cat") == list(bundle.src_tokenizer.hf("the cat", add_special_tokens=False).input_ids)
        [notice] = notices_of(bundle)
        assert notice["params"] == {"file": "tokenizer_config.json", "settings": "sp_model_kwargs.model_file"}
        bundle.src_tokenizer.close()


def test_paths_in_tokenizer_config_outside_the_folder_are_ignored(tmp_path):
    pytest.importorskip("transformers")
    outside = tmp_path / "elsewhere.spm"
    outside.write_bytes(b"not a model")
    folder = marian_folder(tmp_path / "m")
    shutil.copy(folder / "source.spm", tmp_path / "copy.spm")
    with_tokenizer_config(folder, source_spm=str(outside), target_spm="/dev/zero", vocab_file="/nonexistent/vocab.json",
                          special_tokens_map_file=str(folder / "source.spm"))
    bundle = opened(folder)
    [notice] = notices_of(bundle)
    assert notice["params"]["settings"] == "source_spm, target_spm"  # the one that does not exist is dropped silently
    assert bundle.src_tokenizer.encode("the cat")
    bundle.src_tokenizer.close()


def test_sampling_is_turned_off_with_a_note(tmp_path):
    """With sampling on, Marian's tokenization was different on each call, silently."""
    pytest.importorskip("transformers")
    folder = with_tokenizer_config(marian_folder(tmp_path), sp_model_kwargs={"enable_sampling": True, "alpha": 0.9, "nbest_size": -1})
    bundle = opened(folder)
    text = "the small cat sees the black dog and the dog sees the cat"
    assert len({tuple(bundle.src_tokenizer.encode(text)) for _ in range(20)}) == 1
    [notice] = notices_of(bundle)
    assert notice["params"]["settings"] == "sp_model_kwargs.enable_sampling, sp_model_kwargs.alpha, sp_model_kwargs.nbest_size"
    bundle.src_tokenizer.close()


def test_an_unchanged_folder_has_no_note(tmp_path):
    pytest.importorskip("transformers")
    bundle = opened(marian_folder(tmp_path))
    assert notices_of(bundle) == []
    bundle.src_tokenizer.close()


def test_spm_counting_is_linear(tmp_path):
    """The walk reads field headers only: 300,000 pieces in one pass, stopping past the budget."""
    path = spm_with_pieces(tmp_path / "x.spm", 300_000)
    assert count_sentencepiece_pieces(path, "x.spm") == 300_000
    assert count_sentencepiece_pieces(path, "x.spm", stop_after=budgets.MAX_VOCAB) == budgets.MAX_VOCAB + 1


# ----------------------------------------------------------------------------------------- for benchmarks/bench_hostile.py
def _fresh(folder: Path, name: str) -> Path:
    (folder / name).mkdir()
    return folder / name


#: the round's tokenizer attacks at the size they were found (each within every file budget), for the benchmark
BOUNDED_TOKENIZER_ATTACKS: dict[str, Attack] = {
    "HF folder: decoder of 40 Replace . → ..": Attack(
        "opened; the first decode aborted the app (2.3 GB, 92 lines of Rust)",
        lambda folder: (fast_tokenizer_folder(_fresh(folder, "d"), decoder=doubling_decoder(40)), {}),
        r"its decoder can make a translation", ("transformers",)),
    "HF folder: 110,000 added tokens of 430 characters": Attack(
        "60 MB tokenizer.json: aborted at 3.7 GB in the added-token matcher",
        lambda folder: (fast_tokenizer_folder(_fresh(folder, "a"), added_tokens=long_added_tokens(110_000, 430)), {}),
        r"added tokens of 47,300,000 characters", ("transformers",)),
    "--tokenization: 110,000 added tokens of 430 characters": Attack(
        "aborted at 3.7 GB", lambda folder: users_tokenizer(_fresh(folder, "u"), added_tokens=long_added_tokens(110_000, 430)),
        r"added tokens of 47,300,000 characters"),
    "HF folder: merges.txt of 10.5 M merges": Attack(
        "63 MB: 14 s, 3.1 GB", lambda folder: (_with_file(marian_folder(_fresh(folder, "m")), "merges.txt",
                                                          b"#version: 0.2\n" + b"a b\n" * 10_500_000), {}),
        r"merges\.txt holds 10,500,001 lines", ("transformers",)),
    "HF folder: source.spm of 4.2 M pieces": Attack(
        "9 s, 1.35 GB", lambda folder: (_spm_folder(_fresh(folder, "s"), 4_200_000), {}),
        r"source\.spm holds more than 262,144 pieces", ("transformers",)),
}


def _with_file(folder: Path, name: str, data: bytes) -> Path:
    (folder / name).write_bytes(data)
    return folder


def _spm_folder(folder: Path, pieces: int) -> Path:
    target = marian_folder(folder)
    spm_with_pieces(target / "source.spm", pieces)
    return target


def test_a_tokenizer_converted_in_this_process_is_rehearsed_in_the_child_first(tmp_path, capfd):
    """Without a tokenizer.json, transformers converts a sentencepiece model here (its normalizer map included): the
    converted rules run in the child before this process tokenises anything with them."""
    pytest.importorskip("transformers")
    from types import SimpleNamespace

    from tokenizers import Tokenizer as Backend

    from model_core.files import CheckpointError
    from model_core.io.importers.hf import _check_loaded_tokenizer

    hostile = json.loads((precompiled_folder(tmp_path) / "tokenizer.json").read_text(encoding="utf-8"))
    converted = SimpleNamespace(backend_tokenizer=Backend.from_str(json.dumps(hostile)))  # built, never run here
    folder = tmp_path / "t5-like"
    folder.mkdir()
    with bounded(), pytest.raises(CheckpointError, match=r"^t5-like: tokenizing the text with the tokenizer converted from its "
                                                         r"sentencepiece model failed in the tokenizers library"):
        _check_loaded_tokenizer(folder, converted)
    assert "panicked" not in capfd.readouterr().err


def test_a_users_tokenizer_that_panics_is_refused_in_one_line_and_prints_nothing(tmp_path, capfd):
    """The same map given with ``--tokenization FILE.json``: built here (building runs nothing), run first in the child."""
    (tmp_path / "hf").mkdir()
    (tmp_path / "user").mkdir()
    charsmap = json.loads((precompiled_folder(tmp_path / "hf") / "tokenizer.json").read_text(encoding="utf-8"))["normalizer"]
    path, options = users_tokenizer(tmp_path / "user", normalizer=charsmap)
    short = refused(path, options, match=r"tokenizer hostile\.json: .*failed in the tokenizers library \(PanicException")
    assert len(short) <= 300
    assert "panicked" not in capfd.readouterr().err
