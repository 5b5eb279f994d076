"""Every user-visible string goes through Qt's translation system (see viz_app/i18n).

Three checks, from cheap to thorough:
1. the extractor finds no malformed ``tr``/``N_`` call anywhere in viz_app;
2. an AST lint finds no string literal handed straight to a Qt text setter or widget constructor in
   :data:`CHECKED_MODULES` (opt out of one line with ``# i18n: not user text``);
3. with a fake translation installed (every message becomes ``⟦source⟧``), the converted widgets
   are built and every text they show must come out bracketed: any letter outside ``⟦…⟧`` is a
   string that bypassed :func:`viz_app.i18n.tr`. :func:`untranslated_texts` and the
   ``fake_translation`` fixture are meant to be reused for the main window.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtGui
from PySide6.QtCore import Qt, QTranslator
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QGraphicsTextItem,
    QGraphicsView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTabWidget,
    QWidget,
)

from viz_app.i18n import extract, tr

ROOT = Path(__file__).resolve().parents[2]

#: Modules whose Qt text calls must all go through tr (to be extended to every viz_app module).
CHECKED_MODULES: list[str] = [
    "viz_app/widgets/controls.py",
    "viz_app/scope/state.py",
    "viz_app/workers/model_worker.py",
    "viz_app/widgets/chips.py",
    "viz_app/widgets/colormaps.py",
    "viz_app/widgets/heatmap.py",
    "viz_app/widgets/mosaic.py",
    "viz_app/widgets/next_token.py",
    "viz_app/widgets/positional.py",
]
OPT_OUT = "# i18n: not user text"
#: Qt (and pyqtgraph) methods whose positional string arguments are shown to the user.
TEXT_SETTERS = frozenset({
    "setText", "setToolTip", "setStatusTip", "setWhatsThis", "setWindowTitle", "setPlaceholderText", "setTitle", "addTab",
    "insertTab", "setTabText", "setTabToolTip", "addMenu", "addAction", "setLabelText", "showMessage", "setHtml", "setItemText",
    "setHorizontalHeaderLabels", "setVerticalHeaderLabels", "setHeaderLabels", "setSpecialValueText", "setPrefix", "setSuffix",
    "setLabel",
})
#: Methods whose text is one argument among data (e.g. ``addItem(text, user_data)``): only that one is checked.
TEXT_ARGUMENT = {"addItem": 0, "insertItem": 1}
#: Constructors whose positional string arguments are shown to the user.
TEXT_CONSTRUCTORS = frozenset({
    "QLabel", "QPushButton", "QCheckBox", "QRadioButton", "QAction", "QGroupBox", "QToolButton", "QMessageBox", "QDockWidget",
    "QMenu", "TextItem", "LabelItem",
})
#: Keyword arguments (Qt properties, pyqtgraph titles) that are shown to the user, whatever the call.
TEXT_KEYWORDS = frozenset({"text", "title", "toolTip", "statusTip", "whatsThis", "windowTitle", "placeholderText",
                           "specialValueText", "prefix", "suffix"})
#: pyqtgraph's ``setLabel("bottom", text)`` names the axis first: those names are not text.
AXIS_NAMES = frozenset({"left", "right", "top", "bottom"})
MARKERS = frozenset({"tr", "N_", "tr_marked"})


_MARKUP = re.compile(r"<[^<>]*>|&#?\w+;")


def _has_words(literal: str) -> bool:
    """Letters outside HTML markup (tags, their attributes and entities are not text)."""
    return any(c.isalpha() for c in _MARKUP.sub(" ", literal))


def _has_untranslated_literal(node: ast.AST) -> bool:
    """True when ``node`` is (or builds a string from) a literal with words that no tr() call wraps."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and _has_words(node.value)
    if isinstance(node, ast.JoinedStr):  # the literal parts, with a stand-in for each {value}
        return _has_words("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
    if isinstance(node, ast.BinOp):
        return _has_untranslated_literal(node.left) or _has_untranslated_literal(node.right)
    if isinstance(node, ast.IfExp):
        return _has_untranslated_literal(node.body) or _has_untranslated_literal(node.orelse)
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_has_untranslated_literal(e) for e in node.elts)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in MARKERS:
            return False
        if isinstance(func, ast.Attribute):
            if func.attr == "escape":  # html.escape("text")
                return any(_has_untranslated_literal(a) for a in node.args)
            return _has_untranslated_literal(func.value)  # "text {x}".format(...)
    return False


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def lint_source(text: str, path: str) -> list[str]:
    """``path:line: call`` for each literal text handed to a Qt text setter or widget constructor."""
    lines = text.splitlines()
    problems: list[str] = []
    for node in ast.walk(ast.parse(text, filename=path)):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        if name in TEXT_SETTERS or name in TEXT_CONSTRUCTORS:
            candidates = [a for a in node.args
                          if not (name == "setLabel" and isinstance(a, ast.Constant) and a.value in AXIS_NAMES)]
        elif name in TEXT_ARGUMENT:
            index = TEXT_ARGUMENT[name]
            candidates = node.args[index:index + 1]
        else:
            candidates = []
        candidates += [k.value for k in node.keywords if k.arg in TEXT_KEYWORDS]
        if not any(_has_untranslated_literal(a) for a in candidates):
            continue
        span = lines[node.lineno - 1:(node.end_lineno or node.lineno)]
        if any(OPT_OUT in line for line in span):
            continue
        problems.append(f"{path}:{node.lineno}: {name}(...) is given text that does not go through tr()")
    return problems


