"""The weight-space average of two checkpoints (:mod:`companion.training.soup`): numpy here, torch where installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.training.soup import average_state, main


def test_floats_are_mixed_by_the_weight_and_counters_kept() -> None:
    a = {"conv.weight": np.array([[1.0, 2.0]], dtype=np.float32), "bn.num_batches_tracked": np.array(7)}
    b = {"conv.weight": np.array([[3.0, 6.0]], dtype=np.float32), "bn.num_batches_tracked": np.array(7)}
    mean = average_state(a, b)
    np.testing.assert_allclose(mean["conv.weight"], [[2.0, 4.0]])
    np.testing.assert_allclose(average_state(a, b, weight=0.25)["conv.weight"], [[1.5, 3.0]])
    assert mean["bn.num_batches_tracked"] == 7


@pytest.mark.parametrize("b, message", [
    ({"w": np.zeros(3, dtype=np.float32)}, "shapes differ"),
    ({"w": np.zeros(2, dtype=np.float32), "extra": np.zeros(1)}, "different tensors"),
])
def test_checkpoints_of_other_models_are_refused(b: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        average_state({"w": np.zeros(2, dtype=np.float32)}, b)


def test_a_differing_integer_buffer_is_refused() -> None:
    with pytest.raises(ValueError, match="non-float"):
        average_state({"n": np.array([1])}, {"n": np.array([2])})


def test_a_weight_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError, match="weight"):
        average_state({}, {}, weight=1.5)


def test_cli_names_a_missing_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([str(tmp_path / "a.pt"), str(tmp_path / "b.pt"), str(tmp_path / "out.pt")])
    assert "checkpoint not found" in capsys.readouterr().err


def test_a_torch_checkpoint_round_trip(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the training extra (torch) is not installed")
    nets = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).half()
        net[1].num_batches_tracked.fill_(5)
        nets.append(net)
        torch.save({"model": net, "ema": net, "optimizer": {"lr": 1}, "epoch": seed}, tmp_path / f"{seed}.pt")
    assert main([str(tmp_path / "0.pt"), str(tmp_path / "1.pt"), str(tmp_path / "soup.pt")]) == 0
    got = torch.load(tmp_path / "soup.pt", weights_only=False)
    assert got["ema"] is None and got["optimizer"] is None and got["epoch"] == 0
    assert next(got["model"].parameters()).dtype == torch.float16
    want = (nets[0][0].weight.float() + nets[1][0].weight.float()) / 2
    assert torch.allclose(got["model"][0].weight.float(), want, atol=1e-3)
    assert int(got["model"][1].num_batches_tracked) == 5
