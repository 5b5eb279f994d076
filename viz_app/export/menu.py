"""The window's export menu: PNG, SVG, GIF, MP4, CSV, NPZ and "Copy image", as QActions.

Why a separate QObject talking to the window through :class:`ExportHost` (a Protocol) rather than
methods of ``MainWindow``: the dialogs, the overwrite question and the error paths can then be
tested with a small fake host, and the window only has to answer five questions.

Every export asks for a file name (``QFileDialog.getSaveFileName`` with the format's filter and a
default name such as ``cross_L2_mean_step5.png``), asks before replacing an existing file
(``QMessageBox.question``; the file dialog's own question is turned off so the user is asked
exactly once, also when the extension was added here), writes atomically through
:mod:`viz_app.export.images`, and reports failures through ``host.show_error`` (the window's banner).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QImage, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox, QWidget

from model_core.shared_types import KINDS
from model_core.trace import Trace
from viz_app.export import images as ex
from viz_app.i18n import tr
from viz_app.widgets.heatmap import AttentionHeatmap


class ExportHost(Protocol):
    """What the export actions need from the window (``MainWindow`` implements it from ``ScopeStore``)."""

    def current_trace(self) -> Trace | None:
        """The trace on show, or None before the first result."""
        ...

    def current_view(self) -> ex.ViewSpec | None:
        """The selection and display settings on show (kind, layer, head, step, forced, colour map, log, overlays, font)."""
        ...

    def heatmap_widget(self) -> AttentionHeatmap | None:
        """The live heatmap (PNG, SVG and the clipboard copy draw it as it is, zoom included), or None."""
        ...

    def show_error(self, message: str) -> None:
        ...

    def show_status(self, message: str) -> None:
        ...


class ExportActions(QObject):
    """Owns the export QActions; ``parent`` (the window) is also the parent of the dialogs.

    Call :meth:`refresh` when the trace changes (enables the actions), put them in a menu with
    :meth:`add_to_menu`, and add them to the window (``window.addActions(actions.actions())``) so
    the Ctrl+Shift+C shortcut works everywhere in it.
    """

    def __init__(self, host: ExportHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._host = host
        self._dialog_parent = parent if isinstance(parent, QWidget) else None
        self._directory = Path.home()
        self._video_reason: str | None = None
        self._video_checked = False  # asking ffmpeg for its encoders takes a subprocess: not at window start

        self.act_png = self._action(tr("ExportActions", "Export image (PNG)…"),
                                    tr("ExportActions", "Save the heatmap as a PNG image at twice the screen resolution"),
                                    self.export_png)
        self.act_svg = self._action(tr("ExportActions", "Export SVG…"),
                                    tr("ExportActions", "Save the heatmap as a scalable vector drawing (SVG)"), self.export_svg)
        self.act_gif = self._action(tr("ExportActions", "Export animation (GIF)…"),
                                    tr("ExportActions", "Save every decoding step of this map as an animated GIF"), self.export_gif)
        self.act_mp4 = self._action(tr("ExportActions", "Export video (MP4)…"),
                                    tr("ExportActions", "Save every decoding step of this map as an H.264 video"), self.export_mp4)
        self.act_csv = self._action(tr("ExportActions", "Export matrix (CSV)…"),
                                    tr("ExportActions", "Save the numbers of this map at this step, with the tokens as headers"),
                                    self.export_csv)
        self.act_npz = self._action(tr("ExportActions", "Export trace (NPZ)…"),
                                    tr("ExportActions", "Save every attention map of this sentence (numpy .npz)"), self.export_npz)
        self.act_html = self._action(tr("ExportActions", "Export interactive page (HTML)…"),
                                     tr("ExportActions", "Save this sentence as one web page that opens in any browser, "
                                                         "on a phone too: every map, the steps, the next-token bars"),
                                     self.export_html)
        self.act_copy = self._action(tr("ExportActions", "Copy image"),
                                     tr("ExportActions", "Copy the heatmap to the clipboard as an image"), self.copy_image)
        self.act_copy.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.act_copy.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.refresh()

    # ------------------------------------------------------------------ public
    def actions(self) -> list[QAction]:
        """All actions in menu order."""
        return [self.act_png, self.act_svg, self.act_gif, self.act_mp4, self.act_csv, self.act_npz, self.act_html,
                self.act_copy]

    def add_to_menu(self, menu: QMenu) -> None:
        """Add the actions (copy after a separator) and let the menu show tooltips (the MP4 one says what is missing)."""
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(self._check_video)
        for act in self.actions()[:-1]:
            menu.addAction(act)
        menu.addSeparator()
        menu.addAction(self.act_copy)

    def refresh(self) -> None:
        """Enable what can be exported now: everything needs a trace; MP4 also an H.264 encoder.

        Whether there is an encoder is asked only when the menu opens (or MP4 export is chosen): the
        ffmpeg subprocess costs ~60 ms that the first heatmap after start-up should not wait for.
        """
        has_trace = self._host.current_trace() is not None and self._host.current_view() is not None
        for act in self.actions():
            act.setEnabled(has_trace)
        self.act_mp4.setEnabled(has_trace and (not self._video_checked or self._video_reason is None))

    def _check_video(self) -> None:
        """Before the menu shows: find out once whether MP4 export can work, and disable it if not."""
        if not self._video_checked:
            self.video_problem()
            self.refresh()

    def video_problem(self) -> str | None:
        """Why MP4 export is unavailable (None when it works); checked once, then shown as the action's tooltip."""
        if not self._video_checked:
            self._video_checked = True
            self._video_reason = ex.video_unavailable_reason()
            if self._video_reason is not None:
                self.act_mp4.setToolTip(self._video_reason)
                self.act_mp4.setStatusTip(self._video_reason)
        return self._video_reason

    def directory(self) -> Path:
        """The folder the next file dialog opens in (the last one used: worth saving in the settings)."""
        return self._directory

    # ------------------------------------------------------------------ the actions
    def export_png(self) -> Path | None:
        return self._export(".png", tr("ExportActions", "Export image (PNG)"), tr("ExportActions", "PNG images (*.png)"),
                            self._write_png)

    def export_svg(self) -> Path | None:
        return self._export(".svg", tr("ExportActions", "Export SVG"), tr("ExportActions", "SVG drawings (*.svg)"), self._write_svg)

    def export_gif(self) -> Path | None:
        return self._export(".gif", tr("ExportActions", "Export animation (GIF)"), tr("ExportActions", "GIF animations (*.gif)"),
                            self._write_animation, animation=True)

    def export_mp4(self) -> Path | None:
        problem = self.video_problem()
        if problem is not None:
            self._host.show_error(problem)
            return None
        return self._export(".mp4", tr("ExportActions", "Export video (MP4)"), tr("ExportActions", "MP4 videos (*.mp4)"),
                            self._write_animation, animation=True)

    def export_csv(self) -> Path | None:
        return self._export(".csv", tr("ExportActions", "Export matrix (CSV)"), tr("ExportActions", "CSV tables (*.csv)"),
                            self._write_csv)

    def export_npz(self) -> Path | None:
        return self._export(".npz", tr("ExportActions", "Export trace (NPZ)"), tr("ExportActions", "Attention traces (*.npz)"),
                            self._write_npz, default_name="attention_trace.npz")

    def export_html(self) -> Path | None:
        return self._export(".html", tr("ExportActions", "Export interactive page (HTML)"),
                            tr("ExportActions", "Web pages (*.html)"), self._write_html, default_name="attention_scope.html")

    def copy_image(self) -> QImage | None:
        """Copy the heatmap as shown (2x) to the clipboard; returns the image (None when there is nothing to copy)."""
        inputs = self._inputs()
        if inputs is None:
            return None
        trace, spec = inputs
        try:
            image = self._image(trace, spec)
            ex.copy_image_to_clipboard(image)
        except (OSError, ValueError, RuntimeError) as exc:
            self._host.show_error(tr("ExportActions", "Could not copy the image: {error}").format(error=str(exc)))
            return None
        self._host.show_status(tr("ExportActions", "Image copied to the clipboard"))
        return image

    # ------------------------------------------------------------------ writers: (trace, spec, path, overwrite)
    def _image(self, trace: Trace, spec: ex.ViewSpec) -> QImage:
        view = ex.heatmap_view(trace, spec)
        widget = self._shown_widget(view)
        if widget is not None:
            return ex.render_widget_image(widget, ex.DEFAULT_SCALE)
        width, height = self._frame_size()
        return ex.render_heatmap_image(view, width, height, scale=ex.DEFAULT_SCALE)

    def _shown_widget(self, view: ex.HeatmapView) -> AttentionHeatmap | None:
        """The live heatmap when it shows exactly ``view``'s cells (its look kept), else None: drawn off screen (a long
        map's window on screen while a map under ``EXPORT_WHOLE_TOKENS`` a side is exported whole)."""
        widget = self._host.heatmap_widget()
        if widget is None or not widget.isVisible():
            return None
        shown = widget.displayed_matrix()
        same = shown is not None and shown.shape == view.matrix.shape and tuple(widget.origin) == view.origin
        return widget if same else None

    def _write_png(self, trace: Trace, spec: ex.ViewSpec, path: Path, overwrite: bool) -> str | None:
        ex.save_png(self._image(trace, spec), path, overwrite=overwrite)
        return self._window_note(spec)

    def _write_svg(self, trace: Trace, spec: ex.ViewSpec, path: Path, overwrite: bool) -> str | None:
        view = ex.heatmap_view(trace, spec)
        widget = self._shown_widget(view)
        if widget is not None:
            ex.save_svg(ex.svg_bytes_of(widget), path, overwrite=overwrite)
        else:
            width, height = self._frame_size()
            ex.export_view(view, path, width=width, height=height, overwrite=overwrite)
        return self._window_note(spec)

    def _write_animation(self, trace: Trace, spec: ex.ViewSpec, path: Path, overwrite: bool) -> str | None:
        width, height = self._frame_size()
        ex.export_animation(ex.animation_views(trace, spec), path, width=width, height=height, overwrite=overwrite)
        return self._window_note(spec)

    def _write_csv(self, trace: Trace, spec: ex.ViewSpec, path: Path, overwrite: bool) -> str | None:
        ex.save_csv(*ex.heatmap_view(trace, spec).computed(), path, overwrite=overwrite)
        return self._window_note(spec)

    def _write_npz(self, trace: Trace, spec: ex.ViewSpec, path: Path, overwrite: bool) -> str | None:
        """The whole trace; for a long sentence (maps on demand) the shown kind and layer, every head and row."""
        from model_core.inference.lazy_export import maps_of

        maps = maps_of(trace)
        if maps is None:
            ex.save_trace(trace, path, overwrite=overwrite)
            return None
        from model_core import budgets
        from model_core.inference.lazy_export import save_trace_subset
        from model_core.inference.lazy_maps import MapSubset, subset_bytes

        subset = MapSubset(kinds=(spec.kind,), layers=(spec.layer,))
        _, n_heads, n_rows, n_keys = maps.shape(spec.kind)
        size, limit = subset_bytes(maps, subset), budgets.EAGER_MAPS_BYTES
        if size > limit:
            raise ValueError(tr("ExportActions", "layer {layer}'s {heads} maps would take {size} GB (the limit is {limit} "
                                                 "GB); the command line's export chooses fewer heads or rows").format(
                layer=spec.layer, heads=n_heads, size=f"{size / 1e9:.1f}", limit=f"{limit / 1e9:.2f}"))
        save_trace_subset(trace, subset, path, overwrite=overwrite, budget=limit)
        total = sum(4 * math.prod(maps.shape(kind)) for kind in KINDS)
        return tr("ExportActions", "layer {layer}, all {heads} heads, {rows} × {keys} each: {size} MB of this sentence's "
                                   "{total} GB of maps").format(layer=spec.layer, heads=n_heads, rows=f"{n_rows:,}",
                                                                 keys=f"{n_keys:,}", size=f"{size / 1e6:,.0f}",
                                                                 total=f"{total / 1e9:.1f}")

    def _write_html(self, trace: Trace, spec: ex.ViewSpec, path: Path, overwrite: bool) -> str | None:
        """The shared page (:mod:`model_core.share.html_view`) in the window's language, opening on the map and step on
        show; a sentence too long for one page keeps the kind and layer on show."""
        from dataclasses import replace

        from model_core.share.html_view import ViewOptions, ViewTooLarge, write_html
        from viz_app.i18n import current_language

        store = getattr(self._host, "store", None)  # the window's store: the model's name and words, the translation
        model = getattr(store, "model", None)
        vocab = list(getattr(model, "tgt_vocab", ()) or ())
        translation = None if spec.forced else getattr(store, "translation", None)
        options = ViewOptions(model=str(getattr(model, "name", "") or ""), language=current_language(),
                              forced=spec.forced, translation=translation if isinstance(translation, str) else None,
                              vocabulary=vocab if len(vocab) == trace.logprobs.shape[-1] else None,
                              kind=spec.kind, layer=spec.layer, head=spec.head, step=spec.step)
        try:
            write_html(trace, path, options, overwrite=overwrite)
            return None
        except ViewTooLarge:
            pass
        try:
            write_html(trace, path, replace(options, kinds=(spec.kind,), layers=(spec.layer,)), overwrite=overwrite)
        except ViewTooLarge as exc:
            raise ValueError(tr("ExportActions", "one page would be {size} MB even for this layer alone (the limit is "
                                                 "{limit} MB): export the trace (NPZ) instead").format(
                size=f"{exc.smallest / 1e6:.0f}", limit=f"{exc.limit / 1e6:.0f}")) from None
        return tr("ExportActions", "layer {layer} of this attention only: the whole sentence would not fit in one "
                                   "page").format(layer=spec.layer)

    @staticmethod
    def _window_note(spec: ex.ViewSpec) -> str | None:
        """For a long map exported as its window: which rows and columns (the file holds only those)."""
        if spec.window is None:
            return None
        r0, r1, c0, c1 = spec.window
        return tr("ExportActions", "rows {r0}–{r1}, columns {c0}–{c1}: the window on screen").format(
            r0=r0, r1=r1 - 1, c0=c0, c1=c1 - 1)

    # ------------------------------------------------------------------ internals
    def _action(self, text: str, tip: str, slot: Callable[[], object]) -> QAction:
        act = QAction(text, self)
        act.setToolTip(tip)
        act.setStatusTip(tip)
        act.triggered.connect(lambda _checked=False: slot())
        return act

    def _inputs(self) -> tuple[Trace, ex.ViewSpec] | None:
        trace, spec = self._host.current_trace(), self._host.current_view()
        if trace is None or spec is None:
            self._host.show_error(tr("ExportActions", "Nothing to export yet: type a sentence first."))
            return None
        return trace, spec

    def _frame_size(self) -> tuple[int, int]:
        """The live heatmap's size (what the user sees), else the default; clamped to what the renderer accepts."""
        widget = self._host.heatmap_widget()
        if widget is None or not widget.isVisible():
            return ex.DEFAULT_WIDTH, ex.DEFAULT_HEIGHT
        clamp = lambda v: max(ex.MIN_SIDE, min(ex.MAX_SIDE, v))
        return clamp(widget.width()), clamp(widget.height())

    def _ask_path(self, caption: str, name_filter: str, suffix: str, default_name: str) -> Path | None:
        start = str(self._directory / default_name)
        chosen, _ = QFileDialog.getSaveFileName(self._dialog_parent, caption, start, name_filter, "",
                                                QFileDialog.Option.DontConfirmOverwrite)
        if not chosen:
            return None
        path = Path(chosen)
        if path.suffix.lower() != suffix:
            path = path.with_name(path.name + suffix)
        return path

    def _confirm_overwrite(self, path: Path) -> bool:
        answer = QMessageBox.question(
            self._dialog_parent, tr("ExportActions", "Replace file?"),
            tr("ExportActions", "{name} already exists in {folder}. Replace it?").format(name=path.name, folder=str(path.parent)),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _export(self, suffix: str, caption: str, name_filter: str,
                write: Callable[[Trace, ex.ViewSpec, Path, bool], str | None], *, animation: bool = False,
                default_name: str | None = None) -> Path | None:
        inputs = self._inputs()
        if inputs is None:
            return None
        trace, spec = inputs
        name = default_name or ex.default_file_name(spec, suffix, animation=animation)
        path = self._ask_path(caption, name_filter, suffix, name)
        if path is None:
            return None  # cancelled
        overwrite = False
        if path.is_dir():
            self._host.show_error(tr("ExportActions", "Could not export: {path} is a folder").format(path=str(path)))
            return None
        if path.exists():
            if not self._confirm_overwrite(path):
                self._host.show_status(tr("ExportActions", "Not exported: {name} was kept").format(name=path.name))
                return None
            overwrite = True
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            note = write(trace, spec, path, overwrite)  # what a long sentence's file holds, when not everything
        except (OSError, ValueError, RuntimeError) as exc:  # ExportError is a RuntimeError
            self._host.show_error(tr("ExportActions", "Could not export {name}: {error}").format(name=path.name, error=str(exc)))
            return None
        finally:
            QApplication.restoreOverrideCursor()
        self._directory = path.parent
        done = tr("ExportActions", "Exported {path}").format(path=str(path))
        self._host.show_status(done if note is None else tr("ExportActions", "{done} ({what})").format(done=done, what=note))
        return path
