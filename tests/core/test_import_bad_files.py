"""Bad, broken and hostile model files: each is refused with ONE line that names the problem.

A checkpoint is untrusted data. Pickle is only ever read with ``torch.load(weights_only=True)``, a
Hugging Face folder's own Python code is never run, and weights that cannot be what the model
needs (missing, mis-shaped, NaN, a vocabulary of the wrong size) are refused rather than
silently replaced by random numbers. The hostile payloads below would create a marker file if
anything executed them; their tests also check that the marker never appears.
"""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file
from torch import nn

from model_core.inference.run import trace_of
from model_core.io.importers import CheckpointError, ImportOptions, NeedsHyperparameters, open_model, propose_heads

SEED_SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
# the PyTorch tutorial builds nn.Transformer sequence-first, for which torch warns about its nested-tensor fast path
pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]


class CreatesMarker:
    """Unpickling this runs ``exec`` on code that writes ``marker``: what a malicious checkpoint does."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('pwned')",))


def one_clear_error(path, options: ImportOptions | None = None, match: str = "") -> CheckpointError:
    """The error ``open_model`` raises: a CheckpointError of one line that names the file and the problem."""
    with pytest.raises(CheckpointError, match=match) as info:
        open_model(path, options, device="cpu")
    text = str(info.value)
    assert text and "\n" not in text and "\x1b" not in text and len(text) < 400, text
    assert Path(path).name in text
    return info.value


# ----------------------------------------------------------------------------------------- seed tutorial .pth
def seed_state_dict(d: int = 32, heads: int = 4, ff: int = 48, src_vocab: int = 30, tgt_vocab: int = 40) -> dict[str, torch.Tensor]:
    """A state_dict with the seed tutorial's key names and shapes (see model_core/io/importers/seed_tutorial.py), one layer each."""
    torch.manual_seed(0)
    sd: dict[str, torch.Tensor] = {"src_embedding.weight": torch.randn(src_vocab, d), "tgt_embedding.weight": torch.randn(tgt_vocab, d)}
    pos = torch.arange(100).unsqueeze(1).float()
    div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    pe = torch.zeros(100, d)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
    sd["pos_encoding.pe"] = pe[None]
    for side, attns, norms in (("encoder", ("self_attn",), 2), ("decoder", ("self_attn", "cross_attn"), 3)):
        for a in attns:
            for w in ("W_q", "W_k", "W_v", "W_o"):
                sd[f"{side}.layers.0.{a}.{w}.weight"], sd[f"{side}.layers.0.{a}.{w}.bias"] = torch.randn(d, d) * 0.2, torch.randn(d)
        ffn = f"{side}.layers.0.feed_forward"
        sd[f"{ffn}.linear1.weight"], sd[f"{ffn}.linear1.bias"] = torch.randn(ff, d), torch.randn(ff)
        sd[f"{ffn}.linear2.weight"], sd[f"{ffn}.linear2.bias"] = torch.randn(d, ff), torch.randn(d)
        for k in range(1, norms + 1):
            sd[f"{side}.layers.0.sublayer{k}.norm.gamma"], sd[f"{side}.layers.0.sublayer{k}.norm.beta"] = torch.ones(d), torch.zeros(d)
        sd[f"{side}.norm.gamma"], sd[f"{side}.norm.beta"] = torch.ones(d), torch.zeros(d)
    sd["output_projection.weight"], sd["output_projection.bias"] = torch.randn(tgt_vocab, d), torch.randn(tgt_vocab)
    return sd


@pytest.fixture
def seed_files(tmp_path):
    """A good seed-tutorial checkpoint with vocabulary files, and options that open it."""
    sd = seed_state_dict()
    path = tmp_path / "seed.pth"
    torch.save({"model_state_dict": sd, "epoch": 7}, path)
    src = tmp_path / "src_vocab.txt"
    src.write_text("\n".join(SEED_SPECIALS + [f"s{i}" for i in range(26)]) + "\n", encoding="utf-8")
    tgt = tmp_path / "tgt_vocab.json"
    tgt.write_text(json.dumps({t: i for i, t in enumerate(SEED_SPECIALS + [f"t{i}" for i in range(36)])}), encoding="utf-8")
    options = ImportOptions(src_vocab=str(src), tgt_vocab=str(tgt), heads=4, norm_position="pre")
    assert open_model(path, options, device="cpu").format == "seed-tutorial"  # the unbroken file opens
    return sd, path, options


