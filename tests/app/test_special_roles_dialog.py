"""The load dialog asks the special roles a vocabulary's names leave open and offers the tokenization.

The question comes from the real importer (a PyTorch-tutorial checkpoint whose vocabulary has both <s> and <sos>),
and the answers the dialog returns must open that checkpoint.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox, QPushButton

from model_core.io.importers import ImportOptions, NeedsHyperparameters, open_model
from tests.core.test_vocabulary_choices import AMBIGUOUS, SPACY, checkpoint
from viz_app.dialogs.hyperparameters import HyperparametersDialog, answers_for

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")


@pytest.fixture
def asked(tmp_path) -> tuple[NeedsHyperparameters, ImportOptions]:
    vocab = AMBIGUOUS + SPACY[4:] + [f"w{i}" for i in range(12)]
    _, path = checkpoint(tmp_path, vocab, vocab)
    given = ImportOptions(src_vocab=str(tmp_path / "src.txt"), tgt_vocab=str(tmp_path / "tgt.txt"), heads=4)
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, given, device="cpu")
    return info.value, given


def test_a_row_per_open_role_and_the_tokenization_proposed_first(qtbot, asked):
    needs, given = asked
    dialog = HyperparametersDialog(needs, given)
    qtbot.addWidget(dialog)
    bos = dialog.field("bos")
    assert isinstance(bos, QComboBox) and bos.isEditable()
    assert [bos.itemText(i) for i in range(bos.count())] == ["<s>", "<sos>", "<mask>"]  # the known names first
    # [UNK], <blank>, </s> are clear by their names; what nn.Transformer's weights cannot tell is offered alongside
    assert set(dialog.answers()) == {"bos", "tokenization", "norm_position", "activation"}
    assert (dialog.answers()["norm_position"], dialog.answers()["activation"]) == ("post", "relu")  # its defaults first
    assert dialog.answers()["tokenization"] == "whitespace"  # n't, 's, E-Mail survive only whitespace splitting
    assert dialog.findChild(QPushButton, "browse_tokenization") is not None  # or the user's tokenizer.json

    dialog.set_answer("tokenization", "sentencepiece")
    dialog._on_ok()
    assert "choose app or whitespace, or give a tokenizer.json" in dialog.problem_text()
    dialog.set_answer("tokenization", "whitespace")
    dialog.set_answer("bos", "<sos>")
    dialog._on_ok()
    options = dialog.options()
    assert (options.bos, options.tokenization) == ("<sos>", "whitespace")
    answers = answers_for(needs.proposals, options)
    # what the window remembers for this file
    assert answers == {"bos": "<sos>", "tokenization": "whitespace", "norm_position": "post", "activation": "relu"}
    bundle = open_model(needs.path, ImportOptions(**{**given.to_dict(), **answers}), device="cpu")
    assert bundle.tgt_tokenizer.specials["bos"] == "<sos>" and bundle.src_tokenizer.tokenize("do n't") == ["do", "n't"]
    assert not [n for n in bundle.metadata.get("notices") or () if n["code"].startswith("tutorial_default")]  # answered


def test_auto_leaves_the_tokenization_to_the_proposal(qtbot, asked):
    needs, given = asked
    dialog = HyperparametersDialog(needs, given)
    qtbot.addWidget(dialog)
    dialog.set_answer("tokenization", "auto")
    dialog._on_ok()
    assert dialog.options().tokenization is None and dialog.options().bos == "<s>"
