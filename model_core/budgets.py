"""How much work an untrusted model file may ask for: every budget the loaders check, in one place.

Why budgets at all: a checkpoint is untrusted data, and its headers say how big things are before
anything is allocated: the length of a safetensors header, the uncompressed size of each member of a
``.pt`` zip, the shape and storage of each tensor, the dimensions in a configuration. Issue 16 found
small files that claimed huge sizes (a 17 KB ``.pth`` of stride-0 views that loaded as a
1.07-billion-parameter model, a 3 MB zip bomb that inflated to 3.3 GB, a 3 KB file that built a
10.5 GB position table). Every such claim is now compared with a budget below *before* the
allocation it would cause, and a file over budget gets one ``CheckpointError`` line that names what
it asked for and the limit.

How the values were chosen: a file that is refused, and a file that is accepted, must both stay
within the 3 GB of memory and 10 s that issue 16 sets for any single open on the 2-core, 24 GB
machines this project runs on. Loading holds the file's weights and the model built from them at
the same time (about twice the weights in float32), on top of ~0.5 GB of interpreter, torch and,
for Hugging Face folders, transformers. Every model family the app is meant to show fits with room
to spare: the tutorials' base size is 60 M parameters (240 MB), Marian opus-mt 74 M (300 MB),
BART-base 140 M, t5-base 223 M (890 MB). Bigger models (BART-large, mBART, T5-large) are refused
with a line saying so: the app is for watching attention, not for serving large models.

This module is plain constants (no torch), so the GUI, the command line and the docs can quote them.
"""

from __future__ import annotations

#: The largest weights file opened, in bytes (1 GiB): a ``.safetensors``, ``.pt``/``.pth``, or one file of a
#: Hugging Face folder. Peak memory while loading is about this plus the model built from it (another 1 GB at
#: :data:`MAX_PARAMETERS`) plus ~0.5 GB of libraries: under 3 GB. Also leaves room for a training checkpoint
#: that carries its optimizer state beside the weights (Adam: three times the weights of a 60 M model).
#: Checked with ``os.fstat`` before a byte is read, so a 2 GB sparse file is refused at once.
MAX_CHECKPOINT_BYTES = 1 << 30

#: The most parameters a model built from a file may have (250 M: 1 GB in float32). Counted from the
#: configuration (every embedding, layer, norm and table it implies) before the model is built, so a
#: configuration that claims a thousand layers over one stored layer is refused, not allocated.
#: t5-base (223 M) is the largest model of a supported family that fits.
MAX_PARAMETERS = 250_000_000

#: The most bytes the members of a ``.pt`` zip may declare uncompressed, summed (1 GiB, as
#: :data:`MAX_CHECKPOINT_BYTES`): ``torch.save`` stores members uncompressed, so a real file's members add up to
#: about its own size. Read from the zip's central directory before ``torch.load`` inflates anything: a 3 MB
#: deflate bomb declaring 3.3 GB is refused in milliseconds. (torch's reader allocates what the directory
#: declares and stops there, so a member cannot inflate past its declared size.)
MAX_ZIP_UNCOMPRESSED_BYTES = MAX_CHECKPOINT_BYTES

#: The most members a ``.pt`` zip may list (65,536). A state_dict has one member per storage: a base-size
#: model ~200, with its optimizer state ~600. Checked from the end-of-directory record, before the
#: directory itself is parsed (a million members would cost ~0.5 GB of entries and seconds to list).
MAX_ZIP_MEMBERS = 1 << 16

#: The most bytes of structure a file may ask to be parsed (16 MiB): a safetensors JSON header (tensor table,
#: configuration and both tokenizers), a ``.pt``'s pickle (``data.pkl``) and central directory, a
#: ``config.json``, a vocabulary file. The app's own checkpoints carry well under 1 MB; a word tokenizer of
#: :data:`MAX_VOCAB` tokens is ~4 MB of JSON. Parsing 16 MB of JSON (a map of 940,000 words) takes ~1 s and
#: ~130 MB of Python objects; the 3.5-million-word tokenizer of issue 16 (55 MB) is refused from its header length.
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
#: ~16 bytes per element at the peak: 0.53 GB and 0.8 s at this size. The 65,536 × 8,192 table of issue 16
#: (537 M elements, 10.5 GB while computed) is refused before it is built.
MAX_POSITION_TABLE_ELEMENTS = 1 << 25

#: How deeply the JSON read from a file may nest (32): configurations and tokenizers nest 3 to 6 levels.
#: Python's parser recurses, so a 100,000-deep ``[[[…]]]`` raises RecursionError, and a merely deep one would
#: reach code that walks it recursively later; both are refused with one line.
MAX_JSON_DEPTH = 32

__all__ = [
    "MAX_CHECKPOINT_BYTES", "MAX_JSON_DEPTH", "MAX_METADATA_BYTES", "MAX_PARAMETERS", "MAX_POSITIONS",
    "MAX_POSITION_TABLE_ELEMENTS", "MAX_TOKENIZER_FILE_BYTES", "MAX_VOCAB", "MAX_ZIP_MEMBERS", "MAX_ZIP_UNCOMPRESSED_BYTES",
]
