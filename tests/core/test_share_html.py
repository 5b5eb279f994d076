"""The shared HTML view without a browser: its number codes, its escaping, its size, its refusal, ``Trace.show()`` and
``export --html``. What the page does in a browser is tests/core/test_share_browser.py."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest

from model_core.share import html_view
from model_core.share.codes import decode_text, encode
from model_core.share.html_view import ViewOptions, ViewTooLarge, build_payload, public_name, trace_html
from model_core.trace import Trace
from viz_app.cli import main

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _codes(enc: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(enc["b64"]), "<u2")


def _texts(values: np.ndarray, signed: bool | None = None) -> list[str]:
    e = encode(values, signed)
    return [decode_text(int(c), e.lowest, e.decades) for c in np.frombuffer(base64.b64decode(e.data), "<u2")]


def test_codes_keep_exactly_the_three_digits_python_prints():
    rng = np.random.default_rng(7)
    weights = np.concatenate([rng.random(50_000), rng.random(50_000) ** 12,  # small weights down to ~1e-40
                              [0.03125, 0.0625, 0.00048828125, 0.5, 1.0, 0.9995, 0.99951, 1e-45, 2.0 ** -126]])
    weights = weights.astype(np.float32)
    assert _texts(weights) == [format(float(v), ".3g") for v in weights]
    signed = (rng.standard_normal(20_000) * 10.0 ** rng.integers(-6, 6, 20_000)).astype(np.float32)
    assert _texts(signed) == [format(float(v), ".3g") for v in signed]
    special = np.array([0.0, np.nan, np.inf, -np.inf, -0.0], np.float32)
    assert _texts(special, True) == ["0", "nan", "inf", "-inf", "0"]


def test_a_signed_value_below_the_kept_decades_says_so_never_zero():
    texts = _texts(np.array([1.0, 3e-40, -2e-39], np.float32))  # 36 decades a sign: 3e-40 is below them
    assert texts[0] == "1" and texts[1].startswith("< 1e") and texts[2].startswith("> -1e")


@pytest.fixture(scope="module")
def demo_run():
    """The en-fr demo model on a 20-token sentence, with every analysis the run can add."""
    from model_core import load_model
    from model_core.inference.run import RunRequest, run

    bundle = load_model("en-fr")
    request = RunRequest("The black cat is sleeping on the small red chair with my sister's friends today.",
                         analyses={"contributions": {}, "value-zeroing": {}, "attribution": {"method": "grad-input"}},
                         capture_scores=True)
    return bundle, run(bundle, request)


def _payload(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="scope-data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


def test_a_twenty_token_sentence_with_every_map_and_analysis_stays_under_two_mb(demo_run):
    bundle, result = demo_run
    trace = result.trace
    assert trace.n_src >= 19 and trace.scores and {"contributions", "value-zeroing", "attribution"} <= set(trace.analyses)
    page = trace_html(trace, model=bundle.name, vocabulary=list(bundle.tgt_tokenizer.vocab))
    assert len(page.encode()) <= 2_000_000
    data = _payload(page)
    for kind in ("encoder_self", "decoder_self", "cross"):
        entry = data["kinds"][kind]
        stack = trace.attention(kind)
        assert entry["weights"]["shape"] == [stack.shape[0], stack.shape[1] + 1, *stack.shape[2:]]
        assert "scores" in entry
        codes = _codes(entry["weights"]).reshape(entry["weights"]["shape"])
        lowest, decades = entry["weights"]["lowest"], entry["weights"]["decades"]
        layer, head = stack.shape[0] - 1, 1
        assert [decode_text(int(c), lowest, decades) for c in codes[layer, head].ravel()] == \
               [format(float(v), ".3g") for v in stack[layer, head].ravel()]
        mean = stack[layer].mean(axis=0, dtype=np.float32)  # the window's mean of heads
        assert [decode_text(int(c), lowest, decades) for c in codes[layer, -1].ravel()] == \
               [format(float(v), ".3g") for v in mean.ravel()]
    shown = _analyses(data)
    assert list(shown) == ["rollout", "attribution", "contributions", "value-zeroing"]  # the registry's order
    assert set(shown["contributions"]["kinds"]) == set(shown["value-zeroing"]["kinds"]) == set(data["kinds"])
    norms = shown["contributions"]["kinds"]["cross"]["maps"]  # [L, H + 1, T, S]: every head, then their mean
    assert norms["shape"] == [*trace.cross.shape[:1], trace.cross.shape[1] + 1, *trace.cross.shape[2:]]
    assert shown["value-zeroing"]["kinds"]["cross"]["maps"]["shape"] == [trace.cross.shape[0], 1, *trace.cross.shape[2:]]
    chosen = data["next"][0]["chosen"]
    assert chosen[0] == trace.output_tokens[0] and chosen[3] == int(trace.output_ids[0])


def _analyses(data: dict) -> dict[str, dict]:
    return {entry["name"]: entry for entry in data["analyses"]}


def _decoded(enc: dict) -> list[str]:
    return [decode_text(int(c), enc["lowest"], enc["decades"]) for c in _codes(enc)]


def test_rollout_in_the_page_is_the_windows_rollout(demo_run):
    from model_core.interpret.rollout import trace_rollout

    trace = demo_run[1].trace
    entry = _analyses(_payload(trace_html(trace)))["rollout"]
    assert entry["type"] == "whole" and not (entry["usesKind"] or entry["usesLayer"] or entry["usesHead"])
    expected = trace_rollout(trace).source
    assert _decoded(entry["map"]) == [format(float(v), ".3g") for v in expected.astype(np.float32).ravel()]


def test_every_analysis_is_drawn_from_its_declaration(demo_run):
    """The page's numbers of each analysis are what its plug-in declares: ``view_maps`` (per kind, every layer and
    head), ``plain_maps`` (attribution: one map per kind, none for the encoder), to three digits; its words and flags
    are the declaration's."""
    from model_core.interpret.registry import analysis

    trace = demo_run[1].trace
    shown = _analyses(_payload(trace_html(trace, layers=(1,))))
    norms = analysis("contributions").view_maps(trace, "decoder_self")[1]  # [H, T, T]
    enc = shown["contributions"]["kinds"]["decoder_self"]
    assert enc["layers"] == [1] and enc["heads"] == norms.shape[0]
    expected = np.concatenate([norms, norms.mean(axis=0, dtype=np.float32)[None]])
    assert _decoded(enc["maps"]) == [format(float(v), ".3g") for v in expected.ravel()]
    attribution = analysis("attribution")
    assert set(shown["attribution"]["kinds"]) == {"cross", "decoder_self"}  # the encoder has none
    assert shown["attribution"]["signed"] and not shown["attribution"]["usesLayer"]
    src = attribution.plain_maps(trace, "cross")
    assert _decoded(shown["attribution"]["kinds"]["cross"]["maps"]) == [format(float(v), ".3g") for v in src.ravel()]
    assert shown["value-zeroing"]["usesHead"] is False and shown["contributions"]["layerLevels"] is True
    assert shown["contributions"]["label"] == analysis("contributions").label
    assert shown["contributions"]["title"] == analysis("contributions").title


