"""Special tokens asked when their names do not tell, tokenization that matches the
vocabulary, and a doubtful head count noticed.

Checkpoints are the PyTorch tutorial's ``nn.Transformer`` model saved as its users do; the maps are compared with
``nn.MultiheadAttention``'s own weights, so a special token put at the wrong id (the source is wrapped in it) shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from tokenizers import Regex, models, normalizers, pre_tokenizers
from tokenizers import Tokenizer as Backend

from model_core.inference.run import RunRequest, run
from model_core.io.importers import CheckpointError, ImportOptions, NeedsHyperparameters, open_model
from model_core.io.importers.head_check import likely_heads
from model_core.text.tokenizers import Tokenizer, UnclearSpecials, rank_splitters, resolve_specials
from model_core.trace import Trace
from tests.core.test_import_tutorials import TutorialSeq2Seq, tutorial_attention
from viz_app.cli import main as cli_main

pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]

#: a torchtext-era vocabulary: [UNK] and <blank> are clear, but <s> and <sos> could both start a sentence
AMBIGUOUS = ["[UNK]", "<blank>", "<s>", "<sos>", "</s>", "<mask>"]
#: spaCy-style entries: contractions and hyphenated words are single tokens
SPACY = ["<unk>", "<pad>", "<bos>", "<eos>", "I", "do", "n't", "know", "'s", "it", "E-Mail", ".", ","]


def checkpoint(folder: Path, src_vocab: list[str], tgt_vocab: list[str], heads: int = 4, seed: int = 0) -> tuple[TutorialSeq2Seq, Path]:
    torch.manual_seed(seed)
    model = TutorialSeq2Seq(1, 1, 32, heads, len(src_vocab), len(tgt_vocab)).eval()
    path = folder / "model.pt"
    torch.save(model.state_dict(), path)
    (folder / "src.txt").write_text("\n".join(src_vocab) + "\n", encoding="utf-8")
    (folder / "tgt.txt").write_text("\n".join(tgt_vocab) + "\n", encoding="utf-8")
    return model, path


def vocab_options(folder: Path, **more) -> ImportOptions:
    return ImportOptions(src_vocab=str(folder / "src.txt"), tgt_vocab=str(folder / "tgt.txt"), heads=4, **more)


# ----------------------------------------------------------------------------------------- special tokens
def test_roles_are_found_by_name_or_left_open_with_proposals():
    vocab = [*AMBIGUOUS, "cat"]
    with pytest.raises(UnclearSpecials) as info:
        resolve_specials(vocab)
    assert set(info.value.proposals) == {"bos"}  # [UNK], <blank>, </s> are decided by their names
    assert info.value.proposals["bos"] == ["<s>", "<sos>", "<mask>"]  # the known names first; [UNK] </s> <blank> are taken
    assert resolve_specials(vocab, {"bos": "<sos>"}) == {"pad": "<blank>", "bos": "<sos>", "eos": "</s>", "unk": "[UNK]"}
    with pytest.raises(UnclearSpecials) as info:
        resolve_specials(["<go_>", "<stop_>", "[NUM]", "cat"])  # none of the usual names: every special-looking token
    assert info.value.proposals["unk"] == ["<go_>", "<stop_>", "[NUM]"] and set(info.value.proposals) == set(("pad", "bos", "eos", "unk"))
    with pytest.raises(ValueError, match="'<start>' given for bos is not in the vocabulary"):
        resolve_specials(vocab, {"bos": "<start>"})


def test_unclear_specials_are_asked_then_kept_under_the_vocabularys_own_names(tmp_path):
    words = [f"w{i}" for i in range(24)]
    reference, path = checkpoint(tmp_path, AMBIGUOUS + words, AMBIGUOUS + words)
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, vocab_options(tmp_path), device="cpu")
    assert info.value.missing == {"bos": "<s>"}  # the one role the names leave open, <s> proposed first
    assert info.value.proposals["bos"][:2] == ["<s>", "<sos>"]
    assert "--bos '<s>'" in str(info.value)  # CLI advice, quoted for a shell

    bundle = open_model(path, vocab_options(tmp_path, bos="<sos>"), device="cpu")
    c = bundle.config
    assert (c.unk_id, c.pad_id, c.bos_id, c.eos_id) == (0, 1, 3, 4)  # ids of [UNK] <blank> <sos> </s>
    result = run(bundle, RunRequest("w3 w7 nonsense", "w1 w2"))
    trace = result.trace
    assert trace.src_tokens == ["<sos>", "w3", "w7", "[UNK]", "</s>"]  # the vocabulary's names, never renamed
    assert trace.tgt_tokens[0] == "<sos>"
    assert ("source_unknown", {"count": 1}) in [(n.code, n.values) for n in result.notices]  # [UNK] counts as unknown

    # the maps are nn.MultiheadAttention's on the same ids: <sos> really is what wraps the source
    src = torch.tensor([3, 9, 13, 0, 4])[:, None]  # <sos> w3 w7 [UNK] </s>
    trg = torch.tensor([3, 7, 8])[:, None]  # decoder inputs <sos> w1 w2 (w1 w2 </s> are chosen)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(3)
    with torch.no_grad():
        enc, dec, cross = tutorial_attention(reference, src, trg, mask)
    np.testing.assert_allclose(trace.encoder_self, enc, atol=1e-5)
    np.testing.assert_allclose(trace.decoder_self, dec, atol=1e-5)
    np.testing.assert_allclose(trace.cross, cross, atol=1e-5)

    with pytest.raises(CheckpointError, match="'<start>' given for bos is not in the vocabulary"):
        open_model(path, vocab_options(tmp_path, bos="<start>"), device="cpu")


def test_cli_takes_special_tokens_on_every_model_command(tmp_path, capsys):
    words = [f"w{i}" for i in range(24)]
    checkpoint(tmp_path, AMBIGUOUS + words, AMBIGUOUS + words)
    model = ["--model", str(tmp_path / "model.pt"), "--src-vocab", str(tmp_path / "src.txt"),
             "--tgt-vocab", str(tmp_path / "tgt.txt"), "--heads", "4", "--device", "cpu"]
    assert cli_main(["info", *model]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--bos '<s>'" in err and "Traceback" not in err
    assert cli_main(["info", *model, "--bos", "<start>"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'<start>' given for bos is not in the vocabulary" in err
    assert cli_main(["info", *model, "--bos", "<sos>"]) == 0
    assert "bos_id = 3" in capsys.readouterr().out
    out = tmp_path / "trace.npz"
    assert cli_main(["export", *model, "--bos", "<sos>", "--src", "w1 w2", "--out", str(out)]) == 0
    assert Trace.load(out).src_tokens == ["<sos>", "w1", "w2", "</s>"]
    for command in ("render", "eval"):  # the flags are there wherever a model is opened
        assert cli_main([command, "--help"]) == 0
        assert "--bos TOKEN" in capsys.readouterr().out


def test_views_read_specials_by_role_under_the_vocabularys_names():
    from model_core.analysis.measures import head_stats
    from model_core.shared_types import ModelInfo
    from tests.core.test_analysis import make_trace
    from viz_app.scope.controller import example_sentence
    from viz_app.widgets.chips import chip_kind

    specials = {"pad": "<blank>", "bos": "<s>", "eos": "</s>", "unk": "[UNK]"}
    assert [chip_kind(t, specials) for t in ("[UNK]", "<blank>", "<s>", "</s>", "<mask>", "cat", "<unk>")] == [
        "unk", "pad", "special", "special", "special", "normal", "special"]
    info = ModelInfo(key="m", name="m", path="", device="cpu", n_encoder_layers=1, n_decoder_layers=1, n_heads=1,
                     d_model=8, max_len=16, positional="none", src_vocab=("[UNK]", "<blank>", "<s>", "</s>", "cat", "dog"),
                     src_specials=specials)
    assert example_sentence(info) == "cat dog"

    src = ["<s>", "a", "</s>", "<blank>"]  # every query puts half its weight on </s>, a quarter on <s>
    attention = np.zeros((1, 1, 4, 4))
    attention[0, 0, :, :3] = [0.25, 0.25, 0.5]
    trace = make_trace(attention, np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1, 4)), src, ["<s>"])
    stats = head_stats(trace, "encoder_self", src_specials=specials, tgt_specials=specials)
    assert (stats.share_eos[0, 0], stats.share_bos[0, 0]) == pytest.approx((0.5, 0.25))
    assert head_stats(trace, "encoder_self").share_eos[0, 0] == 0.0  # under the app's names nothing is <eos>


# ----------------------------------------------------------------------------------------- tokenization
def contraction_tokenizer(path: Path) -> Path:
    """A tokenizer.json (the tokenizers library's own format) that cuts like spaCy: do|n't, it|'s, the full stop apart."""
    backend = Backend(models.WordLevel({t: i for i, t in enumerate(SPACY)}, unk_token="<unk>"))
    backend.normalizer = normalizers.NFC()
    backend.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Split(Regex(r"n't|'s|[.,!?]"), behavior="isolated"),
    ])
    backend.save(str(path))
    return path


