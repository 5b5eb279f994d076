"""Word alignments read from the cross-attention of a user's own sentence pairs, and their error rate.

The question fairseq, OpenNMT and Marian users keep asking: which source word does each
target word come from, according to a head (or a layer's head mean), and how good is that head
against a gold alignment?

How a link is read. The pairs are teacher-forced (the given target, not the model's translation).
Target word *j* is read from the cross-attention rows of the queries that *predict* its tokens (row
*t* predicts target token *t*: the decoder has seen the tokens before it); ``shift=True`` reads the
rows where the word's tokens are the *input* instead (row *t* + 1), which some models align better.
Tokens are merged into words before the decision: a target word's row is the mean of its tokens'
rows (still a distribution over the source), a source word's column the sum of its tokens' columns
(the attention mass the word received). Special tokens (``<bos>``, ``<eos>``, padding, language
codes) belong to no word. ``argmax`` links each target word to its heaviest source word;
``threshold`` to every source word holding at least ``threshold`` of the mass (possibly none).

What a word is. The app's own word-level tokenizer makes one token per word (punctuation and each
CJK character are words of their own). Subword tokenizers mark word boundaries in the token
strings, and three conventions are recognised: SentencePiece's ``▁`` (and byte-level BPE's ``Ġ``)
at the start of a word, subword-nmt's ``@@`` at the end of a piece that continues, WordPiece's ``##``
at the start of a continuation. Pharaoh indices count these words from 0.

AER (Och & Ney 2003). With sure links S and possible links P (S ⊆ P; a sure link is also possible),
AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|); over a corpus the four counts are summed before dividing
(links of different sentences never meet). With S = P this is 1 − 2|A∩G| / (|A| + |G|), what
:func:`model_core.training.evaluation.alignment_error_rate` computes for the toy grammars.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from ..inference.batched import chunks, encode_pair, forced_batch, text_lines

if TYPE_CHECKING:  # torch only where a model runs: the window reads one trace's alignment with numpy
    import torch

    from ..inference.batched import EncodedPair, ForcedBatch
    from ..inference.bundle import ModelBundle

Link = tuple[int, int]  # (source word, target word), as Pharaoh writes them
Method = Literal["argmax", "threshold"]
METHODS: tuple[str, ...] = ("argmax", "threshold")

WORD_START_MARKS = ("▁", "Ġ")  # SentencePiece, byte-level BPE
CONTINUATION_PREFIX = "##"  # WordPiece
CONTINUES_SUFFIX = "@@"  # subword-nmt


# ---------------------------------------------------------------------------------------------- Pharaoh
@dataclass(frozen=True)
class GoldAlignment:
    """One sentence's gold links: ``sure`` ⊆ ``possible``."""

    sure: frozenset[Link] = frozenset()
    possible: frozenset[Link] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "possible", frozenset(self.possible) | frozenset(self.sure))


def parse_pharaoh(line: str, where: str = "") -> GoldAlignment:
    """One Pharaoh line: ``i-j`` sure (also ``i-j-S``), ``i?j`` or ``i-j-P`` possible, whitespace between links.

    A malformed link is a ValueError naming it (and ``where``, e.g. ``gold.txt line 3``).
    """
    sure: set[Link] = set()
    possible: set[Link] = set()
    for item in line.split():
        is_possible = "?" in item
        parts = item.split("?") if is_possible else item.split("-")
        if not is_possible and len(parts) == 3 and parts[2] in ("P", "S", "p", "s"):
            is_possible = parts[2] in ("P", "p")
            parts = parts[:2]
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
            prefix = f"{where}: " if where else ""
            raise ValueError(f"{prefix}{item[:40]!r} is not a Pharaoh link (i-j sure, i?j or i-j-P possible)")
        link = (int(parts[0]), int(parts[1]))
        (possible if is_possible else sure).add(link)
    return GoldAlignment(frozenset(sure), frozenset(possible))