def test_a_chinese_page_reads_each_analysis_words_from_its_plug_in(demo_run, monkeypatch):
    """An analysis's label and title come from its plug-in: English, or its ``zh`` translation on a Chinese page (the
    English text where it has none)."""
    from dataclasses import replace

    from model_core.interpret.registry import ANALYSES

    trace = demo_run[1].trace
    rollout = next(a for a in ANALYSES if a.name == "rollout")
    rollout = replace(rollout, zh={rollout.label: "注意力展开", rollout.title: "注意力展开 · 第 {step} / {total} 步"})
    monkeypatch.setattr(html_view, "ANALYSES", tuple(rollout if a.name == "rollout" else a for a in ANALYSES))
    chinese = _analyses(_payload(trace_html(trace, language="zh_CN")))
    english = _analyses(_payload(trace_html(trace)))
    assert (chinese["rollout"]["label"], chinese["rollout"]["title"]) == ("注意力展开", "注意力展开 · 第 {step} / {total} 步")
    assert (english["rollout"]["label"], english["rollout"]["title"]) == (rollout.label, rollout.title)
    assert chinese["attribution"]["label"] == "归因（积分梯度）"  # the plug-in's own table
    assert english["attribution"]["label"] == "attribution (integrated gradients)"


def test_hostile_tokens_and_names_are_data_never_markup(demo_run):
    trace = demo_run[1].trace
    hostile = ["<script>alert(1)</script>", "</script><script>alert(2)</script>", "<!--", "\u2028", "a&amp;b"]
    src = list(trace.src_tokens)
    src[: len(hostile)] = hostile
    name = '"quoted" <b>model</b> \'name\''
    page = trace_html(Trace(**{**trace.__dict__, "src_tokens": src}), model=name)
    body = page.split('<script type="application/json" id="scope-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body and ">" not in body  # nothing in the data can close its block or open a tag
    data = _payload(page)
    assert data["src"][: len(hostile)] == hostile and data["model"] == name  # shown exactly as they are
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    assert "<b>" not in title and "&lt;b&gt;" in title


def test_no_path_of_this_machine_is_embedded(demo_run, tmp_path):
    trace = demo_run[1].trace
    for name in ("/home/alice/models/en-fr.safetensors", "~/secret/m.pt", "C:\\Users\\bob\\m.safetensors",
                 "./private/run/m.safetensors"):
        page = trace_html(trace, model=name)
        assert "alice" not in page and "bob" not in page and "secret" not in page and "private" not in page
    assert public_name("Helsinki-NLP/opus-mt-en-fr") == "Helsinki-NLP/opus-mt-en-fr"  # a hub id is kept
    assert str(Path.home()) not in trace_html(trace, model=str(tmp_path / "m.safetensors"))


class _Shapes:
    """A trace's shapes without its memory (zero-stride arrays): what the refusal reads before encoding anything."""

    def __init__(self, s: int, t: int, layers: int = 6, heads: int = 8) -> None:
        self.n_src, self.n_steps = s, t
        self._maps = {"encoder_self": np.broadcast_to(np.float32(0), (layers, heads, s, s)),
                      "decoder_self": np.broadcast_to(np.float32(0), (layers, heads, t, t)),
                      "cross": np.broadcast_to(np.float32(0), (layers, heads, t, s))}
        self.scores, self.analyses = {}, {}

    def attention(self, kind: str) -> np.ndarray:
        return self._maps[kind]


def test_a_4096_token_run_is_refused_in_one_line_before_any_map_is_encoded(monkeypatch):
    monkeypatch.setattr(html_view, "encode", lambda *a, **k: pytest.fail("encoded before refusing"))
    with pytest.raises(ViewTooLarge) as caught:
        build_payload(_Shapes(4096, 4096), ViewOptions())
    message = str(caught.value)
    assert "\n" not in message and "MB" in message and caught.value.size > 20_000_000
    assert "even one layer of one kind" in message  # 4096² cells a head: no narrowing fits, and it says so
    with pytest.raises(ViewTooLarge) as caught:
        build_payload(_Shapes(600, 600), ViewOptions())
    assert "kinds=" in str(caught.value) and "layers=" in str(caught.value)  # narrowing fits: it names how


def test_trace_show_from_an_npz_is_a_framed_page(demo_run, tmp_path):
    path = demo_run[1].trace.save(tmp_path / "t.npz")
    view = Trace.load(path).show(language="zh_CN", kinds=("cross",), layers=(1,))
    frame = view._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame and "<script>" not in frame
    data = _payload(view.page)
    assert data["lang"] == "zh_CN" and data["text"]["mean"] == "各头平均"
    assert list(data["kinds"]) == ["cross"] and data["kinds"]["cross"]["layers"] == [1]
    saved = view.save(tmp_path / "v.html")
    assert saved.read_text(encoding="utf-8") == view.page
    shallow = Trace(**{**Trace.load(path).__dict__, "encoder_self": Trace.load(path).encoder_self[:1]})
    data = _payload(shallow.show(layers=(2,), kind="encoder_self").page)  # layer 2 exists in the decoder only
    assert list(data["kinds"]) == ["decoder_self", "cross"] and data["initial"]["kind"] == "decoder_self"
    with pytest.raises(ValueError, match="unknown language"):
        Trace.load(path).show(language="fr")


# ---------------------------------------------------------------------------------------------- the command line
def test_export_html_writes_one_page_and_narrows_it(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "lesson.html"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 w3", "--device", "cpu",
                 "--html", str(out), "--language", "zh_CN"]) == 0
    assert "wrote" in capsys.readouterr().out
    data = _payload(out.read_text(encoding="utf-8"))
    assert data["lang"] == "zh_CN" and data["src"] == ["w1", "w2", "w3", "<eos>"] and set(data["kinds"]) == {
        "encoder_self", "decoder_self", "cross"}
    assert str(tmp_path) not in out.read_text(encoding="utf-8")
    small = tmp_path / "small.html"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 w3", "--html", str(small),
                 "--kind", "cross", "--layer", "1"]) == 0
    data = _payload(small.read_text(encoding="utf-8"))
    assert list(data["kinds"]) == ["cross"] and data["kinds"]["cross"]["layers"] == [1]
    assert small.stat().st_size < out.stat().st_size


