"""Display widgets: what they hold is exactly what they were given (pytest-qt, offscreen)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from viz_app.widgets import (
    COLORMAP_NAMES,
    AttentionHeatmap,
    HeadMosaic,
    NextTokenPanel,
    PositionalPanel,
    TokenChips,
    chip_kind,
    get_colormap,
    lookup_table,
)
from viz_app.widgets.colormaps import GUTTER_VALUE, gutter_lookup_table
from viz_app.widgets.heatmap import MAX_LABELS, OVERLAY_COLORS

SRC = ["<bos>", "the", "cat", "sat", "on", "the", "mat", "<eos>"]
TGT = ["<bos>", "le", "chat", "s'est", "assis", "sur", "le", "tapis"]


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


def random_attention(*shape: int, seed: int = 0) -> np.ndarray:
    return softmax(np.random.default_rng(seed).normal(size=shape) * 2)


def sinusoidal(n: int, d: int) -> np.ndarray:
    pos = np.arange(n)[:, None]
    ang = pos / 10000 ** (np.arange(0, d, 2)[None] / d)
    table = np.zeros((n, d), np.float32)
    table[:, 0::2], table[:, 1::2] = np.sin(ang), np.cos(ang)
    return table


def show(qtbot, widget, w: int = 700, h: int = 500):
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def click_scene_pos(qtbot, view, scene_pos) -> None:
    """Left-click a pyqtgraph GraphicsView at a scene position, as a user would."""
    pt = view.mapFromScene(scene_pos)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pt.x(), pt.y()))


# ---------------------------------------------------------------- colour maps
def test_colormaps_are_256_entry_uint8_tables_and_cached():
    assert COLORMAP_NAMES == ("viridis", "cividis", "Blues", "Reds", "magma")
    for name in COLORMAP_NAMES:
        table = lookup_table(name)
        assert table.shape == (256, 3) and table.dtype == np.uint8
        assert lookup_table(name) is table
        assert get_colormap(name) is get_colormap(name)
    # ColorBrewer sequential maps run from (near) white to dark
    for name in ("Blues", "Reds"):
        table = lookup_table(name).astype(int)
        assert table[0].min() >= 240 and table[-1].sum() < table[0].sum() / 2
    with pytest.raises(ValueError):
        get_colormap("jet")


# ---------------------------------------------------------------- heatmap
def test_heatmap_displays_exactly_the_input(qtbot):
    m = random_attention(8, 8)
    w = show(qtbot, AttentionHeatmap())
    w.set_matrix(m, TGT, SRC, title="cross-attention")
    shown = w.displayed_matrix()
    assert shown.dtype == np.float32 and shown.flags.c_contiguous
    np.testing.assert_array_equal(shown, m)
    assert np.shares_memory(w._image.image, shown)  # the ImageItem renders this very buffer (it keeps a view)
    assert w._image.levels is not None and tuple(np.asarray(w._image.levels).tolist()) == (0.0, 1.0)
    w._image.render()
    assert w._image.qimage.format() == QImage.Format.Format_Indexed8  # pyqtgraph's fast path


def test_heatmap_log_scale_transform(qtbot):
    m = random_attention(6, 9)
    m[0, 0] = 0.0
    w = show(qtbot, AttentionHeatmap())
    w.set_matrix(m, TGT[:6], [f"k{i}" for i in range(9)])
    w.set_log_scale(True)
    expected = np.log10(np.maximum(m, 1e-4)).astype(np.float32)
    np.testing.assert_allclose(w.displayed_matrix(), expected, rtol=1e-6)
    assert w.displayed_matrix()[0, 0] == pytest.approx(-4.0)
    assert tuple(np.asarray(w._image.levels).tolist()) == (-4.0, 0.0)
    labels = [text for _v, text in w._colorbar.axis._tickLevels[0]]
    assert labels == ["0.0001", "0.001", "0.01", "0.1", "1"]  # probability units, not exponents
    w.set_log_scale(False)
    np.testing.assert_array_equal(w.displayed_matrix(), m)


def test_heatmap_current_row_and_future_rows(qtbot):
    m = random_attention(8, 8)
    w = show(qtbot, AttentionHeatmap())
    w.set_matrix(m, TGT, TGT, current_row=4, visible_rows=5)
    rect = w.current_row_rect()
    assert rect is not None
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (0, 4, 8, 1)
    shown = w.displayed_matrix()
    np.testing.assert_array_equal(shown[:5], m[:5])
    assert np.isnan(shown[5:]).all()  # future steps are not drawn as data
    assert w._future.isVisible() and w._future.rect().y() == 5
    assert "not computed" in w.tooltip_for(6, 0)
    w.set_matrix(m, TGT, TGT)
    assert w.current_row_rect() is None and not w._future.isVisible()


def test_heatmap_tooltip_text(qtbot):
    m = np.zeros((3, 3), np.float32)
    m[2, 1] = 0.7321
    w = show(qtbot, AttentionHeatmap())
    w.set_matrix(m, ["le", "petit", "chat"], ["the", "cat", "sat"])
    assert w.tooltip_for(2, 1) == "query 'chat' → key 'cat': 0.732"
    assert w.tooltip_for(5, 5) == ""


def test_heatmap_overlays_shade_exactly_the_blocked_cells(qtbot):
    m = random_attention(8, 8)
    causal = np.tril(np.ones((8, 8), bool))
    src_pad = np.ones((8, 8), bool)
    src_pad[:, 6:] = False
    w = show(qtbot, AttentionHeatmap())
    w.set_matrix(m, TGT, SRC)
    assert w.overlay_rgba() is None
    w.set_overlays({"causal": causal})
    rgba = w.overlay_rgba()
    assert rgba.shape == (8, 8, 4) and rgba.dtype == np.uint8
    np.testing.assert_array_equal(rgba[..., 3] > 0, ~causal)
    np.testing.assert_array_equal(rgba[~causal, :3], np.broadcast_to(OVERLAY_COLORS["causal"], (int((~causal).sum()), 3)))
    assert "causal" in w.legend_text()
    w.set_overlays({"causal": causal, "source padding": src_pad})
    rgba2 = w.overlay_rgba()
    np.testing.assert_array_equal(rgba2[..., 3] > 0, ~causal | ~src_pad)
    only_pad = ~src_pad & causal
    assert tuple(rgba2[only_pad][0, :3]) == OVERLAY_COLORS["source padding"]
    assert "source padding" in w.legend_text() and "causal" in w.legend_text()
    # the displayed attention is untouched by overlays
    np.testing.assert_array_equal(w.displayed_matrix(), m)
    w.set_overlays({})
    assert w.overlay_rgba() is None and w.legend_text() == "" and not w._overlay.isVisible()
    with pytest.raises(ValueError):
        w.set_overlays({"nonsense": causal})
    with pytest.raises(ValueError):
        w.set_overlays({"causal": np.ones((3, 3), bool)})


def test_heatmap_labels_thinned_beyond_60_tokens(qtbot):
    w = show(qtbot, AttentionHeatmap())
    toks = [f"t{i}" for i in range(40)]
    w.set_matrix(random_attention(40, 40), toks, toks)
    assert [t for _p, t in w.query_tick_labels()] == toks
    assert [p for p, _t in w.key_tick_labels()] == [i + 0.5 for i in range(40)]
    toks = [f"t{i}" for i in range(128)]
    w.set_matrix(random_attention(128, 128), toks, toks)
    labels = w.key_tick_labels()
    assert len(labels) <= MAX_LABELS
    assert labels == [(i + 0.5, f"t{i}") for i in range(0, 128, 3)]
    qtbot.wait(1)
    assert not w.grab().isNull()


def test_heatmap_click_and_hover_signals(qtbot):
    m = random_attention(8, 8)
    w = show(qtbot, AttentionHeatmap())
    w.set_matrix(m, TGT, SRC)
    qtbot.wait(1)
    with qtbot.waitSignal(w.cellClicked, timeout=1000) as blocker:
        click_scene_pos(qtbot, w.graphics_widget(), w.scene_pos_of_cell(3, 5))
    assert blocker.args == [3, 5]
    with qtbot.waitSignal(w.cellHovered, timeout=1000) as blocker:
        w._on_mouse_moved(w.scene_pos_of_cell(2, 6))
    assert blocker.args[:2] == [2, 6] and blocker.args[2] == pytest.approx(float(m[2, 6]))
    assert w.hover_text() == w.tooltip_for(2, 6)


def test_heatmap_colormap_and_font(qtbot):
    w = show(qtbot, AttentionHeatmap())
    w.set_matrix(random_attention(4, 4), list("abcd"), list("wxyz"), title="t")
    w.set_colormap("magma")
    np.testing.assert_array_equal(w._image.lut, lookup_table("magma"))
    width_before = w._left.fixedWidth
    w.set_font_point_size(20)
    assert w._left.style["tickFont"].pointSizeF() == 20
    assert w._left.fixedWidth > width_before  # the axis grew with its labels
    with pytest.raises(ValueError):
        w.set_colormap("nope")
    with pytest.raises(ValueError):
        w.set_matrix(np.zeros((4, 4), np.float32), list("abc"), list("wxyz"))


# ---------------------------------------------------------------- mosaic
def test_mosaic_tiles_equal_the_maps(qtbot):
    maps = random_attention(6, 8, 5, 7)
    w = show(qtbot, HeadMosaic(), 900, 650)
    w.set_maps(maps)
    img = w.mosaic_image()
    assert img.dtype == np.float32 and img.flags.c_contiguous
    assert np.shares_memory(w._image.image, img)
    for layer in range(6):
        for head in range(8):
            x0, y0 = w.tile_origin(layer, head)
            np.testing.assert_array_equal(img[y0:y0 + 5, x0:x0 + 7], maps[layer, head])
    # everything outside the tiles is gutter, which lands on the transparent lookup entry
    assert (img == GUTTER_VALUE).sum() == img.size - maps.size
    lut = w._image.lut
    assert lut.shape == (256, 4) and lut[0, 3] == 0 and (lut[1:, 3] == 255).all()
    lo, hi = w._image.levels
    assert GUTTER_VALUE < lo < 0.0 and hi == 1.0
    assert [t for _p, t in w._left.labels()] == [f"L{i}" for i in range(6)]
    assert [t for _p, t in w._top.labels()] == [f"H{i}" for i in range(8)]


def test_mosaic_stays_on_the_indexed_fast_path(qtbot):
    maps = np.zeros((1, 2, 2, 2), np.float32)
    maps[0, 1] = 1.0
    w = show(qtbot, HeadMosaic())
    w.set_maps(maps)
    w._image.render()
    qimg = w._image.qimage
    assert qimg.format() == QImage.Format.Format_Indexed8  # no NaN path, no per-pixel RGBA lookup
    x0, y0 = w.tile_origin(0, 0)
    x1, _ = w.tile_origin(0, 1)
    assert qimg.pixelIndex(x0, y0) == 1  # 0.0 -> first colour, not the transparent entry
    assert qimg.pixelIndex(x1, y0) == 255  # 1.0 -> last colour
    assert qimg.pixelIndex(x0 + 2, y0) == 0  # gutter -> transparent


def test_mosaic_tile_at_and_click(qtbot):
    maps = random_attention(6, 8, 9, 9)
    w = show(qtbot, HeadMosaic(), 900, 650)
    w.set_maps(maps, selected=(0, 0))
    x0, y0 = w.tile_origin(4, 6)
    assert w.tile_at(x0 + 0.5, y0 + 0.5) == (4, 6)
    assert w.tile_at(x0 + 8.9, y0 + 8.9) == (4, 6)
    assert w.tile_at(x0 + 9.5, y0) is None  # gutter
    assert w.tile_at(-1, 0) is None and w.tile_at(1e6, 0) is None
    qtbot.wait(1)
    with qtbot.waitSignal(w.tileClicked, timeout=1000) as blocker:
        click_scene_pos(qtbot, w.graphics_widget(), w.scene_pos_of_tile(4, 6))
    assert blocker.args == [4, 6]


def test_mosaic_selection_blocked_and_future_rows(qtbot):
    maps = random_attention(2, 3, 4, 4)
    blocked = ~np.tril(np.ones((4, 4), bool))
    w = show(qtbot, HeadMosaic())
    w.set_maps(maps, row_labels=["enc", "dec"], col_labels=["a", "b", "c"], selected=(1, 2), blocked=blocked, current_row=1,
               visible_rows=2)
    rect = w.selection_rect()
    x0, y0 = w.tile_origin(1, 2)
    assert rect.contains(x0, y0) and rect.contains(x0 + 3.9, y0 + 3.9)
    assert not rect.contains(*w.tile_origin(1, 1)) and not rect.contains(*w.tile_origin(0, 2))
    rgba = w.blocked_rgba()
    for layer in range(2):
        for head in range(3):
            tx, ty = w.tile_origin(layer, head)
            np.testing.assert_array_equal(rgba[ty:ty + 4, tx:tx + 4, 3] > 0, blocked)
    img = w.mosaic_image()
    tx, ty = w.tile_origin(1, 0)
    np.testing.assert_array_equal(img[ty:ty + 2, tx:tx + 4], maps[1, 0, :2])
    assert (img[ty + 2:ty + 4, tx:tx + 4] == GUTTER_VALUE).all()
    assert [t for _p, t in w._left.labels()] == ["enc", "dec"]
    w.set_selected(None)
    assert w.selection_rect() is None
    w.set_colormap("Reds")
    np.testing.assert_array_equal(w._image.lut, gutter_lookup_table("Reds"))


# ---------------------------------------------------------------- next token
def _logprobs(v: int = 500, seed: int = 3) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=v) * 2
    return logits - np.log(np.exp(logits).sum())


def test_next_token_top_k_sorted(qtbot):
    lp = _logprobs()
    vocab = [f"w{i}" for i in range(lp.size)]
    w = show(qtbot, NextTokenPanel(), 500, 450)
    best = int(np.argmax(lp))
    w.set_distribution(lp, vocab, chosen=best, forced=False, k=10)
    bars = w.bars()
    order = np.argsort(-lp, kind="stable")[:10]
    assert [t for t, _p, _h in bars] == [vocab[i] for i in order]
    np.testing.assert_allclose([p for _t, p, _h in bars], np.exp(lp[order]), rtol=1e-9)
    assert [h for _t, _p, h in bars] == [True] + [False] * 9
    assert w.bar_labels()[0] == f"{vocab[best]} {np.exp(lp[best]):.3f}"
    assert w.caption().startswith(f"chosen token '{vocab[best]}'") and "rank 1 of 500" in w.caption()


def test_next_token_forced_token_outside_top_k_shows_rank(qtbot):
    lp = _logprobs()
    vocab = [f"w{i}" for i in range(lp.size)]
    order = np.argsort(-lp, kind="stable")
    typed = int(order[56])  # rank 57
    w = show(qtbot, NextTokenPanel(), 500, 450)
    w.set_distribution(lp, vocab, chosen=typed, forced=True, k=10)
    bars = w.bars()
    assert len(bars) == 11
    assert bars[-1][0] == vocab[typed] and bars[-1][2] is True
    assert bars[-1][1] == pytest.approx(np.exp(lp[typed]))
    assert not any(h for _t, _p, h in bars[:10])
    assert w.bar_labels()[-1].endswith("(rank 57)")
    assert "typed target token" in w.caption() and "rank 57" in w.caption()


def test_next_token_beams_and_clear(qtbot):
    w = show(qtbot, NextTokenPanel(), 500, 450)
    assert not w.beams_visible()
    w.set_beams([("le chat", -1.2, True), ("le chien", -2.0, False)])
    assert w.beams_visible() and w.beams()[0] == ("le chat", -1.2, True)
    assert w._beam_table.item(0, 0).text() == "le chat"
    w.set_beams([])
    assert not w.beams_visible()
    w.set_distribution(_logprobs(), [f"w{i}" for i in range(500)], chosen=None, forced=False, k=5)
    assert len(w.bars()) == 5
    w.clear("no model loaded")
    assert w.bars() == [] and w.caption() == "no model loaded"


# ---------------------------------------------------------------- chips
def test_chips_kinds_texts_and_cjk(qtbot):
    tokens = ["<bos>", "le", "猫", "<unk>", "<pad>", "<eos>"]
    w = show(qtbot, TokenChips(), 400, 120)
    w.set_tokens(tokens, current=2)
    assert w.chip_texts() == tokens
    assert w.chip_kinds() == ["special", "normal", "normal", "unk", "pad", "special"]
    assert [chip_kind(t) for t in ("<bos>", "<eos>", "<unk>", "<pad>", "chat")] == ["special", "special", "unk", "pad", "normal"]
    cjk = w.chip_widget(2)
    assert cjk.text() == "猫" and cjk.sizeHint().width() > 0
    assert "#ffe082" in cjk.styleSheet()  # the current chip is emphasised
    assert "dashed" in w.chip_widget(4).styleSheet()
    qtbot.wait(1)
    assert not w.grab().isNull()
    # fewer tokens reuse the pool; extra chips are hidden
    w.set_tokens(["a", "b"])
    assert w.chip_texts() == ["a", "b"] and w.chip_widget(4).isHidden()


def test_chips_click_and_font(qtbot):
    w = show(qtbot, TokenChips(), 400, 120)
    w.set_tokens(["<bos>", "the", "cat"])
    qtbot.wait(1)
    with qtbot.waitSignal(w.chipClicked, timeout=1000) as blocker:
        qtbot.mouseClick(w.chip_widget(2), Qt.MouseButton.LeftButton)
    assert blocker.args == [2]
    small = w.chip_widget(1).sizeHint().height()
    w.set_font_point_size(24)
    assert w.chip_widget(1).sizeHint().height() > small
    with pytest.raises(ValueError):
        w.set_tokens(["a"], kinds=["weird"])


# ---------------------------------------------------------------- positional
def test_positional_sinusoidal(qtbot):
    table = sinusoidal(200, 32)
    w = show(qtbot, PositionalPanel(), 800, 500)
    w.set_encoding("sinusoidal", table, n_tokens=8)
    assert w.mode() == "table"
    assert w.curve_names()[:3] == ["dim 0 (sin)", "dim 1 (cos)", "dim 2 (sin)"] and len(w.curve_names()) == 8
    shown = w.table_image()
    np.testing.assert_array_equal(shown, table[: shown.shape[0]])
    assert shown.shape[0] >= 16
    sim = w.similarity_matrix()
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-5)
    np.testing.assert_allclose(sim, sim.T, atol=1e-6)
    assert w.sentence_region() == (-0.5, 7.5)
    for i in range(3):
        w.tab_widget().setCurrentIndex(i)
        qtbot.wait(1)
        assert not w.grab().isNull()


def test_positional_learned_and_tutorial_shape(qtbot):
    table = np.random.default_rng(0).normal(size=(50, 1, 16)).astype(np.float32)  # [maxlen, 1, d] as in the tutorial
    w = show(qtbot, PositionalPanel())
    w.set_encoding("learned", table, n_tokens=5, dims=[0, 3, 99])
    assert w.curve_names() == ["dim 0", "dim 3"]
    np.testing.assert_array_equal(w.table_image(), table[:, 0, :])


def test_positional_relative_bias_and_none(qtbot):
    bias = np.random.default_rng(1).normal(size=(2, 4, 9)).astype(np.float32)
    w = show(qtbot, PositionalPanel(), 800, 500)
    w.set_encoding("none", None, n_tokens=3, relative_bias=bias)
    assert w.mode() == "relative"
    assert w.curve_names() == [f"head {h}" for h in range(4)]
    np.testing.assert_array_equal(w.table_image(), bias.reshape(8, 9))
    assert w.sentence_region() == (-2.5, 2.5)
    assert not w.tab_widget().isTabEnabled(2)
    qtbot.wait(1)
    assert not w.grab().isNull()
    w.set_encoding("none", None, n_tokens=3)
    assert w.mode() == "none" and "no positional encoding" in w.message()
    w.set_encoding("none", None, n_tokens=3, relative_bias=bias[0])  # a single [H, 2D+1] table
    assert w.mode() == "relative"
    with pytest.raises(ValueError):
        w.set_encoding("rotary", None, n_tokens=3)
    with pytest.raises(ValueError):
        w.set_encoding("sinusoidal", None, n_tokens=3)


def test_long_maps_are_max_pooled_in_the_overview_and_keep_their_geometry(qtbot):
    import numpy as np

    from viz_app.widgets.mosaic import MAX_TILE_PIXELS, HeadMosaic, pool_max

    mosaic = HeadMosaic()
    qtbot.addWidget(mosaic)
    n = 2 * MAX_TILE_PIXELS + 3  # a ragged last block
    rng = np.random.default_rng(0)
    maps = rng.random((2, 3, n, n), dtype=np.float32)
    mosaic.set_maps(maps, visible_rows=n - 5)
    assert mosaic.pooling_factors() == (3, 3)
    f = 3
    ref = np.maximum.reduceat(np.maximum.reduceat(maps[:, :, : n - 5], np.arange(0, n - 5, f), axis=2),
                              np.arange(0, n, f), axis=3)
    assert np.array_equal(pool_max(maps[:, :, : n - 5], f), ref)
    image = mosaic.mosaic_image()
    x0, y0 = mosaic.tile_origin(1, 2)
    tile = image[y0 // f : y0 // f + ref.shape[2], x0 // f : x0 // f + ref.shape[3]]
    assert np.array_equal(tile, ref[1, 2])  # the straddling block pools only its visible rows
    assert mosaic.tile_at(x0 + 1, y0 + 1) == (1, 2)
    # stepping reuses the cached pooling and still agrees
    mosaic.set_maps(maps, visible_rows=n)
    full = pool_max(maps, f)
    image = mosaic.mosaic_image()
    assert np.array_equal(image[y0 // f : y0 // f + full.shape[2], x0 // f : x0 // f + full.shape[3]], full[1, 2])


def test_a_wide_maps_tiles_are_not_slivers_between_gutters(qtbot):
    """A long source's cross-attention (10 rows × 3,001 keys): each gutter is a tenth of its own side, so a layer's
    row is mostly tile (the gutter from the longer side made tiles 1/30 of their row: a new-user trial)."""
    from viz_app.widgets import HeadMosaic

    mosaic = HeadMosaic()
    qtbot.addWidget(mosaic)
    maps = np.random.default_rng(0).random((3, 2, 10, 3001)).astype(np.float32)
    mosaic.set_maps(maps)
    layer_pitch = mosaic.tile_origin(1, 0)[1]  # tile height + gutter, in rows
    assert layer_pitch <= 3 * 10
    assert mosaic.tile_at(5, layer_pitch + 5) == (1, 0) and mosaic.tile_at(5, layer_pitch - 0.5) is None
    square = HeadMosaic()
    qtbot.addWidget(square)
    square.set_maps(np.random.default_rng(1).random((2, 2, 40, 40)).astype(np.float32))
    assert square.tile_origin(1, 1) == (44, 44)  # a square map's gutters are as before: a tenth of the side


def test_a_wide_map_keeps_every_row_in_the_overview_pooling_only_its_columns(qtbot):
    """10 rows × 3,001 keys: the columns are pooled 12 to a pixel, the rows not at all (one factor from the longer side
    pooled the ten rows into one, and the tile showed each column's maximum over every step)."""
    from model_core.inference.pooling import pool_max
    from viz_app.widgets import HeadMosaic

    mosaic = HeadMosaic()
    qtbot.addWidget(mosaic)
    maps = np.random.default_rng(2).random((2, 3, 10, 3001)).astype(np.float32)
    blocked = np.zeros((10, 3001), bool)
    blocked[4] = True  # one whole row blocked: shaded in the pooled tiles too
    mosaic.set_maps(maps, blocked=blocked, visible_rows=7)
    assert mosaic.pooling_factors() == (1, 12)
    image = mosaic.mosaic_image()
    x0, y0 = mosaic.tile_origin(1, 2)
    tile = image[y0 : y0 + 10, x0 // 12 : x0 // 12 + 251]
    want = pool_max(maps[1, 2], (1, 12))
    assert want.shape == (10, 251)
    np.testing.assert_array_equal(tile[:7], want[:7])  # ten rows, each its own
    assert (tile[7:] < 0).all()  # future rows stay blank (the gutter value)
    shade = mosaic.blocked_rgba()
    assert shade is not None and shade[y0 + 4, x0 // 12 + 5, 3] == 255 and shade[y0 + 3, x0 // 12 + 5, 3] == 0
    assert mosaic.tile_at(x0 + 3000, y0 + 9.5) == (1, 2)


def test_chinese_key_labels_stand_upright_and_latin_ones_turn(qtbot):
    """A turned 猫 reads as a foreign glyph to a Chinese class: one to three CJK characters (or CJK punctuation)
    stand upright on the key axis, centred on their column; <bos> and Latin words stay turned."""
    from viz_app.widgets.heatmap import reads_upright

    assert reads_upright("猫") and reads_upright("桌子") and reads_upright("，") and reads_upright("。")
    assert not reads_upright("cat") and not reads_upright("<bos>") and not reads_upright("") and not reads_upright("一二三四")
    keys = ["<bos>", "小", "猫", "在"]
    w = AttentionHeatmap()
    qtbot.addWidget(w)
    w.resize(700, 500)
    w.show()
    w.set_matrix(np.full((4, 4), 0.25, dtype=np.float32), keys, keys)
    qtbot.wait(10)
    axis = w._bottom
    specs = {text: rect for rect, _flags, text in axis._text_specs()}
    assert set(specs) == set(keys)
    cell = axis.size().width() / 4
    for index, key in enumerate(keys[1:], start=1):  # upright: the box is the text's own, centred on its column
        assert specs[key].center().x() == pytest.approx((index + 0.5) * cell, abs=1.5)
        assert specs[key].width() < 3 * specs[key].height()
    assert specs["<bos>"].x() == pytest.approx(0.5 * cell, abs=1.5)  # turned: the rect's corner is the anchor
    tall = axis.fixedHeight
    w.set_matrix(np.full((4, 4), 0.25, dtype=np.float32), keys, ["小", "猫", "在", "上"])
    assert axis.fixedHeight < tall  # all upright: the axis needs a line's height, not the longest label's length


def test_a_lone_punctuation_mark_is_labelled_between_quotes(qtbot):
    """A turned "." or "," alone was a speck on the key axis: it is drawn between quotation marks."""
    import numpy as np

    from viz_app.widgets import AttentionHeatmap

    heat = AttentionHeatmap()
    qtbot.addWidget(heat)
    heat.set_matrix(np.full((3, 5), 0.2, np.float32), ["le → .", "!", "…"], ["cat", ".", ",", "?!", "..."])
    assert [t for _, t in heat.key_tick_labels()] == ["cat", "'.'", "','", "'?!'", "..."]
    assert [t for _, t in heat.query_tick_labels()] == ["le → .", "'!'", "…"]  # "…": a row not computed yet
