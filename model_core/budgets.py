"""How much work an untrusted model file may ask for: every budget the loaders check, in one place.

Why budgets at all: a checkpoint is untrusted data, and its headers say how big things are before
anything is allocated: the length of a safetensors header, the uncompressed size of each member of a
``.pt`` zip, the shape and storage of each tensor, the dimensions in a configuration. Small files
can claim huge sizes (unchecked, a 17 KB ``.pth`` of stride-0 views loaded as a
1.07-billion-parameter model, a 3 MB zip bomb inflated to 3.3 GB, a 3 KB file built a
10.5 GB position table). Every such claim is compared with a budget below *before* the
allocation it would cause, and a file over budget gets one ``CheckpointError`` line that names what
it asked for and the limit.

How the values were chosen: the budgets on *claims* keep a refused file within the 3 GB of memory and 10 s
set for any single open on the 2-core, 24 GB machines this project runs on. Those
guarantees come from comparing what a file claims with the bytes it actually holds (a tensor's shape
with its storage or byte range, a configuration's sizes and parameter count with the weights' shapes
and values, a zip's declared sizes with the file's own size, a file's size with what is on disk), not
from a low cap on honest sizes: after those checks, what a file can make the app allocate is bounded
by the file itself, about twice its size while loading (its weights and the model built from them).
The caps on honest sizes (:data:`MAX_CHECKPOINT_BYTES`, :data:`MAX_PARAMETERS`) are therefore set by
the models users open: every member of a supported family up to t5-large (738 M parameters, 3 GB,
24 + 24 layers × 16 heads, the largest size meant to stay interactive) and mBART-large (611 M) fits,
and so do BART-large (406 M, 1.6 GB) and Marian opus-mt (74 M). The memory such a file takes is its own size, which the user chose
to open; what is refused is a file that asks for more than it is.

This module is plain constants (no torch), so the GUI, the command line and the docs can quote them.
"""

from __future__ import annotations

#: The largest weights file opened, in bytes (4 GiB): a ``.safetensors``, ``.pt``/``.pth``, or the weights of a
#: Hugging Face folder together. The largest models of the supported families fit: t5-large (738 M parameters,
#: 2.95 GB in float32), mBART-large (611 M, 2.44 GB; NLLB-200-distilled-600M is about the same size), BART-large
#: (406 M, 1.63 GB). Loading an honest file takes about twice its size (its weights and the model built from
#: them); that is the file the user chose to open. A hostile file cannot make this cost more than its size: the
#: comparisons of claims with bytes (shapes against storage, configuration against weights, zip sizes against
#: the file, holes against the file: :data:`MAX_SPARSE_HOLE_BYTES`) refuse it first. Checked with ``os.fstat``
#: before a byte is read.
MAX_CHECKPOINT_BYTES = 4 << 30

#: The most parameters a model built from a file may have (1.2 billion: 4.8 GB in float32). Counted from the
#: configuration (every embedding, layer, norm and table it implies) before the model is built. The largest
#: members of the supported families fit: t5-large 738 M, mBART-large 611 M (NLLB-200-distilled-600M about the same),
#: BART-large 406 M; t5-3b (2.85 B) does not. What keeps a configuration from describing far more than its file
#: holds (a thousand layers over one stored layer) is :data:`MAX_CLAIM_RATIO`, not this cap.
MAX_PARAMETERS = 1_200_000_000

#: How many parameters a configuration may describe per value its weights hold, and values per parameter (2,
#: plus :data:`MAX_CLAIM_SLACK`). An honest file holds exactly its model's parameters (a tied output matrix
#: aside), and every value it holds is bytes on disk, so this bounds what building a model allocates by the
#: file's own size: a configuration of 100 layers over one stored layer (315 M parameters over 3 M values), a
#: decoder vocabulary of ten million no tensor shows, or a 2 GB tensor the model has no place for, are refused
#: before anything is built or read. Smaller differences are left to the name-by-name comparison of the weights,
#: whose message names the weight.
MAX_CLAIM_RATIO = 2

#: The slack of :data:`MAX_CLAIM_RATIO` (1,048,576 values, 4 MB in float32), so that a tiny model missing one
#: weight is told which one rather than refused by a ratio.
MAX_CLAIM_SLACK = 1 << 20

#: The most bytes of a weights file that may be holes (64 MiB, and never more than half of the file). A sparse
#: file's holes take no disk and read as zeros: a valid header over a 2 GB hole is a few kilobytes on disk that
#: asks for 2 GB of memory and seconds of reading. Honest files are written out in full (``torch.save``,
#: safetensors, a finished download); a file mostly of holes is refused from ``fstat`` (``st_blocks × 512``
#: against ``st_size``) and ``SEEK_DATA``/``SEEK_HOLE``, reading nothing (``checkpoint.check_on_disk``; where the
#: system reports no blocks, as on Windows, the other checks bound the file).
MAX_SPARSE_HOLE_BYTES = 64 << 20

