"""Vocabulary objects inside a ``.pt`` are read as data (model_core/io/importers/vocab_pickle.py).

torchtext, OpenNMT-py 2 and fairseq do not install beside this torch (torchtext's compiled extension is built
for one torch release; fairseq does not build on Python 3.11), so each pickle is written here by a class
defined under the exact module and name the real one has, with the real class's attributes and pickling
(``__getstate__``, pybind11's state tuple), copied from their published code: the bytes are what the real
class writes. While the file is read those classes are importable, and they would leave a marker if any of
their code ran: none may.
"""

from __future__ import annotations

import functools
import sys
import types
from collections import Counter, defaultdict
from contextlib import contextmanager

import pytest
import torch
from test_import_tutorials import SeedTransformer
from torch import nn

from model_core.io.importers import CheckpointError, open_model
from model_core.io.importers.common import load_pickle_safely
from model_core.io.importers.vocab_pickle import Recorded, saved_vocabularies, tokens_of

SRC = ["<unk>", "<pad>", "<bos>", "<eos>"] + [f"s{i}" for i in range(26)]
TGT = ["<unk>", "<pad>", "<bos>", "<eos>"] + [f"t{i}" for i in range(36)]
RAN: list[str] = []  # what the foreign classes' own code did while the file was read (must stay empty)


@pytest.fixture(autouse=True)
def _nothing_ran():
    RAN.clear()
    yield
    assert RAN == [], f"code of the file's classes ran: {RAN}"


@contextmanager
def foreign_modules(*names: str):
    """Empty modules under these dotted names (and their parents), removed afterwards; yields them by name."""
    added = []
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            dotted = ".".join(parts[:i])
            if dotted not in sys.modules:
                sys.modules[dotted] = types.ModuleType(dotted)
                added.append(dotted)
    try:
        yield {name: sys.modules[name] for name in names}
    finally:
        for dotted in added:
            del sys.modules[dotted]


def place(module: types.ModuleType, obj):
    """Put a class or function into ``module`` under its own name, as pickle looks it up."""
    obj.__module__, obj.__qualname__ = module.__name__, obj.__name__
    setattr(module, obj.__name__, obj)
    return obj


def _ran(what: str):
    def method(self, *args, **kwargs):
        RAN.append(what)
    return method


# --------------------------------------------------------------------------- the classes, as their projects write them
def legacy_torchtext_vocab_class():
    """torchtext < 0.12's ``torchtext.vocab.Vocab``: ``itos``, ``stoi`` (a defaultdict), ``freqs``; its ``__getstate__``
    casts ``stoi`` to a dict (torchtext/vocab.py)."""

    class Vocab:
        def __init__(self, counter, specials):
            self.freqs = counter
            self.itos = list(specials) + sorted(counter, key=lambda w: (-counter[w], w))
            self.unk_index = self.itos.index("<unk>")
            self.stoi = defaultdict(int)
            self.stoi.update({tok: i for i, tok in enumerate(self.itos)})
            self.vectors = None

        def __getstate__(self):
            attrs = dict(self.__dict__)
            attrs["stoi"] = dict(self.stoi)
            return attrs

        __setstate__ = _ran("torchtext Vocab.__setstate__")

    return Vocab


def counter_for(tokens):
    return Counter({tok: 100 - i for i, tok in enumerate(tokens[4:])})


@pytest.fixture
def checkpoint(tmp_path):
    torch.manual_seed(2)
    return {"model": SeedTransformer().eval().state_dict(), "config": {"n_heads": 4, "norm_position": "pre"}}


def _load(path):
    return load_pickle_safely(path)


def test_a_legacy_torchtext_vocab_is_read_as_its_tokens(checkpoint, tmp_path):
    path = tmp_path / "legacy.pt"
    with foreign_modules("torchtext.vocab") as mods:
        vocab = place(mods["torchtext.vocab"], legacy_torchtext_vocab_class())
        checkpoint["src_vocab"] = vocab(counter_for(SRC), SRC[:4])
        checkpoint["tgt_vocab"] = vocab(counter_for(TGT), TGT[:4])
        torch.save(checkpoint, path)
        loaded = _load(path)  # while the real-named class is importable: it is still not used
    assert isinstance(loaded["src_vocab"], Recorded) and loaded["src_vocab"].qualified_name == "torchtext.vocab.Vocab"
    assert tokens_of(loaded["src_vocab"]) == SRC
    bundle = open_model(path, device="cpu")  # no vocabulary asked: both came from the file
    assert bundle.src_tokenizer.vocab == SRC and bundle.tgt_tokenizer.vocab == TGT
    assert (bundle.config.pad_id, bundle.config.bos_id, bundle.config.eos_id, bundle.config.unk_id) == (1, 2, 3, 0)