def test_export_html_refusals_are_one_line(tiny_checkpoint, tmp_path, capsys, monkeypatch):
    base = ["export", "--model", str(tiny_checkpoint), "--src", "w1 w2"]
    cases = [
        (["--out", str(tmp_path / "a.npz"), "--kind", "cross"], "give --html"),
        (["--html", str(tmp_path / "a.png")], "name it OUT.html"),
        (["--html", str(tmp_path / "b.html"), "--out", str(tmp_path / "b.npz")], "give one output"),
        (["--html", str(tmp_path / "c.html"), "--layer", "7"], "this model has layers 0..1"),
    ]
    for extra, words in cases:
        assert main(base + extra) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err and "Traceback" not in err
    monkeypatch.setattr(html_view, "MAX_HTML_BYTES", 1_000)
    monkeypatch.setattr("viz_app.cli.export.run_plan", lambda *a, **k: pytest.fail("decoded before refusing"))
    assert main([*base, "--html", str(tmp_path / "d.html")]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]  # notes may come before
    assert len(errors) == 1 and "--kind" in errors[0] and "--layer" in errors[0]
    assert not (tmp_path / "d.html").exists()


def test_export_html_from_a_session_opens_at_its_step_and_map(tiny_checkpoint, tmp_path):
    from model_core.io.sessions import Selection, Session, model_ref

    session = Session(model=model_ref(str(tiny_checkpoint)), source="w1 w2 w3", step=2,
                      selection=Selection(kind="decoder_self", layer=1, head=3))
    path = session.save(tmp_path / "lesson.scope.json")
    out = tmp_path / "lesson.html"
    assert main(["export", "--session", str(path), "--html", str(out)]) == 0
    assert _payload(out.read_text(encoding="utf-8"))["initial"] == {"kind": "decoder_self", "layer": 1, "head": 3,
                                                                    "step": 2}


