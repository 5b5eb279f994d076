"""The "What can I type?" panel: the model's source words by part of speech, and sentences it translates right.

Why a panel: a demo model knows only its grammar's few hundred words, and anything else becomes
``<unk>`` and confident nonsense in front of a class. The teacher needs to see what the model can
take, and a click that puts a sentence showing one phenomenon (adjective order, ne … pas, plural
agreement, 的, measure words) in the source box. The content comes from
:func:`model_core.data.typing_guide.guide_for`; this widget only shows it, filters it and reports clicks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from viz_app.i18n import N_, tr, tr_marked

if TYPE_CHECKING:  # the grammars behind the guide load when a model arrives, not at start-up
    from model_core.data.typing_guide import TypingGuide

#: phenomenon key → marked display name
PHENOMENON_LABELS: dict[str, tuple[str, str]] = {
    "adjective_order": N_("TypingGuide", "Adjective order"),
    "negation": N_("TypingGuide", "Negation: ne … pas"),
    "plural_agreement": N_("TypingGuide", "Plural agreement"),
    "object_pronoun": N_("TypingGuide", "Object pronoun before the verb"),
    "contraction": N_("TypingGuide", "Contraction: de + le → du"),
    "de": N_("TypingGuide", "的: possession"),
    "measure_word": N_("TypingGuide", "Measure words"),
    "locative": N_("TypingGuide", "Place before the verb: 在…上"),
    "motion": N_("TypingGuide", "Motion verb + 到"),
    "to_be": N_("TypingGuide", "To be: am, is, are"),
    "question": N_("TypingGuide", "Questions"),
    "resultative": N_("TypingGuide", "Did not / cannot see: 没看见, 看不见"),
    "symbols": N_("TypingGuide", "Symbols"),
    "greeting": N_("TypingGuide", "Greetings and set phrases"),
    "bare_np": N_("TypingGuide", "A noun phrase alone: the black cat"),
    "there_is": N_("TypingGuide", "There is / there are"),
    "possessive": N_("TypingGuide", "Possessive 's"),
    "wh_question": N_("TypingGuide", "Where, who, what, how many?"),
    "comparative": N_("TypingGuide", "Comparatives: bigger than"),
    "progressive": N_("TypingGuide", "Present progressive: am eating"),
    "can": N_("TypingGuide", "Can / cannot: savoir, 会"),
    "partitive": N_("TypingGuide", "Partitives: du, de l', une tasse de"),
    "weather": N_("TypingGuide", "Weather and days"),
    "negation_zh": N_("TypingGuide", "Negation: 不, 没"),
}
#: word-class key → marked display name (the keys are model_core.data.typing_guide.WORD_CLASSES)
CLASS_LABELS: dict[str, tuple[str, str]] = {
    "noun": N_("TypingGuide", "Nouns"),
    "adjective": N_("TypingGuide", "Adjectives"),
    "verb": N_("TypingGuide", "Verbs"),
    "pronoun": N_("TypingGuide", "Pronouns"),
    "determiner": N_("TypingGuide", "Determiners"),
    "preposition": N_("TypingGuide", "Prepositions"),
    "function_word": N_("TypingGuide", "Function words"),
    "symbol": N_("TypingGuide", "Symbols"),
    "other": N_("TypingGuide", "Other words"),
}
#: at most this many words are listed per class before a filter narrows them (a 250,000-entry vocabulary
#: would otherwise build as many rows)
MAX_LISTED = 2000
_EXAMPLE_ROLE = Qt.ItemDataRole.UserRole
_WORD_ROLE = Qt.ItemDataRole.UserRole + 1


class TypingGuidePanel(QWidget):
    """Example sentences (a click puts one in the source box) over the vocabulary by class, with a filter."""

    exampleChosen = Signal(str)  # a source sentence
    wordChosen = Signal(str)  # a word double-clicked in the vocabulary

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._guide: TypingGuide | None = None
        self.intro = QLabel(self)
        self.intro.setWordWrap(True)
        self.examples_title = QLabel(tr("TypingGuide", "<b>Try a sentence</b> (click it: it goes to the source box)"), self)
        self.examples = QListWidget(self)
        self.examples.setObjectName("typingGuideExamples")
        self.examples.setWordWrap(True)
        self.examples.itemClicked.connect(self._on_example)
        self.examples.itemActivated.connect(self._on_example)
        self.words_title = QLabel(tr("TypingGuide", "<b>Words the model knows</b> (double-click one to add it)"), self)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("typingGuideFilter")
        self.filter.setPlaceholderText(tr("TypingGuide", "filter the words…"))
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.words = QTreeWidget(self)
        self.words.setObjectName("typingGuideWords")
        self.words.setHeaderHidden(True)
        self.words.setUniformRowHeights(True)
        self.words.itemDoubleClicked.connect(self._on_word)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.intro)
        layout.addWidget(self.examples_title)
        layout.addWidget(self.examples, 1)
        layout.addWidget(self.words_title)
        layout.addWidget(self.filter)
        layout.addWidget(self.words, 2)
        self.set_guide(None)

    # ------------------------------------------------------------------ data
    def set_guide(self, guide: TypingGuide | None) -> None:
        """Show ``guide`` (None: no model loaded)."""
        self._guide = guide
        self.examples.clear()
        self.words.clear()
        if guide is None:
            self.intro.setText(tr("TypingGuide", "No model is loaded."))
            self._show_sections(examples=False, words=False)
            return
        n_words = len(guide.words())
        if guide.task is None:
            self.intro.setText(tr("TypingGuide", "This model's source vocabulary ({count} entries), alphabetically. "
                                                 "A word it lacks is cut into pieces or becomes an unknown token.").format(
                count=f"{n_words:,}"))
        else:
            self.intro.setText(tr("TypingGuide", "This demo model learned a small grammar: it knows these {count} words "
                                                 "and nothing else; any other word becomes <unk>, and the translation "
                                                 "turns to nonsense.").format(count=f"{n_words:,}"))
        for example in guide.examples:
            label = PHENOMENON_LABELS.get(example.phenomenon)
            name = tr_marked(label) if label else example.phenomenon
            # the language's own colon: "形容词的位置：…" in Chinese (an ASCII ": " read as a slip there)
            item = QListWidgetItem(tr("TypingGuide", "{phenomenon}:  {sentence}").format(phenomenon=name,
                                                                                        sentence=example.source))
            item.setData(_EXAMPLE_ROLE, example.source)
            item.setToolTip(tr("TypingGuide", "The model translates it as: {target}").format(target=example.target))
            self.examples.addItem(item)
        for key, words in guide.classes:
            label = CLASS_LABELS.get(key)
            group = QTreeWidgetItem([f"{tr_marked(label) if label else key} ({len(words):,})"])
            group.setData(0, _WORD_ROLE, "")
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.words.addTopLevelItem(group)
        self._show_sections(examples=bool(guide.examples), words=True)
        self._apply_filter(self.filter.text())

    def set_font_point_size(self, pt: float) -> None:
        """Grow the lists (presenter mode)."""
        for widget in (self.intro, self.examples, self.words, self.filter, self.examples_title, self.words_title):
            font = QFont(widget.font())
            font.setPointSizeF(pt)
            widget.setFont(font)

    # ------------------------------------------------------------------ inspection
    def example_sources(self) -> list[str]:
        return [self.examples.item(i).data(_EXAMPLE_ROLE) for i in range(self.examples.count())]

    def class_titles(self) -> list[str]:
        return [self.words.topLevelItem(i).text(0) for i in range(self.words.topLevelItemCount())]

    def listed_words(self, class_index: int) -> list[str]:
        """The words shown under one class (after the filter; a "more" row is not a word)."""
        group = self.words.topLevelItem(class_index)
        words = [group.child(i).data(0, _WORD_ROLE) for i in range(group.childCount())]
        return [w for w in words if w]

    # ------------------------------------------------------------------ internals
    def _show_sections(self, *, examples: bool, words: bool) -> None:
        self.examples_title.setVisible(examples)
        self.examples.setVisible(examples)
        for widget in (self.words_title, self.filter, self.words):
            widget.setVisible(words)

    def _apply_filter(self, text: str) -> None:
        """List each class's words containing ``text`` (any case); classes with a match open, others close."""
        if self._guide is None:
            return
        needle = text.strip().casefold()
        self.words.setUpdatesEnabled(False)
        try:
            for index, (_key, words) in enumerate(self._guide.classes):
                group = self.words.topLevelItem(index)
                group.takeChildren()
                matches = [w for w in words if needle in w.casefold()] if needle else list(words)
                for word in matches[:MAX_LISTED]:
                    child = QTreeWidgetItem([word])
                    child.setData(0, _WORD_ROLE, word)
                    group.addChild(child)
                if len(matches) > MAX_LISTED:
                    more = QTreeWidgetItem([tr("TypingGuide", "… {count} more: type in the filter to narrow the list").format(
                        count=f"{len(matches) - MAX_LISTED:,}")])
                    more.setData(0, _WORD_ROLE, "")
                    more.setFlags(Qt.ItemFlag.ItemIsEnabled)
                    group.addChild(more)
                group.setHidden(bool(needle) and not matches)
                group.setExpanded(bool(needle) or len(self._guide.classes) == 1 or len(words) <= 20)
        finally:
            self.words.setUpdatesEnabled(True)

    def _on_example(self, item: QListWidgetItem) -> None:
        source = item.data(_EXAMPLE_ROLE)
        if source:
            self.exampleChosen.emit(str(source))

    def _on_word(self, item: QTreeWidgetItem, _column: int) -> None:
        word = item.data(0, _WORD_ROLE)
        if word:
            self.wordChosen.emit(str(word))
