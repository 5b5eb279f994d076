"""Vocabulary objects pickled inside a ``.pt``, read as data: their class names and state, never their code.

Training scripts save their vocabularies with the weights: torchtext's ``Vocab`` (the legacy one with
``itos``/``stoi``, and the newer ``torch.nn.Module`` wrapping a ``VocabPybind``), OpenNMT-py 2's fields
(``TextMultiField`` → ``Field`` → ``Vocab``), fairseq's ``Dictionary``. Unpickling them the ordinary way imports
those libraries and runs their ``__reduce__``/``__setstate__``: code chosen by the file. Here each known class
name maps (``torch.serialization.safe_globals``' ``(object, "module.name")`` form, so torch's weights-only
unpickler is still the one reading) to a :class:`Recorded` stand-in that only keeps the class name, the
arguments and the state the file gives it. Nothing is imported by name from the file and no function of it
runs; a class not listed here stays refused by torch's unpickler, and the refusal names it.

:func:`tokens_of` then reads a token list (id order) out of what was recorded, and :func:`saved_vocabularies`
finds the source and target vocabularies among what a checkpoint saved beside its weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .safe_data import RefusedData


class Recorded:
    """An object of a known class as the file describes it: ``qualified_name``, the ``args`` it was created with,
    the ``state`` it was given. The class's own code never runs (this is not that class)."""

    qualified_name = "?"

    def __new__(cls, *args: Any, **kwargs: Any) -> Recorded:
        obj = super().__new__(cls)
        obj.args, obj.state = args, None
        return obj

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Called when the file asks for the class to be called (pickle's REDUCE): the arguments are kept, nothing runs."""
        self.args = args

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def attribute(self, name: str) -> Any:
        """An attribute of the recorded object (its ``__dict__`` state), or None."""
        state = self.state[0] if isinstance(self.state, tuple) and len(self.state) == 2 and isinstance(self.state[0], dict) else self.state
        return state.get(name) if isinstance(state, dict) else None

    def __repr__(self) -> str:
        return f"<recorded {self.qualified_name}>"


class RecordedFunction(Recorded):
    """A function the file names (``functools.partial``'s target, a ``defaultdict`` factory): kept as its name."""


class Refused:
    """A class read by name only to refuse it with the reason (nothing of it is ever created)."""

    reason = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> Refused:
        raise RefusedData(cls.reason)

    def __setstate__(self, state: Any) -> None:  # never reached: __new__ refuses
        raise RefusedData(self.reason)


#: torchtext's legacy vocabulary (torchtext < 0.12; ``torchtext.legacy`` in 0.9-0.11): ``itos``, ``stoi``, ``freqs``
LEGACY_TORCHTEXT_VOCABS = ("torchtext.vocab.Vocab", "torchtext.legacy.vocab.Vocab")
#: torchtext ≥ 0.10's ``Vocab`` module and the C++ ``VocabPybind`` it wraps (state: version, ints, ``itos``, tensors)
TORCHTEXT_MODULE_VOCABS = ("torchtext.vocab.vocab.Vocab",)
TORCHTEXT_PYBIND_VOCABS = ("torchtext._torchtext.Vocab",)
#: fairseq's ``Dictionary`` (``symbols`` in id order)
FAIRSEQ_DICTIONARIES = ("fairseq.data.dictionary.Dictionary",)
#: OpenNMT-py 2's fields: ``TextMultiField.fields`` = [(name, Field)], ``Field.vocab`` a legacy torchtext Vocab
ONMT_MULTIFIELDS = ("onmt.inputters.text_dataset.TextMultiField",)
TORCHTEXT_FIELDS = ("torchtext.data.field.Field", "torchtext.legacy.data.field.Field", "torchtext.data.field.RawField",
                    "torchtext.legacy.data.field.RawField", "torchtext.data.field.LabelField",
                    "torchtext.legacy.data.field.LabelField")
#: what those objects hold besides tokens: OpenNMT-py's ``Field.tokenize`` is ``functools.partial(_feature_tokenize, …)``
HELPER_CLASSES = ("functools.partial",)
HELPER_FUNCTIONS = ("onmt.inputters.text_dataset._feature_tokenize", "torchtext.vocab._default_unk_index",
                    "torchtext.legacy.vocab._default_unk_index", "torchtext.vocab.vocab._default_unk_index")

#: classes refused with a reason more useful than "would run code"
REFUSED: dict[str, str] = {
    "omegaconf.dictconfig.DictConfig": "an omegaconf DictConfig (fairseq's configuration saved as an object, which only "
                                       "omegaconf's own code can rebuild); re-save it with fairseq ≥ 0.12, which stores it "
                                       "as plain data (OmegaConf.to_container)",
    "omegaconf.listconfig.ListConfig": "an omegaconf ListConfig (configuration saved as an object, which only omegaconf's "
                                       "own code can rebuild); re-save it as plain data (OmegaConf.to_container)",
}

KNOWN_CLASSES = (*LEGACY_TORCHTEXT_VOCABS, *TORCHTEXT_MODULE_VOCABS, *TORCHTEXT_PYBIND_VOCABS, *FAIRSEQ_DICTIONARIES,
                 *ONMT_MULTIFIELDS, *TORCHTEXT_FIELDS, *HELPER_CLASSES)


def _stand_in(name: str, base: type) -> type:
    return type(name.rsplit(".", 1)[1], (base,), {"qualified_name": name, "__module__": __name__})


_STAND_INS: dict[str, Any] = {name: _stand_in(name, Recorded) for name in KNOWN_CLASSES}
_STAND_INS.update({name: _stand_in(name, RecordedFunction)() for name in HELPER_FUNCTIONS})
_STAND_INS.update({name: type(name.rsplit(".", 1)[1], (Refused,), {"reason": why, "__module__": __name__})
                   for name, why in REFUSED.items()})


def allowlist() -> list[tuple[Any, str]]:
    """The ``safe_globals`` entries: each known name and the stand-in that records (or refuses) it."""
    return [(stand_in, name) for name, stand_in in _STAND_INS.items()]


def is_a(obj: Any, names: tuple[str, ...]) -> bool:
    return isinstance(obj, Recorded) and obj.qualified_name in names


def _token_list(value: Any) -> list[str] | None:
    if isinstance(value, (list, tuple)) and value and all(isinstance(t, str) for t in value):
        return list(value)
    return None


def _from_token_ids(mapping: Mapping) -> list[str] | None:
    """A ``{token: id}`` dict whose ids are exactly 0..N-1, as a token list."""
    if not mapping or not all(isinstance(k, str) for k in mapping):
        return None
    ids = list(mapping.values())
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids) or sorted(ids) != list(range(len(ids))):
        return None
    return [t for t, _ in sorted(mapping.items(), key=lambda kv: kv[1])]


