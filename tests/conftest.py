"""Test-wide set-up: Qt renders offscreen, and small models are built deterministically."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # a desktop's 1,920 × 1,080 screen (Qt's offscreen default is 800 × 800): the window opens at its usual
    # 1,440 × 900 and presenter mode fills a full-HD screen; tests of small screens start their own process
    SCREENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "screens")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={os.path.join(SCREENS, 'desktop-1920x1080.json')}"

import pytest
import torch
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from model_core import ModelConfig, Seq2SeqTransformer

#: ``ATTENTION_SCOPE_FUZZ=long`` runs every property-based test (tests/core/test_fuzz.py, tests/app/test_gui_fuzz.py) with
#: many more examples; the normal run stays bounded so the whole suite stays fast on a two-core machine.
FUZZ_ENV = "ATTENTION_SCOPE_FUZZ"
FUZZ_LONG = os.environ.get(FUZZ_ENV, "").strip().lower() == "long"
_FUZZ_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                          HealthCheck.data_too_large])
hypothesis_settings.register_profile("attention-scope", max_examples=40, **_FUZZ_COMMON)
hypothesis_settings.register_profile("attention-scope-long", max_examples=400, **_FUZZ_COMMON)
hypothesis_settings.load_profile("attention-scope-long" if FUZZ_LONG else "attention-scope")


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny tensors: one intra-op thread beats two on a shared 2-core machine (no spin-waiting); restored after.

    A module asks for it with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``; it is not autouse,
    because the app tests run the model in a worker thread with the app's own setting."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def tiny_config(**overrides) -> ModelConfig:
    base = dict(src_vocab_size=23, tgt_vocab_size=29, d_model=32, n_heads=4, n_encoder_layers=2,
                n_decoder_layers=2, d_ff=48, dropout=0.0, max_len=64)
    base.update(overrides)
    return ModelConfig(**base)


def tiny_model(seed: int = 0, **overrides) -> Seq2SeqTransformer:
    torch.manual_seed(seed)
    model = Seq2SeqTransformer(tiny_config(**overrides)).eval()
    # give biases and norms non-trivial values so a wrongly mapped parameter cannot hide
    with torch.no_grad():
        for _name, p in model.named_parameters():
            if p.dim() == 1:
                p.add_(torch.randn_like(p) * 0.1)
    return model


VARIANTS = {
    "post-relu-mha": {},
    "pre-gelu": dict(norm_position="pre", activation="gelu"),
    "gqa": dict(n_kv_heads=2),
    "mqa-learned": dict(n_kv_heads=1, positional="learned"),
    "relative-bias": dict(relative_max_distance=4, positional="none"),
    "std-norm-tied": dict(norm_type="std", norm_eps=1e-6, tie_output=True, final_norm=False),
}


@pytest.fixture(params=list(VARIANTS), ids=list(VARIANTS))
def variant_model(request) -> Seq2SeqTransformer:
    return tiny_model(**VARIANTS[request.param])


def tiny_bundle(seed: int = 0, **overrides):
    """A tiny random model with real word tokenizers (vocab sizes match the config)."""
    from model_core import ModelBundle, Tokenizer

    model = tiny_model(seed, **overrides)
    c = model.config
    src = Tokenizer.word_level([f"w{i}" for i in range(c.src_vocab_size - 4)])
    tgt = Tokenizer.word_level([f"t{i}" for i in range(c.tgt_vocab_size - 4)])
    return ModelBundle(model, src, tgt, name="tiny")


@pytest.fixture
def tiny_checkpoint(tmp_path):
    from model_core import save_model

    bundle = tiny_bundle()
    path = tmp_path / "tiny.safetensors"
    save_model(path, bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="tiny")
    return path