#: The most bytes the members of a ``.pt`` zip may declare uncompressed, summed, whatever the file's size (4 GiB,
#: as :data:`MAX_CHECKPOINT_BYTES`). The check that stops a zip bomb is relative to the file:
#: :data:`MAX_ZIP_UNCOMPRESSED_RATIO`.
MAX_ZIP_UNCOMPRESSED_BYTES = MAX_CHECKPOINT_BYTES

#: How many times its own size a ``.pt`` zip's members may declare uncompressed, summed (1.05, plus
#: :data:`MAX_ZIP_UNCOMPRESSED_SLACK`). ``torch.save`` stores members uncompressed, so an honest file's members add
#: up to a little less than the file. Read from the zip's central directory before ``torch.load`` inflates
#: anything (torch's reader allocates what the directory declares, then inflates): a 3 MB deflate bomb
#: declaring 3.3 GB is refused in milliseconds, and so would a bomb of any size, whatever
#: :data:`MAX_CHECKPOINT_BYTES` is.
MAX_ZIP_UNCOMPRESSED_RATIO = 1.05

#: The slack of :data:`MAX_ZIP_UNCOMPRESSED_RATIO` (1 MiB), for the smallest files (a few tensors of a few bytes).
MAX_ZIP_UNCOMPRESSED_SLACK = 1 << 20

#: The most members a ``.pt`` zip may list (65,536). A state_dict has one member per storage: a base-size
#: model ~200, with its optimizer state ~600. Checked from the end-of-directory record, before the
#: directory itself is parsed (a million members would cost ~0.5 GB of entries and seconds to list).
MAX_ZIP_MEMBERS = 1 << 16

#: The most bytes of structure a file may ask to be parsed (16 MiB): a safetensors JSON header (tensor table,
#: configuration and both tokenizers), a ``.pt``'s pickle (``data.pkl``) and central directory, a
#: ``config.json``, a vocabulary file. The app's own checkpoints carry well under 1 MB; a word tokenizer of
#: :data:`MAX_VOCAB` tokens is ~4 MB of JSON. Parsing 16 MB of JSON (a map of 940,000 words) takes ~1 s and
#: ~130 MB of Python objects; a 3.5-million-word tokenizer (55 MB) is refused from its header length.
MAX_METADATA_BYTES = 16 << 20

#: The largest tokenizer file of a Hugging Face folder (64 MiB: ``tokenizer.json``, ``vocab.json``, a
#: sentencepiece model). mBART-50's ``tokenizer.json`` (17 MB) is the largest of a supported family; these are
#: parsed by the tokenizers and sentencepiece libraries (Rust and C++), which need less memory per byte than
#: Python's JSON.
MAX_TOKENIZER_FILE_BYTES = 64 << 20

#: The most tokens a vocabulary may have (262,144 = 2¹⁸): mBART-50's 250,054 is the largest of a supported
#: family. Counted before the tokenizer is built (each token costs ~200 bytes in Python lists and dicts, and
#: the ``tokenizers`` library builds its own tables on top).
MAX_VOCAB = 1 << 18

#: The longest sequence a model may declare (``max_len``, a relative-bias distance, ``max_position_embeddings``):
#: 65,536. Long-sequence benchmarks go to 1,024 tokens; a trace at 65,536 would be far beyond any memory anyway.
MAX_POSITIONS = 1 << 16

#: The most elements of a position table computed rather than read (``max_len × d_model``: 2²⁵ = 33.5 M, e.g.
#: 65,536 positions × 512 or 8,192 × 4,096). The sinusoidal table is computed in float64 with temporaries,
#: ~16 bytes per element at the peak: 0.53 GB and 0.8 s at this size. A 65,536 × 8,192 table
#: (537 M elements, 10.5 GB while computed) is refused before it is built.
MAX_POSITION_TABLE_ELEMENTS = 1 << 25

#: How deeply the JSON read from a file may nest (32): configurations and tokenizers nest 3 to 6 levels.
#: Python's parser recurses, so a 100,000-deep ``[[[…]]]`` raises RecursionError, and a merely deep one would
#: reach code that walks it recursively later; both are refused with one line.
MAX_JSON_DEPTH = 32

#: The most bytes of float32 attention maps a trace keeps whole (1 GiB): every map of every kind, layer and head.
#: A base-size model (6 + 6 layers × 8 heads) reaches it near 1,300 tokens each side (604 MB at 1,024);
#: above it the maps are recomputed from each layer's queries and keys when shown (:mod:`model_core.inference.lazy_maps`),
#: a few MB per layer instead of gigabytes.
EAGER_MAPS_BYTES = 1 << 30