def test_a_long_sentences_maps_on_demand_give_the_same_page_numbers(tiny_checkpoint, tmp_path, monkeypatch):
    """Over the eager-maps budget a run keeps what the maps are computed from: the page reads the chosen layer then,
    equal to the ordinary run's maps to three digits, and leaves out the rollout (it would need every map)."""
    args = ["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 w3 w4 w5", "--tgt", "t1 t2 t3"]
    assert main([*args, "--html", str(tmp_path / "eager.html"), "--kind", "cross", "--layer", "1"]) == 0
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", 1000)
    assert main([*args, "--html", str(tmp_path / "lazy.html"), "--kind", "cross", "--layer", "1"]) == 0
    eager, lazy = (_payload((tmp_path / name).read_text(encoding="utf-8")) for name in ("eager.html", "lazy.html"))
    assert "rollout" not in _analyses(lazy) and "rollout" in _analyses(eager)
    for data in (eager, lazy):
        assert data["kinds"]["cross"]["weights"]["shape"] == eager["kinds"]["cross"]["weights"]["shape"]
    texts = [[decode_text(int(c), d["kinds"]["cross"]["weights"]["lowest"], d["kinds"]["cross"]["weights"]["decades"])
              for c in _codes(d["kinds"]["cross"]["weights"])] for d in (eager, lazy)]
    assert texts[0] == texts[1]