def read_pharaoh(path: str | os.PathLike) -> Iterator[GoldAlignment]:
    """The lines of a Pharaoh file one at a time (the file is never held whole)."""
    name = os.fspath(path)
    for number, line in text_lines(name):
        yield parse_pharaoh(line, f"{name} line {number}")


def format_pharaoh(links: Iterable[Link]) -> str:
    """``i-j`` links sorted by target word, then source word (the order aligners print)."""
    return " ".join(f"{i}-{j}" for i, j in sorted(links, key=lambda link: (link[1], link[0])))


# ---------------------------------------------------------------------------------------------- AER
def aer(predicted: Iterable[Link], sure: Iterable[Link], possible: Iterable[Link] = ()) -> float:
    """Och & Ney's alignment error rate of one set of links (``possible`` is completed with ``sure``)."""
    counts = AERCounts()
    counts.add(set(predicted), GoldAlignment(frozenset(sure), frozenset(possible)))
    return counts.aer


@dataclass
class AERCounts:
    """|A|, |S|, |A∩S|, |A∩P| summed over sentences: the corpus AER is computed from the sums."""

    predicted: int = 0
    sure: int = 0
    hit_sure: int = 0
    hit_possible: int = 0

    def add(self, predicted: set[Link], gold: GoldAlignment) -> None:
        self.predicted += len(predicted)
        self.sure += len(gold.sure)
        self.hit_sure += len(predicted & gold.sure)
        self.hit_possible += len(predicted & gold.possible)

    @property
    def aer(self) -> float:
        """0 when nothing was predicted and nothing is sure (nothing to get wrong)."""
        total = self.predicted + self.sure
        return 0.0 if total == 0 else 1.0 - (self.hit_sure + self.hit_possible) / total


# ---------------------------------------------------------------------------------------------- words
def word_index(tokens: Sequence[str], special: Sequence[bool], word_level: bool) -> list[int | None]:
    """For each token, the 0-based word it belongs to (None: a special token, part of no word).

    ``word_level``: every token is a word (the app's own word tokenizer). Otherwise the marks of the
    token strings decide (module docstring); tokens with none of them are words of their own.
    """
    marked = not word_level and any(t.startswith(WORD_START_MARKS) for t, s in zip(tokens, special, strict=True) if not s)
    out: list[int | None] = []
    word = -1
    previous_continues = False
    for token, is_special in zip(tokens, special, strict=True):
        if is_special:
            out.append(None)
            previous_continues = False
            continue
        if word_level:
            starts = True
        else:
            starts = word < 0 or not (previous_continues or token.startswith(CONTINUATION_PREFIX)
                                      or (marked and not token.startswith(WORD_START_MARKS)))
        if starts:
            word += 1
        out.append(word)
        previous_continues = not word_level and token.endswith(CONTINUES_SUFFIX)
    return out


def special_ids(bundle: ModelBundle) -> set[int]:
    """Ids that are never words: padding, ``<bos>``, ``<eos>`` and a Hugging Face tokenizer's other specials
    (language codes); ``<unk>`` stays a word (it stands for one)."""
    c = bundle.config
    ids = {c.pad_id, c.bos_id, c.eos_id}
    for tokenizer in (bundle.src_tokenizer, bundle.tgt_tokenizer):
        hf = getattr(tokenizer, "hf", None)
        ids |= {int(i) for i in getattr(hf, "all_special_ids", ()) or ()}
        ids.discard(getattr(tokenizer, "unk_id", -1))
    return ids


def _word_level(tokenizer: object) -> bool:
    return getattr(tokenizer, "kind", "") == "word"


