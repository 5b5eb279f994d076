"""Sessions you can replay: the whole state of the window in one small, versioned JSON file.

A lecture is prepared in advance (model, sentence, decoding settings, the step to stop at, the map
selected, ablations, overlays, colours) and reopened exactly in class. The file is plain JSON so
it can be read, diffed and hand-edited, which is why every way it can be wrong is reported as one
:class:`SessionError` line naming the field, never a traceback. Reading and writing a session needs no torch (the app can restore
one while torch is still loading); only :meth:`Session.ablation` and :meth:`ModelRef.import_options`
import it.

Paths move with the lecture: a model or vocabulary file inside the session file's folder is
written relative to that folder and resolved against it on load, so the folder can be copied to
another machine. Anything outside it stays absolute. :meth:`Session.to_json` /
:meth:`Session.from_json` leave paths untouched; only :meth:`Session.save` / :func:`load` relate
them to a folder.

Layout (``version`` 1)::

    {"format": "attention-scope-session", "version": 1,
     "model": {"name": "en-fr"} | {"path": "models/x.pt", "src_vocab": ..., "tgt_vocab": ..., "heads": 8,
                                    "norm_position": "pre", "activation": "gelu", "bos": "<s>",
                                    "tokenization": "whitespace"},
     "source": "...", "target": "...",
     "decoding": {"method": "greedy", "temperature": 1.0, "top_k": 0, "top_p": 1.0, "beam_width": 4,
                  "length_penalty": 1.0, "seed": 0},
     "padding": {"src": 0, "tgt": 0}, "step": 3,
     "selection": {"kind": "cross", "layer": 0, "head": null},
     "ablation": {"heads": [["cross", 1, 2]], "positional": false},
     "overlays": {"causal": true}, "colormap": "viridis", "log_scale": false, "view": {}}
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..budgets import MAX_JSON_DEPTH
from ..decoding_settings import DecodingSettings
from ..files import NumberTooLong, json_depth, loads
from ..shared_types import KINDS

if TYPE_CHECKING:  # both need torch: imported where used, so reading a session stays torch-free
    from ..inference.run import RunRequest
    from ..shared_types import Ablation, ModelInfo
    from .importers.common import ImportOptions

FORMAT = "attention-scope-session"
VERSION = 1

_DECODING_FIELDS = tuple(f.name for f in fields(DecodingSettings))


class SessionError(ValueError):
    """A session file that cannot be used, with a message fit to show a person: one line per problem, each naming
    its field (the command line joins them with "; "); ``problems`` holds them one by one."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems or (message,)


#: the most problems of one session reported, the rest counted: a hand-edited file is fixed in one go, and the
#: message stays short enough for one line of a terminal or the window's banner
MAX_REPORTED_PROBLEMS = 5


def session_error(problems: list[str] | tuple[str, ...]) -> SessionError:
    """One :class:`SessionError` for every problem found: the first :data:`MAX_REPORTED_PROBLEMS` one per line,
    then how many more."""
    shown = list(problems[:MAX_REPORTED_PROBLEMS])
    if len(problems) > len(shown):
        rest = len(problems) - len(shown)
        shown.append(f"and {rest} more problem{'s' if rest > 1 else ''}")
    return SessionError("\n".join(shown), tuple(problems))


