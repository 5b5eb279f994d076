"""The window's controls: model picker, sentence inputs, stepping bar, map selectors, banners.

Why separate from the main window: these are plain Qt forms with no knowledge of the model or of
ScopeStore. Each emits intent signals ("the user chose layer 2") and exposes ``show_*`` methods the
window calls to mirror the state back (with signals blocked, so mirroring never loops back into
a change). That keeps the wiring in one place (``main_window.py``) and each form testable alone.
Every text is translated when the form is built (context "Controls"); item data keep the
identifiers (decoding methods, attention kinds, overlay names, milliseconds).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import ClassVar

from PySide6.QtCore import QEvent, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model_core import DecodingSettings
from model_core.decoding_settings import MAX_BEAM_WIDTH, MAX_SEED, MAX_TOP_K
from model_core.interpret.base import MapView
from model_core.interpret.registry import ANALYSES, of_view
from model_core.io.sessions import MAX_TEXT_CHARS
from viz_app.i18n import N_, analysis_label, analysis_summary, tr, tr_marked
from viz_app.scope.state import KINDS, OVERLAYS, OVERLAYS_FOR_KIND, kind_short_title
from viz_app.widgets import FlowLayout
from viz_app.widgets.heatmap import overlay_label

#: (DecodingSettings.method, marked display name)
METHODS: tuple[tuple[str, tuple[str, str]], ...] = (
    ("greedy", N_("Controls", "greedy")), ("sample", N_("Controls", "sampling")), ("beam", N_("Controls", "beam search")),
)
#: the maps' own view modes; the analyses' follow (model_core.interpret.registry: their labels are marked there)
MAP_MODE_LABELS: tuple[tuple[str, tuple[str, str]], ...] = (
    ("weights", N_("Controls", "weights")), ("scores", N_("Controls", "scores before softmax")),
)
#: how the maps' own modes use the controls (the analyses declare theirs): the weights read well on a log scale
_MAP_VIEWS = {"weights": MapView(log_scale=True, long_sentences=True), "scores": MapView(signed=True)}


def view_mode_labels() -> list[tuple[str, str]]:
    """Every view mode with its name in the UI language, in the picker's order."""
    return [(mode, tr_marked(label)) for mode, label in MAP_MODE_LABELS] + [
        (found.name, analysis_label(found)) for found in ANALYSES if found.view is not None]


def map_view_of(mode: str) -> MapView:
    """How ``mode`` uses the window's choices (kind, layer, head, log scale)."""
    found = of_view(mode)
    return _MAP_VIEWS[mode] if found is None else found.view or MapView()

SPEEDS: tuple[tuple[tuple[str, str], int], ...] = (
    (N_("Controls", "0.5 steps/s"), 2000), (N_("Controls", "1 step/s"), 1000), (N_("Controls", "2 steps/s"), 500),
    (N_("Controls", "4 steps/s"), 250), (N_("Controls", "8 steps/s"), 125),
)
#: overlay name -> marked tool tip of its check box
OVERLAY_TIPS: dict[str, tuple[str, str]] = {
    "source padding": N_("Controls", "Shade cells blocked because a source token is <pad>"),
    "target padding": N_("Controls", "Shade cells blocked because a target token is <pad>"),
    "causal": N_("Controls", "Shade cells blocked because a decoder position may not look at later positions"),
    "combined": N_("Controls", "Shade every blocked cell (all masks together)"),
}
OPEN_ITEM = "__open__"
#: The sentence panel asks for the height its wrapped chips need, but never for more than this share of the window.
MAX_INPUTS_SHARE = 0.45


def _blocked(*widgets: QWidget) -> list[QSignalBlocker]:
    return [QSignalBlocker(w) for w in widgets]


