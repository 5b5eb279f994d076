"""The shipped Simplified Chinese translation (viz_app/i18n/zh_CN.ts and the compiled zh_CN.qm).

Four checks:
1. every message the code holds (``extract.scan()``) is translated by the shipped ``zh_CN.qm``: the failure
   lists the untranslated strings, i.e. what to do after ``python -m viz_app.i18n.extract`` and before
   ``--compile`` (a stale .qm fails too);
2. every translation in ``zh_CN.ts`` keeps its source's ``{placeholders}`` (same names, format specs, count):
   a lost or renamed field raises KeyError at ``.format`` time, in Chinese only;
3. it keeps the HTML tag sequence (and the ``<pad>``-style tokens, which look like tags), the entities,
   the file-dialog patterns ``(*.ext)`` and exactly one ``&`` accelerator where the source has one;
4. installed through :func:`viz_app.i18n.install`, it reaches ``tr`` (and is removed afterwards).
"""

from __future__ import annotations

import re
import string
from collections import Counter

import pytest
from PySide6.QtCore import QTranslator

from viz_app.i18n import HERE, current_language, extract, install, qm_path, tr

LANGUAGE = "zh_CN"
TS = HERE / f"{LANGUAGE}.ts"

_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w-]*)[^<>]*>")
_ENTITY = re.compile(r"&#?\w+;")
_PATTERNS = re.compile(r"\(([^()]*\*[^()]*)\)")


def placeholders(text: str) -> Counter:
    """``(field, conversion, format spec)`` of each ``{…}`` that ``str.format`` would fill."""
    try:
        return Counter((field, conversion, spec) for _literal, field, spec, conversion in string.Formatter().parse(text)
                       if field is not None)
    except ValueError:  # not a format string (unbalanced braces): compare the raw {…} groups
        return Counter(re.findall(r"\{[^{}]*\}", text))


def tags(text: str) -> list[tuple[str, str]]:
    """The sequence of HTML tags (and tag-like tokens such as ``<pad>``), names lower-cased."""
    return [(slash, name.lower()) for slash, name in _TAG.findall(text)]


def accelerators(text: str) -> int:
    """How many ``&`` mnemonics ``text`` has (``&&`` is a literal ampersand, ``&amp;`` an entity)."""
    return len(re.findall(r"&\S", _ENTITY.sub("", text.replace("&&", ""))))


def problems_of(source: str, translation: str) -> list[str]:
    problems = []
    if placeholders(source) != placeholders(translation):
        problems.append(f"placeholders {sorted(placeholders(source).elements())} became {sorted(placeholders(translation).elements())}")
    if tags(source) != tags(translation):
        problems.append(f"tags {tags(source)} became {tags(translation)}")
    if Counter(_ENTITY.findall(source)) != Counter(_ENTITY.findall(translation)):
        problems.append(f"entities {_ENTITY.findall(source)} became {_ENTITY.findall(translation)}")
    if Counter(_PATTERNS.findall(source)) != Counter(_PATTERNS.findall(translation)):
        problems.append(f"file patterns {_PATTERNS.findall(source)} became {_PATTERNS.findall(translation)}")
    if accelerators(source) == 1 and accelerators(translation) != 1:
        problems.append("the & accelerator was lost or doubled")
    return problems


@pytest.fixture(scope="module")
def ts_messages() -> dict[tuple[str, str, str], tuple[str, bool]]:
    assert TS.exists(), f"{TS} is missing: run python -m viz_app.i18n.extract"
    return extract.read_ts(TS)


def test_the_shipped_qm_translates_every_message_of_the_code(qapp):
    messages, bad = extract.scan()
    assert not bad
    translator = QTranslator()
    assert translator.load(str(qm_path(LANGUAGE))), f"{qm_path(LANGUAGE)} is missing: run python -m viz_app.i18n.extract --compile"
    untranslated = [f"{m.path}:{m.line}: [{m.context}] {m.source!r}" + (f" ({m.comment})" if m.comment else "")
                    for m in messages if not translator.translate(m.context, m.source, m.comment or None)]
    assert untranslated == [], (f"{len(untranslated)} of {len(messages)} strings have no {LANGUAGE} translation in the shipped .qm "
                                "(translate them in the .ts, then run python -m viz_app.i18n.extract --compile):\n"
                                + "\n".join(untranslated))


def test_the_ts_has_a_finished_translation_for_every_message(ts_messages):
    messages, _bad = extract.scan()
    unfinished = [f"{m.path}:{m.line}: [{m.context}] {m.source!r}" for m in messages if not ts_messages.get(m.key, ("", False))[1]]
    assert unfinished == [], "unfinished in zh_CN.ts:\n" + "\n".join(unfinished)


def test_translations_keep_placeholders_markup_and_accelerators(ts_messages):
    assert ts_messages, "zh_CN.ts has no messages"
    found = []
    for (context, source, _comment), (translation, _finished) in sorted(ts_messages.items()):
        if translation:
            found += [f"[{context}] {source[:70]!r}: {p}" for p in problems_of(source, translation)]
    assert found == [], "translations that do not match their source:\n" + "\n".join(found)


def test_the_checks_catch_broken_translations():
    assert problems_of("step {step} / {total}", "第 {step} / {total} 步") == []
    assert problems_of("source {src:,} tokens", "源端 {src:,} 个词元") == []
    assert problems_of("source {src:,} tokens", "源端 {src} 个词元")  # format spec lost
    assert problems_of("step {step} / {total}", "第 {步} / {total} 步")  # renamed
    assert problems_of("<h3>No model</h3><p>Open one.</p>", "<h3>未加载模型</h3>请打开一个。")
    assert problems_of("shown as <unk>", "显示为未知词")
    assert problems_of("Abnar &amp; Zuidema", "Abnar & Zuidema")
    assert problems_of("PNG images (*.png)", "PNG 图片（*.png）")
    assert problems_of("&Open model…", "打开模型…")
    assert problems_of("&Open model…", "打开模型(&O)…") == []
    assert problems_of("Open…", "打开…") == []


def test_install_reaches_tr_and_is_removed(qapp):
    try:
        assert install(LANGUAGE)
        assert current_language() == LANGUAGE
        assert tr("MainWindow", "&File") == "文件(&F)"
        assert tr("Controls", "step {step} / {total}").format(step=3, total=7) == "第 3 / 7 步"
        assert tr("Controls", "off", "a spin box at its lowest value: the feature is disabled") == "关闭"
    finally:
        install("en")
    assert current_language() == "en"
    assert tr("MainWindow", "&File") == "&File"


def test_an_analysis_speaks_chinese_from_its_own_table(qapp):
    """The view picker and the explanation read an analysis's texts from the plug-in (``Analysis.zh``) in Chinese,
    and its English ones in English."""
    from model_core.interpret.registry import of_view
    from viz_app.dialogs.explain import explanation
    from viz_app.widgets.controls import view_mode_labels

    lens = of_view("logit-lens")
    try:
        assert install(LANGUAGE)
        labels = dict(view_mode_labels())
        assert labels["logit-lens"] == lens.zh[lens.label] and "透镜" in labels["logit-lens"]
        assert explanation("logit-lens")[0] == lens.zh[lens.explanation[0]]
    finally:
        install("en")
    assert dict(view_mode_labels())["logit-lens"] == lens.label == "logit lens"