# ----------------------------------------------------------------------------- value types
@dataclass(frozen=True)
class ModelRef:
    """Which model to open: a bundled model by ``name`` or a file/folder ``path``, plus what the
    importer needs that the weights cannot tell (vocabulary files or token lists, heads, norm)."""

    name: str | None = None
    path: str | None = None
    src_vocab: str | tuple[str, ...] | None = None
    tgt_vocab: str | tuple[str, ...] | None = None
    heads: int | None = None
    norm_position: str | None = None
    activation: str | None = None  # a PyTorch-tutorial checkpoint's feed-forward: relu or gelu
    # the vocabulary's special tokens where its names do not tell, and how text is cut (app, whitespace, a tokenizer.json)
    bos: str | None = None
    eos: str | None = None
    pad: str | None = None
    unk: str | None = None
    tokenization: str | None = None

    def __post_init__(self) -> None:
        problems = []
        if (self.name is None) == (self.path is None):
            problems.append("model: give exactly one of 'name' (a bundled model) and 'path'")
        elif not self.location:
            problems.append(f"model.{'name' if self.name is not None else 'path'} must not be empty")
        if self.heads is not None and self.heads <= 0:
            problems.append(f"model.heads must be positive, not {self.heads}")
        if self.norm_position not in (None, "pre", "post"):
            problems.append(f"model.norm_position must be 'pre' or 'post', not {self.norm_position!r}")
        if self.activation not in (None, "relu", "gelu"):
            problems.append(f"model.activation must be 'relu' or 'gelu', not {self.activation!r}")
        if problems:
            raise session_error(problems)

    @property
    def location(self) -> str:
        """What ``open_model`` takes: the path, or the bundled name."""
        return self.path if self.path is not None else self.name  # type: ignore[return-value]

    def import_options(self) -> ImportOptions:
        from .importers.common import ImportOptions

        def vocab(v: str | tuple[str, ...] | None) -> str | list[str] | None:
            return list(v) if isinstance(v, tuple) else v

        return ImportOptions(src_vocab=vocab(self.src_vocab), tgt_vocab=vocab(self.tgt_vocab), heads=self.heads,
                             norm_position=self.norm_position, activation=self.activation, bos=self.bos, eos=self.eos,
                             pad=self.pad, unk=self.unk, tokenization=self.tokenization)

    def options(self) -> dict[str, Any]:
        """The import options as the window's worker takes them (the inverse of :func:`model_ref`)."""
        out: dict[str, Any] = {}
        for name in ("src_vocab", "tgt_vocab"):
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        if self.heads is not None:
            out["heads"] = self.heads
        if self.norm_position is not None:
            out["norm_position"] = self.norm_position
        for name in _CHOICE_FIELDS:
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def map_paths(self, fn: Callable[[str], str]) -> ModelRef:
        """This reference with ``fn`` applied to every file path (model and vocabulary files)."""
        return replace(
            self,
            path=None if self.path is None else fn(self.path),
            src_vocab=fn(self.src_vocab) if isinstance(self.src_vocab, str) else self.src_vocab,
            tgt_vocab=fn(self.tgt_vocab) if isinstance(self.tgt_vocab, str) else self.tgt_vocab,
            tokenization=self.tokenization if self.tokenization in (None, *_SPLITTER_NAMES) else fn(self.tokenization),
        )


def model_ref(key: str, options: dict[str, Any] | None = None) -> ModelRef:
    """The reference to a model opened as ``key``: a bundled model by name, anything else by path, with the import
    options it needed (vocabularies, heads, norm position)."""
    from .paths import bundled_models

    options = options or {}
    if key in bundled_models():
        return ModelRef(name=key)
    vocab = {side: (tuple(v) if isinstance(v, list) else v) for side in ("src_vocab", "tgt_vocab") if (v := options.get(side))}
    choices = {name: options[name] for name in _CHOICE_FIELDS if isinstance(options.get(name), str)}
    return ModelRef(path=key, heads=options.get("heads"), norm_position=options.get("norm_position"), **vocab, **choices)


#: import answers that are plain strings: special tokens, the tokenization and the activation
_CHOICE_FIELDS = ("bos", "eos", "pad", "unk", "tokenization", "activation")
#: tokenizations that are names, not a tokenizer.json path (paths move with the session file)
_SPLITTER_NAMES = ("app", "whitespace", "auto")


@dataclass(frozen=True)
class Selection:
    """The map shown: attention kind, layer, and head (None = the mean over heads)."""

    kind: str = "cross"
    layer: int = 0
    head: int | None = None

    def __post_init__(self) -> None:
        problems = []
        if self.kind not in KINDS:
            problems.append(f"selection.kind: unknown attention kind {self.kind!r} (one of {', '.join(KINDS)})")
        if self.layer < 0 or (self.head is not None and self.head < 0):
            problems.append(f"selection: layer and head must be >= 0, not {self.layer}, {self.head}")
        if problems:
            raise session_error(problems)


