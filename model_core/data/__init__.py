"""Training data for Attention Scope: toy translation grammars with gold alignments, algorithmic
tasks, and a reader for a user's own tab-separated corpus.

``generate(task, n, seed=..., split=...)`` is the one entry point for built-in tasks; the task
modules are importable for their helpers (``en_fr.translate``, ``en_zh.translate``,
``algorithmic.make_example``) and lexicons. ``typing_guide`` reads the grammars for what a learner can
type to a demo model (imported on its own: this package does not load it).
"""

from . import a1, algorithmic, en_fr, en_zh
from .corpus import TASKS, CorpusError, Example, generate, in_test_bucket, load_tsv, rehearsed
from .en_fr import GrammarError

__all__ = [
    "TASKS", "CorpusError", "Example", "GrammarError", "a1", "algorithmic", "en_fr", "en_zh", "generate", "in_test_bucket", "load_tsv",
    "rehearsed",
]