#: The most containers (lists, dicts, tuples, objects) a ``.pt``'s pickle may build (262,144), counted before
#: ``torch.load`` by :mod:`model_core.io.importers.pickle_scan`. Honest checkpoints hold a few thousand (a base model with
#: its optimizer state ~3,000); a pickle of lists nested 8 million deep fits in :data:`MAX_METADATA_BYTES` and took
#: about an hour to refuse through torch's Python unpickler and the tensor walk; at this budget both take ~2 s.
MAX_PICKLE_CONTAINERS = 1 << 18

#: The most items a ``.pt``'s pickle may hold in its containers together (4 M = 2²², counted before ``torch.load``):
#: a list of 15.5 M ``None`` is one container, and took 12.7 s to refuse (7 s in torch's unpickler). A state_dict
#: holds a few thousand; two pickled 262,144-token vocabularies (a list and a dict each) about a million.
MAX_PICKLE_ITEMS = 1 << 22

#: How many times longer a tokenizer's normalizers and pre-tokenizer may make a text in the worst case (100),
#: computed from their description before the tokenizer is built (:mod:`model_core.text.tokenizer_check`). Honest
#: pipelines stay well under it: NFKC at most 18 characters for one, BERT's normalizer 36 (CJK spaced, accents
#: split, lower-cased), byte-level 4. Each chained ``Replace`` a → aa doubles a text: 26 of them made a
#: 5-character sentence 335 MB and 7.4 GB of memory. Typed text is cut to the model's room before it
#: is tokenised (a few thousand characters), so 100 times that stays within tens of megabytes.
MAX_TOKENIZER_GROWTH = 100

#: The most characters a tokenizer's prepended text (``Prepend``, a ``Replace`` content) may add (4,096).
MAX_TOKENIZER_PREPEND_CHARS = 4096

#: The most characters a tokenizer's added tokens may hold together (1 M): the tokenizers library builds one
#: matcher over every added token when it loads, at about 60 bytes a character, and runs its normalizer over each.
#: 140,000 added tokens of 430 characters (a 60 MB ``tokenizer.json`` within every other budget) took 3.7 GB and
#: aborted the app; NLLB's 200 language codes and T5's 100 sentinels hold about 2,000.
MAX_ADDED_TOKEN_CHARS = 1 << 20

#: The longest affix a tokenizer's model may add to a piece (``continuing_subword_prefix``, ``end_of_word_suffix``;
#: 100 characters): it is copied into every piece tried, so a 20 MB WordPiece prefix made a 3-word text take 12 s.
#: Honest ones are "##", "</w>" and "▁".
MAX_TOKENIZER_AFFIX_CHARS = 100

#: The longest regular expression a tokenizer may carry (1,000 characters; GPT-2's split pattern is 90).
MAX_TOKENIZER_PATTERN_CHARS = 1000

#: The longest word a WordPiece model may try to split (``max_input_chars_per_word``; 200): WordPiece tries every
#: piece of a word from the longest down, so one word costs the cube of its length (4,000 characters took 3.8 s).
#: BERT and the tokenizers library use 100; a longer word becomes the unknown token, as it does there.
MAX_WORDPIECE_WORD_CHARS = 200

#: How long tokenising one typed text may take (5 s): a backstop behind the structural checks of
#: :mod:`model_core.text.tokenizer_check`, for costs they cannot see. A sentence of the model's length takes milliseconds.
TOKENIZE_SECONDS = 5.0

#: The address space a child process that tokenises with a tokenizer read from a file may take (1 GiB;
#: :mod:`model_core.text.tokenize_worker`): one starts at ~25 MB, and a typed text grown by at most
#: :data:`MAX_TOKENIZER_GROWTH` needs tens of megabytes more; what asks for more is stopped, not the app.
TOKENIZE_MEMORY_BYTES = 1 << 30

__all__ = [
    "EAGER_MAPS_BYTES",
    "MAX_ADDED_TOKEN_CHARS",
    "MAX_CHECKPOINT_BYTES",
    "MAX_CLAIM_RATIO",
    "MAX_CLAIM_SLACK",
    "MAX_JSON_DEPTH",
    "MAX_METADATA_BYTES",
    "MAX_PARAMETERS",
    "MAX_PICKLE_CONTAINERS", "MAX_PICKLE_ITEMS",
    "MAX_POSITIONS",
    "MAX_POSITION_TABLE_ELEMENTS",
    "MAX_SPARSE_HOLE_BYTES",
    "MAX_TOKENIZER_AFFIX_CHARS",
    "MAX_TOKENIZER_FILE_BYTES",
    "MAX_TOKENIZER_GROWTH",
    "MAX_TOKENIZER_PATTERN_CHARS",
    "MAX_TOKENIZER_PREPEND_CHARS",
    "MAX_VOCAB",
    "MAX_WORDPIECE_WORD_CHARS",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_UNCOMPRESSED_BYTES",
    "MAX_ZIP_UNCOMPRESSED_RATIO",
    "MAX_ZIP_UNCOMPRESSED_SLACK",
    "TOKENIZE_MEMORY_BYTES",
    "TOKENIZE_SECONDS",
]