# ---------------------------------------------------------------------------------------------- aligning
@dataclass(frozen=True)
class HeadChoice:
    """Which map writes the alignment: decoder ``layer`` (negative counts from the last) and ``head`` (None: the mean)."""

    layer: int = -1
    head: int | None = None

    def resolve(self, n_layers: int, n_heads: int) -> tuple[int, int]:
        """(layer, column) in the [layers, heads + 1] grid of :class:`AlignmentResult` (column ``n_heads`` = mean)."""
        layer = self.layer + n_layers if self.layer < 0 else self.layer
        if not 0 <= layer < n_layers:
            raise ValueError(f"--layer {self.layer}: the decoder has {n_layers} layers (0..{n_layers - 1})")
        if self.head is not None and not 0 <= self.head < n_heads:
            raise ValueError(f"--head {self.head}: each layer has {n_heads} heads (0..{n_heads - 1}) or 'mean'")
        return layer, n_heads if self.head is None else self.head


@dataclass
class PairAlignment:
    """One pair's links for every decoder layer × (head …, head mean): ``links[layer][column]``."""

    index: int
    n_src_words: int
    n_tgt_words: int
    links: list[list[set[Link]]]
    word_maps: np.ndarray | None = None  # [layers, heads + 1, target words, source words] when asked for
    src_words: tuple[str, ...] = ()  # the words as the app cut them (what Pharaoh indices count), for messages
    tgt_words: tuple[str, ...] = ()
    source: str = ""  # the pair's texts as given
    target: str = ""
    n_src_tokens: int = 0  # the model's tokens that are part of a word (special tokens left out)
    n_tgt_tokens: int = 0


def check_gold(pair: PairAlignment, gold: GoldAlignment, where: str) -> None:
    """A ValueError (one line) when a gold link points past the pair's words; silent otherwise.

    Why refuse: such a link can never be predicted, so it would be counted as a miss without a word, and the AER
    would read as the heads' fault. The line says how the pair was cut into words (the indices a gold line must
    count) and, when every link would fit the whitespace-separated words of the texts instead, that the gold looks
    indexed by those (a common mistake with subword or punctuation-splitting tokenizers).
    """
    outside = sorted(link for link in gold.possible if not (link[0] < pair.n_src_words and link[1] < pair.n_tgt_words))
    if not outside:
        return
    i, j = outside[0]
    more = f" (and {len(outside) - 1} more)" if len(outside) > 1 else ""

    def shown(words: tuple[str, ...]) -> str:
        listed = " | ".join(f"{k}:{w}" for k, w in enumerate(words[:12]))
        return listed + (f" | … ({len(words)} words)" if len(words) > 12 else "")

    line = (f"{where}: link {i}-{j}{more} is outside pair {pair.index + 1}, which has {pair.n_src_words} source and "
            f"{pair.n_tgt_words} target words as the app splits them (by the model's tokens, special tokens left out, "
            f"subwords joined): source {shown(pair.src_words)}; target {shown(pair.tgt_words)}")
    other_counts = {"whitespace-separated words": (len(pair.source.split()), len(pair.target.split())),
                    "tokens of the model": (pair.n_src_tokens, pair.n_tgt_tokens)}
    for name, (n_src, n_tgt) in other_counts.items():
        if (n_src, n_tgt) != (pair.n_src_words, pair.n_tgt_words) and all(a < n_src and b < n_tgt for a, b in gold.possible):
            line += (f" — every link fits the pair's {n_src} and {n_tgt} {name} instead: the gold seems to count "
                     f"{name}, not the app's words")
            break
    raise ValueError(line)


def _word_texts(tokens: Sequence[str], index: Sequence[int | None]) -> tuple[str, ...]:
    """Each word's text: its tokens joined, without the subword marks (``▁``, ``Ġ``, ``##``, ``@@``)."""
    words: dict[int, str] = {}
    for token, word in zip(tokens, index, strict=True):
        if word is None:
            continue
        piece = token.removeprefix(CONTINUATION_PREFIX).removesuffix(CONTINUES_SUFFIX)
        for mark in WORD_START_MARKS:
            piece = piece.removeprefix(mark)
        words[word] = words.get(word, "") + piece
    return tuple(words[k] for k in sorted(words))