# ---------------------------------------------------------------------- static checks
def test_extractor_finds_no_malformed_calls():
    messages, bad = extract.scan()
    assert [f"{b.path}:{b.line}: {b.why}" for b in bad] == []
    assert len(messages) > 100
    contexts = {m.context for m in messages}
    assert {"Heatmap", "HeadMosaic", "TokenChips", "NextToken", "Positional", "Controls", "State", "Worker", "Overlays"} <= contexts


def test_checked_modules_pass_no_literal_text_to_qt():
    problems: list[str] = []
    for rel in CHECKED_MODULES:
        problems += lint_source((ROOT / rel).read_text(encoding="utf-8"), rel)
    assert problems == [], "\n".join(problems)


def test_the_lint_catches_literal_text_and_honours_the_opt_out():
    source = '''
label = QLabel("Hello", parent)
label.setText(f"step {t} of {n}")
label.setToolTip("Open" if a else tr("C", "Close"))
combo.addItem("greedy", "greedy")
combo.addItem(tr("C", "sampling"), "sample")
plot.setLabel("bottom", "position")
plot.setLabel("left", tr("C", "position"))
view.addPlot(title="weights")
table.setHorizontalHeaderLabels([tr("C", "a"), "score"])
box.setText("0.5")
button.setText("✕")
spin.setSpecialValueText(tr("C", "off"))
status.showMessage("{n} done".format(n=3))
axis.setTitle(html.escape("query"))
chip.setText(token)  # a variable: the lint cannot know, the widget test does
number.setText("1e-4")  # i18n: not user text
message.setText(f"<p style='font-size:{pt:g}pt'><b>{html.escape(tr('C', 'text'))}</b></p>")
message.setText(f"<p style='font-size:{pt:g}pt'>Some words</p>")
'''
    lines = sorted(int(p.split(":")[1]) for p in lint_source(source, "x.py"))
    assert lines == [2, 3, 4, 5, 7, 9, 10, 14, 15, 19]


# ---------------------------------------------------------------------- fake translation
FAKE_OPEN, FAKE_CLOSE = "⟦", "⟧"


@pytest.fixture(scope="session")
def fake_qm(tmp_path_factory) -> Path:
    """A .qm translating every message of viz_app to ``⟦source⟧`` (placeholders kept)."""
    messages, bad = extract.scan()
    assert not bad
    folder = tmp_path_factory.mktemp("fake_translation")
    ts, qm = folder / "fake.ts", folder / "fake.qm"
    known = {m.key: (FAKE_OPEN + m.source + FAKE_CLOSE, True) for m in messages}
    extract.write_ts(ts, "zh_CN", messages, known, keep_vanished=False)
    extract.compile_ts(ts, qm)
    return qm