# ---------------------------------------------------------------------- model picker
class ModelPicker(QComboBox):
    """Bundled models, any model opened from a file, and "Open…" (which asks for a file)."""

    modelChosen = Signal(str)  # a bundled name or a path
    openRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolTip(tr("Controls", "Model: the bundled ones, or Open… a .safetensors checkpoint"))
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._current = ""
        self.activated.connect(self._on_activated)
        self.set_models({})

    def set_models(self, bundled: dict[str, Path], extra: Iterable[str] = ()) -> None:
        with QSignalBlocker(self):
            self.clear()
            if not bundled:
                self.addItem(tr("Controls", "(no model)"), "")
            for name in bundled:
                self.addItem(name, name)
            for key in extra:
                if key and key not in bundled:
                    self.addItem(Path(key).name, key)
            self.insertSeparator(self.count())
            self.addItem(tr("Controls", "Open…"), OPEN_ITEM)
        self.show_current(self._current)

    def keys(self) -> list[str]:
        return [self.itemData(i) for i in range(self.count()) if self.itemData(i) not in (None, "", OPEN_ITEM)]

    def show_current(self, key: str) -> None:
        """Select ``key`` (adding it for a model opened from a path) without emitting."""
        self._current = key
        with QSignalBlocker(self):
            index = self.findData(key) if key else self.findData("")
            if index < 0 and key:
                self.insertItem(max(self.count() - 2, 0), Path(key).name, key)
                self.setItemData(self.findData(key), key, Qt.ItemDataRole.ToolTipRole)
                index = self.findData(key)
            if index >= 0:
                self.setCurrentIndex(index)

    def _on_activated(self, index: int) -> None:
        data = self.itemData(index)
        if data == OPEN_ITEM:
            self.show_current(self._current)  # stay on the model until a file is chosen
            self.openRequested.emit()
        elif data and data != self._current:
            self.modelChosen.emit(str(data))


