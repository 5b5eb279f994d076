"""Every refusal is one line of at most ~300 characters, naming the file and what is wrong in the app's words: the
unclear lines of the third hostile-input round, each rebuilt and checked (within the 10 s and 3 GB of
:func:`refused`)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch

from model_core.files import CheckpointError
from model_core.inference.run import trace_of
from tests.core.test_hostile_files import bounded, native_with, refused
from tests.core.test_import_tutorials import TutorialSeq2Seq, tutorial_vocab

pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]
KEY = "transformer.encoder.layers.0.linear1.weight"


def tutorial(folder: Path, edit: Any) -> tuple[Path, dict]:
    """The PyTorch tutorial's state_dict with ``edit`` applied, and the answers it needs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = TutorialSeq2Seq(1, 1, 32, 4, 30, 40).state_dict()
    edit(state)
    torch.save(state, folder / "m.pt")
    for side, n, prefix in (("src", 30, "de"), ("tgt", 40, "en")):
        (folder / f"{side}.txt").write_text("\n".join(tutorial_vocab(n, prefix)) + "\n", encoding="utf-8")
    return folder / "m.pt", {"src_vocab": str(folder / "src.txt"), "tgt_vocab": str(folder / "tgt.txt"), "heads": 4}


def short(message: str) -> str:
    assert len(message) <= 300, message
    return message


@pytest.mark.parametrize(("number", "shown"), [("²", "'²'"), ("٣", "'٣'"), ("7" * 5000, "'777777777777'…")])
def test_a_layer_number_python_cannot_read_is_one_line(tmp_path, number, shown):
    """"invalid literal for int() … '²'" and "Exceeds the limit (4300 digits)" were Python's words."""
    path, options = tutorial(tmp_path, lambda s: s.__setitem__(KEY.replace(".0.", f".{number}."), s[KEY].clone()))
    short(refused(path, options, match=rf"^m\.pt: a weight under transformer\.encoder\.layers\. is numbered {shown}, "
                                      r"not a layer number"))


def test_a_pickled_frozenset_is_called_a_type_not_a_function(tmp_path):
    torch.save({"weights": {"w": torch.zeros(2)}, "tags": frozenset({"a"})}, tmp_path / "fs.pt")
    short(refused(tmp_path / "fs.pt", match=r"^fs\.pt: refused — the file needs the Python type (builtins\.)?frozenset to be loaded"))


def test_a_trace_given_as_a_model_is_named_a_trace(tmp_path, tiny_checkpoint):
    from model_core.io.importers import ImportOptions, open_model

    bundle = open_model(tiny_checkpoint, ImportOptions(), device="cpu")
    path = trace_of(bundle, "w1 w2").save(tmp_path / "trace.npz")
    short(refused(path, match=r"^trace\.npz: this is a NumPy archive \(\.npz, such as a saved attention trace\), not a model"))


def test_a_link_to_a_system_file_is_named_so(tmp_path):
    """A symlink to /proc/self/mem said "Input/output error"."""
    os.symlink("/proc/self/mem", tmp_path / "m.safetensors")
    short(refused(tmp_path / "m.safetensors", match=r"^m\.safetensors: is the system file /proc/\d+/mem, not a model"))


def test_float8_weights_are_checked_for_finiteness(tmp_path):
    """"isfinite not implemented for 'Float8_e4m3fn'" was torch's line; a float8 weight is read like any other."""
    def first_to_float8(weights: dict[str, torch.Tensor], nan: bool) -> None:
        name = next(k for k, v in weights.items() if v.is_floating_point() and v.dim() == 2)
        value = weights[name].clone()
        if nan:
            value[0, 0] = float("nan")
        weights[name] = value.to(torch.float8_e4m3fn)

    refused(native_with(tmp_path, "nan8.safetensors", tensors=lambda w: first_to_float8(w, True)),
            match=r"^nan8\.safetensors: weight .* contains NaN or infinite values$")
    from model_core.io.importers import ImportOptions, open_model

    with bounded():
        bundle = open_model(native_with(tmp_path, "ok8.safetensors", tensors=lambda w: first_to_float8(w, False)),
                            ImportOptions(), device="cpu")
    assert bundle.config.d_model > 0


def test_a_message_holding_a_huge_name_is_one_short_line():
    """A state-dict key of 14 MB of newlines made a 14 MB error line: a message is folded and cut, keeping the file's
    name at its start and what is wrong at its end."""
    message = str(CheckpointError("m.pt: weight " + "\n" * 14_000_000 + "x" * 5000 + " has shape (3,), the configuration implies (4,)"))
    assert "\n" not in message and len(message) <= 300
    assert message.startswith("m.pt: weight ") and message.endswith("has shape (3,), the configuration implies (4,)")
    assert str(CheckpointError("a  short\nline")) == "a short line"


def test_a_fairseq_count_python_cannot_read_is_one_line(tmp_path):
    """fairseq's own Dictionary reads each count with int(): "²" and 5,000 digits are refused as it would."""
    from model_core.io.importers.fairseq import read_dictionary

    for count in ("²", "9" * 5000):
        path = tmp_path / "dict.en.txt"
        path.write_text(f"hello 5\nworld {count}\n", encoding="utf-8")
        with pytest.raises(CheckpointError, match=r"line 2 is not '<token> <count>'") as caught:
            read_dictionary(path, "source")
        short(str(caught.value))


def test_a_pickle_of_millions_of_items_in_one_list_is_refused_before_torch_reads_it(tmp_path):
    """A .pt holding a list of 15.5 M None was refused "contains no tensors" after 12.7 s (torch's unpickler 7 s):
    one container, millions of items. 5 M is enough to show it; the items are counted before torch.load."""
    torch.save([None] * 5_000_000, tmp_path / "nones.pt")
    short(refused(tmp_path / "nones.pt", match=r"^nones\.pt: its pickle nones/data\.pkl holds more than 4,194,304 items"))
    torch.save({"a": [None] * 1000, "w": torch.zeros(3)}, tmp_path / "few.pt")  # an honest count passes the scan
    refused(tmp_path / "few.pt", match=r"^few\.pt: (?!.*items)")


def test_a_text_of_long_tokens_is_not_said_truncated_short_of_its_room(tiny_checkpoint):
    """"source truncated to 63 tokens (… it has about 8)": the text was cut at 64 characters a token of room, but its
    tokens were long (a long word is one <unk>). It is read further until the room is full or it is all read."""
    from model_core.inference.run import RunRequest, run
    from model_core.io.importers import ImportOptions, open_model

    bundle = open_model(tiny_checkpoint, ImportOptions(), device="cpu")
    room = bundle.config.max_len - int(bundle.config.src_add_bos) - int(bundle.config.src_add_eos)
    fits = "w1 " + "x" * (room * 64 * 3) + " w2"  # three tokens, longer than the room's characters
    result = run(bundle, RunRequest(fits))
    assert not any(n.code.startswith("source_truncated") for n in result.notices)
    assert result.trace.src_tokens[:3] == ["w1", "<unk>", "w2"]
    long_words = " ".join(["w1", "x" * 200] * room)  # 2 × room tokens of 100 characters on average: over the room
    [notice] = [n for n in run(bundle, RunRequest(long_words)).notices if n.code.startswith("source_truncated")]
    assert notice.values["length"] > notice.values["room"]