@pytest.fixture
def fake_translation(qapp, fake_qm) -> Iterator[QTranslator]:
    """The fake translation installed in the running QApplication for one test, removed afterwards."""
    translator = QTranslator()
    assert translator.load(str(fake_qm))
    assert qapp.installTranslator(translator)
    try:
        yield translator
    finally:
        qapp.removeTranslator(translator)


def outside_brackets(text: str) -> str:
    """``text`` without its ``⟦…⟧`` parts (nested ones included): what no translation produced."""
    out, depth = [], 0
    for ch in text:
        if ch == FAKE_OPEN:
            depth += 1
        elif ch == FAKE_CLOSE and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def is_translated(text: str) -> bool:
    """True when every letter of ``text`` lies inside a fake-translated ``⟦…⟧`` part."""
    return not any(c.isalpha() for c in outside_brackets(text))


def _plain(text: str, rich: bool | None = None) -> str:
    if rich is None:
        rich = QtGui.Qt.mightBeRichText(text)
    if not rich:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def _label_is_rich(label: QLabel) -> bool:
    fmt = label.textFormat()
    return fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(label.text()))


def shown_texts(root: QWidget) -> Iterator[tuple[QWidget, str, str]]:
    """(widget, where, plain text) for the texts ``root`` and its children show (hidden ones included).

    Covers labels, buttons, tool/status tips, placeholders, spin box prefixes and special values,
    combo box items and their tips, tab texts, item-view headers, group box titles, and in every
    QGraphicsView (pyqtgraph) the text items of its scene: plot titles, axis titles, legends, labels.
    User input (line edit contents, spin box values) and tick labels are not texts of the UI.
    """
    for w in [root, *root.findChildren(QWidget)]:
        for where, text in _texts_of(w):
            yield w, where, text


def _texts_of(w: QWidget) -> Iterator[tuple[str, str]]:
    where = f"{type(w).__name__}({w.objectName()})"
    for kind, text in (("toolTip", w.toolTip()), ("statusTip", w.statusTip()), ("whatsThis", w.whatsThis())):
        yield f"{where}.{kind}", _plain(text)
    if w.isWindow():
        yield f"{where}.windowTitle", w.windowTitle()
    if isinstance(w, QLabel):
        yield f"{where}.text", _plain(w.text(), _label_is_rich(w))
    elif isinstance(w, QAbstractButton):
        yield f"{where}.text", w.text()
    elif isinstance(w, QLineEdit):
        yield f"{where}.placeholderText", w.placeholderText()
    elif isinstance(w, QGroupBox):
        yield f"{where}.title", w.title()
    if isinstance(w, QAbstractSpinBox):
        yield f"{where}.specialValueText", w.specialValueText()
        for kind in ("prefix", "suffix"):
            if hasattr(w, kind):
                yield f"{where}.{kind}", getattr(w, kind)()
    if isinstance(w, QComboBox):
        for i in range(w.count()):
            yield f"{where}.item[{i}]", w.itemText(i)
            yield f"{where}.item[{i}].toolTip", _plain(str(w.itemData(i, Qt.ItemDataRole.ToolTipRole) or ""))
    if isinstance(w, QTabWidget):
        for i in range(w.count()):
            yield f"{where}.tab[{i}]", w.tabText(i)
            yield f"{where}.tab[{i}].toolTip", _plain(w.tabToolTip(i))
    if isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView) and w.model() is not None:  # a header shows its view's
        model = w.model()
        for i in range(model.columnCount()):
            yield f"{where}.header[{i}]", str(model.headerData(i, Qt.Orientation.Horizontal) or "")
    if isinstance(w, QGraphicsView) and w.scene() is not None:
        for item in w.scene().items():
            if isinstance(item, QGraphicsTextItem):
                yield f"{where}.{type(item.parentItem()).__name__}", item.toPlainText()
            if item.toolTip():
                yield f"{where}.{type(item).__name__}.toolTip", _plain(item.toolTip())