# ---------------------------------------------------------------------- inputs
class InputPanel(QWidget):
    """Source/target boxes with their token chips, decoding method and padding controls.

    ``edited`` fires on every keystroke or value change; the window debounces it.
    """

    edited = Signal()
    #: the height (pixels) the wrapped token chips need: more than the panel has now (the window's dock grows to it)
    heightWanted = Signal(int)

    def __init__(self, chips_factory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_picker = ModelPicker(self)
        self.source = QLineEdit(self)
        self.source.setMaxLength(MAX_TEXT_CHARS)  # Qt's default of 32,767 silently cut a pasted document
        self.source.setObjectName("sourceEdit")
        self.source.setPlaceholderText(tr("Controls", "type a sentence in the source language"))
        self.source.setClearButtonEnabled(True)
        self.target = QLineEdit(self)
        self.target.setMaxLength(MAX_TEXT_CHARS)
        self.target.setObjectName("targetEdit")
        self.target.setPlaceholderText(tr("Controls", "leave empty to let the model translate"))
        self.target.setClearButtonEnabled(True)
        self.target.setToolTip(tr("Controls", "Type a translation to teacher-force it; leave empty to let the model generate"))
        self.source_chips = chips_factory(self)
        self.target_chips = chips_factory(self)

        self.method = QComboBox(self)
        for key, label in METHODS:
            self.method.addItem(tr_marked(label), key)
        self.method.setToolTip(tr("Controls", "How the model chooses each next token when no target is typed"))
        off = tr("Controls", "off", "a spin box at its lowest value: the feature is disabled")
        self.temperature = QDoubleSpinBox(self, minimum=0.05, maximum=5.0, singleStep=0.1, decimals=2, value=1.0)
        self.temperature.setToolTip(tr("Controls", "Sampling temperature: below 1 sharper, above 1 flatter"))
        self.top_k = QSpinBox(self, minimum=0, maximum=MAX_TOP_K, value=0)
        self.top_k.setSpecialValueText(off)
        self.top_k.setToolTip(tr("Controls", "Sample only among the k most likely tokens (off = all)"))
        self.top_p = QDoubleSpinBox(self, minimum=0.05, maximum=1.0, singleStep=0.05, decimals=2, value=1.0)
        self.top_p.setToolTip(tr("Controls", "Nucleus sampling: the smallest set of tokens whose probability reaches p"))
        self.seed = QSpinBox(self, minimum=0, maximum=MAX_SEED, value=0)
        self.seed.setToolTip(tr("Controls", "Random seed of the sampler: the same seed gives the same sample"))
        self.beam_width = QSpinBox(self, minimum=1, maximum=MAX_BEAM_WIDTH, value=4)
        self.beam_width.setToolTip(tr("Controls", "Number of hypotheses kept at each step"))
        self.pad_src = QSpinBox(self, minimum=0, maximum=4096, value=0)
        self.pad_src.setSpecialValueText(off)
        self.pad_src.setToolTip(tr("Controls", "Add <pad> tokens to the source up to N tokens, to see the source-padding mask at work"))
        self.pad_tgt = QSpinBox(self, minimum=0, maximum=4096, value=0)
        self.pad_tgt.setSpecialValueText(off)
        self.pad_tgt.setToolTip(tr("Controls", "Add <pad> decoder inputs up to N, to see the target-padding mask at work"))
        self.mode_label = QLabel(self)
        self.mode_label.setObjectName("modeLabel")
        # the model's translation as text, and beside it the one its grammar gives (a demo model's sentence)
        self.translation = QLabel(self)
        self.translation.setObjectName("translationLabel")
        self.translation.setWordWrap(True)
        self.translation.setTextFormat(Qt.TextFormat.RichText)
        self.translation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.translation.hide()
        # its height is asked for with the chips' (wanted_height), never imposed: a minimum would raise the window's
        # minimum past a 1,280 × 720 screen once Compare and the lesson panels are open
        self.translation.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        # the labels' Alt+letters leave the menu bar's (F, G, S, M, V, H) to its menus: Alt+M opens the Model menu
        grid.addWidget(QLabel(tr("Controls", "Sou&rce"), self, buddy=self.source), 0, 0)
        grid.addWidget(self.source, 0, 1)
        grid.addWidget(self.source_chips, 1, 1)
        grid.addWidget(QLabel(tr("Controls", "&Target"), self, buddy=self.target), 2, 0)
        grid.addWidget(self.target, 2, 1)
        grid.addWidget(self.target_chips, 3, 1)
        grid.addWidget(self.translation, 4, 1)
        grid.setColumnStretch(1, 1)

        options_box = QWidget(self)
        self._options_box = options_box
        options = FlowLayout(options_box, spacing=2)  # wraps on narrow windows instead of forcing a minimum width
        options.setContentsMargins(0, 0, 0, 0)
        self._labelled: dict[str, QWidget] = {}
        for key, label, widget in (
            ("model", tr("Controls", "M&odel"), self.model_picker), ("method", tr("Controls", "&Decoding"), self.method),
            ("temperature", tr("Controls", "temp.", "sampling temperature"), self.temperature),
            ("top_k", tr("Controls", "top-k"), self.top_k), ("top_p", tr("Controls", "top-p"), self.top_p),
            ("seed", tr("Controls", "seed"), self.seed), ("beam_width", tr("Controls", "beams"), self.beam_width),
            ("pad_src", tr("Controls", "pad source to"), self.pad_src), ("pad_tgt", tr("Controls", "pad target to"), self.pad_tgt),
        ):
            box = QWidget(options_box)
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 0, 6, 0)
            row.setSpacing(4)
            row.addWidget(QLabel(label, box, buddy=widget))
            row.addWidget(widget)
            options.addWidget(box)
            self._labelled[key] = box
        options.addWidget(self.mode_label)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addWidget(options_box)
        layout.addLayout(grid)
        layout.addStretch(1)  # spare height goes below the boxes: the Source field never moves

        self.method.currentIndexChanged.connect(self._update_visibility)
        self.target.textChanged.connect(self._update_visibility)
        for edit in (self.source, self.target):
            edit.textEdited.connect(self.edited)
        self.method.currentIndexChanged.connect(self.edited)
        for spin in (self.temperature, self.top_k, self.top_p, self.seed, self.beam_width, self.pad_src, self.pad_tgt):
            spin.valueChanged.connect(self.edited)
        self._update_visibility()

    def set_compact(self, on: bool) -> None:
        """Presenter mode: the sentence boxes and their chips only (model and decoding choices hidden), so the map
        keeps the screen's height; leaving presenter mode shows them again."""
        self._options_box.setVisible(not on)
        # the translation line too: the target chips already show the words, and the banner says when the grammar
        # disagrees; on a 1,024 × 768 projector its lines would take the rows the map needs for every label
        self.translation.setVisible(not on and bool(self.translation.text()))

    def is_compact(self) -> bool:
        return self._options_box.isHidden()

    # ------------------------------------------------------------------ values
    # -- height: the chips' wrapped rows must be seen -----------------------------------------------------------
    def resizeEvent(self, event) -> None:  # Qt's name
        super().resizeEvent(event)
        self._ask_for_height()

    def event(self, event) -> bool:  # Qt's name
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # new chips (a longer sentence, a step), a new font size
            self._ask_for_height()
        return handled

    def wanted_height(self) -> int:
        """The height the wrapped chips need at this width, at most :data:`MAX_INPUTS_SHARE` of the window's."""
        layout = self.layout()
        if layout is None or self.width() <= 0:
            return 0
        need = layout.heightForWidth(self.width()) if layout.hasHeightForWidth() else layout.minimumSize().height()
        window = self.window()
        if window is not None and window is not self and window.height() > 0:
            need = min(need, int(window.height() * MAX_INPUTS_SHARE))
        return need

    def _ask_for_height(self) -> None:
        """Say (``heightWanted``) when the wrapped chips need more height than the panel has.

        A dock in QMainWindow's top area keeps the height it was given, whatever its content's height-for-width:
        a sentence whose chips wrapped to a second line had that line cut off (the orange chip of an unknown
        word among them), in presenter mode at 1,280 × 720 and at 1,366 × 768 in the normal layout. The window
        gives its dock the height (``resizeDocks``); a minimum height would also have kept the window from
        being made shorter.
        """
        if not self.isVisible():
            return
        need = self.wanted_height()
        if need > self.height():
            self.heightWanted.emit(need)

    def decoding_settings(self) -> DecodingSettings:
        return DecodingSettings(
            method=self.method.currentData(), temperature=self.temperature.value(), top_k=self.top_k.value(),
            top_p=self.top_p.value(), beam_width=self.beam_width.value(), seed=self.seed.value(),
        )

    def show_decoding(self, settings: DecodingSettings) -> None:
        with_blocked = _blocked(self.method, self.temperature, self.top_k, self.top_p, self.seed, self.beam_width)
        self.method.setCurrentIndex(max(self.method.findData(settings.method), 0))
        self.temperature.setValue(settings.temperature)
        self.top_k.setValue(settings.top_k)
        self.top_p.setValue(settings.top_p)
        self.seed.setValue(settings.seed)
        self.beam_width.setValue(settings.beam_width)
        del with_blocked
        self._update_visibility()

    def show_texts(self, src: str, tgt: str) -> None:
        """Mirror the state's sentences; leaves the boxes alone while they already say it (no cursor jump)."""
        for edit, text in ((self.source, src), (self.target, tgt)):
            if edit.text() != text:
                with QSignalBlocker(edit):
                    edit.setText(text)
        self._update_visibility()

    def show_translation(self, model: str | None, expected: str | None) -> None:
        """The model's translation as text and, for a sentence of its task's grammar, the grammar's beside it: marked
        ✓ when they agree, in red when the model's is wrong. None (a typed target, no result): hidden."""
        if model is None:
            self.translation.clear()
            self.translation.hide()
            return
        line = tr("Controls", "Translation: {text}").format(text=f"<b>{html.escape(model)}</b>")
        if expected is not None and expected == model:
            line += " &nbsp;✓ " + html.escape(tr("Controls", "as its grammar translates it"))
        elif expected is not None:
            line += " &nbsp;<span style='color:#c0392b'>✗ " + tr("Controls", "its grammar: {text}").format(
                text=f"<b>{html.escape(expected)}</b>") + "</span>"
        self.translation.setText(line)
        self.translation.setVisible(not self.is_compact())

    def set_font_point_size(self, pt: float) -> None:
        """Presenter mode and Ctrl +/−: the translation line grows with the chips (read from the back of a room)."""
        font = QFont(self.translation.font())
        font.setPointSizeF(pt)
        self.translation.setFont(font)

    def show_padding(self, pad_src: int, pad_tgt: int, limit: int | None = None) -> None:
        blockers = _blocked(self.pad_src, self.pad_tgt)
        if limit:
            self.pad_src.setMaximum(limit)
            self.pad_tgt.setMaximum(limit)
        self.pad_src.setValue(pad_src)
        self.pad_tgt.setValue(pad_tgt)
        del blockers

    def _update_visibility(self) -> None:
        method = self.method.currentData()
        forced = bool(self.target.text().strip())
        for key in ("temperature", "top_k", "top_p", "seed"):
            self._labelled[key].setVisible(method == "sample" and not forced)
        self._labelled["beam_width"].setVisible(method == "beam" and not forced)
        self._labelled["method"].setEnabled(not forced)
        self.mode_label.setText(tr("Controls", "teacher forcing the typed target") if forced else "")


