"""Average two checkpoints of one model in weight space (a "model soup").

Why: several shipped models have a continuation that was trained on fresh scenes and read about as well as they do,
better on one tuning seed and worse on the other (the small cards' detector F156 and F161, the Spanish photo detector
D5 and D6, the Spanish corners P10 and P11, the French photo classifier v9 and v10).  Two nets fine-tuned from one
start lie in one basin, and their mean often reads better than either without any training (Wortsman et al. 2022,
"Model soups").  Averaging the two nets' outputs instead was tried in session 103 (rule 139) and read below main.
Session 119 tuned such soups (rules 205-208, none passed); this module makes them.

    python -m companion.training.soup A.pt B.pt OUT.pt [--weight 0.5]     # needs the training extra (torch)
    python -m companion.training.train export OUT.pt MODEL.onnx --imgsz N  # as any checkpoint

The checkpoint written is ``A``'s with its model's weights replaced (``ema`` and the optimizer left out, as a
stripped ultralytics checkpoint), so it exports, and continues with ``--init``, as ``A`` would.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def average_state(a: Mapping[str, Any], b: Mapping[str, Any], weight: float = 0.5) -> dict[str, Any]:
    """``a`` and ``b`` (name -> tensor or array) mixed as ``(1 - weight) * a + weight * b`` for every floating-point
    entry; every other entry (a batch-norm's counter, an integer buffer) must be equal in both and is kept.  Works on
    torch tensors and numpy arrays alike (only ``+``, ``*`` and ``dtype`` are used), so it is tested without torch.
    Raises ValueError when the two do not hold the same names and shapes, or differ in a non-float entry."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be in [0, 1], got {weight!r}")
    if set(a) != set(b):
        raise ValueError(f"the checkpoints hold different tensors: {sorted(set(a) ^ set(b))[:5]}")
    out: dict[str, Any] = {}
    for name, x in a.items():
        y = b[name]
        if tuple(x.shape) != tuple(y.shape):
            raise ValueError(f"{name}: shapes differ, {tuple(x.shape)} and {tuple(y.shape)}")
        if _is_float(x):
            out[name] = x * (1.0 - weight) + y * weight
        elif bool((x == y).all()):
            out[name] = x
        else:
            raise ValueError(f"{name}: a non-float entry differs between the checkpoints")
    return out


def _is_float(x: Any) -> bool:
    """Whether ``x`` (a torch tensor or numpy array) holds floating-point numbers."""
    floating = getattr(x, "is_floating_point", None)
    if callable(floating):
        return bool(floating())
    return getattr(x.dtype, "kind", "") == "f"


def soup(a: Path, b: Path, out: Path, weight: float = 0.5) -> int:
    """Write ``out``: checkpoint ``a`` with its model's weights averaged with ``b``'s (:func:`average_state`, in
    float32, stored back in ``a``'s precision).  Returns how many tensors were averaged."""
    import torch

    ca = torch.load(a, map_location="cpu", weights_only=False)
    cb = torch.load(b, map_location="cpu", weights_only=False)
    half = next(ca["model"].parameters()).dtype == torch.float16
    model = ca["model"].float()
    mixed = average_state(model.state_dict(), cb["model"].float().state_dict(), weight)
    model.load_state_dict(mixed)
    ca["model"] = model.half() if half else model
    ca["ema"], ca["optimizer"] = None, None
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(ca, out)
    return sum(1 for t in mixed.values() if t.is_floating_point())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", type=Path, help="the first checkpoint (its other contents are kept)")
    p.add_argument("b", type=Path, help="the second checkpoint, of the same model")
    p.add_argument("out", type=Path, help="where to write the averaged checkpoint")
    p.add_argument("--weight", type=float, default=0.5, help="the share of B (0.5: the plain mean)")
    args = p.parse_args(argv)
    for path in (args.a, args.b):
        if not path.is_file():
            p.error(f"checkpoint not found: {path}")
    try:
        n = soup(args.a, args.b, args.out, args.weight)
    except ImportError:
        p.error("torch is needed: pip install -e '.[train]'")
    except ValueError as exc:
        p.error(str(exc))
    print(f"{n} tensors averaged -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
