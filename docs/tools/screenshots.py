"""Render the README's screenshots offscreen: ``make screenshots`` (``docs/tools/screenshots.py``, not installed with the app).

Each picture is the real window on the bundled models, driven through the same methods a user's
clicks reach (ScopeStore setters, actions), with its own temporary settings so the user's are never
touched. Run it after a UI change and look at every picture before committing them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SIZE = (1600, 1000)
#: presenter mode is shot full screen on offscreen screens of these sizes (a projector's, a full-HD screen), each in a
#: process of its own (a Qt process has the screens it started with): ``--screen WxH``
PROJECTOR_SCREENS = ((1280, 720), (1920, 1080))


def projector_shots(size: tuple[int, int]) -> list[str]:
    """The names of the presenter-mode pictures shot on a screen of ``size`` (English, then Chinese)."""
    return [f"presenter_{size[0]}x{size[1]}", f"presenter_{size[0]}x{size[1]}_zh"]


def use_screen(size: tuple[int, int], folder: Path) -> None:
    """Make the offscreen platform's one screen ``size`` (before the QApplication is created)."""
    import json

    config = folder / f"screen-{size[0]}x{size[1]}.json"
    config.write_text(json.dumps({"synchronousWindowSystem": True, "windowFrameMargins": False, "screens": [
        {"name": "projector", "x": 0, "y": 0, "width": size[0], "height": size[1], "logicalDpi": 96, "logicalBpp": 32,
         "dpr": 1}]}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


def _wait(app, condition: Callable[[], bool], timeout: float = 120.0) -> None:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise TimeoutError("the window did not reach the expected state")
        app.processEvents()
        time.sleep(0.02)
    for _ in range(5):  # let layouts and paints settle
        app.processEvents()
        time.sleep(0.02)


def _window(app, model: str, settings_dir: Path, name: str, theme: str = "light"):
    from viz_app.scope.settings import AppSettings
    from viz_app.window.main_window import MainWindow

    settings = AppSettings(settings_dir / f"{name}.ini")
    settings.set("view/theme", theme)
    window = MainWindow(settings, model=model)
    window.resize(*SIZE)
    window.show()
    _wait(app, lambda: window.store.trace is not None and not window.host.busy)
    return window


def _settle(app, window) -> None:
    _wait(app, lambda: not window.host.busy and window.store.trace is not None)


def _type(app, window, source: str, target: str = "") -> None:
    window.sentence.inputs.show_texts(source, target)
    window.store.set_inputs(source, target)
    window.flush_inputs()
    window.request_run()
    _settle(app, window)


def _long_copy(path: Path, folder: Path, max_len: int = 4200) -> Path:
    """The bundled model with room for a 4,096-token document (its sinusoidal positions are computed, not
    stored: the same weights read longer sentences), saved beside the screenshots' settings."""
    from dataclasses import replace

    from model_core import Seq2SeqTransformer, load_model, save_model

    bundle = load_model(path)
    model = Seq2SeqTransformer(replace(bundle.config, max_len=max_len)).eval()
    model.load_state_dict(bundle.model.state_dict())
    out = folder / "en-fr-long.safetensors"
    save_model(out, model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="en-fr (long documents)")
    return out


def render_all(out: Path, only: set[str] | None = None) -> list[Path]:
    """Write every screenshot into ``out``; returns the files written."""
    from PySide6.QtWidgets import QApplication

    from model_core.io.paths import bundled_models
    from viz_app.i18n import install

    app = QApplication.instance() or QApplication([sys.argv[0]])
    out.mkdir(parents=True, exist_ok=True)
    models = bundled_models()
    if "en-fr" not in models:
        raise SystemExit("the bundled en-fr model is missing (make demo-models)")
    written: list[Path] = []
    tmp = Path(tempfile.mkdtemp(prefix="attention-scope-shots-"))
    sentence = "the black cat does not see the small dog"

    def shoot(name: str, setup: Callable, *, model: str = "en-fr", theme: str = "light", language: str = "en") -> None:
        if only and name not in only:
            return
        install(language)
        window = _window(app, model, tmp, name, theme)
        try:
            setup(window)
            _settle(app, window)
            path = out / f"{name}.png"
            getattr(window, "shot_widget", window).grab().save(str(path))
            written.append(path)
            print(f"wrote {path}")
        finally:
            window.shutdown()
            window.close()
            window.deleteLater()
            app.processEvents()
            install("en")

    def main(w) -> None:
        _type(app, w, sentence)
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_step(6)

    def masks(w) -> None:
        _type(app, w, sentence)
        w.sentence.inputs.show_padding(0, 14)
        w.store.set_padding(0, 14)
        w.request_run()
        _settle(app, w)
        w.store.select(kind="decoder_self", layer=0, head=1)
        w.store.set_overlay("causal", True)
        w.store.set_overlay("target padding", True)
        w.store.set_step(w.store.n_steps)

    def scores(w) -> None:
        _type(app, w, sentence)
        w.store.select(kind="decoder_self", layer=1, head=0)
        w.store.set_view_mode("scores")
        w.request_run()
        _settle(app, w)
        w.store.set_step(7)

    def rollout(w) -> None:
        _type(app, w, sentence)
        w.store.set_view_mode("rollout")
        w.store.set_step(4)

    def statistics(w) -> None:
        _type(app, w, sentence)
        w.heads.tabs.setCurrentWidget(w.heads.stats)
        w.store.select(kind="cross", layer=2, head=1)
        w.store.set_step(w.store.n_steps)

    def positional(w) -> None:
        _type(app, w, sentence)
        w.positional.dock.raise_()
        w.positional.panel.set_dims(0, 4)  # four curves read; eight are a tangle (the spin boxes pick any others)

    def ablation(w) -> None:
        _type(app, w, sentence)
        w.show_ablation()
        w.store.set_layer_ablation("cross", 2, True)
        _settle(app, w)
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_step(4)

    def presenter(w) -> None:
        _type(app, w, sentence)
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_step(5)
        w.actions.presenter.trigger()
        # the offscreen platform's "full screen" is 800×800: show presenter mode at the projector size of the other shots
        w.showNormal()
        w.resize(*SIZE)

    def presenting(source: str, target: str = "", step: int | None = None) -> Callable:
        """Presenter mode, full screen on this process's screen (``--screen``): what the back of a room sees."""
        def setup(w) -> None:
            _type(app, w, source, target)
            w.store.select(kind="cross", layer=2, head=None)
            w.store.set_step(w.store.n_steps if step is None else step)
            w.actions.presenter.trigger()
            _wait(app, lambda: w.isFullScreen())
        return setup

    def inspector(w) -> None:
        _type(app, w, sentence)
        w.show_inspector()
        _settle(app, w)

    def alignment(w) -> None:  # gold links over the cross-attention, every head's AER
        _type(app, w, sentence, "le chat noir ne voit pas le petit chien")
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_step(w.store.n_steps)
        w.alignment.action.trigger()
        w.alignment.binding.set_gold_text("0-0 2-1 1-2 4-3 3-4 5-4 4-5 6-6 7-7 8-8 3?3")

    def report(w) -> None:  # the report card, opened from a folder written by `attention-scope report`
        from model_core import load_model
        from model_core.analysis.alignment import GoldAlignment
        from model_core.analysis.report import build_report
        from model_core.analysis.report_html import write_report
        from model_core.data import generate

        examples = generate("en-fr", 96, seed=0, split="test")
        gold = [GoldAlignment(frozenset((s, j) for j, ss in enumerate(e.alignment) for s in ss)) for e in examples]
        card = build_report(load_model("en-fr", device="cpu"), [(e.src_text, e.tgt_text) for e in examples], gold=gold)
        write_report(card, tmp / "report", overwrite=True)
        dialog = w.report.opener.open(tmp / "report")
        dialog.resize(1100, 700)
        dialog.select_head("cross", 2, 3)
        dialog.unusual.setCurrentRow(0)
        w.shot_widget = dialog  # the picture is the dialog

    def teacher_forcing(w) -> None:  # every typed word's rank at once, under its chip
        _type(app, w, "the black cat sees the small dog", "le chat noir mange le petit chien")
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_step(4)

    def typing_guide(w) -> None:  # "What can I type?" (F2), an example clicked
        w.actions.panels["typing_guide"].trigger()
        _settle(app, w)
        panel = w.typing_guide.panel
        panel.examples.itemClicked.emit(panel.examples.item(2))
        _wait(app, lambda: w.store.trace is not None and not w.host.busy and w.store.src_text == panel.example_sources()[2])
        w.store.select(kind="cross", layer=2, head=None)

    def attribution(w) -> None:  # integrated gradients, each head's agreement ρ in its tile
        _type(app, w, sentence)
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_view_mode("attribution")
        w.request_run()
        _settle(app, w)
        w.store.set_step(6)

    def contributions(w) -> None:  # Kobayashi's ‖α·f(x)‖ and the share from the source
        _type(app, w, sentence)
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_view_mode("contributions")
        w.request_run()
        _settle(app, w)
        w.store.set_step(6)

    def logit_lens(w) -> None:  # each decoder layer's first choice, the word forming layer by layer
        _type(app, w, sentence)
        w.store.set_view_mode("logit-lens")
        w.request_run()
        _settle(app, w)

    def compare(w) -> None:  # a minimal pair, A, B and A − B (Model ▸ Compare two sentences…)
        _type(app, w, "the cat sees the dog")
        w.store.select(kind="cross", layer=0, head=3)
        comparison = w.sentence_comparison
        comparison.show()
        comparison.panel.src_b.setText("the cats see the dog")
        comparison.panel.button.click()
        _wait(app, lambda: comparison.panel.comparison is not None and not w.host.busy)
        w.shot_widget = comparison.dock

    def walkthrough(w) -> None:  # a heatmap cell clicked, its weight worked through (q, k, softmax, Σ w·v)
        _type(app, w, sentence)
        w.store.select(kind="cross", layer=0, head=2)  # a head that spreads its row: the softmax has something to show
        w.store.set_step(3)
        binding = w.walkthrough
        w.map.heatmap.cellClicked.emit(2, 1)  # the row that writes "noir", the key "black"
        _wait(app, lambda: binding.dialog is not None and binding.dialog.panel.cell() is not None)
        w.shot_widget = binding.dialog

    def alignment_lines(w) -> None:  # cross-attention as source → target lines, the board picture
        _type(app, w, sentence)
        w.store.select(kind="cross", layer=2, head=None)
        w.store.set_step(7)
        w.alignment_lines.action.trigger()  # the dock (Model ▸ Alignment lines), shown on its own at a board's size
        lines = w.alignment_lines.panel
        w.alignment_lines.dock.setFloating(True)
        w.alignment_lines.dock.resize(1200, 560)
        lines.set_font_point_size(14)
        w.shot_widget = lines

    def long_document(w) -> None:  # a 4,096-token source, a labelled window of its map and the minimap
        words = sentence.split()
        _type(app, w, " ".join(words[i % len(words)] for i in range(4095)), "le chat noir ne voit pas le petit chien")
        w.store.select(kind="encoder_self", layer=0, head=1)
        w.map.binding.move_window(2000, 1980)

    screen = app.primaryScreen().geometry()
    here = (screen.width(), screen.height())
    if here in PROJECTOR_SCREENS:  # a process started for these pictures (``--screen``) takes only them
        english, chinese = projector_shots(here)
        shoot(english, presenting("How many figs are there behind our big purple fountain?", step=13))
        if "en-zh" in models:
            shoot(chinese, presenting("the small cat sees two books on the table", step=7), model="en-zh",
                  language="zh_CN")
        return written
    shoot("main", main)
    shoot("masks", masks)
    shoot("scores", scores)
    shoot("rollout", rollout)
    shoot("statistics", statistics)
    shoot("positional", positional)
    shoot("ablation", ablation)
    shoot("presenter", presenter)
    shoot("inspector", inspector)
    shoot("dark", main, theme="dark")
    shoot("teacher_forcing", teacher_forcing)
    shoot("typing_guide", typing_guide)
    shoot("alignment", alignment)
    shoot("report", report)
    shoot("attribution", attribution)
    shoot("contributions", contributions)
    shoot("logit_lens", logit_lens)
    shoot("compare", compare)
    shoot("walkthrough", walkthrough)
    shoot("alignment_lines", alignment_lines)
    shoot("long", long_document, model=str(_long_copy(models["en-fr"], tmp)))
    if "en-zh" in models:
        shoot("chinese", lambda w: (_type(app, w, "the small cat sees two books on the table"),
                                    w.store.select(kind="cross", layer=2, head=None), w.store.set_step(9)),
              model="en-zh", language="zh_CN")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots", help="folder for the PNG files")
    parser.add_argument("--screen", default=None, help="WxH: shoot presenter mode on a screen of that size only")
    parser.add_argument("names", nargs="*", help="only these screenshots (default: all)")
    args = parser.parse_args(argv)
    wanted = set(args.names) or None
    if args.screen:
        width, height = (int(x) for x in args.screen.lower().split("x"))
        use_screen((width, height), Path(tempfile.mkdtemp(prefix="attention-scope-screen-")))
        render_all(Path(args.out), wanted)
        return 0
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    render_all(Path(args.out), wanted)
    for size in PROJECTOR_SCREENS:  # each screen size in a process of its own
        names = [n for n in projector_shots(size) if wanted is None or n in wanted]
        if names:
            import subprocess

            subprocess.run([sys.executable, __file__, "--screen", f"{size[0]}x{size[1]}", "--out", args.out, *names],
                           check=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