# ---------------------------------------------------------------------- stepping
class StepBar(QWidget):
    """First / previous / play / next / last, a slider over steps 0..T and "step t / T"."""

    stepRequested = Signal(int)
    speedChanged = Signal(int)  # milliseconds per step

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(2)
        self.buttons: dict[str, QToolButton] = {}
        for key in ("first", "previous", "play", "next", "last"):
            button = QToolButton(self)
            button.setDefaultAction(actions[key])
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Space must reach the play action, not click a button
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
            layout.addWidget(button)
            self.buttons[key] = button
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("stepSlider")
        self.slider.setRange(0, 0)
        self.slider.setPageStep(1)
        self.slider.setToolTip(tr("Controls", "Decoding step: at step t the decoder has produced t tokens"))
        self.slider.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        layout.addWidget(self.slider, 1)
        self.label = QLabel(self._step_text(0, 0), self)
        self.label.setObjectName("stepLabel")
        self.label.setMinimumWidth(self.label.fontMetrics().horizontalAdvance(self._step_text("000", "000") + "  "))
        layout.addWidget(self.label)
        self.speed = QComboBox(self)
        for label, ms in SPEEDS:
            self.speed.addItem(tr_marked(label), ms)
        self.speed.setCurrentIndex(2)
        self.speed.setToolTip(tr("Controls", "Playback speed"))
        self.speed.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        layout.addWidget(self.speed)
        self.slider.valueChanged.connect(self.stepRequested)
        self.speed.currentIndexChanged.connect(lambda _i: self.speedChanged.emit(self.interval_ms()))

    def interval_ms(self) -> int:
        return int(self.speed.currentData())

    def set_font_point_size(self, pt: float) -> None:
        """Presenter mode: a step counter and transport buttons that read from the back of a room."""
        font = QFont(self.label.font())
        font.setPointSizeF(pt)
        font.setBold(pt >= 16)
        self.label.setFont(font)
        self.label.setMinimumWidth(QFontMetrics(font).horizontalAdvance(self._step_text("000", "000") + "  "))
        side = max(16, round(pt * 1.5))
        for button in self.buttons.values():
            button.setIconSize(QSize(side, side))

    def set_interval_ms(self, ms: int) -> None:
        index = min(range(self.speed.count()), key=lambda i: abs(int(self.speed.itemData(i)) - ms))
        self.speed.setCurrentIndex(index)

    def show_step(self, t: int, total: int) -> None:
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, total)
            self.slider.setValue(t)
        self.label.setText(self._step_text(t, total))

    @staticmethod
    def _step_text(t: int | str, total: int | str) -> str:
        return tr("Controls", "step {step} / {total}").format(step=t, total=total)