def test_the_newer_torchtext_vocab_module_wrapping_vocab_pybind_is_read(checkpoint, tmp_path):
    """torchtext ≥ 0.10: ``torchtext.vocab.vocab.Vocab(nn.Module)`` holding ``torchtext._torchtext.Vocab``, whose pybind11
    pickling state is ``(version, [default index], itos, [])`` (torchtext/csrc/vocab.cpp ``_serialize_vocab``)."""
    path = tmp_path / "new.pt"
    with foreign_modules("torchtext.vocab.vocab", "torchtext._torchtext") as mods:
        class Vocab:  # VocabPybind
            def __init__(self, itos, default_index):
                self.itos, self.default_index = itos, default_index

            def __getstate__(self):
                return ("0.0.2", [self.default_index], list(self.itos), [])

            __setstate__ = _ran("VocabPybind.__setstate__")
        pybind = place(mods["torchtext._torchtext"], Vocab)

        class Vocab(nn.Module):  # the module wrapping it has the same name
            def __init__(self, vocab):
                super().__init__()
                self.vocab = vocab

            __setstate__ = _ran("torchtext.vocab.vocab.Vocab.__setstate__")
        module_vocab = place(mods["torchtext.vocab.vocab"], Vocab)
        checkpoint["vocab"] = {"src": module_vocab(pybind(SRC, 0)), "tgt": module_vocab(pybind(TGT, 0))}
        torch.save(checkpoint, path)
        loaded = _load(path)
    assert loaded["vocab"]["src"].qualified_name == "torchtext.vocab.vocab.Vocab"
    assert saved_vocabularies(loaded) == {"src_vocab": SRC, "tgt_vocab": TGT}
    assert open_model(path, device="cpu").tgt_tokenizer.vocab == TGT


def test_opennmt_py_2_fields_are_read_as_their_base_vocabulary(checkpoint, tmp_path):
    """OpenNMT-py 2.x saved ``vocab = {"src": TextMultiField, "tgt": TextMultiField}``; each ``fields[0][1]`` is a
    torchtext ``Field`` whose ``tokenize`` is ``functools.partial(_feature_tokenize, …)`` and ``vocab`` a legacy Vocab
    (the layout OpenNMT-py's own convertv2_v3.py reads: ``vocab["src"].fields[0][1].vocab.itos``)."""
    path = tmp_path / "onmt2.pt"
    with foreign_modules("torchtext.vocab", "torchtext.data.field", "onmt.inputters.text_dataset") as mods:
        vocab = place(mods["torchtext.vocab"], legacy_torchtext_vocab_class())

        def _feature_tokenize(string, layer=0, tok_delim=None, feat_delim=None, truncate=None):
            RAN.append("_feature_tokenize")
            return string.split(tok_delim)
        place(mods["onmt.inputters.text_dataset"], _feature_tokenize)

        class Field:  # torchtext 0.5's data.Field, pickled by its __getstate__ (dtype as a string)
            def __init__(self, tokens, init_token, eos_token):
                self.sequential, self.use_vocab, self.init_token, self.eos_token = True, True, init_token, eos_token
                self.unk_token, self.pad_token, self.lower, self.include_lengths = "<unk>", "<blank>", False, True
                self.tokenize = functools.partial(_feature_tokenize, layer=0, feat_delim=None, truncate=None)
                self.tokenizer_args = (self.tokenize, "en")
                self.dtype = torch.int64
                self.vocab = vocab(counter_for(tokens), tokens[:4])

            def __getstate__(self):
                attrs = {k: v for k, v in self.__dict__.items() if k not in ("dtype", "tokenize")}
                attrs["dtype"], attrs["tokenize"] = "torch.int64", self.tokenize
                return attrs

            __setstate__ = _ran("Field.__setstate__")
        field = place(mods["torchtext.data.field"], Field)

        class TextMultiField:
            def __init__(self, base_name, base_field):
                self.fields = [(base_name, base_field)]

            __setstate__ = _ran("TextMultiField.__setstate__")
        multi = place(mods["onmt.inputters.text_dataset"], TextMultiField)
        checkpoint["vocab"] = {"src": multi("src", field(SRC, None, None)), "tgt": multi("tgt", field(TGT, "<s>", "</s>"))}
        torch.save(checkpoint, path)
        loaded = _load(path)
    assert saved_vocabularies(loaded) == {"src_vocab": SRC, "tgt_vocab": TGT}
    tokenize = loaded["vocab"]["src"].attribute("fields")[0][1].attribute("tokenize")
    assert tokenize.qualified_name == "functools.partial" and tokenize.args[0].qualified_name.endswith("_feature_tokenize")


