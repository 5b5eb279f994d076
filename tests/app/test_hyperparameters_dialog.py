"""The dialog that completes a checkpoint's missing settings (pytest-qt, offscreen).

The error it is built from comes from the real importer (a seed-tutorial checkpoint without heads,
norm position or vocabularies), and the options it returns must open that checkpoint.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QComboBox, QDialogButtonBox, QLabel, QLineEdit

from model_core.io.importers import ImportOptions, NeedsHyperparameters, open_model
from viz_app.dialogs.hyperparameters import HyperparametersDialog, answers_for, ask_import_options, options_from_answers

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
LEFT = Qt.MouseButton.LeftButton


def seed_checkpoint(folder: Path) -> Path:
    """A seed-tutorial state_dict (the key names of model_core/io/importers/seed_tutorial.py; d_model 16, one layer each)."""
    torch.manual_seed(0)
    d, ff, sd = 16, 24, {}
    sd["src_embedding.weight"], sd["tgt_embedding.weight"] = torch.randn(10, d), torch.randn(12, d)
    for side, attns, norms in (("encoder", ("self_attn",), 2), ("decoder", ("self_attn", "cross_attn"), 3)):
        for a in attns:
            for w in ("W_q", "W_k", "W_v", "W_o"):
                sd[f"{side}.layers.0.{a}.{w}.weight"], sd[f"{side}.layers.0.{a}.{w}.bias"] = torch.randn(d, d), torch.randn(d)
        ffn = f"{side}.layers.0.feed_forward"
        sd[f"{ffn}.linear1.weight"], sd[f"{ffn}.linear1.bias"] = torch.randn(ff, d), torch.randn(ff)
        sd[f"{ffn}.linear2.weight"], sd[f"{ffn}.linear2.bias"] = torch.randn(d, ff), torch.randn(d)
        for k in range(1, norms + 1):
            sd[f"{side}.layers.0.sublayer{k}.norm.gamma"], sd[f"{side}.layers.0.sublayer{k}.norm.beta"] = torch.ones(d), torch.zeros(d)
        sd[f"{side}.norm.gamma"], sd[f"{side}.norm.beta"] = torch.ones(d), torch.zeros(d)
    sd["output_projection.weight"], sd["output_projection.bias"] = torch.randn(12, d), torch.randn(12)
    path = folder / "seed.pth"
    torch.save(sd, path)
    (folder / "src.txt").write_text("\n".join(SPECIALS + [f"s{i}" for i in range(6)]), encoding="utf-8")
    (folder / "tgt.txt").write_text("\n".join(SPECIALS + [f"t{i}" for i in range(8)]), encoding="utf-8")
    return path


@pytest.fixture
def needs(tmp_path) -> NeedsHyperparameters:
    path = seed_checkpoint(tmp_path)
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, device="cpu")
    return info.value


# ------------------------------------------------------------------------------------------- pure helper
def test_options_from_answers_fills_each_missing_value(needs, tmp_path):
    answers = {"heads": " 4 ", "norm_position": "Post", "src_vocab": str(tmp_path / "src.txt"), "tgt_vocab": str(tmp_path / "tgt.txt")}
    base = ImportOptions(extra={"kept": 1})
    options = options_from_answers(needs.proposals, answers, base)
    assert options == ImportOptions(src_vocab=str(tmp_path / "src.txt"), tgt_vocab=str(tmp_path / "tgt.txt"), heads=4,
                                    norm_position="post", extra={"kept": 1})
    assert base == ImportOptions(extra={"kept": 1})  # the base is never modified
    bundle = open_model(needs.path, options, device="cpu")  # and the answers open the checkpoint
    assert (bundle.config.n_heads, bundle.config.norm_position) == (4, "post")


@pytest.mark.parametrize(("key", "value", "message"), [
    ("heads", "", "please give a value"),
    ("heads", "four", "not a positive whole number"),
    ("heads", "0", "not a positive whole number"),
    ("norm_position", "middle", "choose pre or post"),
    ("src_vocab", "/no/such/vocab.txt", "is not a file"),
])
def test_options_from_answers_names_the_first_wrong_answer(needs, tmp_path, key, value, message):
    answers = {"heads": "4", "norm_position": "pre", "src_vocab": str(tmp_path / "src.txt"), "tgt_vocab": str(tmp_path / "tgt.txt")}
    answers[key] = value
    with pytest.raises(ValueError, match=message):
        options_from_answers(needs.proposals, answers)


def test_unknown_options_pass_through_as_text():
    assert options_from_answers(["rope_base"], {"rope_base": "10000"}).extra == {"rope_base": "10000"}


# ------------------------------------------------------------------------------------------- dialog
def test_dialog_offers_the_proposals_and_returns_the_filled_options(qtbot, needs, tmp_path):
    dialog = HyperparametersDialog(needs)
    qtbot.addWidget(dialog)
    dialog.show()
    heads = dialog.field("heads")
    assert isinstance(heads, QComboBox) and heads.isEditable()
    assert [heads.itemText(i) for i in range(heads.count())] == [str(h) for h in needs.proposals["heads"]]
    assert heads.currentText() == "8"  # the first proposal is preselected
    norm = dialog.field("norm_position")
    assert [norm.itemText(i) for i in range(norm.count())] == ["pre", "post"] and norm.currentText() == "pre"
    assert isinstance(dialog.field("src_vocab"), QLineEdit) and dialog.findChild(object, "browse_src_vocab") is not None

    heads.setCurrentIndex(heads.findText("4"))
    qtbot.keyClicks(dialog.field("src_vocab"), str(tmp_path / "src.txt"))
    dialog.set_answer("tgt_vocab", str(tmp_path / "tgt.txt"))
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        qtbot.mouseClick(ok, LEFT)
    options = dialog.options()
    assert options == ImportOptions(src_vocab=str(tmp_path / "src.txt"), tgt_vocab=str(tmp_path / "tgt.txt"), heads=4,
                                    norm_position="pre")
    assert open_model(needs.path, options, device="cpu").config.n_heads == 4


def test_a_wrong_answer_keeps_the_dialog_open_and_says_why(qtbot, needs, tmp_path):
    dialog = HyperparametersDialog(needs)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_answer("heads", "many")
    dialog.set_answer("src_vocab", str(tmp_path / "src.txt"))
    dialog.set_answer("tgt_vocab", str(tmp_path / "tgt.txt"))
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, LEFT)
    assert dialog.isVisible() and dialog.options() is None
    assert "many is not a positive whole number" in dialog.problem_text()
    dialog.set_answer("heads", "2")  # a value outside the proposals is accepted when it is a number
    qtbot.mouseClick(ok, LEFT)
    assert not dialog.isVisible() and dialog.options().heads == 2


def test_cancel_returns_nothing(qtbot, needs):
    dialog = HyperparametersDialog(needs)
    qtbot.addWidget(dialog)
    dialog.show()
    with qtbot.waitSignal(dialog.rejected, timeout=2000):
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Cancel).click()
    assert dialog.options() is None


def test_only_the_missing_values_are_asked_for(qtbot, tmp_path):
    path = seed_checkpoint(tmp_path)
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, ImportOptions(src_vocab=str(tmp_path / "src.txt"), tgt_vocab=str(tmp_path / "tgt.txt")), device="cpu")
    base = ImportOptions(src_vocab=str(tmp_path / "src.txt"), tgt_vocab=str(tmp_path / "tgt.txt"))
    dialog = HyperparametersDialog(info.value, base)
    qtbot.addWidget(dialog)
    assert set(dialog.answers()) == {"heads", "norm_position", "tokenization"}
    assert dialog.findChild(QLineEdit, "field_src_vocab") is None
    dialog.set_answer("heads", "4")
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    assert dialog.options() == ImportOptions(src_vocab=base.src_vocab, tgt_vocab=base.tgt_vocab, heads=4, norm_position="pre",
                                             tokenization="app")  # the proposal first, ranked on the vocabularies given


# ------------------------------------------------------------------------------------------- main-window entry point
def test_answers_for_returns_only_the_answered_fields():
    options = ImportOptions(src_vocab="s.txt", tgt_vocab="t.txt", heads=4, norm_position="pre", extra={"rope_base": "10000"})
    assert answers_for(["heads", "norm_position"], options) == {"heads": 4, "norm_position": "pre"}
    assert answers_for(["rope_base", "tgt_vocab"], options) == {"extra": {"rope_base": "10000"}, "tgt_vocab": "t.txt"}


def test_ask_import_options_answers_what_the_worker_reported(qtbot, needs, tmp_path):
    """As the main window calls it: with the worker's record (key, options already tried, proposals, hints)."""
    given = {"src_vocab": str(tmp_path / "src.txt"), "tgt_vocab": str(tmp_path / "tgt.txt")}
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(needs.path, ImportOptions(**given), device="cpu")
    needed = SimpleNamespace(key=str(needs.path), given=given, proposals=info.value.proposals, hints=info.value.hints,
                             message=str(info.value))
    seen = {}

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        seen["fields"] = sorted(dialog.answers())
        seen["intro"] = [label.text() for label in dialog.findChildren(QLabel) if "seed.pth" in label.text()]
        dialog.set_answer("heads", "2")
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()

    QTimer.singleShot(0, answer)
    answers = ask_import_options(None, needed)
    assert seen["fields"] == ["heads", "norm_position", "tokenization"] and seen["intro"]  # only the missing ones; the file is named
    # the tokenization proposed first (ranked on the vocabulary: s0, t1… are whole words either way, so the app's) is kept
    assert answers == {"heads": 2, "norm_position": "pre", "tokenization": "app"}
    bundle = open_model(needs.path, ImportOptions(**{**given, **answers}), device="cpu")  # merged as the main window does
    assert (bundle.config.n_heads, bundle.config.norm_position) == (2, "pre")

    def cancel() -> None:
        QApplication.activeModalWidget().reject()

    QTimer.singleShot(0, cancel)
    assert ask_import_options(None, needed) is None