@dataclass
class AlignmentResult:
    """Corpus AER per decoder layer × (head …, head mean), when gold was given."""

    n_pairs: int = 0
    counts: list[list[AERCounts]] = field(default_factory=list)

    @property
    def aer(self) -> np.ndarray:
        """[layers, heads + 1]: the last column is the layer's head mean."""
        return np.array([[c.aer for c in row] for row in self.counts]) if self.counts else np.zeros((0, 0))

    def ranking(self) -> list[tuple[float, int, int | None]]:
        """(AER, layer, head or None for the mean), best (lowest) first; ties in layer, head order."""
        grid = self.aer
        n_heads = grid.shape[1] - 1 if grid.size else 0
        items = [(float(grid[layer, col]), layer, None if col == n_heads else col)
                 for layer in range(grid.shape[0]) for col in range(grid.shape[1])]
        return sorted(items, key=lambda item: (item[0], item[1], math.inf if item[2] is None else item[2]))


def _word_indices(pairs: list[EncodedPair], specials: set[int], src_word_level: bool,
                  tgt_word_level: bool) -> tuple[list[list[int | None]], list[list[int | None]]]:
    """Per pair, each source token's word and each target token's word (the target's final ``<eos>`` left out)."""
    src_words = [word_index(p.src_tokens, [i in specials for i in p.src_ids], src_word_level) for p in pairs]
    tgt_words = [word_index(p.tgt_tokens[:-1], [i in specials for i in p.tgt_ids[:-1]], tgt_word_level) for p in pairs]
    return src_words, tgt_words


def _grouping(pairs: list[EncodedPair], specials: set[int], src_word_level: bool, tgt_word_level: bool,
              shift: bool, rows: int, cols: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor, list[int], list[int]]:
    """Per pair, the matrices that turn a token map into a word map: ``rows_of`` [B, Tw, T] (mean of the
    target word's rows) and ``cols_of`` [B, S, Sw] (sum of the source word's columns), and the word counts."""
    import torch

    src_words, tgt_words = _word_indices(pairs, specials, src_word_level, tgt_word_level)
    n_src = [1 + max((w for w in words if w is not None), default=-1) for words in src_words]
    n_tgt = [1 + max((w for w in words if w is not None), default=-1) for words in tgt_words]
    b = len(pairs)
    rows_of = torch.zeros(b, max(n_tgt, default=0), rows)
    cols_of = torch.zeros(b, cols, max(n_src, default=0))
    for k, (sw, tw) in enumerate(zip(src_words, tgt_words, strict=True)):
        for s, w in enumerate(sw):
            if w is not None:
                cols_of[k, s, w] = 1.0
        for t, w in enumerate(tw):
            if w is not None:
                rows_of[k, w, t + int(shift)] = 1.0
        rows_of[k] /= rows_of[k].sum(-1, keepdim=True).clamp_min(1.0)
    return rows_of.to(device), cols_of.to(device), n_src, n_tgt


def _links(word_map: np.ndarray, n_src: int, n_tgt: int, method: str, threshold: float) -> set[Link]:
    """Links of one [Tw, Sw] word map (only its real words)."""
    if n_src == 0 or n_tgt == 0:
        return set()
    block = word_map[:n_tgt, :n_src]
    if method == "argmax":
        return {(int(i), j) for j, i in enumerate(block.argmax(-1))}
    targets, sources = np.nonzero(block >= threshold)
    return {(int(i), int(j)) for j, i in zip(targets, sources, strict=True)}


def align_pairs(
    bundle: ModelBundle, pairs: Iterable[tuple[str, str]], *, method: Method = "argmax", threshold: float = 0.5,
    shift: bool = False, batch_size: int = 32, keep_maps: bool = False,
    on_batch: Callable[[int], None] | None = None,
) -> Iterator[PairAlignment]:
    """Links of every pair for every decoder layer × (head …, head mean), a batch at a time, in order.

    ``pairs`` is read lazily (a generator over a file is never held whole); ``on_batch(n)`` is told
    how many pairs each finished batch held (a progress bar).
    """
    reader = AlignmentReader(bundle, method=method, threshold=threshold, shift=shift)
    index = 0
    for chunk in chunks(pairs, batch_size):
        encoded = [encode_pair(bundle, src, tgt) for src, tgt in chunk]
        yield from reader.read(forced_batch(bundle, encoded), index, keep_maps=keep_maps)
        index += len(chunk)
        if on_batch is not None:
            on_batch(len(chunk))