# ---------------------------------------------------------------------- selectors
class SelectorBar(QWidget):
    """Which map (kind, layer, head or mean) and how it looks (colour map, log scale, overlays)."""

    kindChosen = Signal(str)
    layerChosen = Signal(int)
    headChosen = Signal(object)  # int, or None for the mean of the heads
    colormapChosen = Signal(str)
    logScaleToggled = Signal(bool)
    overlayToggled = Signal(str, bool)
    viewModeChosen = Signal(str)

    def __init__(self, colormap_names: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = QComboBox(self)
        self.mode.setObjectName("modeCombo")
        for mode, label in view_mode_labels():
            self.mode.addItem(label, mode)
        self.mode.setToolTip(tr("Controls", "What the heatmap shows: the attention weights, the scores before the "
                                            "softmax, or an analysis (hover over one to read what it measures)"))
        #: each analysis says what it measures in its item's tool tip (the maps' own modes have none)
        self._mode_tips = [None] * len(MAP_MODE_LABELS) + [analysis_summary(of_view(self.mode.itemData(i)))
                                                           for i in range(len(MAP_MODE_LABELS), self.mode.count())]
        for index, tip in enumerate(self._mode_tips):
            self.mode.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        self.kind = QComboBox(self)
        self.kind.setObjectName("kindCombo")
        for kind in KINDS:
            self.kind.addItem(kind_short_title(kind), kind)
        self.layer = QSpinBox(self, minimum=0, maximum=0)
        self.layer.setObjectName("layerSpin")
        self.layer.setPrefix(tr("Controls", "L", "prefix of a layer number: L0, L1…"))
        self.layer.setToolTip(tr("Controls", "Layer (0 = closest to the input)"))
        self.head = QComboBox(self)
        self.head.setObjectName("headCombo")
        self.head.setToolTip(tr("Controls", "One head, or the mean of all heads of the layer"))
        self.colormap = QComboBox(self)
        for name in colormap_names:  # colour map names are proper names: never translated
            self.colormap.addItem(name, name)
        self.log_scale = QCheckBox(tr("Controls", "log scale"), self)
        self.log_scale.setToolTip(tr("Controls", "Colour by log(weight): makes small weights visible"))
        self.overlays: dict[str, QCheckBox] = {}
        self._applicable_overlays: tuple[str, ...] = tuple(OVERLAYS)  # the kind shown's masks (show_selection)
        self._view_uses_kind = True  # the view shows one kind's maps (show_display)

        flow = FlowLayout(self, spacing=6)  # wraps on narrow windows instead of forcing a minimum width
        flow.setContentsMargins(6, 2, 6, 2)
        for label, widget in ((tr("Controls", "Sho&w"), self.mode), (tr("Controls", "&Attention"), self.kind),
                              (tr("Controls", "La&yer"), self.layer),
                              (tr("Controls", "H&ead"), self.head), (tr("Controls", "&Colours"), self.colormap)):
            flow.addWidget(self._cell(QLabel(label, buddy=widget), widget))
        flow.addWidget(self.log_scale)
        masks: list[QWidget] = [QLabel(tr("Controls", "Masks:"))]
        for name in OVERLAYS:
            box = QCheckBox(overlay_label(name))
            box.setToolTip(tr_marked(OVERLAY_TIPS[name]))
            box.toggled.connect(lambda on, n=name: self.overlayToggled.emit(n, on))
            masks.append(box)
            self.overlays[name] = box
        flow.addWidget(self._cell(*masks))

        self.kind.currentIndexChanged.connect(lambda _i: self.kindChosen.emit(self.kind.currentData()))
        self.layer.valueChanged.connect(self.layerChosen)
        self.head.currentIndexChanged.connect(lambda _i: self.headChosen.emit(self.head.currentData()))
        self.colormap.currentIndexChanged.connect(lambda _i: self.colormapChosen.emit(self.colormap.currentData()))
        self.log_scale.toggled.connect(self.logScaleToggled)
        self.mode.currentIndexChanged.connect(lambda _i: self.viewModeChosen.emit(self.mode.currentData()))
        self.show_selection("cross", 0, None, 1, 1)

    def _cell(self, *widgets: QWidget) -> QWidget:
        """Widgets that wrap together as one unit (a label stays with its control)."""
        cell = QWidget(self)
        row = QHBoxLayout(cell)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        for widget in widgets:
            row.addWidget(widget)
        return cell

    def show_selection(self, kind: str, layer: int, head: int | None, n_layers: int, n_heads: int) -> None:
        blockers = _blocked(self.kind, self.layer, self.head)
        self.kind.setCurrentIndex(max(self.kind.findData(kind), 0))
        self.layer.setRange(0, max(n_layers - 1, 0))
        self.layer.setValue(layer)
        self.layer.setEnabled(n_layers > 1)
        if self.head.count() != n_heads + 1:
            self.head.clear()
            self.head.addItem(tr("Controls", "mean of heads"), None)
            for h in range(n_heads):
                self.head.addItem(tr("Controls", "H{head}", "short for head N").format(head=h), h)
        self.head.setCurrentIndex(0 if head is None else head + 1)
        self._applicable_overlays = OVERLAYS_FOR_KIND[kind]
        self._enable_overlays()
        del blockers

    def _enable_overlays(self) -> None:
        """A mask applies to the kind shown, and only to a view of one kind's maps (not a map of the whole decoding)."""
        for name, box in self.overlays.items():
            box.setEnabled(name in self._applicable_overlays and self._view_uses_kind)

    def show_display(self, colormap: str, log_scale: bool, overlays: dict[str, bool], mode: str = "weights",
                     modes: Sequence[str] | None = None) -> None:
        """``modes``: the view modes offered now (None: all); the others stay listed, greyed, with a tool tip saying
        why (a long sentence's maps are computed when shown)."""
        blockers = _blocked(self.colormap, self.log_scale, self.mode, *self.overlays.values())
        items = self.mode.model()
        for index in range(self.mode.count()):
            offered = modes is None or self.mode.itemData(index) in modes
            items.item(index).setEnabled(offered)
            self.mode.setItemData(index, self._mode_tips[index] if offered else tr(
                "Controls", "Not for a sentence this long: its maps are computed one at a time when shown"),
                Qt.ItemDataRole.ToolTipRole)
        self.mode.setCurrentIndex(max(self.mode.findData(mode), 0))
        view = map_view_of(mode)  # what the view uses of the choices (an analysis may combine every layer and head)
        for widget, used in ((self.kind, view.uses_kind), (self.layer, view.uses_layer), (self.head, view.uses_head)):
            widget.setEnabled(used and (widget is not self.layer or self.layer.maximum() > 0))
        self.log_scale.setEnabled(view.log_scale)  # signed or unbounded values: no log scale
        self._view_uses_kind = view.uses_kind
        self._enable_overlays()
        index = self.colormap.findData(colormap)
        if index >= 0:
            self.colormap.setCurrentIndex(index)
        self.log_scale.setChecked(log_scale)
        for name, box in self.overlays.items():
            box.setChecked(overlays.get(name, False))
        del blockers


# ---------------------------------------------------------------------- banner
class Banner(QFrame):
    """A non-modal message strip inside the window (errors, notices); closable, never blocks."""

    STYLES: ClassVar[dict[str, str]] = {
        "error": "background:#fde2e1; color:#7a1010; border:1px solid #e4a5a3;",
        "notice": "background:#fff4d6; color:#5c4400; border:1px solid #e6cf8f;",
        "hint": "background:#e3efff; color:#123a6b; border:1px solid #a9c4e8;",
    }

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.level = ""
        self.label = QLabel(self)
        # plain text always: a message quotes names from files (a model called "<b>x</b>" is shown as typed)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(tr("Controls", "Dismiss"))
        self.close_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.close_button.clicked.connect(self.dismiss)
        self.action_button = QPushButton(self)
        self.action_button.hide()
        self.action_button.clicked.connect(self._run_action)
        self._action = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 3, 3)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def text(self) -> str:
        return self.label.text()

    def set_action(self, text: str, callback) -> None:
        """A button in the banner that offers the way out (e.g. "Continue on the CPU")."""
        self._action = callback
        self.action_button.setText(text)
        self.action_button.show()

    def _run_action(self) -> None:
        callback = self._action
        if callback is not None:
            callback()

    def show_message(self, text: str, level: str = "error") -> None:
        self._action = None
        self.action_button.hide()
        self.level = level
        self.setStyleSheet(f"Banner {{{self.STYLES.get(level, '')} border-radius:3px;}} QLabel {{border:none;}}")
        self.label.setText(text)
        self.setVisible(bool(text))

    def dismiss(self) -> None:
        self._action = None
        self.action_button.hide()
        self.level = ""
        self.label.clear()
        self.hide()