def _resave(path: Path, sd: dict) -> Path:
    torch.save({"model_state_dict": sd}, path)
    return path


def test_pickle_that_would_run_code_is_refused_and_never_runs(seed_files, tmp_path):
    sd, _, options = seed_files
    marker = tmp_path / "MARKER"
    hostile = dict(sd)
    hostile["encoder.layers.0.self_attn.W_q.weight"] = CreatesMarker(marker)  # hidden among real tensors
    path = tmp_path / "looks-fine.pt"
    torch.save({"model_state_dict": hostile, "epoch": 1}, path)
    one_clear_error(path, options, match=r"refused .* would run code from the file \((builtins\.)?exec\)")
    assert not marker.exists()


def test_truncated_file(seed_files, tmp_path):
    """Half a download says so, not miniz's "failed finding central directory. This is an internal miniz error…"."""
    sd, path, options = seed_files
    data = path.read_bytes()
    for cut in (5000, len(data) // 2, len(data) - 10):
        path.write_bytes(data[:cut])
        one_clear_error(path, options, match="the file is truncated or damaged")
    legacy = tmp_path / "legacy.pt"  # the pre-1.6 format: a pickle stream, then the storages, cut short
    torch.save(sd, legacy, _use_new_zipfile_serialization=False)
    data = legacy.read_bytes()
    for cut in (40, 3000, len(data) - 5):
        legacy.write_bytes(data[:cut])
        one_clear_error(legacy, options, match="the file is truncated or damaged")


def test_a_symbolic_link_loop_is_named(tmp_path):
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    a.symlink_to(b)
    b.symlink_to(a)
    one_clear_error(a, match="a symbolic link that loops")


def test_random_bytes(tmp_path):
    path = tmp_path / "noise.pt"
    path.write_bytes(random.Random(0).randbytes(4000))
    one_clear_error(path, match="not a readable PyTorch file")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pth"
    path.touch()
    one_clear_error(path, match="the file is empty")


def test_png_renamed_to_pt(tmp_path):
    path = tmp_path / "model.pt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    one_clear_error(path, match="this is a PNG image, not a model checkpoint")


def test_json_file_picked_as_the_model(tmp_path):
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps([*SEED_SPECIALS, "a", "b"]), encoding="utf-8")
    one_clear_error(path, match="this is a JSON file, not a model checkpoint")


def test_missing_keys(seed_files):
    sd, path, options = seed_files
    _resave(path, {k: v for k, v in sd.items() if k != "decoder.layers.0.cross_attn.W_v.bias"})
    one_clear_error(path, options, match="missing weight decoder.layers.0.cross_attn.W_v.bias")


def test_shapes_that_disagree(seed_files):
    sd, path, options = seed_files
    _resave(path, {**sd, "decoder.layers.0.feed_forward.linear2.weight": torch.zeros(32, 50)})
    one_clear_error(path, options, match=r"feed_forward\.linear2\.weight has shape \(32, 50\), the configuration implies \(32, 48\)")


def test_vocabulary_file_whose_size_does_not_match_the_embedding(seed_files, tmp_path):
    _, path, options = seed_files
    short = tmp_path / "short.txt"
    short.write_text("\n".join([*SEED_SPECIALS, "only", "six"]), encoding="utf-8")
    options.tgt_vocab = str(short)
    one_clear_error(path, options, match="the target vocabulary has 6 tokens but the embedding has 40 rows")