class AlignmentReader:
    """Reads the links of a :class:`~model_core.inference.batched.ForcedBatch` (so ``report`` scores the same maps it measures)."""

    def __init__(self, bundle: ModelBundle, *, method: Method = "argmax", threshold: float = 0.5,
                 shift: bool = False) -> None:
        if method not in METHODS:
            raise ValueError(f"unknown alignment method {method!r}; choose from {', '.join(METHODS)}")
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"the threshold must be in (0, 1], not {threshold}")
        self.method, self.threshold, self.shift = method, threshold, shift
        self.specials = special_ids(bundle)
        self.word_level = (_word_level(bundle.src_tokenizer), _word_level(bundle.tgt_tokenizer))

    def read(self, batch: ForcedBatch, first_index: int = 0, *, keep_maps: bool = False) -> list[PairAlignment]:
        """One :class:`PairAlignment` per pair of ``batch``, numbered from ``first_index``."""
        import torch

        cross = batch.attention["cross"]  # [L, B, H, T, S]
        cross = torch.cat([cross, cross.mean(2, keepdim=True)], 2)  # the head mean as one more head
        rows_of, cols_of, n_src, n_tgt = _grouping(batch.pairs, self.specials, *self.word_level, self.shift,
                                                   cross.shape[3], cross.shape[4], cross.device)
        # [L, B, H+1, Tw, Sw] = rows_of · A · cols_of, for every head at once
        words = torch.einsum("bwt,lbhts,bsv->lbhwv", rows_of, cross, cols_of).cpu().numpy()
        src_index, tgt_index = _word_indices(batch.pairs, self.specials, *self.word_level)
        out = []
        for k, p in enumerate(batch.pairs):
            grid = [[_links(words[layer, k, col], n_src[k], n_tgt[k], self.method, self.threshold)
                     for col in range(words.shape[2])] for layer in range(words.shape[0])]
            maps = words[:, k, :, : n_tgt[k], : n_src[k]].copy() if keep_maps else None
            out.append(PairAlignment(first_index + k, n_src[k], n_tgt[k], grid, maps,
                                     _word_texts(p.src_tokens, src_index[k]), _word_texts(p.tgt_tokens[:-1], tgt_index[k]),
                                     p.source, p.target, sum(w is not None for w in src_index[k]),
                                     sum(w is not None for w in tgt_index[k])))
        return out


def score(alignments: Iterable[PairAlignment], gold: Iterable[GoldAlignment],
          on_pair: Callable[[PairAlignment], None] | None = None, gold_name: str = "the gold file") -> AlignmentResult:
    """Corpus AER of every layer × (head …, head mean) against ``gold`` (one per pair, in order, both lazily).

    ``on_pair`` sees each pair's alignment as it goes by (to write it out). The two must be equally long, and no gold
    link may point past its pair's words (:func:`check_gold`; ``gold_name`` names the file in that line).
    """
    result = AlignmentResult()
    gold_iter = iter(gold)
    for pair in alignments:
        truth = next(gold_iter, None)
        if truth is None:
            raise ValueError(f"the gold file has {pair.index} lines, fewer than the sentence pairs")
        check_gold(pair, truth, f"{gold_name} line {pair.index + 1}")
        if not result.counts:
            result.counts = [[AERCounts() for _ in row] for row in pair.links]
        for row, counts in zip(pair.links, result.counts, strict=True):
            for links, count in zip(row, counts, strict=True):
                count.add(links, truth)
        result.n_pairs += 1
        if on_pair is not None:
            on_pair(pair)
    if next(gold_iter, None) is not None:
        raise ValueError(f"the gold file has more lines than the {result.n_pairs} sentence pairs")
    return result