def plug_in_texts() -> set[str]:
    """The texts analysis plug-ins carry with their own Chinese (``Analysis.zh``, read by ``viz_app.i18n.analysis_text``
    and checked by ``tests/core/test_analysis_plugins.py``), not through Qt's translator: not a bypass of ``tr()``."""
    from model_core.interpret.registry import ANALYSES

    return {text for found in ANALYSES for text in found.zh}


def untranslated_texts(root: QWidget, *, ignore: Collection[str] = (), ignore_widgets: Collection[QWidget] = ()) -> list[str]:
    """What ``root`` shows that did not come through the (fake) translation, as ``where: text``; a plug-in's text
    (:func:`plug_in_texts`) is translated by the plug-in itself.

    ``ignore``: data shown as is (tokens, model names); ``ignore_widgets``: widgets whose texts are
    all data (e.g. the colour-map combo: colour map names are proper names). Texts without letters
    (numbers, symbols such as ✕) need no translation.
    """
    skipped = {id(w) for w in ignore_widgets}
    own = plug_in_texts()
    return [f"{where}: {text!r}" for widget, where, text in shown_texts(root)
            if text and text not in ignore and text not in own and id(widget) not in skipped and not is_translated(text)]


def assert_all_translated(root: QWidget, **kwargs) -> None:
    found = untranslated_texts(root, **kwargs)
    assert found == [], "texts that bypass tr():\n" + "\n".join(found)


def _attention(q: int, k: int) -> np.ndarray:
    x = np.random.default_rng(0).random((q, k)).astype(np.float32)
    return x / x.sum(1, keepdims=True)


TOKENS = ["<bos>", "le", "chat", "<pad>"]


# ---------------------------------------------------------------------- the converted widgets
def test_the_fake_translation_is_installed_and_removed(qapp, fake_qm):
    assert tr("Heatmap", "query") == "query"
    translator = QTranslator()
    assert translator.load(str(fake_qm))
    qapp.installTranslator(translator)
    try:
        assert tr("Heatmap", "query") == "⟦query⟧"
        assert tr("Worker", "{count} source words not in the vocabulary, shown as <unk>").format(count=3) == \
            "⟦3 source words not in the vocabulary, shown as <unk>⟧"
    finally:
        qapp.removeTranslator(translator)
    assert tr("Heatmap", "query") == "query"


def test_the_check_sees_english_text(qtbot):
    """Without a translation the helper must complain (so a pass below means something)."""
    from viz_app.widgets import COLORMAP_NAMES, AttentionHeatmap
    from viz_app.widgets.controls import SelectorBar

    heatmap = AttentionHeatmap()
    qtbot.addWidget(heatmap)
    heatmap.set_matrix(_attention(4, 4), TOKENS, TOKENS)
    assert any("query" in t for t in untranslated_texts(heatmap))
    bar = SelectorBar(COLORMAP_NAMES)
    qtbot.addWidget(bar)
    assert any("log scale" in t for t in untranslated_texts(bar, ignore_widgets=[bar.colormap]))


def test_heatmap_texts_are_translated(qtbot, fake_translation):
    from viz_app.widgets import AttentionHeatmap

    w = AttentionHeatmap()
    qtbot.addWidget(w)
    w.set_matrix(_attention(4, 4), TOKENS, TOKENS, title="⟦a title from the window⟧", current_row=1, visible_rows=2)
    causal = np.tril(np.ones((4, 4), bool))
    w.set_overlays({"causal": causal, "combined": causal})
    w.set_log_scale(True)
    assert_all_translated(w, ignore=TOKENS)
    assert w.plot_item().titleLabel.text.startswith("⟦⟦a title from the window⟧")
    assert w.legend_text() == "⟦combined⟧, ⟦causal⟧"  # drawn in this order: the specific mask over "combined"
    assert is_translated(w.tooltip_for(0, 1)) and is_translated(w.tooltip_for(3, 1))
    assert w.tooltip_for(3, 1).startswith("⟦query ⟦'<pad>'⟧ → key ⟦'le'⟧: not computed yet")  # the quotes too