def test_whitespace_is_proposed_for_a_spacy_style_vocabulary(tmp_path):
    ranking = rank_splitters({name: Tokenizer.from_token_list(SPACY, splitter=name) for name in ("app", "whitespace")})
    assert ranking[0] == ("whitespace", 0) and ranking[1][0] == "app" and ranking[1][1] >= 3  # n't, 's, E-Mail cut apart
    plain = ["<unk>", "<pad>", "<bos>", "<eos>", "the", "cat", "sat", "."]
    assert rank_splitters({name: Tokenizer.from_token_list(plain, splitter=name) for name in ("app", "whitespace")})[0] == ("app", 0)

    _, path = checkpoint(tmp_path, SPACY + [f"x{i}" for i in range(8)], SPACY + [f"y{i}" for i in range(8)])
    options = ImportOptions(src_vocab=str(tmp_path / "src.txt"), tgt_vocab=str(tmp_path / "tgt.txt"))
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, options, device="cpu")
    assert info.value.proposals["tokenization"] == ["whitespace", "app", "auto"]  # ranked on the vocabulary itself
    assert "tokenization" not in info.value.missing  # offered, never required

    bundle = open_model(path, vocab_options(tmp_path), device="cpu")  # not given: the proposal is used
    assert bundle.src_tokenizer.tokenize("I do n't know . E-Mail") == ["I", "do", "n't", "know", ".", "E-Mail"]
    assert bundle.src_tokenizer.tokenize("I don't know.") == ["I", "<unk>", "<unk>"]  # whitespace: typed apart, or unknown
    assert bundle.metadata["tokenization"].startswith("source whitespace (0 unknown with whitespace, ")
    app = open_model(path, vocab_options(tmp_path, tokenization="app"), device="cpu")
    assert app.src_tokenizer.tokenize("do n't E-Mail") == ["do"] + ["<unk>"] * 6  # n ' t and E - Mail: not entries
    assert app.metadata["tokenization"] == "source app; target app"