def test_nan_weights(seed_files):
    sd, path, options = seed_files
    broken = dict(sd)
    broken["encoder.layers.0.feed_forward.linear1.weight"] = sd["encoder.layers.0.feed_forward.linear1.weight"].clone()
    broken["encoder.layers.0.feed_forward.linear1.weight"][3, 4] = float("nan")
    _resave(path, broken)
    one_clear_error(path, options, match="encoder_layers.0.feed_forward.linear1.weight contains NaN")


def test_missing_hyperparameters_come_with_proposals(seed_files):
    _, path, _ = seed_files
    error = one_clear_error(path, ImportOptions(), match="the weights do not say heads")
    assert isinstance(error, NeedsHyperparameters)
    assert list(error.proposals) == ["heads", "norm_position", "src_vocab", "tgt_vocab", "tokenization"]
    assert list(error.missing) == ["heads", "norm_position", "src_vocab", "tgt_vocab"]  # the tokenization is optional
    assert error.proposals["tokenization"] == ["auto", "app", "whitespace"]  # no vocabulary yet: decided once known
    assert error.proposals["heads"] == propose_heads(32) and error.missing["heads"] == 8
    assert error.proposals["norm_position"] == ["pre", "post"]
    assert error.proposals["src_vocab"] == [] and error.missing["src_vocab"] is None
    assert all(error.hints[k] for k in error.proposals)  # each has words a dialog can show


