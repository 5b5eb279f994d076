"""The "Train" view: train a demo task from scratch and watch the probe sentence's attention form.

Why it looks like this: a class watches two things at once, the loss falling (left) and the
attention of one fixed held-out sentence sharpening (right; cross-attention of the last layer,
averaged over heads, by default, because that is where an alignment appears first and clearest).
All training runs in :class:`~viz_app.workers.training_worker.TrainingRunner`'s thread; this widget only
receives host data (``TrainEvent`` floats, ``Trace`` numpy arrays) on the GUI thread and redraws.
The form is locked while a run is going so what is shown always matches what is being trained.
"""

from __future__ import annotations

import dataclasses
import html
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from viz_app.i18n import tr
from viz_app.scope.state import kind_short_title
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.workers.training_worker import DEMO_TASKS, SIZES, RunInfo, TrainingConfig, TrainingRunner

if TYPE_CHECKING:  # no torch at import: the app's window opens before torch is loaded
    from model_core.training.trainer import TrainEvent

TSV_ITEM = "__tsv__"
KINDS: tuple[str, ...] = ("cross", "encoder_self", "decoder_self")
TRAIN_COLOR = (31, 119, 180)
VALID_COLOR = (255, 127, 14)


def _size_title(size: str) -> str:
    """The model-size preset as the size picker names it (translated), for the status line too."""
    titles = {"tiny": tr("TrainingView", "tiny"), "small": tr("TrainingView", "small")}
    return titles.get(size, size)


def _task_title(task: str) -> str:
    titles = {
        "copy": tr("TrainingView", "copy (output = input)"),
        "reverse": tr("TrainingView", "reverse the sequence"),
        "sort": tr("TrainingView", "sort the symbols"),
        "en-fr": tr("TrainingView", "English → French (toy grammar)"),
        "en-zh": tr("TrainingView", "English → Chinese (toy grammar)"),
    }
    return titles.get(task, task)


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


