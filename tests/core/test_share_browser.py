"""The shared HTML view in a real browser: headless Chromium, driven by selenium, opens the exported page, steps with
the arrow keys, switches kind, layer and head, reads the hovered weight and compares it with the ``.npz`` to three
significant digits, and takes screenshots at 1280 × 720 and 390 × 844. Without Chromium these tests say so in one
line (``.ci/run`` installs Debian's ``chromium`` and ``chromium-driver``).

``ATTENTION_SCOPE_SCREENSHOTS=FOLDER`` keeps the screenshots there (how docs/screenshots/ was made)."""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest

from model_core.share.html_view import write_html
from model_core.trace import Trace

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SENTENCE = "The black cat is sleeping on the small red chair with my sister's friends today."


def _browser_paths() -> tuple[str, str] | str:
    """(chromium, chromedriver), or why the browser tests cannot run."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        return "headless Chromium is missing: apt-get install chromium chromium-driver (.ci/run installs them)"
    return browser, driver


@pytest.fixture(scope="module")
def driver():
    found = _browser_paths()
    if isinstance(found, str):
        pytest.skip(found)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="scope-chromium-")
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.binary_location = found[0]
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(found[1]), options=options)
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    """The teacher's export: the en-fr demo model on a 20-token sentence, as .npz and as the page."""
    from model_core import load_model
    from model_core.inference.run import RunRequest, run

    bundle = load_model("en-fr")
    result = run(bundle, RunRequest(SENTENCE))
    folder = tmp_path_factory.mktemp("lesson")
    npz = result.trace.save(folder / "lesson.npz")
    page = folder / "lesson.html"
    write_html(result.trace, page, model=bundle.name, vocabulary=list(bundle.tgt_tokenizer.vocab),
               translation=bundle.tgt_tokenizer.decode(int(i) for i in result.trace.output_ids))
    return Trace.load(npz), page


def _size(d, width: int, height: int) -> None:
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500})


def _open(d, page: Path, width: int = 1280, height: int = 720) -> None:
    _size(d, width, height)
    d.get(page.as_uri())
    d.get_log("browser")  # empty the log: what follows is this page's


def _errors(d) -> list[str]:
    return [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]