def test_mosaic_texts_are_translated(qtbot, fake_translation):
    from viz_app.widgets import HeadMosaic

    w = HeadMosaic()
    qtbot.addWidget(w)
    maps = np.stack([np.stack([_attention(3, 3)] * 2)] * 2)
    w.set_maps(maps, selected=(1, 1), blocked=~np.tril(np.ones((3, 3), bool)), current_row=1, visible_rows=2)
    assert_all_translated(w)
    assert [t for _p, t in w._left.labels()] == ["⟦L0⟧", "⟦L1⟧"]
    assert [t for _p, t in w._top.labels()] == ["⟦H0⟧", "⟦H1⟧"]
    assert is_translated(w.tile_tooltip(1, 0))


def test_chips_texts_are_translated(qtbot, fake_translation):
    from viz_app.widgets import TokenChips

    w = TokenChips()
    qtbot.addWidget(w)
    tokens = ["<bos>", "le", "猫", "<unk>", "<pad>", "<eos>"]
    w.set_tokens(tokens, current=1)
    assert w.chip_texts() == tokens  # tokens are never translated
    assert_all_translated(w, ignore=tokens)
    first, *rest = w.chip_widget(3).toolTip().split("\n")
    assert first == "⟦token 3: ⟦'<unk>'⟧ (⟦unknown⟧)⟧"  # the quotation marks are the language's too
    assert rest and all(line.startswith("⟦") and line.endswith("⟧") for line in rest)  # the unknown word's explanation


def test_next_token_texts_are_translated(qtbot, fake_translation):
    from viz_app.widgets import NextTokenPanel

    w = NextTokenPanel()
    qtbot.addWidget(w)
    assert_all_translated(w)
    logprobs = np.log(np.linspace(1.0, 2.0, 40)[::-1] / np.linspace(1.0, 2.0, 40).sum())
    vocab = [f"w{i}" for i in range(40)]
    w.set_distribution(logprobs, vocab, chosen=30, forced=True, k=5)
    w.set_beams([("le chat", -1.0, True)])
    assert_all_translated(w, ignore=vocab)
    assert is_translated(w.caption()) and "'w30'" in w.caption()
    assert w.bar_labels()[-1].startswith("⟦w30 ")
    w.set_distribution(logprobs, vocab, chosen=None, forced=False, k=5)
    assert is_translated(w.caption())
    w.set_distribution(np.zeros(0), [], chosen=None, forced=False)
    assert w.caption() == "⟦empty distribution⟧"


def test_positional_texts_are_translated(qtbot, fake_translation):
    from viz_app.widgets import PositionalPanel

    w = PositionalPanel()
    qtbot.addWidget(w)
    pos = np.arange(40)[:, None] / 10000 ** (np.arange(0, 8, 2)[None] / 8)
    table = np.zeros((40, 8), np.float32)
    table[:, 0::2], table[:, 1::2] = np.sin(pos), np.cos(pos)
    for kind in ("sinusoidal", "learned"):
        w.set_encoding(kind, table, n_tokens=5, dims=range(4))
        assert_all_translated(w)
        assert all(is_translated(n) for n in w.curve_names())
        titles = [p.titleLabel.text for p in w.plot_items()]
        labels = [p.getAxis(a).labelText for p in w.plot_items() for a in ("left", "bottom")]
        assert len(titles) == 3 and all(map(is_translated, titles + labels))
    w.set_encoding("none", None, n_tokens=3, relative_bias=np.random.default_rng(0).normal(size=(2, 2, 5)))
    assert_all_translated(w)
    assert w.curve_names() == ["⟦head 0⟧", "⟦head 1⟧"]
    w.set_encoding("none", None, n_tokens=3)
    assert_all_translated(w)
    assert is_translated(w.message())