def test_a_users_tokenizer_json_cuts_text_the_way_the_vocabulary_was_made(tmp_path, capsys):
    _, path = checkpoint(tmp_path, SPACY + [f"x{i}" for i in range(8)], SPACY + [f"y{i}" for i in range(8)])
    tokenizer_json = contraction_tokenizer(tmp_path / "tokenizer.json")
    bundle = open_model(path, vocab_options(tmp_path, tokenization=str(tokenizer_json)), device="cpu")
    assert bundle.src_tokenizer.tokenize("I don't know.") == ["I", "do", "n't", "know", "."]
    assert bundle.src_tokenizer.tokenize("it's E-Mail") == ["it", "'s", "E-Mail"]
    assert run(bundle, RunRequest("I don't know.")).trace.src_tokens == ["<bos>", "I", "do", "n't", "know", ".", "<eos>"]

    model = ["--model", str(path), "--src-vocab", str(tmp_path / "src.txt"), "--tgt-vocab", str(tmp_path / "tgt.txt"),
             "--heads", "4", "--device", "cpu"]
    assert cli_main(["info", *model, "--tokenization", str(tokenizer_json)]) == 0
    assert "tokenization: source tokenizer.json; target tokenizer.json" in capsys.readouterr().out
    assert cli_main(["info", *model, "--tokenization", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "missing.json: no such file" in err
    (tmp_path / "broken.json").write_text(json.dumps({"model": {"type": "Nonsense"}}), encoding="utf-8")
    assert cli_main(["info", *model, "--tokenization", str(tmp_path / "broken.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the tokenizers library cannot build it" in err


# ----------------------------------------------------------------------------------------- head count
def test_a_head_count_no_trained_model_uses_is_noticed(tmp_path, capsys):
    vocab = ["<unk>", "<pad>", "<bos>", "<eos>", *(f"w{i}" for i in range(20))]
    _, path = checkpoint(tmp_path, vocab, vocab, heads=4)
    assert likely_heads(32) == [8, 1, 2, 4] and likely_heads(512) == [8, 16, 4, 32, 64]
    right = open_model(path, vocab_options(tmp_path), device="cpu")
    assert not [n for n in run(right, RunRequest("w1 w2 w3")).notices if n.code.startswith(("heads", "attention"))]
    wrong = open_model(path, replace_heads(vocab_options(tmp_path), 16), device="cpu")  # 2-dimensional heads
    notices = [n for n in run(wrong, RunRequest("w1 w2 w3")).notices if n.code == "heads_unusual"]
    assert notices and notices[0].values == {"heads": 16, "d_model": 32, "likely": "8, 1, 2, 4"}
    model = ["--model", str(path), "--src-vocab", str(tmp_path / "src.txt"), "--tgt-vocab", str(tmp_path / "tgt.txt"),
             "--device", "cpu"]
    assert cli_main(["info", *model, "--heads", "16"]) == 0
    assert "info: warning: 16 heads is not a usual split of width 32 (usual: 8, 1, 2, 4)" in capsys.readouterr().err
    out = tmp_path / "trace.npz"
    assert cli_main(["export", *model, "--heads", "16", "--src", "w1 w2", "--out", str(out)]) == 0
    assert "export: warning: 16 heads is not a usual split" in capsys.readouterr().err


def test_degenerate_attention_is_noticed(tmp_path):
    vocab = ["<unk>", "<pad>", "<bos>", "<eos>", *(f"w{i}" for i in range(20))]
    model, _ = checkpoint(tmp_path, vocab, vocab, heads=4)
    state = {k: v.clone() for k, v in model.state_dict().items()}  # copies: the model's own weights stay as trained
    for name in list(state):  # no query and no key projection: every score is 0, every map uniform
        if name.endswith("in_proj_weight") or name.endswith("in_proj_bias"):
            state[name][: 2 * 32] = 0
    torch.save(state, tmp_path / "flat.pt")
    bundle = open_model(tmp_path / "flat.pt", vocab_options(tmp_path), device="cpu")
    codes = [n.code for n in run(bundle, RunRequest("w1 w2 w3")).notices]
    assert "attention_uniform" in codes

    state = {k: v.clone() for k, v in model.state_dict().items()}
    for name in list(state):  # every head of the query and key projections the same: all heads attend alike
        if name.endswith("in_proj_weight"):
            w = state[name]
            for part in (0, 1):
                block = w[part * 32:(part + 1) * 32]
                block[:] = block[:8].repeat(4, 1)
        if name.endswith("in_proj_bias"):
            b = state[name]
            for part in (0, 1):
                b[part * 32:(part + 1) * 32] = b[part * 32:part * 32 + 8].repeat(4)
    torch.save(state, tmp_path / "same.pt")
    bundle = open_model(tmp_path / "same.pt", vocab_options(tmp_path), device="cpu")
    notices = [n for n in run(bundle, RunRequest("w1 w2 w3")).notices if n.code == "heads_identical"]
    assert notices and "encoder_self layer 0" in notices[0].values["where"]


def replace_heads(options: ImportOptions, heads: int) -> ImportOptions:
    from dataclasses import replace

    return replace(options, heads=heads)


def test_the_answers_travel_in_session_files_and_the_status_line_says_how_text_is_cut(tmp_path):
    from model_core.io.sessions import ModelRef, model_ref
    from model_core.shared_types import ModelInfo
    from viz_app.scope.controller import loaded_message

    options = {"heads": 4, "src_vocab": "s.txt", "tgt_vocab": "t.txt", "bos": "<sos>", "unk": "[UNK]",
               "tokenization": str(tmp_path / "tokenizer.json")}
    ref = model_ref(str(tmp_path / "model.pt"), options)
    assert ref.options() == options  # what the window's worker is given back
    moved = ref.map_paths(lambda p: p.replace(str(tmp_path), "/lecture"))
    assert (moved.tokenization, moved.bos) == ("/lecture/tokenizer.json", "<sos>")  # a tokenizer.json moves with the folder
    assert model_ref("m.pt", {"tokenization": "whitespace"}).map_paths(str.upper).tokenization == "whitespace"
    from model_core.io.sessions import FORMAT, Session, SessionError

    session = {"format": FORMAT, "version": 1, "source": "hi", "model": {"path": "m.pt", "bos": "<s>", "tokenization": "whitespace"}}
    assert Session.from_json(json.dumps(session)).model == ModelRef(path="m.pt", bos="<s>", tokenization="whitespace")
    with pytest.raises(SessionError, match=r"model\.bos"):
        Session.from_json(json.dumps({**session, "model": {"path": "m.pt", "bos": 3}}))
    opened = ModelRef(path="m.pt", pad="<blank>", tokenization="app").import_options()
    assert (opened.pad, opened.tokenization, opened.bos) == ("<blank>", "app", None)

    info = ModelInfo(key="m", name="m.pt", path="", device="cpu", n_encoder_layers=1, n_decoder_layers=1, n_heads=4,
                     d_model=32, max_len=16, positional="none", metadata={"splitters": {"source": "whitespace", "target": "app"}})
    assert loaded_message(info) == "Loaded m.pt; source text is cut at spaces only, target text by the app's splitter"


def test_the_probe_fits_a_short_model_and_never_stops_a_load(tmp_path, monkeypatch):
    from model_core.io.importers import head_check

    vocab = ["<unk>", "<pad>", "<bos>", "<eos>", *(f"w{i}" for i in range(20))]
    _, path = checkpoint(tmp_path, vocab, vocab, heads=4)
    bundle = open_model(path, vocab_options(tmp_path), device="cpu")
    bundle.model.config.__dict__["max_len"] = 5  # a model made for 5 positions: 3 words between <bos> and <eos>
    maps = head_check._probe_maps(bundle)
    assert maps[("encoder_self", 0)].shape[-1] == 5 and maps[("cross", 0)].shape[1] == 5  # <bos> + 4 words

    def broken(_bundle):
        raise RuntimeError("the probe fails")

    monkeypatch.setattr(head_check, "_probe_maps", broken)
    sixteen = open_model(path, replace_heads(vocab_options(tmp_path), 16), device="cpu")
    codes = [n["code"] for n in sixteen.metadata["notices"]]
    assert codes == ["heads_unusual", "tutorial_defaults"]  # loaded, the probe left out (and nn.Transformer's defaults said)