def format_ranking(result: AlignmentResult, limit: int | None = None) -> str:
    """The AER table, best first: ``layer L head H|mean  AER``."""
    lines = [f"AER of the cross-attention over {result.n_pairs} pairs (lower is better), best first:"]
    for value, layer, head in result.ranking()[:limit]:
        label = "mean" if head is None else str(head)
        lines.append(f"  layer {layer} head {label:>4}  {100 * value:6.2f} %")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- one trace (the window)
#: token strings that belong to no word in a trace (the window has the trace, not the tokenizer's special ids)
SPECIAL_TOKENS: frozenset[str] = frozenset({"<pad>", "<bos>", "<eos>", "<s>", "</s>"})


@dataclass(frozen=True)
class TraceAlignment:
    """The word alignment of one trace (numpy only, for the window): what :func:`align_pairs` reads, per sentence.

    ``word_maps`` [layers, heads + 1, target words, source words] (last head = the mean); ``src_word`` and
    ``tgt_word`` give each source token's and each output token's word (None: a special token);
    ``links[layer][column]``; ``shift`` as in :func:`align_pairs`.
    """

    word_maps: np.ndarray
    src_word: tuple[int | None, ...]
    tgt_word: tuple[int | None, ...]
    links: tuple[tuple[frozenset[Link], ...], ...]
    shift: bool = False

    @property
    def n_words(self) -> tuple[int, int]:
        """(source words, target words)."""
        return self.word_maps.shape[3], self.word_maps.shape[2]

    def cells(self, link: Link) -> list[tuple[int, int]]:
        """The (row, column) cells of the cross-attention map that the word link ``link`` covers."""
        i, j = link
        rows = [t + int(self.shift) for t, w in enumerate(self.tgt_word) if w == j]
        cols = [s for s, w in enumerate(self.src_word) if w == i]
        return [(r, c) for r in rows for c in cols]

    def aer(self, gold: GoldAlignment) -> np.ndarray:
        """[layers, heads + 1]: this sentence's AER of every head and of each layer's mean against ``gold``."""
        return np.array([[aer(links, gold.sure, gold.possible) for links in row] for row in self.links])


def trace_alignment(cross: np.ndarray, src_tokens: Sequence[str], output_tokens: Sequence[str], *,
                    shift: bool = False, method: Method = "argmax", threshold: float = 0.5) -> TraceAlignment:
    """Word alignment of one teacher-forced trace's cross-attention ``cross`` [layers, heads, T, S] (module docstring)."""
    cross = np.asarray(cross, dtype=np.float64)
    src_word = word_index(list(src_tokens), [t in SPECIAL_TOKENS for t in src_tokens], False)
    tgt_word = word_index(list(output_tokens), [t in SPECIAL_TOKENS for t in output_tokens], False)
    n_src = 1 + max((w for w in src_word if w is not None), default=-1)
    n_tgt = 1 + max((w for w in tgt_word if w is not None), default=-1)
    n_rows = cross.shape[2]
    rows_of = np.zeros((n_tgt, n_rows))
    for t, w in enumerate(tgt_word):
        if w is not None and t + int(shift) < n_rows:
            rows_of[w, t + int(shift)] = 1.0
    rows_of /= np.maximum(rows_of.sum(-1, keepdims=True), 1.0)
    cols_of = np.zeros((cross.shape[3], n_src))
    for s, w in enumerate(src_word):
        if w is not None:
            cols_of[s, w] = 1.0
    with_mean = np.concatenate([cross, cross.mean(1, keepdims=True)], 1)
    maps = np.einsum("wt,lhts,sv->lhwv", rows_of, with_mean, cols_of)
    links = tuple(tuple(frozenset(_links(maps[layer, col], n_src, n_tgt, method, threshold))
                        for col in range(maps.shape[1])) for layer in range(maps.shape[0]))
    return TraceAlignment(maps, tuple(src_word), tuple(tgt_word), links, shift)
