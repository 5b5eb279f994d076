"""The Trace: everything the model computed for one source/target pair, as host numpy arrays.

It is the one contract between the core and everything that shows attention (the app, the CLI,
notebooks): plain float32 arrays plus token strings, no tensors, no devices. A trace saves to and
loads from ``.npz`` with stable keys (see :data:`NPZ_KEYS`) and never needs pickle.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from .atomic import atomic_file
from .shared_types import KINDS

NPZ_KEYS = (
    "src_tokens", "tgt_tokens", "encoder_self", "decoder_self", "cross", "allowed_encoder_self",
    "allowed_decoder_self", "allowed_cross", "src_is_pad", "tgt_is_pad", "logprobs", "positional_encoding",
)


def ablated_head_rows(heads: Iterable[tuple[str, int, int]]) -> np.ndarray:
    """(kind, layer, head) triples as the [n, 3] int rows of ``Trace.ablated_heads`` (kind = index in KINDS)."""
    kinds = list(KINDS)
    return np.array([(kinds.index(k), layer, h) for k, layer, h in sorted(heads)], np.int64).reshape(-1, 3)


def _strings(tokens: list[str]) -> np.ndarray:
    return np.array(tokens, dtype=np.str_) if tokens else np.zeros(0, dtype="<U1")


@dataclass(frozen=True)
class StepArrays:
    """One analysis's result in a trace: named arrays, each saying which of its axes run over decoding steps.

    Why generic: the trace holds every analysis's result by name (:attr:`Trace.analyses`) without knowing the
    analyses (they are plug-ins, :mod:`model_core.interpret`), yet it must cut them to a step (:meth:`Trace.at_step`)
    and save and load them. So each result says, per array, which axes are step axes (the decoder's queries, and its
    keys for decoder self-attention); those are cut to the first ``t`` entries, the others kept whole. ``text``
    holds short strings (a method's name). The npz keys are the arrays' names, so they are chosen by the analysis.
    """

    arrays: dict[str, np.ndarray]
    step_axes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, key: str) -> np.ndarray:
        return self.arrays[key]

    def get(self, key: str) -> np.ndarray | None:
        return self.arrays.get(key)

    def at_step(self, t: int) -> StepArrays:
        """Each array cut to the first ``t`` entries along its step axes (views, no copies)."""
        cut: dict[str, np.ndarray] = {}
        for key, array in self.arrays.items():
            index: list[slice] = [slice(None)] * np.ndim(array)
            for axis in self.step_axes.get(key, ()):
                if axis < len(index):
                    index[axis] = slice(0, t)
            cut[key] = array[tuple(index)]
        return replace(self, arrays=cut)


#: the npz index of the analyses a trace holds: one "name key axes" line per array ("attribution attribution_tgt
#: 0,1"), one "name key =text" line per string
ANALYSIS_INDEX_KEY = "analysis_index"

#: files written before analyses were plug-ins carry no index: their arrays, by key, as (analysis, step axes),
#: ``None`` axes for a string. New analyses never need an entry here
_LEGACY_ANALYSIS_KEYS: dict[str, tuple[str, tuple[int, ...] | None]] = {
    "attribution_src": ("attribution", (0,)), "attribution_tgt": ("attribution", (0, 1)),
    "attribution_change": ("attribution", (0,)), "attribution_points": ("attribution", (0,)),
    "attribution_converged": ("attribution", (0,)), "attribution_method": ("attribution", None),
    "value_norms_encoder_self": ("contributions", ()), "value_norms_decoder_self": ("contributions", (2,)),
    "value_norms_cross": ("contributions", ()),
    "value_zeroing_encoder_self": ("value-zeroing", ()), "value_zeroing_decoder_self": ("value-zeroing", (1, 2)),
    "value_zeroing_cross": ("value-zeroing", (1,)),
}


def _index_lines(analyses: dict[str, StepArrays]) -> list[str]:
    lines = []
    for name, result in analyses.items():
        lines += [f"{name} {key} {','.join(str(a) for a in result.step_axes.get(key, ()))}" for key in result.arrays]
        lines += [f"{name} {key} ={value}" for key, value in result.text.items()]
    return lines


def _analyses_from(arrays: dict[str, np.ndarray]) -> dict[str, StepArrays]:
    """The analyses of a loaded npz: by its index, else by the keys older files used."""
    found: dict[str, tuple[dict[str, np.ndarray], dict[str, tuple[int, ...]], dict[str, str]]] = {}

    def slot(name: str) -> tuple[dict[str, np.ndarray], dict[str, tuple[int, ...]], dict[str, str]]:
        return found.setdefault(name, ({}, {}, {}))

    if ANALYSIS_INDEX_KEY in arrays:
        for line in (str(x) for x in np.asarray(arrays[ANALYSIS_INDEX_KEY]).reshape(-1).tolist()):
            parts = line.split(" ", 2)
            if len(parts) != 3:
                raise ValueError(f"damaged analysis index line {line[:80]!r}")
            name, key, rest = parts
            if rest.startswith("="):
                slot(name)[2][key] = rest[1:]
            elif key in arrays:
                slot(name)[0][key] = arrays[key]
                slot(name)[1][key] = tuple(int(a) for a in rest.split(",") if a)
    else:
        for key, (name, axes) in _LEGACY_ANALYSIS_KEYS.items():
            if key not in arrays:
                continue
            if axes is None:
                slot(name)[2][key] = str(arrays[key])
            else:
                slot(name)[0][key], slot(name)[1][key] = arrays[key], axes
    return {name: StepArrays(a, axes, text) for name, (a, axes, text) in found.items() if a or text}


@dataclass
class Trace:
    """Attention and predictions of one decoding, rows in decoding order.

    Shapes: ``encoder_self`` [L_enc, H, S, S], ``decoder_self`` [L_dec, H, T, T],
    ``cross`` [L_dec, H, T, S], ``logprobs`` [T, V]: row ``t`` is the distribution over the token
    that follows decoder input ``tgt_tokens[t]``. ``output_tokens[t]`` is the token chosen (or
    forced) there. Masks use True = may attend.
    """

    src_tokens: list[str]
    tgt_tokens: list[str]
    encoder_self: np.ndarray
    decoder_self: np.ndarray
    cross: np.ndarray
    allowed_encoder_self: np.ndarray
    allowed_decoder_self: np.ndarray
    allowed_cross: np.ndarray
    src_is_pad: np.ndarray
    tgt_is_pad: np.ndarray
    logprobs: np.ndarray
    positional_encoding: np.ndarray
    output_tokens: list[str] = field(default_factory=list)
    src_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    tgt_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    output_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    positional_kind: str = "sinusoidal"
    relative_bias: np.ndarray | None = None  # [H, 2·max_distance+1] when the model has one
    scores: dict[str, np.ndarray] = field(default_factory=dict)  # pre-softmax, on request
    #: heads switched off when this trace was computed, rows of (kind index in KINDS, layer, head): their
    #: weights are still in the maps (a class sees what was discarded) but they added nothing to the residual
    ablated_heads: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64))
    #: the results of the analyses asked for (:mod:`model_core.interpret`: attribution, contributions, value
    #: zeroing, ...) by name; each cuts itself to a step and names its own npz keys
    analyses: dict[str, StepArrays] = field(default_factory=dict)
    #: the typed text of each source token ("" for specials and padding; None when the tokenizer cannot say): what
    #: an ``<unk>`` chip shows
    src_surfaces: list[str] | None = None
    #: the same for a typed (teacher-forced) target, one per ``output_tokens`` entry ("" for ``<eos>``)
    tgt_surfaces: list[str] | None = None
    #: the floating-point type the model computed in ("float32", "bfloat16", "float16"); the maps are stored as
    #: float32 whatever it is, and the verifier's tolerance follows it (:data:`model_core.analysis.measures.VERIFY_ATOL`)
    precision: str = "float32"
    #: the model's own first choice (the argmax of ``logprobs``) at each row, as a token string: what a row shows
    #: beside a typed (teacher-forced) token the model would not have chosen; None when the maker did not record it
    first_choice_tokens: list[str] | None = None

    @property
    def n_src(self) -> int:
        return len(self.src_tokens)

    @property
    def n_steps(self) -> int:
        return len(self.tgt_tokens)

    def attention(self, kind: str) -> np.ndarray:
        if kind not in KINDS:
            raise ValueError(f"unknown attention kind {kind!r}")
        return getattr(self, kind)

    def allowed(self, kind: str) -> np.ndarray:
        return getattr(self, f"allowed_{kind}")

    def active_heads(self, kind: str) -> np.ndarray:
        """[layers, heads] booleans: False for a head that was switched off (ablated) in this trace."""
        stack = self.attention(kind)
        active = np.ones(stack.shape[:2], dtype=bool)
        index = list(KINDS).index(kind)
        for k, layer, head in np.asarray(self.ablated_heads, np.int64).reshape(-1, 3):
            if k == index and 0 <= layer < active.shape[0] and 0 <= head < active.shape[1]:
                active[layer, head] = False
        return active

    def output_ranks(self) -> np.ndarray:
        """[T] ints: the rank of each row's output token in that row's distribution (1 = the model's first choice).

        Why here: under teacher forcing the typed words are the lesson ("the model gave *chat* rank 1, *noir*
        rank 3"), and every row's distribution is already in ``logprobs``, so one pass gives every step at once.
        Ties are broken by token id, the order the next-token panel lists its bars in; a NaN counts as the
        lowest value. A row that predicts nothing (target padding) or has no output id is 0.
        """
        ranks = np.zeros(self.n_steps, np.int64)
        n = min(self.n_steps, len(self.output_ids), len(self.logprobs))
        if n == 0 or np.ndim(self.logprobs) != 2:
            return ranks
        lp = np.nan_to_num(np.asarray(self.logprobs[:n], np.float64), nan=-np.inf)
        ids = np.asarray(self.output_ids[:n], np.int64)
        valid = (ids >= 0) & (ids < lp.shape[1])
        chosen = lp[np.arange(n), np.clip(ids, 0, lp.shape[1] - 1)][:, None]
        earlier = np.arange(lp.shape[1])[None, :] < ids[:, None]  # a tie goes to the smaller id
        ranked = 1 + np.count_nonzero(lp > chosen, axis=1) + np.count_nonzero((lp == chosen) & earlier, axis=1)
        padded = np.zeros(n, bool)
        padded[: min(n, len(self.tgt_is_pad))] = np.asarray(self.tgt_is_pad[:n], bool)
        ranks[:n] = np.where(valid & ~padded, ranked, 0)
        return ranks

    def at_step(self, t: int) -> Trace:
        """The trace as it stood after ``t`` decoding steps (views, no copies)."""
        t = max(0, min(t, self.n_steps))
        return replace(
            self, tgt_tokens=self.tgt_tokens[:t], output_tokens=self.output_tokens[:t],
            decoder_self=self.decoder_self[:, :, :t, :t], cross=self.cross[:, :, :t],
            allowed_decoder_self=self.allowed_decoder_self[:t, :t], allowed_cross=self.allowed_cross[:t],
            tgt_is_pad=self.tgt_is_pad[:t], logprobs=self.logprobs[:t], tgt_ids=self.tgt_ids[:t],
            output_ids=self.output_ids[:t], tgt_surfaces=None if self.tgt_surfaces is None else self.tgt_surfaces[:t],
            first_choice_tokens=None if self.first_choice_tokens is None else self.first_choice_tokens[:t],
            analyses={name: result.at_step(t) for name, result in self.analyses.items()},
            scores={k: (v if k == "encoder_self" else v[:, :, :t, : (t if k == "decoder_self" else v.shape[-1])])
                    for k, v in self.scores.items()},
        )

    def show(self, **options: object) -> object:
        """This trace as Attention Scope's interactive page, drawn inline by Jupyter, JupyterLab and VS Code (plain
        HTML, no widget extension; ``widget=True`` with anywidget installed); ``.save(path)`` writes it as a file.
        Options: :class:`model_core.share.html_view.ViewOptions` (``language="zh_CN"``, ``kinds``, ``layers``,
        ``vocabulary=bundle.tgt_tokenizer.vocab`` for the next-token bars' words, ``forced=result.forced``, ...).
        A facade of :func:`model_core.show`: the page draws the analyses, which stand above the trace, so the package's
        lazy name is looked up when called (``import model_core`` here would read, to the import contracts, as the
        trace importing every layer the package names)."""
        import importlib

        return importlib.import_module("model_core").show(self, **options)

    # ------------------------------------------------------------------ npz
    def to_arrays(self) -> dict[str, np.ndarray]:
        arrays: dict[str, np.ndarray] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "scores":
                for kind, arr in value.items():
                    arrays[f"{f.name}_{kind}"] = arr
            elif f.name == "analyses":
                for result in value.values():  # under the keys the analysis chose, readable without this module
                    arrays.update(result.arrays)
                    arrays.update({key: np.array(text) for key, text in result.text.items()})
                if value:
                    arrays[ANALYSIS_INDEX_KEY] = _strings(_index_lines(value))
            elif value is None:  # an optional field left out (np.savez would pickle None as an object array, which
                continue         # np.load refuses with its default allow_pickle=False)
            elif isinstance(value, list):
                arrays[f.name] = _strings(value)
            elif isinstance(value, str):
                arrays[f.name] = np.array(value)
            else:
                arrays[f.name] = value
        return arrays

    def save(self, path: str | os.PathLike) -> Path:
        """Write ``.npz`` atomically, replacing ``path`` (:func:`save_trace`: an exclusive temporary file, no symlink
        followed, nothing left on an error)."""
        return save_trace(self, path, overwrite=True)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Trace:
        """A trace from ``.npz``; anything that is not one whole (a damaged or hostile file, a shape that claims more
        than the file holds) is one ``ValueError`` line naming the file, raised before any array is allocated."""
        arrays = _read_npz(path)
        missing = [k for k in NPZ_KEYS if k not in arrays]
        if missing:
            raise ValueError(f"{path}: not an attention trace (missing {', '.join(missing)})")
        kwargs: dict[str, object] = {}
        for f in fields(cls):
            if f.name == "scores":
                kwargs["scores"] = {k[7:]: v for k, v in arrays.items() if k.startswith("scores_")}
            elif f.name == "analyses":
                kwargs["analyses"] = _analyses_from(arrays)
            elif f.name in arrays:
                value = arrays[f.name]
                if f.name.endswith("tokens") or f.name.endswith("_surfaces"):
                    value = [str(s) for s in value.tolist()]
                elif f.name in ("positional_kind", "precision"):
                    value = str(value)
                kwargs[f.name] = value
        return cls(**kwargs)  # type: ignore[arg-type]


def _read_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every array of a trace file, each ``.npy`` header checked against the bytes its member holds before it is read."""
    import math
    import stat
    import zipfile

    from numpy.lib import format as npy

    from .budgets import MAX_CHECKPOINT_BYTES
    from .files import CheckpointError, open_regular

    name = Path(path).name
    try:
        with open_regular(path, MAX_CHECKPOINT_BYTES, name, "it") as (fh, _size), zipfile.ZipFile(fh) as archive:
            members = archive.infolist()
            if sum(m.file_size for m in members) > MAX_CHECKPOINT_BYTES:
                raise ValueError("its arrays claim more than 4 GiB together")
            arrays: dict[str, np.ndarray] = {}
            for member in members:
                if stat.S_ISLNK(member.external_attr >> 16) or not member.filename.endswith(".npy"):
                    raise ValueError(f"{member.filename[:60]!r} is not an array")
                with archive.open(member) as raw:
                    header = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}.get(npy.read_magic(raw))
                    if header is None:
                        raise ValueError(f"{member.filename[:60]} is an array of a format this app does not read")
                    shape, _order, dtype = header(raw)
                    if dtype.hasobject:
                        raise ValueError(f"{member.filename[:60]} holds Python objects")
                    if math.prod(shape) * dtype.itemsize > member.file_size:
                        raise ValueError(f"{member.filename[:60]} declares a shape {tuple(shape)} larger than what it holds")
                arrays[member.filename[:-4]] = npy.read_array(archive.open(member), allow_pickle=False)
            return arrays
    except CheckpointError as exc:  # not a regular file, or over the budget: its line names the file already
        raise ValueError(str(exc)) from exc
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, MemoryError, OverflowError, TypeError, KeyError) as exc:
        detail = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise ValueError(f"{name}: not a readable attention trace ({detail})") from exc


def save_trace(trace: Trace, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """The whole trace as ``.npz`` (the arrays of :meth:`Trace.to_arrays`, what :meth:`Trace.save` writes and
    :meth:`Trace.load` reads), by the rules of :mod:`model_core.atomic` (refused over an existing file unless
    ``overwrite``; an exclusive temporary file renamed into place, removed on any error)."""
    with atomic_file(path, overwrite=overwrite) as fh:
        np.savez_compressed(fh, **trace.to_arrays())
    return Path(path)
