"""Atomic files for the exports: the names of :mod:`model_core.atomic`, where the rules (issue 16) and the code live.

Exclusive, unpredictable temporary files (``O_CREAT | O_EXCL | O_NOFOLLOW``: a link planted at any
guessed name is never followed), removed on any error, committed by rename. Kept here so the exports,
the ``export`` command and their tests go on importing ``viz_app.export.atomic``; imports neither Qt nor torch.
"""

from __future__ import annotations

from model_core.atomic import (
    TEMP_SUFFIX,
    atomic_file,
    atomic_output,
    check_target,
    new_temp,
    save_trace,
    write_bytes_atomic,
    write_text_atomic,
)

__all__ = ["TEMP_SUFFIX", "atomic_file", "atomic_output", "check_target", "new_temp", "save_trace", "write_bytes_atomic",
           "write_text_atomic"]
