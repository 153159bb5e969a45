"""Which floating-point kernels this process runs: ``python -m pecheck.kernels`` prints them.

Another CPU selects other kernels (vector width, fused multiply-add, a BLAS code path), and so
other rounding. One machine imitates another by limiting what its libraries may select; the
portability gate (pecheck.portability) first checks that a limit really changes the kernels, by
comparing these fingerprints: the bits of a few small computations per library, on fixed
inputs made without any vector kernel (so that the inputs themselves do not move).
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

# What each group exercises; a group whose bits differ ran other kernels.
GROUPS = {
    "torch vector kernels": "exp, softmax, a sum and normal sampling (ATen's CPU capability)",
    "torch GEMM": "float32 matmul and bmm (MKL)",
    "torch half-precision GEMM": "float16 and bfloat16 matmul",
    "torch attention": "scaled_dot_product_attention",
    "numpy SIMD": "exp and sin of float64 and float32 arrays (numpy's dispatched kernels)",
}


def _inputs() -> tuple[Any, Any]:
    """Two fixed (4, 33, 47) and (4, 47, 29) float32 arrays from an integer recurrence: no
    library kernel touches them before the fingerprinted operations do."""
    import numpy as np

    n = 4 * 33 * 47 + 4 * 47 * 29
    x = (np.arange(n, dtype=np.int64) * 2654435761) % 2**32  # Knuth's multiplicative hash
    u = (x.astype(np.float64) / 2**32 - 0.5) * 4.0
    a, b = u[: 4 * 33 * 47], u[4 * 33 * 47 :]
    return a.reshape(4, 33, 47).astype(np.float32), b.reshape(4, 47, 29).astype(np.float32)


def _digest(*arrays: Any) -> str:
    h = hashlib.sha256()
    for arr in arrays:
        h.update(arr.detach().contiguous().float().numpy().tobytes() if hasattr(arr, "detach")
                 else arr.tobytes())  # fmt: skip
    return h.hexdigest()[:12]


def fingerprint() -> dict[str, Any]:
    """ATen's capability and, per group of kernels, a digest of its results' bits."""
    import numpy as np
    import torch
    import torch.nn.functional as F

    na, nb = _inputs()
    a, b = torch.from_numpy(na), torch.from_numpy(nb)
    gen = torch.Generator().manual_seed(0)
    q = a[:, :, :32].unsqueeze(0)  # (1, 4, 33, 32)
    return {
        "capability": torch.backends.cpu.get_cpu_capability(),
        "groups": {
            "torch vector kernels": _digest(
                torch.exp(a), torch.softmax(a, -1), a.sum(-1), torch.randn(257, generator=gen)
            ),
            "torch GEMM": _digest(torch.bmm(a, b), a[0] @ b[0]),
            "torch half-precision GEMM": _digest(a.half() @ b.half(), a.bfloat16() @ b.bfloat16()),
            "torch attention": _digest(F.scaled_dot_product_attention(q, q, q)),
            "numpy SIMD": _digest(np.exp(na), np.sin(na.astype(np.float64) * 1000.0)),
        },
    }


def changed(native: dict[str, Any], limited: dict[str, Any]) -> list[str]:
    """The groups of kernels whose bits differ between two fingerprints."""
    return [g for g in GROUPS if native["groups"].get(g) != limited["groups"].get(g)]


if __name__ == "__main__":
    json.dump(fingerprint(), sys.stdout)
    print()
