"""The loading budgets against the models users open: the largest of each supported family fits, bigger is refused.

The parameter budget (:data:`model_core.budgets.MAX_PARAMETERS`) is checked on sizes read from a configuration,
before anything is built. These tests give the checks the configurations of real models (bart-large,
mBART-large-50, t5-large, ...), built offline with transformers' configuration classes and, to know their real
parameter counts, as skeletons on the ``meta`` device (shapes, no memory, no weights downloaded): models between
the old 250 M budget and the new 1.2 B one are accepted, t5-3b (2.85 B) is refused. The same for the app's own
format, with a native configuration of BART-large's size. (Zip sizes, sparse files and configurations that claim
more than their weights hold are in tests/core/test_hostile_files.py.)
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest
import torch

from model_core import budgets
from model_core.config import ModelConfig
from model_core.files import OverBudget
from model_core.io.checkpoint import check_sizes, model_parameter_count

OLD_PARAMETER_BUDGET = 250_000_000  # what refused bart-large and its family before


def hf_configs() -> dict[str, tuple[object, int]]:
    """Configurations of real models (the sizes of their config.json) and their parameter counts as published."""
    transformers = pytest.importorskip("transformers")
    bart = {"d_model": 1024, "encoder_layers": 12, "decoder_layers": 12, "encoder_attention_heads": 16, "decoder_attention_heads": 16,
            "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096, "max_position_embeddings": 1024}
    return {
        "opus-mt-de-en": (transformers.MarianConfig(vocab_size=58101, decoder_vocab_size=58101, d_model=512, encoder_layers=6,
                                                    decoder_layers=6, encoder_attention_heads=8, decoder_attention_heads=8,
                                                    encoder_ffn_dim=2048, decoder_ffn_dim=2048, max_position_embeddings=512),
                          74_410_496),
        "bart-large": (transformers.BartConfig(vocab_size=50265, **bart), 406_291_456),
        "mbart-large-50": (transformers.MBartConfig(vocab_size=250054, **bart), 610_879_488),
        "t5-large": (transformers.T5Config(vocab_size=32128, d_model=1024, d_kv=64, d_ff=4096, num_layers=24, num_heads=16),
                     737_668_096),
        "flan-t5-large": (transformers.T5Config(vocab_size=32128, d_model=1024, d_kv=64, d_ff=2816, num_layers=24, num_heads=16,
                                                feed_forward_proj="gated-gelu", tie_word_embeddings=False), 750_251_008),
        "t5-3b": (transformers.T5Config(vocab_size=32128, d_model=1024, d_kv=128, d_ff=16384, num_layers=24, num_heads=32),
                  2_851_598_336),
    }


def meta_parameters(config: object) -> int:
    """The parameters transformers builds for ``config``, counted on a ``meta`` skeleton (no memory, no weights)."""
    from transformers import AutoModelForSeq2SeqLM

    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = AutoModelForSeq2SeqLM.from_config(config)
    return sum(p.numel() for p in model.parameters())  # tied matrices once


@pytest.mark.parametrize("name", ["opus-mt-de-en", "bart-large", "mbart-large-50", "t5-large", "flan-t5-large", "t5-3b"])
def test_the_hugging_face_estimate_is_the_real_count_from_below(name):
    """The count checked against the budget is within 1% of what transformers builds, and never above it (the
    check of config.json against the values the weights hold relies on that: an honest folder is never refused)."""
    from model_core.io.importers.hf import config_sizes

    config, published = hf_configs()[name]
    real = meta_parameters(config)
    assert real == published
    estimate = config_sizes(Path(name), config).parameters
    assert 0.99 * real <= estimate <= real


@pytest.mark.parametrize("name", ["bart-large", "mbart-large-50", "t5-large", "flan-t5-large"])
def test_the_largest_models_of_the_supported_families_are_within_budget(name):
    """Refused by the old 250 M budget, accepted now (t5-large's 24 + 24 layers × 16 heads must open)."""
    from model_core.io.importers.hf import check_parameter_budget

    config, published = hf_configs()[name]
    assert OLD_PARAMETER_BUDGET < published <= budgets.MAX_PARAMETERS
    assert check_parameter_budget(Path(name), config) <= budgets.MAX_PARAMETERS
    assert published * 4 <= budgets.MAX_CHECKPOINT_BYTES  # its float32 weights file opens too


def test_a_model_over_the_parameter_budget_is_refused_from_its_configuration():
    from model_core.io.importers.hf import check_parameter_budget

    config, published = hf_configs()["t5-3b"]
    assert published > budgets.MAX_PARAMETERS
    with pytest.raises(OverBudget, match=r"t5-3b: config\.json describes a model of about 2,851,\d{3},\d{3} parameters, "
                                         r"over the 1,200,000,000 this app builds"):
        check_parameter_budget(Path("t5-3b"), config)


class Shape:
    """What :func:`check_sizes` reads of a tensor: its shape."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


def native_shapes(config: ModelConfig) -> dict[str, Shape]:
    """The tensors a native checkpoint of ``config`` holds (as ``save_model`` writes them), from a meta skeleton."""
    from model_core.io.checkpoint import TIED_KEY
    from model_core.nn.model import Seq2SeqTransformer

    with torch.device("meta"):
        model = Seq2SeqTransformer(config)
    return {k: Shape(tuple(v.shape)) for k, v in model.state_dict().items() if not (config.tie_output and k == TIED_KEY)}


def bart_large_native(**changes: object) -> ModelConfig:
    """BART-large's sizes in the app's own format (12 + 12 layers, d_model 1,024, 16 heads, a vocabulary of 50,265)."""
    sizes = {"src_vocab_size": 50265, "tgt_vocab_size": 50265, "d_model": 1024, "n_heads": 16, "d_ff": 4096,
             "n_encoder_layers": 12, "n_decoder_layers": 12, "tie_output": True, "max_len": 1024, **changes}
    return ModelConfig(**sizes)


@pytest.mark.parametrize("changes", [{}, {"n_encoder_layers": 24, "n_decoder_layers": 24}, {"src_vocab_size": 250054,
                                                                                          "tgt_vocab_size": 250054}],
                         ids=["bart-large", "24+24 layers", "mbart-large vocabulary"])
def test_a_native_model_between_the_old_and_new_budget_is_accepted(changes):
    config = bart_large_native(**changes)
    shapes = native_shapes(config)
    count = model_parameter_count(config)
    assert OLD_PARAMETER_BUDGET < count <= budgets.MAX_PARAMETERS
    assert count == sum(math.prod(s.shape) for s in shapes.values())
    check_sizes(config, shapes, "big.safetensors")  # no OverBudget, no CheckpointError


def test_a_native_model_over_the_parameter_budget_is_refused():
    """1.23 B parameters (BART-large with 40 + 40 layers) whose file would hold them all: the budget refuses it, not
    the comparison with the file."""
    config = bart_large_native(n_encoder_layers=40, n_decoder_layers=40)
    assert model_parameter_count(config) > budgets.MAX_PARAMETERS
    with pytest.raises(OverBudget, match=r"big\.safetensors: the configuration describes a model of 1,\d{3},\d{3},\d{3} "
                                         r"parameters, over the 1,200,000,000 this app builds"):
        check_sizes(config, native_shapes(config), "big.safetensors")


def test_the_caps_on_honest_sizes_are_the_documented_values():
    assert budgets.MAX_CHECKPOINT_BYTES == 4 << 30
    assert budgets.MAX_PARAMETERS == 1_200_000_000
    assert budgets.MAX_ZIP_UNCOMPRESSED_BYTES == budgets.MAX_CHECKPOINT_BYTES