@pytest.mark.parametrize("d_model", [32, 256, 512, 768, 1024, 96])
def test_head_proposals_prefer_the_tutorial_default_then_common_head_sizes(d_model):
    proposals = propose_heads(d_model)
    divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
    assert sorted(proposals) == divisors  # every possible split is offered, once
    assert proposals[0] == (8 if d_model % 8 == 0 else proposals[0])
    likely = [h for h in proposals if h == 8 or d_model // h in (32, 64, 128)]
    assert proposals[: len(likely)] == likely  # the likely ones come before all the others
    if d_model % 64 == 0 and d_model // 64 != 8:
        assert proposals[1] == d_model // 64  # 768 -> 12 heads of 64 right after the default


# ----------------------------------------------------------------------------------------- Hugging Face folders
@pytest.fixture(scope="module")
def hf_folder_template(tmp_path_factory):
    """A tiny T5 folder written by save_pretrained (tokenizer built from a word list, no training needed)."""
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    words = ["▁the", "▁cat", "▁sat", "▁le", "▁chat", "▁a", "▁dog"]
    tok = T5Tokenizer(vocab=[("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -2.0)] + [(w, -1.0) for w in words], extra_ids=0)
    cfg = T5Config(vocab_size=len(tok), d_model=16, d_kv=4, d_ff=24, num_layers=1, num_heads=4, dropout_rate=0.0,
                   relative_attention_num_buckets=8, relative_attention_max_distance=16, decoder_start_token_id=0,
                   pad_token_id=0, eos_token_id=1)
    torch.manual_seed(0)
    model = T5ForConditionalGeneration(cfg).eval()
    folder = tmp_path_factory.mktemp("hf") / "template"
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    assert open_model(folder, device="cpu").translate("the cat", max_steps=3) is not None  # the unbroken folder opens
    return folder, model


@pytest.fixture
def hf_folder(hf_folder_template, tmp_path):
    folder = tmp_path / "my-t5"
    shutil.copytree(hf_folder_template[0], folder)
    return folder


def _edit_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(json.dumps(data), encoding="utf-8")


def _edit_weights(folder: Path, edit) -> None:
    weights = load_file(folder / "model.safetensors")
    edit(weights)
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})


def test_hf_pytorch_model_bin_that_would_run_code_is_refused(hf_folder, hf_folder_template, tmp_path):
    marker = tmp_path / "MARKER"
    state = dict(hf_folder_template[1].state_dict())
    state["shared.weight"] = CreatesMarker(marker)
    (hf_folder / "model.safetensors").unlink()
    torch.save(state, hf_folder / "pytorch_model.bin")
    one_clear_error(hf_folder, match=r"refused .* pytorch_model.bin would run code from the file to load \((builtins\.)?exec\)")
    assert not marker.exists()


def test_hf_plain_pytorch_model_bin_is_accepted(hf_folder, hf_folder_template):
    """The same file format with tensors only is fine: refusal is about code, not about .bin."""
    (hf_folder / "model.safetensors").unlink()
    torch.save(hf_folder_template[1].state_dict(), hf_folder / "pytorch_model.bin")
    assert open_model(hf_folder, device="cpu").metadata["model_type"] == "t5"


@pytest.mark.parametrize("where", ["config.json", "tokenizer_config.json"])
def test_hf_folder_asking_for_remote_code_is_refused(hf_folder, tmp_path, where):
    marker = tmp_path / "MARKER"
    code = f"open({str(marker)!r}, 'w').write('pwned')\n"
    (hf_folder / "modeling_custom.py").write_text(code + "class CustomModel: pass\n", encoding="utf-8")
    (hf_folder / "tokenization_custom.py").write_text(code + "class CustomTokenizer: pass\n", encoding="utf-8")
    auto_map = ({"AutoConfig": "modeling_custom.CustomModel", "AutoModelForSeq2SeqLM": "modeling_custom.CustomModel"}
                if where == "config.json" else {"AutoTokenizer": ["tokenization_custom.CustomTokenizer", None]})
    _edit_json(hf_folder / where, auto_map=auto_map)
    one_clear_error(hf_folder, match=f"refused — its {where} asks for custom Python code")
    assert not marker.exists()


def test_hf_unsupported_model_type(hf_folder):
    _edit_json(hf_folder / "config.json", model_type="gpt2")
    one_clear_error(hf_folder, match="model_type 'gpt2' is not supported; supported: marian, bart, mbart, .*t5")


def test_hf_folder_without_weights(hf_folder):
    (hf_folder / "model.safetensors").unlink()
    (hf_folder / "tf_model.h5").write_bytes(b"\x89HDF\r\n\x1a\n")
    one_clear_error(hf_folder, match=r"no weights file: expected model.safetensors or pytorch_model.bin \(found only tf_model.h5")


def test_hf_missing_weight_is_not_silently_reinitialised(hf_folder):
    _edit_weights(hf_folder, lambda w: w.pop("decoder.block.0.layer.1.EncDecAttention.v.weight"))
    one_clear_error(hf_folder, match="missing weights decoder.block.0.layer.1.EncDecAttention.v.weight")


def test_hf_weight_of_the_wrong_shape(hf_folder):
    _edit_weights(hf_folder, lambda w: w.update({"encoder.block.0.layer.1.DenseReluDense.wi.weight": torch.zeros(20, 16)}))
    one_clear_error(hf_folder, match=r"DenseReluDense.wi.weight has shape \(20, 16\) but config.json implies \(24, 16\)")


def test_hf_nan_weights(hf_folder):
    def poison(w):
        w["encoder.block.0.layer.0.SelfAttention.q.weight"][0, 0] = float("nan")

    _edit_weights(hf_folder, poison)
    one_clear_error(hf_folder, match="encoder.block.0.layer.0.SelfAttention.q.weight contains NaN")


def test_hf_truncated_weights(hf_folder):
    weights = hf_folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:300])
    one_clear_error(hf_folder, match="the t5 weights cannot be loaded")


def test_hf_folder_without_tokenizer(hf_folder):
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "spiece.model"):
        (hf_folder / name).unlink(missing_ok=True)
    one_clear_error(hf_folder, match="no tokenizer files")


def test_a_model_loaded_before_survives_every_refusal(hf_folder, seed_files):
    """Refusing one file never disturbs a model already open (the app keeps showing it)."""
    _, path, options = seed_files
    working = open_model(path, options, device="cpu")
    before = trace_of(working, "s1 s2", "t1 t2").cross
    _edit_json(hf_folder / "config.json", model_type="llama")
    with pytest.raises(CheckpointError):
        open_model(hf_folder, device="cpu")
    assert isinstance(working.model, nn.Module)
    assert torch.equal(torch.from_numpy(trace_of(working, "s1 s2", "t1 t2").cross), torch.from_numpy(before))