def _check_kind(kind: str, where: str) -> None:
    if kind not in KINDS:
        raise SessionError(f"{where}: unknown attention kind {kind!r} (one of {', '.join(KINDS)})")


#: sessions are hand-editable text, not data dumps: a file or a sentence past these is refused, not read (a
#: 100 MB source once cost 7 GB and 77 s before being cut to the model's length)
MAX_SESSION_BYTES = 4 * 1024 * 1024
MAX_TEXT_CHARS = 200_000
#: no padding, step, layer or head of a model this app can open is larger (position tables stop far below)
MAX_INDEX = 1 << 16


@dataclass(frozen=True)
class ScopeState:
    """What the window shows, as one frozen, validated value: everything needed to reopen a view exactly.

    Session files are its JSON (:meth:`to_dict` / :meth:`from_dict`, format version 1), the window's
    remembered settings and its model calls (:meth:`run_request`) derive from it. Construction checks
    everything that can be checked without the model and raises one :class:`SessionError` with one line
    per violation (:func:`session_error`); :meth:`problems_for` adds what needs the model (layers, heads, vocabulary). ``target``
    "" = let the model translate.
    """

    model: ModelRef | None = None  # None: no model open yet (the window's state before its first load)
    source: str = ""
    target: str = ""
    settings: DecodingSettings = field(default_factory=DecodingSettings)
    pad_src: int = 0
    pad_tgt: int = 0
    step: int = 0
    selection: Selection = Selection()
    ablated_heads: tuple[tuple[str, int, int], ...] = ()
    ablate_positional: bool = False
    overlays: dict[str, bool] = field(default_factory=dict)
    colormap: str = "viridis"
    log_scale: bool = False
    view: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problems = self._problems()
        if problems:
            raise session_error(problems)
        heads = []
        for kind, layer, head in self.ablated_heads:
            _check_kind(kind, "ablation.heads")
            if layer < 0 or head < 0:
                raise SessionError(f"ablation.heads: layer and head must be >= 0, not [{kind!r}, {layer}, {head}]")
            heads.append((kind, int(layer), int(head)))
        # one canonical order, so equal ablations give equal sessions and identical files
        object.__setattr__(self, "ablated_heads", tuple(sorted(set(heads))))

    def _problems(self) -> list[str]:
        """Everything wrong that the model is not needed to see, one line each."""
        from ..interpret.registry import VIEW_MODES
        from ..shared_types import COLORMAPS, OVERLAYS

        out = []
        for name, field_name in (("pad_src", "padding.src"), ("pad_tgt", "padding.tgt"), ("step", "step")):  # as the file names them
            value = getattr(self, name)
            if not 0 <= value <= MAX_INDEX:
                out.append(f"{field_name} must be in 0..{MAX_INDEX}, not {value}")
        for name in ("source", "target"):
            text = getattr(self, name)
            if len(text) > MAX_TEXT_CHARS:
                out.append(f"{name} has {len(text):,} characters; a session holds at most {MAX_TEXT_CHARS:,}")
            elif not _encodable(text):
                out.append(f"{name} is not valid Unicode text (a lone surrogate)")
        if self.selection.layer > MAX_INDEX or (self.selection.head or 0) > MAX_INDEX:
            out.append(f"selection: layer and head must be at most {MAX_INDEX}")
        for kind, layer, head in self.ablated_heads:
            if kind not in KINDS:
                out.append(f"ablation.heads: unknown attention kind {kind!r} (one of {', '.join(KINDS)})")
            elif not (0 <= layer <= MAX_INDEX and 0 <= head <= MAX_INDEX):
                out.append(f"ablation.heads: layer and head must be in 0..{MAX_INDEX}, not [{kind!r}, {layer}, {head}]")
        if self.colormap not in COLORMAPS:
            out.append(f"unknown colormap {self.colormap!r} (one of {', '.join(COLORMAPS)})")
        unknown = sorted(set(self.overlays) - set(OVERLAYS))
        if unknown:
            out.append(f"unknown overlay {unknown[0]!r} (one of {', '.join(OVERLAYS)})")
        if self.view_mode not in VIEW_MODES:
            out.append(f"view.view_mode must be one of {', '.join(VIEW_MODES)}, not {self.view_mode!r}")
        return out

    @property
    def view_mode(self) -> str:
        """What the main heatmap shows: the weights, the scores or an analysis (``interpret.registry.VIEW_MODES``)."""
        mode = self.view.get("view_mode", "weights")
        return mode if isinstance(mode, str) else repr(mode)

    def problems_for(self, info: ModelInfo) -> list[str]:
        """What does not fit the model ``info`` (layers, heads, vocabulary), one line each; [] when it fits."""
        out = []
        sel = self.selection
        if sel.layer >= info.layers(sel.kind):
            out.append(f"selection.layer {sel.layer} is out of range: {info.name} has {info.layers(sel.kind)} layers of {sel.kind}")
        if sel.head is not None and sel.head >= info.n_heads:
            out.append(f"selection.head {sel.head} is out of range: {info.name} has {info.n_heads} heads")
        for kind, layer, head in self.ablated_heads:
            if layer >= info.layers(kind) or head >= info.n_heads:
                out.append(f"ablation.heads: [{kind!r}, {layer}, {head}] is not a head of {info.name} "
                           f"({info.layers(kind)} layers × {info.n_heads} heads)")
        if info.tgt_vocab and self.settings.top_k > len(info.tgt_vocab):
            out.append(f"decoding.top_k {self.settings.top_k} is larger than the vocabulary ({len(info.tgt_vocab)} tokens)")
        return out

    def ablation(self) -> Ablation:
        from ..shared_types import Ablation

        return Ablation(heads=frozenset(self.ablated_heads), positional=self.ablate_positional)

    def decoding(self) -> DecodingSettings:
        return self.settings

    def run_request(self, *, capture_scores: bool | None = None) -> RunRequest:
        """The model call this state's window makes (an empty target: the model translates; the scores view
        captures the pre-softmax scores unless ``capture_scores`` says otherwise)."""
        from ..inference.run import RunRequest
        from ..interpret.registry import requested_for_view

        scores = self.view_mode == "scores" if capture_scores is None else capture_scores
        return RunRequest(self.source, self.target if self.target.strip() else None, self.settings, self.pad_src,
                          self.pad_tgt, self.ablation(), capture_scores=scores,
                          analyses=requested_for_view(self.view_mode))

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        if self.model is None:
            raise SessionError("no model is open: a session starts from one")
        model: dict[str, Any] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self.model).items()
                                 if v is not None}
        return {
            "format": FORMAT,
            "version": VERSION,
            "model": model,
            "source": self.source,
            "target": self.target,
            "decoding": asdict(self.settings),
            "padding": {"src": self.pad_src, "tgt": self.pad_tgt},
            "step": self.step,
            "selection": asdict(self.selection),
            "ablation": {"heads": [list(h) for h in self.ablated_heads], "positional": self.ablate_positional},
            "overlays": dict(self.overlays),
            "colormap": self.colormap,
            "log_scale": self.log_scale,
            "view": self.view,
        }

    def to_json(self) -> str:
        try:
            return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        except (TypeError, ValueError) as exc:
            raise SessionError(f"the session cannot be written as JSON ({exc})") from exc

    @classmethod
    def from_dict(cls, data: Any) -> Session:
        return _parse(data)

    @classmethod
    def from_json(cls, text: str) -> Session:
        # no real session nests deeper than 4; a hostile one nested 100,000 deep crashed json's recursion at launch
        too_deep = SessionError(f"not a session file: JSON nested more than {MAX_JSON_DEPTH} levels deep")
        try:
            data = loads(text)
        except RecursionError:
            raise too_deep from None
        except NumberTooLong as exc:
            raise SessionError(f"not a session file: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise SessionError(f"not a session file: invalid JSON ({exc.msg} at line {exc.lineno})") from exc
        if json_depth(data) > MAX_JSON_DEPTH:
            raise too_deep
        return _parse(data)

    # ------------------------------------------------------------------ files
    @classmethod
    def load(cls, path: str | os.PathLike) -> Session:
        """Same as the module's :func:`load`."""
        return load(path)

    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically: a temporary file in the same folder, then ``os.replace``.

        A failure (serialisation, disk) leaves the previous file, if any, untouched and no
        temporary file behind.
        """
        path = Path(os.path.abspath(path))
        folder = path.parent
        text = self.with_paths_relative_to(folder).to_json()
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
        except OSError as exc:
            raise SessionError(f"cannot save the session in {folder} ({exc.strerror or exc})") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise SessionError(f"cannot save the session as {path.name} ({exc.strerror or exc})") from exc
            raise
        return path

    def with_paths_relative_to(self, folder: str | os.PathLike) -> Session:
        """Paths inside ``folder`` made relative to it (others absolute), for a movable lecture folder."""
        base = Path(os.path.abspath(folder))

        def relative(p: str) -> str:
            absolute = Path(os.path.abspath(p))  # relative in memory = relative to the working folder
            return absolute.relative_to(base).as_posix() if absolute.is_relative_to(base) else str(absolute)

        return replace(self, model=self.model.map_paths(relative)) if self.model is not None else self

    def with_paths_resolved_against(self, folder: str | os.PathLike) -> Session:
        """Relative paths read as relative to ``folder`` (the session file's), made absolute."""
        base = os.path.abspath(folder)

        def absolute(p: str) -> str:
            expanded = os.path.expanduser(p)
            return expanded if os.path.isabs(expanded) else os.path.normpath(os.path.join(base, expanded))

        return replace(self, model=self.model.map_paths(absolute)) if self.model is not None else self


#: the name session files had before the state had one (the same class)
Session = ScopeState


def load(path: str | os.PathLike) -> Session:
    """Read a session file; relative model/vocabulary paths are resolved against its folder."""
    path = Path(path)
    if not path.exists():
        if path.is_symlink():  # exists() follows the link: a loop or a dangling link is no missing file
            raise SessionError(f"{path}: a symbolic link that leads to no file (a loop, or its target is missing)")
        raise SessionError(f"{path}: no such session file")
    if path.is_dir():
        raise SessionError(f"{path}: is a folder, not a session file")
    try:
        if not path.is_file():
            raise SessionError(f"{path.name}: not a regular file")
        if path.stat().st_size > MAX_SESSION_BYTES:
            raise SessionError(f"{path.name}: {path.stat().st_size:,} bytes is too large for a session file "
                               f"(at most {MAX_SESSION_BYTES // (1024 * 1024)} MiB)")
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows Notepad) is no mistake
    except UnicodeDecodeError as exc:
        raise SessionError(f"{path.name}: not a session file (not UTF-8 text)") from exc
    except OSError as exc:
        raise SessionError(f"{path.name}: cannot be read ({exc.strerror or exc})") from exc
    try:
        session = Session.from_json(text)
    except SessionError as exc:
        raise SessionError(f"{path.name}: {exc}") from exc
    return session.with_paths_resolved_against(Path(os.path.abspath(path)).parent)


# ----------------------------------------------------------------------------- parsing
def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_TYPE_NAMES = {str: "a string", bool: "true or false", int: "an integer", float: "a number", dict: "an object",
               list: "a list"}


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def _typed(value: Any, kind: type, where: str, optional: bool = False) -> Any:
    """``value`` if it is JSON of type ``kind`` (bool is never an int; an int is a float), else a SessionError."""
    if value is None and optional:
        return None
    ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if kind is float and ok:
        value = float(value)
    elif kind is float and isinstance(value, int) and not isinstance(value, bool):
        ok, value = True, float(value)
    if not ok:
        wanted = _TYPE_NAMES[kind] + (" or null" if optional else "")
        raise SessionError(f"{where} must be {wanted}, not {_describe(value)}")
    return value


class _Fields:
    """Parses a session field by field, keeping each field's problem (and its default) instead of stopping at the
    first: a hand-edited file with three mistakes is told all three at once."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def get(self, parse: Callable[[], Any], default: Any = None) -> Any:
        """What ``parse`` returns, or ``default`` when it raises a :class:`SessionError` (its problems kept)."""
        try:
            return parse()
        except SessionError as exc:
            self.problems.extend(exc.problems)
            return default

    def section(self, data: dict[str, Any], key: str, known: tuple[str, ...]) -> dict[str, Any]:
        """The object ``data[key]`` (empty when absent or not an object), its unknown keys reported."""
        value = self.get(lambda: _typed(data.get(key, {}), dict, key), {})
        self.get(lambda: _check_keys(value, known, key + "."))
        return value


def _check_keys(data: dict[str, Any], known: tuple[str, ...], prefix: str, required: tuple[str, ...] = ()) -> None:
    problems = []
    unknown = sorted(set(data) - set(known))
    if unknown:
        names = ", ".join(prefix + k for k in unknown)
        problems.append(f"unknown field{'s' if len(unknown) > 1 else ''} {names} (a typo, or a file from another program?)")
    missing = [k for k in required if k not in data]
    if missing:
        problems.append(f"missing field{'s' if len(missing) > 1 else ''} {', '.join(prefix + k for k in missing)}")
    if problems:
        raise session_error(problems)


_TOP_LEVEL = ("format", "version", "model", "source", "target", "decoding", "padding", "step", "selection", "ablation",
              "overlays", "colormap", "log_scale", "view")


def _parse(data: Any) -> Session:
    """A session from its JSON: a file that is no session stops at once; a session's problems are all reported."""
    if not isinstance(data, dict):
        raise SessionError(f"not a session file: the top level is {_describe(data)}, not an object")
    if data.get("format") != FORMAT:
        found = f"format is {data['format']!r}" if "format" in data else "no 'format' field"
        raise SessionError(f"not an Attention Scope session ({found}, expected {FORMAT!r})")
    version = _typed(data.get("version"), int, "version")
    if version > VERSION:
        raise SessionError(f"written by a newer Attention Scope (session version {version}; this one reads up to {VERSION})")
    if version < 1:
        raise SessionError(f"version must be >= 1, not {version}")
    f = _Fields()
    f.get(lambda: _check_keys(data, _TOP_LEVEL, "", required=("model", "source")))
    kwargs: dict[str, Any] = {
        "model": f.get(lambda: _parse_model(data["model"])) if "model" in data else None,
        "source": f.get(lambda: _typed(data.get("source", ""), str, "source"), ""),
        "target": f.get(lambda: _typed(data.get("target", ""), str, "target"), ""),
        "settings": f.get(lambda: _parse_decoding(f.section(data, "decoding", _DECODING_FIELDS)), DecodingSettings()),
        "step": f.get(lambda: _typed(data.get("step", 0), int, "step"), 0),
        "colormap": f.get(lambda: _typed(data.get("colormap", "viridis"), str, "colormap"), "viridis"),
        "log_scale": f.get(lambda: _typed(data.get("log_scale", False), bool, "log_scale"), False),
        "view": f.get(lambda: _typed(data.get("view", {}), dict, "view"), {}),
    }
    padding = f.section(data, "padding", ("src", "tgt"))
    kwargs["pad_src"] = f.get(lambda: _typed(padding.get("src", 0), int, "padding.src"), 0)
    kwargs["pad_tgt"] = f.get(lambda: _typed(padding.get("tgt", 0), int, "padding.tgt"), 0)
    selection = f.section(data, "selection", ("kind", "layer", "head"))
    failed = object()  # a field with a problem (a head may well be None)
    kind = f.get(lambda: _typed(selection.get("kind", "cross"), str, "selection.kind"), failed)
    layer = f.get(lambda: _typed(selection.get("layer", 0), int, "selection.layer"), failed)
    head = f.get(lambda: _typed(selection.get("head"), int, "selection.head", optional=True), failed)
    if failed not in (kind, layer, head):
        kwargs["selection"] = f.get(lambda: Selection(kind=kind, layer=layer, head=head), Selection())
    ablation = f.section(data, "ablation", ("heads", "positional"))
    kwargs["ablated_heads"] = _parse_heads(f, ablation.get("heads", []))
    kwargs["ablate_positional"] = f.get(lambda: _typed(ablation.get("positional", False), bool, "ablation.positional"), False)
    overlays = f.get(lambda: _typed(data.get("overlays", {}), dict, "overlays"), {})
    kwargs["overlays"] = {}
    for name, on in overlays.items():
        value = f.get(lambda name=name, on=on: _typed(on, bool, f"overlays.{name}"))
        if value is not None:
            kwargs["overlays"][name] = value
    if not f.problems:
        return Session(**kwargs)
    f.get(lambda: Session(**kwargs))  # what the values break, the fields with problems at their defaults
    raise session_error(f.problems)


def _parse_model(value: Any) -> ModelRef:
    model = _typed(value, dict, "model")
    f = _Fields()
    f.get(lambda: _check_keys(model, tuple(known.name for known in fields(ModelRef)), "model."))
    kwargs: dict[str, Any] = {
        "name": f.get(lambda: _typed(model.get("name"), str, "model.name", optional=True)),
        "path": f.get(lambda: _typed(model.get("path"), str, "model.path", optional=True)),
        "heads": f.get(lambda: _typed(model.get("heads"), int, "model.heads", optional=True)),
        "norm_position": f.get(lambda: _typed(model.get("norm_position"), str, "model.norm_position", optional=True)),
        **{name: f.get(lambda name=name: _typed(model.get(name), str, f"model.{name}", optional=True)) for name in _CHOICE_FIELDS},
    }
    for side in ("src_vocab", "tgt_vocab"):
        vocab = model.get(side)
        if isinstance(vocab, list):
            kwargs[side] = tuple(f.get(lambda i=i, t=t, side=side: _typed(t, str, f"model.{side}[{i}]"), "")
                                 for i, t in enumerate(vocab))
        elif vocab is None or isinstance(vocab, str):
            kwargs[side] = vocab
        else:
            f.problems.append(f"model.{side} must be a file path or a list of tokens, not {_describe(vocab)}")
    if f.problems:  # a name or path that is no text would also read as missing: not checked further
        raise session_error(f.problems)
    return ModelRef(**kwargs)


def _parse_decoding(values: dict[str, Any]) -> DecodingSettings:
    defaults = DecodingSettings()
    f = _Fields()
    kwargs: dict[str, Any] = {}
    for name in _DECODING_FIELDS:
        default = getattr(defaults, name)
        kwargs[name] = f.get(lambda name=name, default=default: _typed(values.get(name, default), type(default), f"decoding.{name}"))
    if f.problems:
        raise session_error(f.problems)
    try:
        return DecodingSettings(**kwargs)
    except ValueError as exc:
        raise SessionError(f"decoding: {exc}") from exc


def _parse_heads(f: _Fields, value: Any) -> tuple[tuple[str, int, int], ...]:
    """The ablated heads that are well formed; each malformed one is a problem of ``f``."""
    heads = []
    for i, item in enumerate(f.get(lambda: _typed(value, list, "ablation.heads"), [])):
        where = f"ablation.heads[{i}]"
        if not isinstance(item, list) or len(item) != 3:
            f.problems.append(f"{where} must be [kind, layer, head], not {json.dumps(item)}")
            continue
        kind = f.get(lambda item=item, where=where: _typed(item[0], str, f"{where}[0] (kind)"))
        if kind is not None and kind not in KINDS:
            f.problems.append(f"{where}: unknown attention kind {kind!r} (one of {', '.join(KINDS)})")
            kind = None
        layer = f.get(lambda item=item, where=where: _typed(item[1], int, f"{where}[1] (layer)"))
        head = f.get(lambda item=item, where=where: _typed(item[2], int, f"{where}[2] (head)"))
        if None not in (kind, layer, head):
            heads.append((kind, layer, head))
    return tuple(heads)