def test_the_live_widget_holds_the_same_page(demo_run, monkeypatch):
    trace = demo_run[1].trace
    pytest.importorskip("anywidget", reason="anywidget is not installed (the optional live widget)")
    widget = trace.show(widget=True, kinds=("cross",))
    assert widget.page == trace.show(kinds=("cross",)).page and "export default" in widget._esm
    monkeypatch.setitem(__import__("sys").modules, "anywidget", None)  # as where it is not installed
    with pytest.raises(ImportError, match="pip install anywidget"):
        trace.show(widget=True)


def test_both_languages_have_every_word_the_page_reads_with_the_same_fields():
    from model_core.share.strings import STRINGS

    script = (Path(html_view.__file__).parent / "viewer.js").read_text(encoding="utf-8")
    used = set(re.findall(r"\bT\.(\w+)", script)) | set(re.findall(r'T\["([\w -]+)"\]', script))
    english, chinese = STRINGS["en"], STRINGS["zh_CN"]
    from model_core.interpret.registry import MAP_MODES
    from model_core.shared_types import KINDS, OVERLAYS

    used |= set(KINDS) | set(OVERLAYS) | set(MAP_MODES)  # read as T[kind], T[view] (the analyses name their own), T[overlay]
    assert used <= set(english), used - set(english)
    assert set(english) == set(chinese)
    for key, text in english.items():
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", chinese[key])), key


def test_the_page_names_no_analysis_and_draws_a_new_one_from_its_declaration(demo_run, monkeypatch):
    """``model_core/share`` knows no analysis by name: each shows from its plug-in's declaration, so a new plug-in (here
    one declared in the test: a layer grid) appears in the page, its numbers and cell texts as declared."""
    from model_core.interpret.base import Analysis, MapView
    from model_core.interpret.registry import ANALYSES

    folder = Path(html_view.__file__).parent
    written = "\n".join(p.read_text(encoding="utf-8").lower() for p in sorted(folder.iterdir()) if p.is_file())
    for found in ANALYSES:
        for name in {found.name, found.name.replace("-", "_"), found.label.split(" (")[0].lower()}:
            assert name not in written, name
        assert sum(way is not None for way in (found.view_maps, found.plain_maps, found.whole_map, found.layer_grid)) >= 1
    trace = demo_run[1].trace
    values = np.linspace(0.0, 1.0, 3 * trace.n_steps, dtype=np.float32).reshape(3, trace.n_steps)
    texts = np.array([[f"w{la}.{t}" for t in range(trace.n_steps)] for la in range(3)])
    toy = Analysis("toy-grid", "toy grid", "a plug-in the page has never seen",
                   view=MapView(uses_kind=False, uses_layer=False, uses_head=False, weights_like=True),
                   layer_grid=lambda _trace: (values, texts), title="Toy · step {step} / {total}")
    monkeypatch.setattr(html_view, "ANALYSES", (*ANALYSES, toy))
    entry = _analyses(_payload(trace_html(trace)))["toy-grid"]
    assert (entry["type"], entry["label"], entry["title"]) == ("grid", "toy grid", "Toy · step {step} / {total}")
    assert _decoded(entry["values"]) == [format(float(v), ".3g") for v in values.ravel()]
    assert entry["texts"] == texts.tolist()