class TrainingView(QWidget):
    """Task form, run buttons, live loss curves, readouts and the probe sentence's attention.

    ``base`` supplies everything the form does not show (corpus size, batch size, logging interval,
    an output path); the form's task, size, epochs and probe interval override it at Start.
    """

    def __init__(self, parent: QWidget | None = None, *, runner: TrainingRunner | None = None,
                 base: TrainingConfig | None = None) -> None:
        super().__init__(parent)
        self.runner = runner or TrainingRunner(self)
        self.base = base or TrainingConfig()
        self._info: RunInfo | None = None
        self._train_x: list[float] = []
        self._train_y: list[float] = []
        self._val_x: list[float] = []
        self._val_y: list[float] = []
        self._last_event: TrainEvent | None = None
        self._tokens_per_second = 0.0
        self._learning_rate = 0.0
        self._probe = None  # the newest Trace
        self._probe_step = -1
        self._shown: np.ndarray | None = None
        self._message = ""
        self._last_task_index = 0
        self._build()
        self._connect()
        self._apply_state(self.runner.state)

    # ================================================================== construction
    def _build(self) -> None:
        self.task_picker = QComboBox()
        for task in DEMO_TASKS:
            self.task_picker.addItem(_task_title(task), task)
        self.task_picker.insertSeparator(self.task_picker.count())
        self.task_picker.addItem(tr("TrainingView", "TSV file…"), TSV_ITEM)
        self.task_picker.setToolTip(tr("TrainingView", "What to learn: a demo task, or your own file of "
                                                       "source<TAB>target lines"))
        self._select_data(self.task_picker, self.base.task if self.base.task in DEMO_TASKS else "copy")
        if self.base.task not in DEMO_TASKS:
            self.set_task(self.base.task)

        self.size_picker = QComboBox()
        for size in SIZES:
            self.size_picker.addItem(_size_title(size), size)
        self.size_picker.setToolTip(tr("TrainingView", "Model size: tiny trains in seconds on a CPU; small learns "
                                                       "the translation tasks better"))
        self._select_data(self.size_picker, self.base.size if self.base.size in SIZES else "tiny")

        self.epochs_spin = QSpinBox()
        self.epochs_spin.setRange(1, 1000)
        self.epochs_spin.setValue(self.base.epochs)
        self.epochs_spin.setToolTip(tr("TrainingView", "Passes over the training sentences"))

        self.probe_spin = QSpinBox()
        self.probe_spin.setRange(1, 100000)
        self.probe_spin.setValue(self.base.probe_every)
        self.probe_spin.setSuffix(tr("TrainingView", " steps"))
        self.probe_spin.setToolTip(tr("TrainingView", "Redraw the probe sentence's attention every this many "
                                                      "training steps"))

        form = QHBoxLayout()
        for label, widget in ((tr("TrainingView", "Task:"), self.task_picker), (tr("TrainingView", "Size:"), self.size_picker),
                              (tr("TrainingView", "Epochs:"), self.epochs_spin),
                              (tr("TrainingView", "Redraw attention every:"), self.probe_spin)):
            caption = QLabel(label)
            caption.setBuddy(widget)
            form.addWidget(caption)
            form.addWidget(widget)
            form.addSpacing(8)
        form.addStretch(1)

        self.start_button = QPushButton(tr("TrainingView", "Start"))
        self.start_button.setToolTip(tr("TrainingView", "Train a new model from scratch on the chosen task"))
        self.pause_button = QPushButton(tr("TrainingView", "Pause"))
        self.pause_button.setToolTip(tr("TrainingView", "Pause or resume training"))
        self.stop_button = QPushButton(tr("TrainingView", "Stop"))
        self.stop_button.setToolTip(tr("TrainingView", "End the run after the current step"))
        self.save_button = QPushButton(tr("TrainingView", "Save checkpoint…"))
        self.save_button.setToolTip(tr("TrainingView", "Write the best model so far (lowest validation loss; the "
                                                       "current one before the first epoch ends) to a .safetensors file"))
        buttons = QHBoxLayout()
        for button in (self.start_button, self.pause_button, self.stop_button, self.save_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        # own row, wrapping: a long readout must never widen the view (that would clip the heatmap's colour bar)
        self.readout = QLabel()
        self.readout.setWordWrap(True)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        # ---- loss curves
        self.loss_plot = pg.PlotWidget()
        plot = self.loss_plot.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.showGrid(x=True, y=True, alpha=0.25)
        plot.setTitle(html.escape(tr("TrainingView", "Loss")))
        plot.setLabel("bottom", html.escape(tr("TrainingView", "training step")))
        plot.setLabel("left", html.escape(tr("TrainingView", "cross-entropy (nats / token)")))
        self._legend = plot.addLegend(offset=(-10, 10))
        self._train_curve = plot.plot([], [], pen=pg.mkPen(TRAIN_COLOR, width=2), name=tr("TrainingView", "train loss"))
        self._val_curve = plot.plot([], [], pen=pg.mkPen(VALID_COLOR, width=2), symbol="o", symbolSize=7,
                                    symbolBrush=VALID_COLOR, symbolPen=None, name=tr("TrainingView", "validation loss"))

        # ---- probe attention
        self.kind_picker = QComboBox()
        self.kind_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        for kind in KINDS:
            self.kind_picker.addItem(kind_short_title(kind), kind)
        self.layer_picker = QComboBox()
        self.head_picker = QComboBox()
        self.kind_picker.setToolTip(tr("TrainingView", "Which attention of the probe sentence to show"))
        self.layer_picker.setToolTip(tr("TrainingView", "Layer (the last one learns the clearest alignment)"))
        self.head_picker.setToolTip(tr("TrainingView", "One head, or the mean of all heads"))
        self._fill_layers_heads(0, 0)
        pickers = QHBoxLayout()
        pickers.setContentsMargins(0, 0, 0, 0)
        for label, widget in ((tr("TrainingView", "Map:"), self.kind_picker), (tr("TrainingView", "Layer:"), self.layer_picker),
                              (tr("TrainingView", "Head:"), self.head_picker)):
            caption = QLabel(label)
            caption.setBuddy(widget)
            pickers.addWidget(caption)
            pickers.addWidget(widget)
        pickers.addStretch(1)
        self.probe_caption = QLabel()
        self.probe_caption.setWordWrap(True)
        self.probe_caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.heatmap = AttentionHeatmap()
        self._hint = QLabel()
        self._hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._hint.setWordWrap(True)
        self._attention_stack = QStackedWidget()
        self._attention_stack.addWidget(self._hint)
        self._attention_stack.addWidget(self.heatmap)
        attention = QWidget()
        attention_layout = QVBoxLayout(attention)
        attention_layout.setContentsMargins(0, 0, 0, 0)
        attention_layout.addLayout(pickers)
        attention_layout.addWidget(self.probe_caption)
        attention_layout.addWidget(self._attention_stack, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.loss_plot)
        self.splitter.addWidget(attention)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        self.loss_plot.setMinimumWidth(240)
        attention.setMinimumWidth(280)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.readout)
        layout.addWidget(self.status)
        layout.addWidget(self.splitter, 1)
        for label in (self.readout, self.status):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)

    def _connect(self) -> None:
        r = self.runner
        r.stateChanged.connect(self._apply_state)
        r.prepared.connect(self._on_prepared)
        r.progress.connect(self._on_progress)
        r.positionChanged.connect(self._on_position)
        r.probeReady.connect(self._on_probe)
        r.failed.connect(self._on_failed)
        r.checkpointSaved.connect(self._on_saved)
        r.saveFailed.connect(self._on_save_failed)
        self.task_picker.activated.connect(self._on_task_activated)
        self.start_button.clicked.connect(self.start)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button.clicked.connect(self.stop)
        self.save_button.clicked.connect(self._ask_save)
        self.kind_picker.currentIndexChanged.connect(self._redraw_probe)
        self.layer_picker.currentIndexChanged.connect(self._redraw_probe)
        self.head_picker.currentIndexChanged.connect(self._redraw_probe)

    # ================================================================== read-only accessors (tests, the window)
    @property
    def state(self) -> str:
        """idle / running / paused / stopping / stopped / finished / failed."""
        return self.runner.state

    def loss_point_counts(self) -> tuple[int, int]:
        """(train-loss points, validation-loss points) plotted."""
        return len(self._train_x), len(self._val_x)

    def loss_series(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What the two curves hold now: train x, train y, validation x, validation y (copies)."""
        train_x, train_y = self._train_curve.getData()
        val_x, val_y = self._val_curve.getData()
        empty = np.zeros(0)
        return tuple(np.array(a) if a is not None else empty for a in (train_x, train_y, val_x, val_y))  # type: ignore[return-value]

    def shown_matrix(self) -> np.ndarray | None:
        """The [queries, keys] probe matrix the heatmap was last given (a copy), or None."""
        return None if self._shown is None else self._shown.copy()

    @property
    def shown_probe_step(self) -> int:
        """The training step of the probe trace on screen (-1 before the first)."""
        return self._probe_step

    def status_text(self) -> str:
        return self.status.text()

    def readout_text(self) -> str:
        return self.readout.text()

    def current_task(self) -> str:
        """The chosen task: a demo task name or a TSV path."""
        return str(self.task_picker.currentData())

    def config(self) -> TrainingConfig:
        """The run the Start button would begin."""
        return dataclasses.replace(self.base, task=self.current_task(), size=str(self.size_picker.currentData()),
                                   epochs=self.epochs_spin.value(), probe_every=self.probe_spin.value())

    # ================================================================== commands
    def set_task(self, task: str) -> None:
        """Choose a demo task by name, or a TSV file by path (listed under its file name)."""
        if task in DEMO_TASKS:
            self._select_data(self.task_picker, task)
        else:
            tsv_index = self.task_picker.findData(TSV_ITEM)
            custom = next((i for i in range(self.task_picker.count())
                           if self.task_picker.itemData(i) not in (*DEMO_TASKS, TSV_ITEM, None)), None)
            if custom is None:
                self.task_picker.insertItem(tsv_index, Path(task).name, task)
                custom = tsv_index
            else:
                self.task_picker.setItemText(custom, Path(task).name)
                self.task_picker.setItemData(custom, task)
            self.task_picker.setItemData(custom, task, Qt.ItemDataRole.ToolTipRole)
            self.task_picker.setCurrentIndex(custom)
        self._last_task_index = self.task_picker.currentIndex()

    @Slot()
    def start(self) -> bool:
        """Clear the curves and the map, then start a run with :meth:`config`."""
        config = self.config()
        self._reset_display()
        return self.runner.start(config)

    @Slot()
    def toggle_pause(self) -> None:
        if self.runner.state == "paused":
            self.runner.resume()
        else:
            self.runner.pause()

    @Slot()
    def stop(self) -> None:
        self.runner.stop()

    def save_checkpoint_to(self, path: str) -> bool:
        """Save without a dialog (the button's dialog ends here); adds ``.safetensors`` when missing."""
        if not path.endswith(".safetensors"):
            path += ".safetensors"
        self._set_message(tr("TrainingView", "Saving the checkpoint to {path}…").format(path=path))
        return self.runner.save_checkpoint(path)

    def shutdown(self, timeout_ms: int = 60000) -> bool:
        """Stop training and wait for its thread; call from the window's close (idempotent)."""
        return self.runner.shutdown(timeout_ms)

    # ================================================================== slots
    @Slot(int)
    def _on_task_activated(self, index: int) -> None:
        if self.task_picker.itemData(index) != TSV_ITEM:
            self._last_task_index = index
            return
        path, _ = QFileDialog.getOpenFileName(self, tr("TrainingView", "Choose a training corpus"), "",
                                              tr("TrainingView", "Tab-separated text (*.tsv *.txt);;All files (*)"))
        if path:
            self.set_task(path)
        else:
            self.task_picker.setCurrentIndex(self._last_task_index)

    @Slot()
    def _ask_save(self) -> None:
        name = (self._info.task if self._info else "model").replace("/", "_")
        path, _ = QFileDialog.getSaveFileName(self, tr("TrainingView", "Save the trained model"), f"{name}.safetensors",
                                              tr("TrainingView", "Attention Scope checkpoint (*.safetensors)"))
        if path:
            self.save_checkpoint_to(path)

    @Slot(str)
    def _apply_state(self, state: str) -> None:
        active = state in ("running", "paused", "stopping")
        for widget in (self.task_picker, self.size_picker, self.epochs_spin, self.probe_spin):
            widget.setEnabled(not active)
        self.start_button.setEnabled(not active)
        self.pause_button.setEnabled(state in ("running", "paused"))
        self.pause_button.setText(tr("TrainingView", "Resume") if state == "paused" else tr("TrainingView", "Pause"))
        self.stop_button.setEnabled(state in ("running", "paused"))
        self.save_button.setEnabled(self.runner.can_save or (active and self._info is not None))
        self._message = ""
        self._update_status()
        self._update_hint()

    @Slot(object)
    def _on_prepared(self, info: object) -> None:
        assert isinstance(info, RunInfo)
        self._info = info
        self._fill_layers_heads(max(info.n_encoder_layers, info.n_decoder_layers), info.n_heads)
        self.probe_caption.setText(tr("TrainingView", "Probe (a held-out example): {source} → {target}").format(
            source=info.probe_source, target=info.probe_target))
        self.save_button.setEnabled(True)
        self._update_readout()
        self._update_status()
        self._update_hint()

    @Slot(object)
    def _on_progress(self, event: TrainEvent) -> None:
        self._last_event = event
        if event.kind == "step":
            self._train_x.append(float(event.step))
            self._train_y.append(float(event.train_loss))
            self._train_curve.setData(np.asarray(self._train_x), np.asarray(self._train_y))
        elif event.kind == "epoch" and event.val_loss is not None:
            self._val_x.append(float(event.step))
            self._val_y.append(float(event.val_loss))
            self._val_curve.setData(np.asarray(self._val_x), np.asarray(self._val_y))
        if event.tokens_per_second > 0:
            self._tokens_per_second = event.tokens_per_second
        if event.learning_rate > 0:  # the closing 'done' event carries no rate
            self._learning_rate = event.learning_rate
        self._update_readout()
        if event.kind == "epoch":
            self._update_status()

    @Slot(int, int)
    def _on_position(self, step: int, epoch: int) -> None:
        self._update_readout()

    @Slot(int, object)
    def _on_probe(self, step: int, trace: object) -> None:
        self._probe, self._probe_step = trace, step
        self._redraw_probe()
        self._update_hint()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._set_message(tr("TrainingView", "Error: {message}").format(message=message))

    @Slot(str)
    def _on_saved(self, path: str) -> None:
        self._set_message(tr("TrainingView", "Checkpoint saved to {path}").format(path=path))

    @Slot(str)
    def _on_save_failed(self, message: str) -> None:
        self._set_message(tr("TrainingView", "Could not save the checkpoint: {message}").format(message=message))

    # ================================================================== drawing
    def _redraw_probe(self) -> None:
        trace = self._probe
        if trace is None:
            return
        kind = str(self.kind_picker.currentData())
        maps = trace.attention(kind)  # [L, H, Q, K]
        if maps.shape[0] == 0 or maps.shape[2] == 0:
            return
        layer = min(max(self.layer_picker.currentIndex(), 0), maps.shape[0] - 1)
        head = self.head_picker.currentData()
        matrix = maps[layer].mean(axis=0) if head is None else maps[layer, min(int(head), maps.shape[1] - 1)]
        if kind == "encoder_self":
            queries = keys = list(trace.src_tokens)
            q_label, k_label = tr("TrainingView", "query: source token"), tr("TrainingView", "key: source token")
        else:
            queries = list(trace.tgt_tokens)
            keys = queries if kind == "decoder_self" else list(trace.src_tokens)
            q_label = tr("TrainingView", "query: decoder input")
            k_label = tr("TrainingView", "key: decoder input") if kind == "decoder_self" else tr("TrainingView", "key: source token")
        head_text = tr("TrainingView", "mean of heads") if head is None else tr("TrainingView", "head {head}").format(head=head)
        # short: the pickers above already name the map, and a title wider than the panel would clip the plot
        title = tr("TrainingView", "{kind} · L{layer} · {head} · step {step}").format(
            kind=kind_short_title(kind), layer=layer, head=head_text, step=self._probe_step)
        self._shown = np.ascontiguousarray(matrix, dtype=np.float32)
        self.heatmap.set_matrix(self._shown, queries, keys, title=title, query_label=q_label, key_label=k_label)

    def _fill_layers_heads(self, n_layers: int, n_heads: int) -> None:
        """Rebuild the layer and head pickers for a new model; last layer and mean of heads by default."""
        if self.layer_picker.count() == n_layers and self.head_picker.count() == n_heads + 1:
            return
        with QSignalBlocker(self.layer_picker), QSignalBlocker(self.head_picker):
            self.layer_picker.clear()
            for layer in range(n_layers):
                self.layer_picker.addItem(tr("TrainingView", "layer {layer}").format(layer=layer), layer)
            self.layer_picker.setCurrentIndex(n_layers - 1)
            self.head_picker.clear()
            self.head_picker.addItem(tr("TrainingView", "mean of heads"), None)
            for head in range(n_heads):
                self.head_picker.addItem(tr("TrainingView", "head {head}").format(head=head), head)
            self.head_picker.setCurrentIndex(0)

    def _reset_display(self) -> None:
        self._info, self._last_event, self._tokens_per_second, self._learning_rate = None, None, 0.0, 0.0
        self._train_x, self._train_y, self._val_x, self._val_y = [], [], [], []
        self._train_curve.setData([], [])
        self._val_curve.setData([], [])
        self._probe, self._probe_step, self._shown = None, -1, None
        self.probe_caption.setText("")
        self.readout.setText("")
        self._attention_stack.setCurrentWidget(self._hint)

    def _update_readout(self) -> None:
        info = self._info
        if info is None:
            self.readout.setText("")
            return
        parts = [tr("TrainingView", "epoch {epoch} / {epochs}").format(epoch=self.runner.epoch, epochs=info.epochs),
                 tr("TrainingView", "step {step} / {total}").format(step=self.runner.step, total=info.total_steps)]
        if self._tokens_per_second > 0:
            parts.append(tr("TrainingView", "{rate} tokens/s").format(rate=f"{self._tokens_per_second:,.0f}"))
        event = self._last_event
        if event is not None:
            parts.append(tr("TrainingView", "train loss {loss}").format(loss=f"{event.train_loss:.3f}"))
            if event.best_val_loss is not None:
                parts.append(tr("TrainingView", "best validation loss {loss}").format(loss=f"{event.best_val_loss:.3f}"))
            parts.append(tr("TrainingView", "lr {lr}").format(lr=f"{self._learning_rate:.2e}"))
            parts.append(tr("TrainingView", "elapsed {time}").format(time=_clock(event.elapsed)))
        self.readout.setText("  ·  ".join(parts))

    def _set_message(self, text: str) -> None:
        self._message = text
        self._update_status()

    def _update_status(self) -> None:
        if self._message:
            self.status.setText(self._message)
            return
        state, info = self.runner.state, self._info
        if state == "idle":
            text = tr("TrainingView", "Choose a task and a size, then press Start to train a model from scratch.")
        elif state == "running" and info is None:
            text = tr("TrainingView", "Preparing the task and building the model…")
        elif state == "running":
            text = tr("TrainingView", "Training “{task}” ({size}, {params} parameters) on {device} with {n} sentences.").format(
                task=_task_title(info.task), size=_size_title(info.size), params=f"{info.n_parameters:,}", device=info.device,
                n=f"{info.n_train:,}")
        elif state == "paused":
            text = tr("TrainingView", "Paused at step {step}. Resume to go on, or save a checkpoint.").format(step=self.runner.step)
        elif state == "stopping":
            text = tr("TrainingView", "Stopping after the current step…")
        elif state == "stopped":
            text = tr("TrainingView", "Stopped at step {step}.").format(step=self.runner.step)
        elif state == "finished":
            text = tr("TrainingView", "Finished after {step} steps.").format(step=self.runner.step)
        else:
            text = tr("TrainingView", "Error: {message}").format(message=self.runner.error)
        self.status.setText(text)

    def _update_hint(self) -> None:
        if self._probe is not None:
            self._attention_stack.setCurrentWidget(self.heatmap)
            return
        if self.runner.state in ("running", "paused"):
            self._hint.setText(tr("TrainingView", "The probe sentence's attention appears here after the first step."))
        else:
            self._hint.setText(tr("TrainingView", "Start a run to watch the attention of a held-out sentence form "
                                                  "as the model learns."))
        self._attention_stack.setCurrentWidget(self._hint)

    @staticmethod
    def _select_data(combo: QComboBox, data: str) -> None:
        index = combo.findData(data)
        if index >= 0:
            combo.setCurrentIndex(index)
