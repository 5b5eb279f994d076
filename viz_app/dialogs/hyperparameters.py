"""Asking for what a checkpoint's weights cannot tell: heads, norm position, vocabulary files, special tokens.

A tutorial's ``state_dict`` has no record of how attention was split into heads (nor, for the seed
tutorial, whether its norms sit before or after each sublayer), and its vocabularies live in
separate files. ``open_model`` then raises :class:`~model_core.io.importers.NeedsHyperparameters`
naming each missing value with proposals, most likely first; this dialog turns that error into one
field per value (the proposals in an editable combo box, the first preselected; a file picker for
a vocabulary) and returns the completed :class:`~model_core.io.importers.ImportOptions`. A special role the
vocabulary's names leave open (bos/eos/pad/unk) is a row of its special-looking tokens, the likely ones
first; the tokenization (app, whitespace, a ``tokenizer.json``) is offered whenever the dialog opens,
the one with the fewest unknown words first, and may be left as proposed.

:func:`options_from_answers` does the checking and is pure (no widgets), so it is tested directly;
the dialog only collects text and shows the first problem in place, never a second window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from model_core.io.importers import ImportOptions
from viz_app.i18n import N_, tr, tr_marked

VOCAB_OPTIONS = ("src_vocab", "tgt_vocab")
NORM_POSITIONS = ("pre", "post")
ACTIVATIONS = ("relu", "gelu")
ROLE_OPTIONS = ("bos", "eos", "pad", "unk")
#: options that may stay empty (then the importer uses its proposal)
OPTIONAL = ("tokenization",)
#: the tokenization answer meaning "the importer's proposal" (stored as no answer)
AUTO = "auto"
TOKENIZATIONS = ("app", "whitespace")
#: ImportOptions fields a dialog answer may set directly (anything else goes to ``extra``)
OPTION_FIELDS = tuple(f.name for f in fields(ImportOptions) if f.name != "extra")


class MissingOptions(Protocol):
    """What the dialog needs to know: ``NeedsHyperparameters`` itself, or the worker's ``OptionsNeeded``.

    ``proposals`` maps each missing option to its likely values (most likely first, [] for a file);
    the file is named by ``path`` (the error) or ``key`` (the worker's record of what was asked for).
    """

    proposals: dict[str, list[Any]]

#: option -> marked label (translated where shown)
LABELS: dict[str, tuple[str, str]] = {
    "heads": N_("HyperparametersDialog", "Attention heads"),
    "norm_position": N_("HyperparametersDialog", "Norm position"),
    "activation": N_("HyperparametersDialog", "Feed-forward activation"),
    "src_vocab": N_("HyperparametersDialog", "Source vocabulary"),
    "tgt_vocab": N_("HyperparametersDialog", "Target vocabulary"),
    "bos": N_("HyperparametersDialog", "Start token"),
    "eos": N_("HyperparametersDialog", "End token"),
    "pad": N_("HyperparametersDialog", "Padding token"),
    "unk": N_("HyperparametersDialog", "Unknown-word token"),
    "tokenization": N_("HyperparametersDialog", "Tokenization"),
}
#: option -> marked explanation shown as the field's tooltip and under the form
HELP: dict[str, tuple[str, str]] = {
    "heads": N_("HyperparametersDialog", "How the attention is split into heads; the model width must be divisible by it. "
                "The most likely value comes first."),
    "norm_position": N_("HyperparametersDialog", "pre: x + f(norm(x)); post: norm(x + f(x)), nn.Transformer's default "
                        "(norm_first=False). Both have the same weights, so only you can tell; the likelier comes first."),
    "activation": N_("HyperparametersDialog", "The function between the feed-forward's two layers: relu, nn.Transformer's "
                     "default, or gelu. The weights are the same either way, so only you can tell."),
    "src_vocab": N_("HyperparametersDialog", "The source vocabulary the model was trained with: one token per line, "
                    "or a JSON list; the line number is the id."),
    "tgt_vocab": N_("HyperparametersDialog", "The target vocabulary the model was trained with: one token per line, "
                    "or a JSON list; the line number is the id."),
    "bos": N_("HyperparametersDialog", "The vocabulary's token that starts a sentence (often <s>, <sos> or [CLS]). "
              "Its names leave it open, so only you can tell; it is shown under its own name."),
    "eos": N_("HyperparametersDialog", "The vocabulary's token that ends a sentence (often </s>, <eos> or [SEP])."),
    "pad": N_("HyperparametersDialog", "The vocabulary's padding token (often <pad>, <blank> or [PAD])."),
    "unk": N_("HyperparametersDialog", "The token for words the vocabulary lacks (often <unk> or [UNK])."),
    "tokenization": N_("HyperparametersDialog", "How text is cut before each piece is looked up: app (words and "
                       "punctuation apart), whitespace (only at spaces: for vocabularies with entries like n't or "
                       "E-Mail) or a tokenizer.json. The one with the fewest unknown words comes first."),
}


def option_label(key: str) -> str:
    """The translated label of an option (the option's own name for one this dialog does not know)."""
    return tr_marked(LABELS[key]) if key in LABELS else key


def options_from_answers(missing: Iterable[str], answers: Mapping[str, str], base: ImportOptions | None = None) -> ImportOptions:
    """``base`` completed with the typed ``answers`` for each ``missing`` option; ``base`` is never modified.

    Raises ``ValueError`` with a translated one-line message for the first answer that cannot be
    right: empty (the tokenization may be: the proposal is used), a head count that is not a positive
    whole number, a norm position other than pre/post, a vocabulary path that is not a file, a
    tokenization that is neither app, whitespace nor a file. Whether the head count divides the
    model width, or a special token is in the vocabulary, is left to the importer, which knows them.
    """
    options = replace(base, extra=dict(base.extra)) if base is not None else ImportOptions()
    for key in missing:
        text = str(answers.get(key, "")).strip()
        label = option_label(key)
        if key in OPTIONAL and text.lower() in ("", AUTO):
            setattr(options, key, None)  # the importer's proposal
            continue
        if not text:
            raise ValueError(tr("HyperparametersDialog", "{option}: please give a value").format(option=label))
        if key == "heads":
            if not text.isdigit() or int(text) <= 0:
                raise ValueError(tr("HyperparametersDialog", "{option}: {value} is not a positive whole number")
                                 .format(option=label, value=text))
            options.heads = int(text)
        elif key == "norm_position":
            if text.lower() not in NORM_POSITIONS:
                raise ValueError(tr("HyperparametersDialog", "{option}: choose pre or post, not {value}").format(option=label, value=text))
            options.norm_position = text.lower()
        elif key == "activation":
            if text.lower() not in ACTIVATIONS:
                raise ValueError(tr("HyperparametersDialog", "{option}: choose relu or gelu, not {value}").format(option=label, value=text))
            options.activation = text.lower()
        elif key in ROLE_OPTIONS:
            setattr(options, key, text)  # whether the vocabulary holds it is the importer's to say
        elif key == "tokenization":
            if text.lower() not in TOKENIZATIONS and not Path(text).expanduser().is_file():
                raise ValueError(tr("HyperparametersDialog", "{option}: choose app or whitespace, or give a tokenizer.json "
                                    "file; {value} is neither").format(option=label, value=text))
            options.tokenization = text.lower() if text.lower() in TOKENIZATIONS else str(Path(text).expanduser())
        elif key in VOCAB_OPTIONS:
            path = Path(text).expanduser()
            if not path.is_file():
                raise ValueError(tr("HyperparametersDialog", "{option}: {path} is not a file").format(option=label, path=str(path)))
            setattr(options, key, str(path))
        else:  # an option a newer importer asks for: passed through as text
            options.extra[key] = text
    return options


def answers_for(missing: Iterable[str], options: ImportOptions) -> dict[str, Any]:
    """Only the answered values of ``options`` as keyword arguments of ``ImportOptions`` (unknown ones under
    ``extra``): what the main window merges into the options it already tried and remembers per file."""
    out: dict[str, Any] = {}
    for key in missing:
        if key in OPTION_FIELDS:
            out[key] = getattr(options, key)
        else:
            out.setdefault("extra", {})[key] = options.extra.get(key)
    return out


def _file_of(needed: MissingOptions) -> Path:
    where = getattr(needed, "path", None) or getattr(needed, "key", "")
    return Path(str(where))


class HyperparametersDialog(QDialog):
    """One field per missing value (from ``NeedsHyperparameters`` or ``OptionsNeeded``); OK returns the filled options."""

    def __init__(self, error: MissingOptions, base: ImportOptions | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HyperparametersDialog")
        self.setWindowTitle(tr("HyperparametersDialog", "Settings the checkpoint does not record"))
        self._error = error
        self._file = _file_of(error)
        self._base = base
        self._options: ImportOptions | None = None
        self._fields: dict[str, QComboBox | QLineEdit] = {}
        self._browse: dict[str, QPushButton] = {}

        intro = QLabel(tr("HyperparametersDialog", "{file} holds the weights but not everything needed to rebuild the model. "
                          "Please complete:").format(file=self._file.name or str(self._file)))
        intro.setWordWrap(True)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        for key, proposals in error.proposals.items():
            form.addRow(option_label(key), self._make_field(key, proposals))
        self._problem = QLabel("")
        self._problem.setObjectName("problem")
        self._problem.setWordWrap(True)
        self._problem.setStyleSheet("color: #c62828;")
        self._problem.hide()
        self._buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self._buttons.accepted.connect(self._on_ok)
        self._buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self._problem)
        layout.addWidget(self._buttons)
        self.setMinimumWidth(520)

    # ------------------------------------------------------------------ fields
    def _make_field(self, key: str, proposals: list) -> QWidget:
        tip = tr_marked(HELP[key]) if key in HELP else ""
        if key in VOCAB_OPTIONS:
            edit = QLineEdit()
            edit.setObjectName(f"field_{key}")
            edit.setPlaceholderText(tr("HyperparametersDialog", "vocabulary file (.txt or .json)"))
            edit.setToolTip(tip)
            button = QPushButton(tr("HyperparametersDialog", "Browse…"))
            button.setObjectName(f"browse_{key}")
            button.clicked.connect(lambda _checked=False, k=key: self._choose_file(k))
            self._fields[key], self._browse[key] = edit, button
            row = QWidget()
            box = QHBoxLayout(row)
            box.setContentsMargins(0, 0, 0, 0)
            box.addWidget(edit, 1)
            box.addWidget(button)
            return row
        combo = QComboBox()
        combo.setObjectName(f"field_{key}")
        combo.setEditable(True)  # a value outside the proposals is always possible
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        combo.setMinimumContentsLength(12)  # room to type a value that is not proposed
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.addItems([str(v) for v in proposals])
        if proposals:
            combo.setCurrentIndex(0)
        combo.setToolTip(tip)
        self._fields[key] = combo
        if key != "tokenization":
            return combo
        button = QPushButton(tr("HyperparametersDialog", "Browse…"))
        button.setObjectName(f"browse_{key}")
        button.clicked.connect(lambda _checked=False, k=key: self._choose_file(k))
        self._browse[key] = button
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(combo, 1)
        box.addWidget(button)
        return row

    def _choose_file(self, key: str) -> None:
        start = str(self._file.parent)
        if key == "tokenization":
            title = tr("HyperparametersDialog", "Choose the tokenizer.json")
            kinds = tr("HyperparametersDialog", "Tokenizers (*.json);;All files (*)")
        else:
            title = tr("HyperparametersDialog", "Choose the vocabulary file")
            kinds = tr("HyperparametersDialog", "Vocabularies (*.txt *.json *.vocab);;All files (*)")
        path, _ = QFileDialog.getOpenFileName(self, title, start, kinds)
        if path:
            self.set_answer(key, path)

    # ------------------------------------------------------------------ answers
    def answers(self) -> dict[str, str]:
        """The text currently in each field."""
        return {k: (f.currentText() if isinstance(f, QComboBox) else f.text()) for k, f in self._fields.items()}

    def set_answer(self, key: str, text: str) -> None:
        """Put ``text`` in a field (a file chosen with Browse…, or a test)."""
        field = self._fields[key]
        if isinstance(field, QComboBox):
            field.setEditText(text)
        else:
            field.setText(text)

    def field(self, key: str) -> QComboBox | QLineEdit:
        return self._fields[key]

    def problem_text(self) -> str:
        """The message shown for an answer that cannot be right ("" when none)."""
        return self._problem.text()

    def options(self) -> ImportOptions | None:
        """The completed options after OK; None before that or after Cancel."""
        return self._options

    @Slot()
    def _on_ok(self) -> None:
        try:
            self._options = options_from_answers(self._fields, self.answers(), self._base)
        except ValueError as exc:
            self._problem.setText(str(exc))
            self._problem.show()
            return
        self._problem.clear()
        self._problem.hide()
        self.accept()

    @classmethod
    def ask(cls, error: MissingOptions, parent: QWidget | None = None, base: ImportOptions | None = None) -> ImportOptions | None:
        """Show the dialog modally; the completed options, or None when cancelled."""
        dialog = cls(error, base, parent)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        return dialog.options() if dialog.exec() == QDialog.DialogCode.Accepted else None


def ask_import_options(parent: QWidget | None, needed: MissingOptions) -> dict[str, Any] | None:
    """The main window's entry point: ask for what ``needed`` lacks; the answers as ``ImportOptions``
    keyword arguments (see :func:`answers_for`), or None when cancelled.

    ``needed.given`` (the worker's ``OptionsNeeded``: the options already tried) seeds the dialog, so
    a vocabulary chosen before is not asked again.
    """
    given = dict(getattr(needed, "given", None) or {})
    known = {k: v for k, v in given.items() if k in OPTION_FIELDS or k == "extra"}
    base = ImportOptions(**known)
    options = HyperparametersDialog.ask(needed, parent, base)
    return None if options is None else answers_for(needed.proposals, options)
