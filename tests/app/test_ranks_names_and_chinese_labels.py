"""What read wrong in front of a class (ranks, colours, names said twice, Chinese, icons)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtGui import QColor

from model_core import Trace

TIMEOUT = 20000


def _trace_with(logprobs: np.ndarray, output_ids: list[int], pads: list[bool] | None = None) -> Trace:
    t = logprobs.shape[0]
    z = np.zeros((1, 1, t, t), np.float32)
    return Trace(src_tokens=["a"], tgt_tokens=["<bos>"] * t, encoder_self=np.zeros((1, 1, 1, 1), np.float32), decoder_self=z,
                 cross=np.zeros((1, 1, t, 1), np.float32), allowed_encoder_self=np.ones((1, 1), bool),
                 allowed_decoder_self=np.ones((t, t), bool), allowed_cross=np.ones((t, 1), bool), src_is_pad=np.zeros(1, bool),
                 tgt_is_pad=np.array(pads if pads is not None else [False] * t), logprobs=logprobs.astype(np.float32),
                 positional_encoding=np.zeros((1, 1), np.float32), output_tokens=[str(i) for i in output_ids],
                 output_ids=np.array(output_ids, np.int64))


def test_output_ranks_count_better_tokens_and_break_ties_by_id():
    """The core ranks every row's output token at once; a brute-force sort over each row agrees."""
    rng = np.random.default_rng(0)
    lp = np.log(rng.dirichlet(np.ones(50), size=7))
    for row in (3, 4):
        lp[row, [4, 9, 20]] = lp[row].max()  # a three-way tie for first place: id 4 first, then 9, then 20
    ids = [int(np.argmax(lp[0])), 17, 3, 9, 20, int(np.argmin(lp[5])), 0]
    trace = _trace_with(lp, ids, pads=[False] * 6 + [True])
    ranks = trace.output_ranks()
    for row in range(6):
        order = sorted(range(50), key=lambda i, r=row: (-float(trace.logprobs[r, i]), i))
        assert ranks[row] == order.index(ids[row]) + 1
    assert ranks[0] == 1 and ranks[3] == 2 and ranks[4] == 3 and ranks[5] == 50
    assert ranks[6] == 0  # a padded row predicts nothing


def test_every_typed_token_shows_its_rank_at_once(make_window, qtbot):
    """Under teacher forcing a badge under each target chip gives that token's rank, the same rank the
    next-token panel gives when one steps there; rank 1 is green (the model agrees), never the alarming red."""
    from viz_app.widgets.ranks import rank_colour

    window = make_window()
    s = window.store
    s.set_inputs(src_text="w1 w2 w3", tgt_text="t1 t5 t2")
    window.request_run()
    qtbot.waitUntil(lambda: not window.host.busy and s.trace is not None and s.forced
                    and list(s.trace.output_tokens[:3]) == ["t1", "t5", "t2"], timeout=TIMEOUT)
    s.set_step(1)  # the badges do not wait for the steps: all of them are there at step 1
    badges = window.sentence.inputs.target_chips.badges()
    assert badges is not None and len(badges) == len(s.trace.output_tokens)
    for step in range(1, s.n_steps + 1):
        s.set_step(step)
        shown = re.search(r"rank (\d+) of", window.next_token.panel.caption())
        assert shown is not None
        assert badges[step - 1][0] == f"#{shown.group(1)}"
        assert window.next_token.panel.highlight_colour() == badges[step - 1][1] == rank_colour(int(shown.group(1)))
    s.set_inputs(tgt_text="")  # generated text: no badges (the model's own choices)
    window.request_run()
    qtbot.waitUntil(lambda: not window.host.busy and not s.forced, timeout=TIMEOUT)
    assert window.sentence.inputs.target_chips.badges() is None


def test_rank_colours_read_right():
    """Rank 1 is green, a far rank red, and each badge's text is readable on its own colour."""
    from viz_app.widgets.ranks import rank_colours

    def hue(name: str) -> int:
        return QColor(name).hslHue()

    assert 90 <= hue(rank_colours(1)[0]) <= 150  # green
    assert hue(rank_colours(500)[0]) <= 10 or hue(rank_colours(500)[0]) >= 350  # red
    for rank in (1, 2, 5, 50, 0):
        background, text = rank_colours(rank)
        assert _contrast(background, text) >= 3.0, rank


