"""A run's notices (codes from :mod:`model_core.shared_types`) in the UI language.

The core reports ``Notice("source_truncated", room=…, …)``; only the window knows the language, so
the translation lives here, one literal per code (the extractor reads literals). The context stays
"Worker", where these strings were translated before the pipeline moved to the core.
"""

from __future__ import annotations

from model_core.shared_types import NOTICE_TEXTS, Notice, notice_template
from viz_app.i18n import N_, tr_marked

#: English template (model_core.shared_types.NOTICE_TEXTS) -> marked literal for translation
_MARKED: dict[str, tuple[str, str]] = {
    NOTICE_TEXTS["source_truncated"]: N_("Worker", "source truncated to {room} tokens (max_len {max_len}; it has {length})"),
    NOTICE_TEXTS["source_truncated_about"]: N_("Worker", "source truncated to {room} tokens "
                                               "(max_len {max_len}; it has about {length})"),
    NOTICE_TEXTS["target_truncated"]: N_("Worker", "target truncated to {room} tokens (it has {length})"),
    NOTICE_TEXTS["target_truncated_about"]: N_("Worker", "target truncated to {room} tokens (it has about {length})"),
    NOTICE_TEXTS["padding_limited"]: N_("Worker", "padding limited to the model's max_len of {max_len}"),
    NOTICE_TEXTS["source_unknown"]: N_("Worker", "{count} source words not in the vocabulary, shown as <unk>"),
    NOTICE_TEXTS["source_unknown_one"]: N_("Worker", "1 source word not in the vocabulary, shown as <unk>"),
    NOTICE_TEXTS["target_unknown"]: N_("Worker", "{count} target words not in the vocabulary, shown as <unk>"),
    NOTICE_TEXTS["target_unknown_one"]: N_("Worker", "1 target word not in the vocabulary, shown as <unk>"),
    NOTICE_TEXTS["no_eos"]: N_("Worker", "generation stopped after {count} tokens without producing <eos>"),
    NOTICE_TEXTS["heads_unusual"]: N_("Worker", "{heads} heads is not a usual split of width {d_model} (usual: {likely}); "
                                      "if the maps look wrong, open the model again with another head count"),
    NOTICE_TEXTS["attention_uniform"]: N_("Worker", "every head attends evenly to every token of a test sentence: "
                                          "the head count ({heads}) or the weights may be wrong"),
    NOTICE_TEXTS["heads_identical"]: N_("Worker", "all heads attend alike on a test sentence ({where}): "
                                        "the head count ({heads}) may be wrong"),
    NOTICE_TEXTS["maps_on_demand"]: N_("Worker", "every map of this sentence would take {size} GB: "
                                       "each map is computed when it is shown"),
    NOTICE_TEXTS["long_greedy_only"]: N_("Worker", "a sentence this long is decoded greedily "
                                         "(beam search and sampling are not available)"),
    NOTICE_TEXTS["long_no_scores"]: N_("Worker", "pre-softmax scores are not kept for a sentence this long: "
                                       "the weights are shown"),
    NOTICE_TEXTS["long_no_analysis"]: N_("Worker", "attribution, contributions and value zeroing are not computed "
                                         "for a sentence this long"),
    NOTICE_TEXTS["options_unused"]: N_("Worker", "{options} not used: an Attention Scope checkpoint carries its own "
                                       "vocabulary, special tokens, tokenizer and head count"),
    NOTICE_TEXTS["options_unused_hf"]: N_("Worker", "{options} not used: a Hugging Face model carries its own vocabulary, "
                                          "special tokens, tokenizer and head count"),
    NOTICE_TEXTS["tokenizer_settings_ignored"]: N_("Worker", "{file}: {settings} ignored: a tokenizer reads only "
                                                   "regular files of its own folder, and never tokenises at random"),
    NOTICE_TEXTS["tutorial_defaults"]: N_("Worker", "read with nn.Transformer's default post-norm and ReLU, which its "
                                          "weights cannot confirm: a model built with norm_first=True or "
                                          "activation=\"gelu\" needs --norm-position pre or --activation gelu"),
    NOTICE_TEXTS["tutorial_default_norm"]: N_("Worker", "read with nn.Transformer's default post-norm, which its weights "
                                              "cannot confirm: a model built with norm_first=True needs --norm-position pre"),
    NOTICE_TEXTS["tutorial_default_activation"]: N_("Worker", "read with nn.Transformer's default ReLU, which its weights "
                                                    "cannot confirm: a model built with activation=\"gelu\" needs "
                                                    "--activation gelu"),
    NOTICE_TEXTS["outside_grammar"]: N_("Worker", "this sentence is outside the small grammar this model was trained "
                                        "on ({task}): its translation may be wrong"),
    NOTICE_TEXTS["grammar_differs"]: N_("Worker", "the model's translation is wrong: its grammar translates this sentence "
                                        "as “{expected}”"),
}


def notice_text(notice: Notice) -> str:
    """``notice`` as one translated phrase, parameters filled in."""
    template = notice_template(notice)
    marked = _MARKED.get(template)
    text = tr_marked(marked) if marked is not None else template
    return text.format(**notice.values)