def _choose(d, select_id: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(d.find_element(By.ID, select_id)).select_by_value(value)


def _hover(d, row: int, col: int) -> tuple[str, str]:
    """Point the mouse at a cell as a person would; the value and the row label the page then shows."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    d.execute_script("const c = window.attentionScope.cellCenter(arguments[0], arguments[1]);"
                     "window.scrollBy(c.x - window.innerWidth / 2, c.y - window.innerHeight / 2);", row, col)
    centre = d.execute_script("return window.attentionScope.cellCenter(arguments[0], arguments[1]);", row, col)
    canvas = d.find_element(By.ID, "heatmap")
    # WebDriver counts the offset from the centre of the element's part inside the viewport
    box = d.execute_script("const r = arguments[0].getBoundingClientRect();"
                           "const l = Math.max(r.left, 0), t = Math.max(r.top, 0);"
                           "const rr = Math.min(r.right, window.innerWidth), b = Math.min(r.bottom, window.innerHeight);"
                           "return [(l + rr) / 2, (t + b) / 2];", canvas)
    dx = centre["x"] - box[0]
    dy = centre["y"] - box[1]
    ActionChains(d).move_to_element_with_offset(canvas, round(dx), round(dy)).perform()
    readout = d.find_element(By.ID, "readout")
    assert (readout.get_attribute("data-row"), readout.get_attribute("data-col")) == (str(row), str(col))
    return (d.find_element(By.ID, "readout-value").text, d.find_element(By.ID, "readout-row").text)


def _press(d, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    d.find_element(By.TAG_NAME, "h1").click()  # the page, not a picker, has the focus
    for _ in range(times):
        ActionChains(d).send_keys(key).perform()


def _full_row_label(trace: Trace, row: int) -> str:
    return f"{trace.tgt_tokens[row]} → {trace.output_tokens[row]}"


def test_keys_step_the_decoding_and_the_hovered_weight_is_the_npz_to_three_digits(driver, lesson):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    trace, page = lesson
    _open(driver, page)
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0  # nothing fetched
    total = trace.n_steps
    step_text = driver.find_element(By.ID, "step-text")
    assert step_text.text == f"step {total} / {total}"
    _press(driver, Keys.ARROW_LEFT, 3)
    assert step_text.text == f"step {total - 3} / {total}"
    _press(driver, Keys.ARROW_RIGHT)
    step = total - 2
    assert step_text.text == f"step {step} / {total}"
    assert driver.execute_script("return window.attentionScope.state.step") == step
    caption = driver.find_element(By.ID, "next-caption").text  # the distribution of this step's row
    assert f"“{trace.output_tokens[step - 1]}”" in caption

    n_dec, n_enc = trace.cross.shape[0], trace.encoder_self.shape[0]
    choices = [("cross", n_dec - 1, 2, step - 1, 4), ("cross", 0, None, step - 2, 1),
               ("decoder_self", 1, 3, step - 1, 0), ("encoder_self", n_enc - 1, 0, 5, 6),
               ("encoder_self", 1, None, 2, 2)]
    for kind, layer, head, row, col in choices:
        _choose(driver, "kind", kind)
        _choose(driver, "layer", str(layer))
        _choose(driver, "head", "mean" if head is None else str(head))
        maps = trace.attention(kind)[layer]
        matrix = maps.mean(axis=0, dtype=np.float32) if head is None else maps[head]
        value, label = _hover(driver, row, col)
        assert value == format(float(matrix[row, col]), ".3g"), (kind, layer, head, row, col)
        assert label == (trace.src_tokens[row] if kind == "encoder_self" else _full_row_label(trace, row))
    title = driver.find_element(By.ID, "map-title").text
    assert title.startswith("Encoder self-attention · layer 1 · mean of heads")
    assert _errors(driver) == []


def test_rows_after_the_step_have_no_number_and_the_masks_shade(driver, lesson):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    trace, page = lesson
    _open(driver, page)
    _press(driver, Keys.HOME)
    _press(driver, Keys.ARROW_RIGHT, 2)
    _choose(driver, "kind", "decoder_self")
    value, label = _hover(driver, 5, 0)
    assert value == "…" and label == "…"  # not decoded yet at step 2
    value, _label = _hover(driver, 1, 1)
    assert value == format(float(trace.decoder_self[0].mean(axis=0, dtype=np.float32)[1, 1]), ".3g")
    before = driver.find_element(By.ID, "heatmap").screenshot_as_png
    driver.find_element(By.CSS_SELECTOR, "input[data-overlay='causal']").click()
    assert driver.find_element(By.ID, "heatmap").screenshot_as_png != before
    assert _errors(driver) == []


def test_a_hostile_token_and_model_name_are_shown_and_never_run(driver, lesson, tmp_path):
    from selenium.webdriver.common.by import By

    trace, _page = lesson
    hostile = ["<script>window.pwned=1</script>", "<img src=x onerror=window.pwned=2>", "</script><b>x", "&lt;"]
    src = list(trace.src_tokens)
    src[: len(hostile)] = hostile
    page = tmp_path / "hostile.html"
    name = '"quoted" <img src=x onerror=window.pwned=3> model'
    write_html(Trace(**{**trace.__dict__, "src_tokens": src}), page, model=name, kind="encoder_self")
    _open(driver, page)
    assert driver.execute_script("return window.pwned === undefined")
    chips = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#source-line .chip")]
    assert chips[: len(hostile)] == hostile
    assert driver.find_element(By.TAG_NAME, "h1").text == f"Attention Scope · {name}"
    _value, label = _hover(driver, 1, 0)
    assert label == hostile[1]
    assert driver.execute_script("return document.images.length") == 0


def _png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])


def test_screenshots_at_a_laptops_and_a_phones_size(driver, lesson, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    trace, page = lesson
    keep = Path(os.environ.get("ATTENTION_SCOPE_SCREENSHOTS", tmp_path))
    keep.mkdir(parents=True, exist_ok=True)
    _open(driver, page, 1280, 720)
    _press(driver, Keys.ARROW_LEFT, 6)
    _hover(driver, trace.n_steps - 7, 7)
    driver.execute_script("window.scrollTo(0, 0)")
    shot = driver.get_screenshot_as_png()
    assert _png_size(shot) == (1280, 720)
    (keep / "share-html-1280x720.png").write_bytes(shot)

    _open(driver, page, 390, 844)
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 390  # nothing runs off the side
    _press(driver, Keys.ARROW_LEFT, 6)
    canvas = driver.find_element(By.ID, "heatmap")
    assert canvas.size["width"] <= 390
    driver.execute_script("document.getElementById('map-title').scrollIntoView()")
    _hover(driver, trace.n_steps - 7, 7)
    driver.execute_script("document.getElementById('map-title').scrollIntoView()")
    shot = driver.get_screenshot_as_png()
    assert _png_size(shot) == (390, 844)
    (keep / "share-html-390x844.png").write_bytes(shot)
    assert _errors(driver) == []


def test_the_chinese_page_speaks_chinese(driver, lesson, tmp_path):
    from selenium.webdriver.common.by import By

    trace, _page = lesson
    page = tmp_path / "zh.html"
    write_html(trace, page, language="zh_CN")
    _open(driver, page)
    assert driver.find_element(By.CSS_SELECTOR, "#head option[value='mean']").text == "各头平均"
    assert driver.find_element(By.ID, "step-text").text == f"第 {trace.n_steps} / {trace.n_steps} 步"
    assert driver.find_element(By.ID, "map-title").text.startswith("交叉注意力")
    assert driver.execute_script("return document.documentElement.lang") == "zh-CN"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """A run with every analysis the page shows: scores, attribution, contributions and value zeroing."""
    from model_core import load_model
    from model_core.inference.run import RunRequest, run

    bundle = load_model("en-fr")
    trace = run(bundle, RunRequest("The small dog sees my sister .", capture_scores=True, analyses={
                                   "attribution": {"method": "grad-input"}, "contributions": {}, "value-zeroing": {}})).trace
    page = tmp_path_factory.mktemp("analysed") / "analysed.html"
    write_html(trace, page, model=bundle.name)
    return trace, page


def test_every_analysis_view_reads_the_trace_to_three_digits(driver, analysed):
    from selenium.webdriver.common.by import By

    from model_core.interpret.attribution import attribution_of
    from model_core.interpret.contributions import norm_maps
    from model_core.interpret.rollout import trace_rollout
    from model_core.interpret.value_zeroing import value_zeroing_of

    trace, page = analysed
    _open(driver, page)
    row = trace.n_steps - 2
    titles: dict[str, str] = {}

    _choose(driver, "view", "rollout")
    value, label = _hover(driver, row, 2)
    assert value == format(float(trace_rollout(trace).source[row, 2]), ".3g") and label == _full_row_label(trace, row)
    titles["rollout"] = driver.find_element(By.ID, "map-title").text

    _choose(driver, "view", "attribution")
    _choose(driver, "kind", "cross")
    assert _hover(driver, row, 1)[0] == format(float(attribution_of(trace).src[row, 1]), ".3g")
    _choose(driver, "kind", "decoder_self")
    assert _hover(driver, row, 1)[0] == format(float(attribution_of(trace).tgt[row, 1]), ".3g")
    assert not driver.find_element(By.ID, "layer").is_enabled()  # one map a kind: no layer, no head
    assert not driver.find_element(By.CSS_SELECTOR, "#kind option[value='encoder_self']").is_enabled()
    titles["attribution"] = driver.find_element(By.ID, "map-title").text

    _choose(driver, "view", "contributions")
    _choose(driver, "kind", "cross")
    _choose(driver, "layer", "1")
    _choose(driver, "head", "2")
    assert _hover(driver, row, 3)[0] == format(float(norm_maps(trace, "cross")[1, 2, row, 3]), ".3g")
    titles["contributions"] = driver.find_element(By.ID, "map-title").text

    _choose(driver, "view", "value-zeroing")
    _choose(driver, "kind", "encoder_self")
    _choose(driver, "layer", "0")
    assert _hover(driver, 2, 4)[0] == format(float(value_zeroing_of(trace)["encoder_self"][0, 2, 4]), ".3g")
    titles["value-zeroing"] = driver.find_element(By.ID, "map-title").text

    _choose(driver, "view", "scores")
    _choose(driver, "kind", "decoder_self")
    _choose(driver, "head", "0")
    assert set(titles) == {"rollout", "attribution", "contributions", "value-zeroing"}
    assert all("{" not in title and "}" not in title for title in titles.values()), titles  # every field filled
    scores = trace.scores["decoder_self"][0, 0]
    assert _hover(driver, 1, 3)[0] == format(float(scores[1, 3]), ".3g") == "-inf"  # blocked by the causal mask
    assert _hover(driver, 3, 1)[0] == format(float(scores[3, 1]), ".3g")
    assert _errors(driver) == []


@pytest.fixture(scope="module")
def lensed(tmp_path_factory):
    """A run with the logit lens, which the page draws from its declaration (a layer grid), not by name."""
    from model_core import load_model
    from model_core.inference.run import RunRequest, run

    bundle = load_model("en-fr")
    trace = run(bundle, RunRequest(SENTENCE, analyses=["logit-lens"])).trace
    page = tmp_path_factory.mktemp("lensed") / "lensed.html"
    write_html(trace, page, model=bundle.name)
    return trace, page


def test_the_logit_lens_is_a_grid_of_layers_and_steps_read_to_three_digits(driver, lensed, lesson, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from model_core.interpret.logit_lens import logit_lens_of

    trace, page = lensed
    lens = logit_lens_of(trace)
    probs, firsts = lens["logit_lens_prob"], lens["logit_lens_top_tokens"][..., 0]
    n_layers, total = probs.shape[0], trace.n_steps
    _open(driver, lesson[1])  # a trace without the lens: no such view
    assert "logit-lens" not in [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#view option")]
    _open(driver, page)
    _choose(driver, "view", "logit-lens")
    assert driver.find_element(By.ID, "map-title").text.startswith("Logit lens") and "step" in driver.find_element(
        By.ID, "map-title").text
    assert all(not driver.find_element(By.ID, name).is_enabled() for name in ("kind", "layer", "head"))
    assert driver.execute_script("return window.attentionScope.shown()")["cols"] == total  # every step so far
    for row, col in ((0, total - 1), (n_layers - 1, 0), (1, total // 2)):  # the last layer on top
        layer = n_layers - 1 - row
        value, label = _hover(driver, row, col)
        assert value == format(float(probs[layer, col]), ".3g") and label == f"layer {layer}"
        assert driver.find_element(By.ID, "readout-text").text == str(firsts[layer, col])
        assert driver.find_element(By.ID, "readout-col").text == f"{col + 1}: {trace.output_tokens[col]}"
    assert driver.find_element(By.ID, "map-note").text.startswith("logit lens:")  # its report line
    keep = Path(os.environ.get("ATTENTION_SCOPE_SCREENSHOTS", tmp_path))
    keep.mkdir(parents=True, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    shot = driver.get_screenshot_as_png()
    assert _png_size(shot) == (1280, 720)
    (keep / "share-html-logit-lens-1280x720.png").write_bytes(shot)
    _press(driver, Keys.ARROW_LEFT, 4)  # the columns are the steps so far
    assert driver.execute_script("return window.attentionScope.shown()")["cols"] == total - 4
    assert _hover(driver, 0, total - 5)[0] == format(float(probs[-1, total - 5]), ".3g")
    assert _errors(driver) == []


def test_the_notebook_output_draws_the_page_in_its_sandboxed_frame(driver, lesson, tmp_path):
    """What Jupyter shows for ``trace.show()``: its HTML output inside a notebook-like page, run by the browser."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    trace, _page = lesson
    notebook = tmp_path / "output.html"
    notebook.write_text(f"<!DOCTYPE html><html><body><h1>cell output</h1>{trace.show()._repr_html_()}</body></html>",
                        encoding="utf-8")
    _open(driver, notebook)
    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "iframe.attention-scope-view"))
    try:
        _press(driver, Keys.ARROW_LEFT)
        assert driver.find_element(By.ID, "step-text").text == f"step {trace.n_steps - 1} / {trace.n_steps}"
        value, _label = _hover(driver, 2, 3)
        assert value == format(float(trace.cross[0].mean(axis=0, dtype=np.float32)[2, 3]), ".3g")
    finally:
        driver.switch_to.default_content()
    assert _errors(driver) == []


def test_a_typed_targets_rows_ahead_of_the_step_keep_the_answer_back(driver, tmp_path):
    """Teacher forcing: at step 2 the rows not reached yet read "…", neither the typed word nor the model's own choice
    (a class must not read the answer before the step that writes it); stepping on reveals them."""
    from selenium.webdriver.common.keys import Keys

    from model_core import load_model
    from model_core.inference.run import RunRequest, run

    bundle = load_model("en-fr")
    result = run(bundle, RunRequest("the black cat sees the dog", "le chat noir voit le chien"))
    page = tmp_path / "typed.html"
    write_html(result.trace, page, model=bundle.name, forced=True)
    _open(driver, page)
    _press(driver, Keys.HOME)
    _press(driver, Keys.ARROW_RIGHT, 2)
    _choose(driver, "kind", "cross")
    assert _hover(driver, 4, 0) == ("…", "…")
    _press(driver, Keys.END)
    assert _hover(driver, 4, 0)[1].startswith(f"{result.trace.tgt_tokens[4]} → {result.trace.output_tokens[4]}")
    assert _errors(driver) == []