def _luminance(name: str) -> float:
    c = QColor(name)
    channels = [x / 255 for x in (c.red(), c.green(), c.blue())]
    lin = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_a_bundled_model_opened_by_its_path_is_listed_once():
    """File ▸ Open on assets/models/reverse.safetensors is the bundled "reverse", not a second entry."""
    from model_core import bundled_models
    from model_core.io.paths import model_key

    bundled = bundled_models()
    if "reverse" not in bundled:
        pytest.skip("the bundled models are not installed")
    assert model_key(str(bundled["reverse"])) == "reverse"
    assert model_key("reverse") == "reverse"
    assert model_key("/no/such/reverse.safetensors") == "/no/such/reverse.safetensors"


def test_opening_a_bundled_path_selects_the_bundled_entry(make_window, qtbot):
    """The model list keeps one entry per model after opening a bundled one by its path."""
    from model_core import bundled_models

    bundled = bundled_models()
    if "reverse" not in bundled:
        pytest.skip("the bundled models are not installed")
    window = make_window()
    window.open_model(str(bundled["reverse"]))
    qtbot.waitUntil(lambda: window.store.model is not None and window.store.model.key == "reverse" and not window.host.busy,
                    timeout=TIMEOUT)
    picker = window.sentence.inputs.model_picker
    names = [picker.itemText(i) for i in range(picker.count())]
    assert "reverse.safetensors" not in names and names.count("reverse") == 1
    assert picker.currentData() == "reverse"


def test_a_broken_file_is_named_once(make_window, qtbot, tmp_path):
    """"Could not open bogus.pt: bogus.pt: …" said the name twice (the loader's message already has it)."""
    bogus = tmp_path / "bogus.pt"
    bogus.write_bytes(b"hello")
    window = make_window()
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        window.open_model(str(bogus))
    text = window.map.error_banner.text()
    assert text.count("bogus.pt") == 1 and "not a readable" in text


def _ink(icon, side: int = 32) -> str:
    """The mean colour of an icon's opaque pixels (what the eye sees of it)."""
    image = icon.pixmap(side, side).toImage()
    pixels = [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]
    opaque = [c for c in pixels if c.alpha() > 128]
    assert opaque, "an empty icon"
    mean = [round(sum(getattr(c, ch)() for c in opaque) / len(opaque)) for ch in ("red", "green", "blue")]
    return QColor(*mean).name()


def test_transport_and_presenter_icons_follow_the_theme(make_window):
    """On the dark theme the stepping and presenter icons were dark grey on dark grey; they are drawn in
    the theme's text colour, so they stand out on either theme (and after switching back and forth)."""
    window = make_window()
    a = window.actions
    actions = (a.first, a.prev, a.play, a.next, a.last, a.presenter)
    for choice in ("dark", "light", "dark"):
        window.set_theme(choice, save=False)
        for act in actions:
            assert _contrast(_ink(act.icon()), window.theme.window) >= 4.5, (choice, act.text())
    window.actions.play.setChecked(True)  # the pause icon too
    try:
        assert _contrast(_ink(window.actions.play.icon()), window.theme.window) >= 4.5
    finally:
        window.actions.play.setChecked(False)


def test_a_short_chinese_axis_title_stands_upright():
    """"层" turned on its side read badly: short CJK titles on vertical axes stand upright; English stays
    along the axis, and a long Chinese title too."""
    from viz_app.widgets.heatmap import TokenAxis

    axis = TokenAxis("left")
    axis.set_title("层")
    assert axis.title_is_upright() and axis.label.rotation() == 0
    narrow = axis.width()
    axis.set_title("layer")
    assert not axis.title_is_upright() and axis.label.rotation() == -90
    axis.set_title("查询：解码器输入 → 它预测的词元")
    assert not axis.title_is_upright()
    axis.set_title("注意力头")
    assert axis.title_is_upright() and axis.width() >= narrow
    top = TokenAxis("top")
    top.set_title("头")
    assert not top.title_is_upright()


def test_no_true_or_false_in_the_chinese_ui():
    """"掩码为 False" read as code, not as a teacher speaks: no ASCII True/False in a Chinese translation."""
    import xml.etree.ElementTree as ET

    from viz_app.i18n import HERE

    root = ET.parse(HERE / "zh_CN.ts").getroot()
    leftovers = [(m.findtext("source"), m.findtext("translation")) for m in root.iter("message")
                 if re.search(r"\b(True|False)\b", m.findtext("translation") or "")]
    assert leftovers == []