#: how many objects deep a vocabulary may sit (OpenNMT-py 2: TextMultiField → Field → Vocab); a file's object that
#: contains itself (pickle's memo allows it) ends here instead of recursing without end
MAX_NESTING = 4


def tokens_of(obj: Any, depth: int = 0) -> list[str] | None:
    """The tokens, in id order, of a vocabulary the file saved: a token list, a ``{token: id}`` dict, or a recorded
    torchtext ``Vocab`` (either kind), OpenNMT-py field or fairseq ``Dictionary``; None when ``obj`` is none of these."""
    if depth > MAX_NESTING:
        return None
    if isinstance(obj, Recorded):
        if is_a(obj, LEGACY_TORCHTEXT_VOCABS):
            return _token_list(obj.attribute("itos"))
        if is_a(obj, FAIRSEQ_DICTIONARIES):
            return _token_list(obj.attribute("symbols"))
        if is_a(obj, TORCHTEXT_MODULE_VOCABS):
            return tokens_of(obj.attribute("vocab"), depth + 1)
        if is_a(obj, TORCHTEXT_PYBIND_VOCABS):  # VocabPybind's pickled state: (version, [default index], itos, [])
            state = obj.state
            if isinstance(state, tuple) and len(state) == 4:
                return _token_list(state[2])
            return None
        if is_a(obj, ONMT_MULTIFIELDS):  # fields = [(base name, base Field), (feature name, Field)…]: the base's
            fields = obj.attribute("fields")
            if isinstance(fields, (list, tuple)) and fields and isinstance(fields[0], (list, tuple)) and len(fields[0]) == 2:
                return tokens_of(fields[0][1], depth + 1)
            return None
        if is_a(obj, TORCHTEXT_FIELDS):
            return tokens_of(obj.attribute("vocab"), depth + 1)
        return None
    if isinstance(obj, Mapping):
        return _from_token_ids(obj)
    return _token_list(obj)


#: where checkpoints keep their vocabularies: (container key or None, source key, target key)
_PLACES = ((None, "src_vocab", "tgt_vocab"), ("vocab", "src", "tgt"), ("vocabs", "src", "tgt"), (None, "src_dict", "tgt_dict"),
           ("fields", "src", "tgt"), (None, "SRC", "TRG"), (None, "src_field", "tgt_field"))


def saved_vocabularies(rest: Mapping[str, Any]) -> dict[str, list[str]]:
    """``{"src_vocab": tokens, "tgt_vocab": tokens}`` for the vocabularies a checkpoint saved beside its weights (either
    may be missing): plain lists or dicts, or the recorded objects above, under the names training scripts use."""
    found: dict[str, list[str]] = {}
    for container, src_key, tgt_key in _PLACES:
        scope = rest.get(container) if container else rest
        if not isinstance(scope, Mapping):
            continue
        for key, side in ((src_key, "src_vocab"), (tgt_key, "tgt_vocab")):
            if side not in found and key in scope:
                tokens = tokens_of(scope[key])
                if tokens is not None:
                    found[side] = tokens
    return found
