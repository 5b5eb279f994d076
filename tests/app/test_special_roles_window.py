"""In the window: a checkpoint opened with the launcher's answers (a special role, a wrong head count) shows the
vocabulary's own names in the chips and says that the head count is doubtful."""

from __future__ import annotations

import pytest

from tests.app.test_main_window import type_and_wait
from tests.core.test_vocabulary_choices import AMBIGUOUS, checkpoint
from viz_app.scope.controller import loaded_message
from viz_app.scope.settings import AppSettings
from viz_app.shell.app import remember_import_options

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")


def test_the_launchers_answers_open_the_model_and_a_wrong_head_count_is_shown(make_window, settings_path, tmp_path, qtbot):
    vocab = AMBIGUOUS + [f"w{i}" for i in range(24)]
    _, path = checkpoint(tmp_path, vocab, vocab, heads=4)
    answers = {"src_vocab": str(tmp_path / "src.txt"), "tgt_vocab": str(tmp_path / "tgt.txt"), "heads": 16, "bos": "<sos>"}
    remember_import_options(AppSettings(settings_path), str(path), answers)  # what `attention-scope model.pt --heads 16 --bos '<sos>'` does
    window = make_window(model=str(path))  # opens without a question: the answers were remembered
    assert window.store.model.n_heads == 16 and window.store.model.src_specials["bos"] == "<sos>"
    type_and_wait(qtbot, window, window.sentence.inputs.source, "w1 nonsense w2")
    chips = window.sentence.inputs.source_chips
    assert chips.chip_kinds() == ["special", "normal", "unk", "normal", "special"]  # <sos> w1 [UNK] w2 </s>
    banner = window.map.notice_banner.label.text()
    assert "16 heads is not a usual split of width 32" in banner and "1 source word not in the vocabulary" in banner
    status = loaded_message(window.store.model)  # the status line (it times out: read from its source, not the bar)
    # <mask> is no text anyone types: both splitters know every entry, so the app's stays
    assert status == "Loaded model; source text is cut by the app's splitter, target text by the app's splitter", status
    window.grab().save(str(tmp_path / "window.png"))