def test_controls_texts_are_translated(qtbot, fake_translation):
    from viz_app.widgets import COLORMAP_NAMES, TokenChips
    from viz_app.widgets.controls import Banner, InputPanel, SelectorBar, StepBar

    inputs = InputPanel(TokenChips)
    qtbot.addWidget(inputs)
    inputs.model_picker.set_models({"tiny": Path("tiny.safetensors")}, extra=["/models/other.safetensors"])
    inputs.target.setText("le chat")  # shows the teacher-forcing label
    assert_all_translated(inputs, ignore={"tiny", "other.safetensors", "/models/other.safetensors"})
    assert inputs.mode_label.text() == "⟦teacher forcing the typed target⟧"
    assert [inputs.method.itemData(i) for i in range(inputs.method.count())] == ["greedy", "sample", "beam"]

    actions = {key: QAction() for key in ("first", "previous", "play", "next", "last")}
    steps = StepBar(actions)
    qtbot.addWidget(steps)
    steps.show_step(3, 7)
    assert_all_translated(steps)
    assert steps.label.text() == "⟦step 3 / 7⟧" and steps.interval_ms() == 500

    selectors = SelectorBar(COLORMAP_NAMES)
    qtbot.addWidget(selectors)
    selectors.show_selection("decoder_self", 1, 2, 2, 4)
    assert_all_translated(selectors, ignore_widgets=[selectors.colormap])
    assert [selectors.colormap.itemText(i) for i in range(selectors.colormap.count())] == list(COLORMAP_NAMES)
    assert selectors.head.currentData() == 2 and selectors.kind.currentData() == "decoder_self"
    assert set(selectors.overlays) == {"source padding", "target padding", "causal", "combined"}

    banner = Banner()
    qtbot.addWidget(banner)
    banner.show_message("⟦a message from the window⟧", "notice")
    assert_all_translated(banner)


def test_state_and_worker_texts_are_translated(fake_translation, tiny_checkpoint):
    import torch

    from model_core import load_model
    from model_core.inference.run import RunRequest, run
    from viz_app.scope.notices import notice_text
    from viz_app.scope.state import KINDS, kind_short_title, kind_title
    from viz_app.workers.model_worker import one_line

    assert all(is_translated(kind_title(k)) and is_translated(kind_short_title(k)) for k in KINDS)
    assert is_translated(one_line(torch.cuda.OutOfMemoryError("CUDA out of memory")))
    bundle = load_model(str(tiny_checkpoint), device="cpu")
    result = run(bundle, RunRequest("w1 bonjour w2 " + " ".join(["w3"] * 70), tgt="t1 hello", pad_src=100))
    assert len(result.notices) == 4  # source truncated, padding limited, source <unk>, target <unk>
    texts = [notice_text(n) for n in result.notices]
    assert all(is_translated(t) for t in texts), texts
    with pytest.raises(ValueError) as empty:
        run(bundle, RunRequest("  "))
    assert is_translated(one_line(empty.value))


def test_unused_import_answers_read_whole_in_chinese_for_either_format(qapp):
    """The notice once put the format word ("native", "Hugging Face") into the Chinese line untranslated; each
    format now has its own text, translated whole."""
    from model_core.shared_types import Notice
    from viz_app.i18n import install
    from viz_app.scope.notices import notice_text

    native = Notice.make("options_unused", options="--bos")
    hf = Notice.make("options_unused_hf", options="--heads")
    assert native.english().startswith("--bos not used: an Attention Scope checkpoint carries its own vocabulary")
    try:
        assert install("zh_CN")
        assert notice_text(native) == "未使用 --bos：Attention Scope 检查点自带词表、特殊词元、分词器和头数"
        assert notice_text(hf) == "未使用 --heads：Hugging Face 模型自带词表、特殊词元、分词器和头数"
    finally:
        install("en")
    assert notice_text(hf).startswith("--heads not used: a Hugging Face model")