def test_keys_are_named_in_one_style_in_both_languages(window):
    """The shortcut sheet said "Home" beside "左方向" and "空格" (Qt's half-translated names): arrows are
    arrows and keys keep their printed label in every language; only the space bar is named, in the UI language."""
    from viz_app.dialogs.help import shortcut_rows
    from viz_app.i18n import install
    from viz_app.i18n.keys import key_text

    assert key_text("Alt+Left") == "Alt+←" and key_text("Home") == "Home" and key_text("Space") == "Space"
    try:
        assert install("zh_CN")
        rows = dict(shortcut_rows(window.shortcut_actions()))
        keys = " ".join(rows.values())
        assert "←" in keys and "→" in keys and "Home" in keys and "空格键" in keys
        assert "左方向" not in keys and "右方向" not in keys
        assert key_text("Space") == "空格键"
    finally:
        install("en")
    assert "(←, Alt+←)" in window.actions.prev.toolTip()


def test_an_unknown_word_chip_says_what_happened(qtbot):
    """Unknown words are marked on their chips (their own style) and the tooltip says what it means and
    where the known words are listed; other chips keep their plain tooltip."""
    from viz_app.widgets.chips import TokenChips

    chips = TokenChips()
    qtbot.addWidget(chips)
    chips.set_tokens(["i", "<unk>", "happy"])
    assert chips.chip_kinds() == ["normal", "unk", "normal"]
    assert "What can I type?" in chips.chip_widget(1).toolTip()
    assert "What can I type?" not in chips.chip_widget(0).toolTip()


def test_a_handed_over_host_reuses_only_an_exact_match(qtbot, tiny_checkpoint):
    """The language switch: after hand_over the first load of the very model the thread holds and the
    first run of the very request answered last come from what is there; anything else is computed, and only once."""
    from model_core.inference.run import RunRequest
    from viz_app.workers.model_worker import WorkerHost

    host = WorkerHost()
    try:
        def answer(signal, call):
            with qtbot.waitSignal(signal, timeout=TIMEOUT) as blocker:
                call()
            return blocker.args[1]

        info = answer(host.modelLoaded, lambda: host.load_model(str(tiny_checkpoint)))
        first = answer(host.resultReady, lambda: host.run(RunRequest("w1 w2 w3")))
        host.hand_over()
        assert answer(host.modelLoaded, lambda: host.load_model(str(tiny_checkpoint))) is info
        assert answer(host.resultReady, lambda: host.run(RunRequest("w1 w2 w3"))) is first
        assert host.reused_answers == 2
        again = answer(host.resultReady, lambda: host.run(RunRequest("w1 w2 w3")))  # reused only once
        assert again is not first and again.request == first.request and host.reused_answers == 2
        host.hand_over()
        other = answer(host.resultReady, lambda: host.run(RunRequest("w4 w5")))  # another request: computed
        assert other.request.src == "w4 w5" and other.trace.src_tokens[:2] == ["w4", "w5"] and host.reused_answers == 2
        host.hand_over()
        with qtbot.waitSignal(host.modelLoaded, timeout=TIMEOUT) as blocker:
            host.load_model(str(tiny_checkpoint), {"heads": 2})  # other options: loaded again by the thread
        assert host.reused_answers == 2 and blocker.args[1] is not info
        assert answer(host.resultReady, lambda: host.run(RunRequest("w4 w5"))) is not other  # the flag is spent
    finally:
        host.shutdown()


def test_a_rank_badge_is_never_cut_by_a_narrow_chip(qtbot):
    """'#309' under 'le' and '#4542' under '.' were drawn as wide as the chip ('309', '454'): the chip widens instead."""
    from PySide6.QtGui import QFont, QFontMetrics

    from viz_app.widgets.chips import BADGE_SCALE, TokenChips

    chips = TokenChips()
    qtbot.addWidget(chips)
    chips.resize(600, 120)
    chips.show()
    chips.set_tokens(["le", ".", "chien"])
    chips.set_badges([("#309", "#c62828", "#ffffff"), ("#4542", "#c62828", "#ffffff"), ("", "#000000", "#ffffff")])
    qtbot.wait(10)
    for index, text in ((0, "#309"), (1, "#4542")):
        chip = chips.chip_widget(index)
        font = QFont(chip.font())
        font.setPointSizeF(max(6.0, chip.font().pointSizeF() * BADGE_SCALE))
        font.setBold(True)
        metrics = QFontMetrics(font)
        assert chip.width() >= metrics.horizontalAdvance(text) + metrics.height() + 2, text  # the badge's own width
    assert chips.chip_widget(2).minimumWidth() == 0  # no badge, no widening
    chips.set_badges(None)
    assert all(chips.chip_widget(i).minimumWidth() == 0 for i in range(3))