def test_a_fairseq_dictionary_object_is_read_as_its_symbols(checkpoint, tmp_path):
    path = tmp_path / "fairseq.pt"
    with foreign_modules("fairseq.data.dictionary") as mods:
        class Dictionary:  # fairseq/data/dictionary.py: symbols, count, indices, the special indices
            def __init__(self, words):
                self.bos_word, self.unk_word, self.pad_word, self.eos_word = "<s>", "<unk>", "<pad>", "</s>"
                self.symbols = ["<s>", "<pad>", "</s>", "<unk>", *words]
                self.count = [1] * len(self.symbols)
                self.indices = {s: i for i, s in enumerate(self.symbols)}
                self.bos_index, self.pad_index, self.eos_index, self.unk_index = 0, 1, 2, 3
                self.nspecial = 4

            __setstate__ = _ran("Dictionary.__setstate__")
        dictionary = place(mods["fairseq.data.dictionary"], Dictionary)
        checkpoint["src_dict"], checkpoint["tgt_dict"] = dictionary(SRC[4:]), dictionary(TGT[4:])
        torch.save(checkpoint, path)
        loaded = _load(path)
    assert saved_vocabularies(loaded)["tgt_vocab"] == ["<s>", "<pad>", "</s>", "<unk>", *TGT[4:]]


def test_plain_token_to_id_dicts_are_vocabularies_too():
    assert tokens_of({"b": 1, "a": 0, "c": 2}) == ["a", "b", "c"]
    assert tokens_of({"a": 0, "b": 2}) is None  # ids not 0..N-1: not a vocabulary
    assert saved_vocabularies({"vocab": {"src": ["x", "y"], "tgt": ["z"], "data_task": "seq2seq"}}) == {
        "src_vocab": ["x", "y"], "tgt_vocab": ["z"]}


def test_a_vocabulary_class_with_a_malicious_reduce_runs_nothing(checkpoint, tmp_path):
    """A class under torchtext's name whose ``__reduce__`` asks for ``builtins.open`` / ``os.system``: refused by name,
    and the marker file those calls would create never appears."""
    marker = tmp_path / "PWNED"
    for target, args in ((open, (str(marker), "w")), (__import__("os").system, (f"touch {marker}",))):
        path = tmp_path / "evil.pt"
        with foreign_modules("torchtext.vocab") as mods:
            class Vocab:
                def __reduce__(self, target=target, args=args):
                    return (target, args)
            checkpoint["src_vocab"] = place(mods["torchtext.vocab"], Vocab)()
            torch.save(checkpoint, path)
            with pytest.raises(CheckpointError) as info:
                open_model(path, device="cpu")
        text = str(info.value)
        assert "refused" in text and "\n" not in text and ("open" in text or "system" in text)
        assert not marker.exists()


def test_a_known_name_used_as_a_function_only_records_the_call(checkpoint, tmp_path):
    """``functools.partial`` is read by name, but calling it here only records: the partial of ``builtins.eval`` would
    need ``builtins.eval``, which stays refused."""
    path = tmp_path / "partial.pt"
    checkpoint["hook"] = functools.partial(eval, "__import__('os').system('touch PWNED')")
    torch.save(checkpoint, path)
    with pytest.raises(CheckpointError, match=r"refused .*builtins\.eval|refused .*eval"):
        open_model(path, device="cpu")


def test_an_unknown_class_is_still_refused_by_name_with_what_would_make_it_loadable(checkpoint, tmp_path):
    path = tmp_path / "spacy.pt"
    with foreign_modules("spacy.vocab") as mods:
        class Vocab:
            __setstate__ = _ran("spacy Vocab.__setstate__")
        checkpoint["src_vocab"] = place(mods["spacy.vocab"], Vocab)()
        torch.save(checkpoint, path)
        with pytest.raises(CheckpointError) as info:
            open_model(path, device="cpu")
    text = str(info.value)
    assert "spacy.vocab.Vocab" in text and "save a state_dict or plain data" in text and "\n" not in text


def test_a_field_that_contains_itself_ends_in_a_question_not_a_recursion(checkpoint, tmp_path):
    """pickle's memo lets an object hold itself: a Field whose vocab is the Field is no vocabulary (asked for), in one line."""
    path = tmp_path / "loop.pt"
    with foreign_modules("torchtext.data.field") as mods:
        class Field:
            __setstate__ = _ran("Field.__setstate__")
        looped = place(mods["torchtext.data.field"], Field)()
        looped.vocab = looped
        checkpoint["vocab"] = {"src": looped, "tgt": looped}
        torch.save(checkpoint, path)
    assert saved_vocabularies(_load(path)) == {}
    with pytest.raises(CheckpointError, match="source vocabulary file"):
        open_model(path, device="cpu")
