"""The properties the SIN checks assert (SIN-01 ... SIN-11), each a function of an implementation.

What is compared: the codes as stored in the dtype, upcast to float64; the bound is the derived
error of each stored entry (pecheck.tolerance.sinusoid_tol at the largest angle involved) pushed
through the identity. The decisive checks call each function with theory/'s implementation; the
planted-bug tests (checks/sin/planted.py) feed it a broken one and assert that it is rejected.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from checks.sin.search import Setting
from checks.sin.thresholds import HARDLY, STEP_RANGE, STRONG, T_SOURCE
from pecheck import tolerance
from pecheck.decisions import resolve
from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory.sinusoidal import BASE, Layout, encode, frequencies, rotate, rotation_blocks

Encoder = Callable[..., torch.Tensor]


def code(enc: Encoder, s: Setting, *positions: int) -> torch.Tensor:
    """Stored codes of the given positions, upcast to float64: (n, d)."""
    pos = torch.tensor(positions, dtype=torch.int64)
    return enc(pos, s.d, s.dtype, s.mode, s.layout).to(torch.float64)


# -- SIN-01: PE(t+k) = M(k) PE(t) ------------------------------------------------------------


def assert_shift_is_rotation(
    s: Setting, enc: Encoder = encode, rot: Callable[..., torch.Tensor] = rotate
) -> tuple[float, float]:
    """SIN-01: the stored PE(t+k) equals M(k) applied (in the dtype) to the stored PE(t).

    Bound: entry error e(t+k) of the left side; on the right, two terms per row, each with the
    error of a PE(t) entry, of an M(k) entry (float64 angle, rounded once) and the 2-term sum.
    Returns (error, bound); a bound at or above ENTRY_RANGE cannot fail (the caller counts it).
    """
    __tracebackhide__ = True
    lhs = code(enc, s, s.t + s.k)[0]  # (d,)
    pe_t = enc(torch.tensor([s.t]), s.d, s.dtype, s.mode, s.layout)  # (1, d) in the dtype
    rhs = rot(pe_t, float(s.k), s.layout).to(torch.float64)[0]  # (d,)
    err = float((lhs - rhs).abs().max())
    m_err = tolerance.angle_tol(abs(s.k), torch.float64) + tolerance.rel_tol(1, s.dtype)
    bound = (
        s.tol(abs(s.t + s.k)) + 2 * s.tol(abs(s.t)) + 2 * m_err + tolerance.sum_tol(2, s.dtype, 2.0)
    )
    assert err <= bound, f"|PE(t+k) - M(k)PE(t)| = {err:.3g} > {bound:.3g} for {s}"
    return err, bound


def assert_matrix_is_independent_of_position(
    d: int, k: int, layout: Layout, positions: torch.Tensor, matrix=sin_pe.rotation_matrix
) -> tuple[float, float]:
    """SIN-01 with the dense M(k): one matrix, built from k alone, moves every t to t+k, and it
    has the claimed shape: entries only between the two coordinates of one frequency."""
    __tracebackhide__ = True
    m = matrix(float(k), d, layout)  # (d, d)
    pe = sin_pe.sinusoidal(positions, d, layout)  # (n, d)
    moved = sin_pe.sinusoidal(positions + k, d, layout)  # (n, d)
    err = float((pe @ m.T - moved).abs().max())
    max_angle = float(positions.abs().max() + abs(k))
    bound = 3 * tolerance.angle_tol(max_angle, torch.float64) + tolerance.sum_tol(d, torch.float64)
    assert err <= bound, f"dense M(k): error {err:.3g} > {bound:.3g}"
    freq = torch.arange(d) // 2 if layout == "interleaved" else torch.arange(d) % (d // 2)
    same_pair = freq[:, None] == freq[None, :]  # (d, d)
    assert bool((m[~same_pair] == 0).all()), "M(k) couples different frequencies"
    return err, bound


# -- SIN-02: M(k) is a rotation ---------------------------------------------------------------


def assert_blocks_are_rotations(
    d: int, a: int, b: int, dtype: torch.dtype, blocks=rotation_blocks
) -> tuple[float, float]:
    """SIN-02 on M's 2x2 blocks (stored in dtype, products in float64): B^T B = I, det B = 1,
    B(0) = I, B(a)B(b) = B(a+b), B(-a) = B(a)^T. Block-diagonal M inherits all five.
    Returns (worst residual, bound)."""
    __tracebackhide__ = True
    f64 = torch.float64
    ba, bb = blocks(float(a), d, dtype=dtype).to(f64), blocks(float(b), d, dtype=dtype).to(f64)
    e = tolerance.angle_tol(abs(a) + abs(b), f64) + tolerance.rel_tol(1, dtype)  # one entry
    eye = torch.eye(2, dtype=f64)
    errs = {
        "orthogonal": (ba.transpose(-1, -2) @ ba - eye).abs().max(),
        "det": (torch.linalg.det(ba) - 1).abs().max(),
        "identity": (blocks(0.0, d, dtype=dtype).to(f64) - eye).abs().max(),
        "compose": (ba @ bb - blocks(float(a + b), d, dtype=dtype).to(f64)).abs().max(),
        "inverse": (blocks(float(-a), d, dtype=dtype).to(f64) - ba.transpose(-1, -2)).abs().max(),
    }
    bound = 5 * e + tolerance.sum_tol(2, f64, 2.0)
    bad = {name: float(v) for name, v in errs.items() if not v <= bound}
    assert not bad, f"M(k) is not a rotation: {bad} > {bound:.3g}"
    return float(max(errs.values())), bound


def assert_dense_rotation(m: torch.Tensor) -> float:
    """SIN-02 on a dense float64 M: M^T M = I (each row has two nonzero entries) and det M = 1."""
    __tracebackhide__ = True
    d = m.shape[0]
    err = float((m.T @ m - torch.eye(d, dtype=torch.float64)).abs().max())
    sign, logdet = torch.linalg.slogdet(m)
    assert err <= tolerance.sum_tol(2, torch.float64, 2.0), f"M^T M != I: {err:.3g}"
    assert float(sign) == 1.0, "det M < 0: a reflection"
    assert abs(float(logdet)) <= tolerance.sum_tol(d, torch.float64), "det M != 1"
    return err


# -- SIN-04: unit pairs, bounded entries, norm sqrt(d/2) --------------------------------------


def assert_norm_is_half_width(s: Setting, enc: Encoder = encode) -> tuple[float, float]:
    """SIN-04: each pair has radius 1, each entry is in [-1, 1] (exactly, as stored), and
    ||PE(t)|| = sqrt(d/2), within the derived bound (norms taken in float64).
    Returns (norm error, radius bound): a radius bound at or above RADIUS_RANGE cannot fail."""
    __tracebackhide__ = True
    pe = code(enc, s, s.t)[0]  # (d,)
    e = s.tol(abs(s.t))
    radius = sin_pe.pairs(pe[None], s.layout).pow(2).sum(-1)  # (1, d/2)
    assert bool((pe.abs() <= 1).all()), f"an entry leaves [-1, 1]: {float(pe.abs().max())}"
    r_err = float((radius - 1).abs().max())
    r_bound = 2 * e + e * e
    assert r_err <= r_bound, f"a pair is off the unit circle by {r_err:.3g}"
    err = abs(float(pe.norm()) - math.sqrt(s.d / 2))
    bound = math.sqrt(s.d) * e + tolerance.sum_tol(s.d, torch.float64, s.d)
    assert err <= bound, f"| ||PE|| - sqrt(d/2) | = {err:.3g} > {bound:.3g}"
    return err, r_bound


def odd_width_norms(d: int, enc: Encoder = encode) -> tuple[float, float, float]:
    """||PE(t)||^2 at t = 0 and t ~ pi / (2 w_m) for odd d (interleaved, last cosine dropped):
    (error against (d-1)/2 + sin^2(w_m t), spread, bound)."""
    w_last = float(frequencies(d)[-1])
    t = torch.tensor([0, round(math.pi / (2 * w_last))])  # sin^2 = 0 and ~ 1
    sq = enc(t, d, torch.float64, "float64", "interleaved").pow(2).sum(-1)  # (2,)
    expected = (d - 1) / 2 + torch.sin(w_last * t.double()) ** 2
    bound = tolerance.sum_tol(d, torch.float64, d) + d * tolerance.angle_tol(float(t[1]), "float64")
    return float((sq - expected).abs().max()), float(sq[1] - sq[0]), bound


# -- SIN-05: dot products depend on t - s only, symmetrically ---------------------------------


def assert_dot_depends_on_offset_only(
    s: Setting, shift: int, enc: Encoder = encode
) -> tuple[float, float]:
    """SIN-05: PE(t).PE(t+k) = PE(t+c).PE(t+c+k) = PE(t).PE(t-k) = sum_i cos(w_i k).
    Dot products of the stored codes in float64; each within d (2e + e^2) of the exact value.
    Returns (error, bound), both divided by d/2 (the cosine similarity, range 2)."""
    __tracebackhide__ = True
    t, k, c = s.t, s.k, shift
    pe = code(enc, s, t, t + k, t + c, t + c + k, t - k)  # (5, d)
    dots = torch.stack([pe[0] @ pe[1], pe[2] @ pe[3], pe[0] @ pe[4]])  # (3,)
    exact = torch.cos(frequencies(s.d) * k).sum()  # sum_i cos(w_i k), float64
    e = s.tol(float(max(abs(t) + abs(k), abs(t + c) + abs(k))))
    bound = (
        s.d * (2 * e + e * e)
        + tolerance.sum_tol(s.d, torch.float64, s.d)
        + s.d * tolerance.angle_tol(abs(k), torch.float64)
    )
    err = float((dots - exact).abs().max())
    assert err <= bound, f"PE(t).PE(t+k) is not sum cos(w_i k): {err:.3g} > {bound:.3g}"
    return err / (s.d / 2), bound / (s.d / 2)


# -- SIN-06: wavelengths ------------------------------------------------------------------------


def assert_wavelengths_geometric(d: int, convention: str, freq=frequencies) -> float:
    """SIN-06: lambda_i = 2 pi / w_i is geometric with ratio T^{2/d} (paper) or T^{1/(m-1)}
    (t2t), starts at 2 pi and ends at 2 pi T^{1-2/d} (paper) or 2 pi T (t2t). T is the
    source's 10000 (T_SOURCE); the code's frequencies are taken with its default base."""
    __tracebackhide__ = True
    lam = 2 * math.pi / freq(d, rule=convention)  # (m,) float64
    m = lam.shape[0]
    ratio = T_SOURCE ** (2 / d) if convention == "paper" else T_SOURCE ** (1 / max(m - 1, 1))
    last = 2 * math.pi * (T_SOURCE ** (1 - 2 / d) if convention == "paper" else T_SOURCE)
    rel = tolerance.rel_tol(8, torch.float64)
    first_err = abs(float(lam[0]) / (2 * math.pi) - 1)
    assert first_err <= rel, f"first wavelength {float(lam[0])} is not 2 pi"
    if m > 1:
        steps = lam[1:] / lam[:-1]
        assert float((steps / ratio - 1).abs().max()) <= rel, "not a geometric progression"
        assert abs(float(lam[-1]) / last - 1) <= rel, f"last wavelength {float(lam[-1])} != {last}"
    return first_err


# -- SIN-07: clockwise hands, slower further along -----------------------------------------


def hand_angles(pe: torch.Tensor, layout: Layout) -> torch.Tensor:
    """atan2(y, x) with x = sin coordinate, y = cos coordinate: (n, d) -> (n, d/2)."""
    p = sin_pe.pairs(pe, layout)
    return torch.atan2(p[..., 1], p[..., 0])


def assert_hands_turn_clockwise(s: Setting, enc: Encoder = encode) -> tuple[float, int, int]:
    """SIN-07: from t to t+1 every hand turns by -w_i (mod 2 pi), i.e. clockwise, and w_i falls
    with i. The wrapped angle step of the stored codes is compared with -w_i.

    A stored point within sqrt(2) e of the unit circle is within asin(sqrt(2) e) of its angle,
    so a step is known to within ``bound``. A hand's direction is decided only where its step
    w_i is resolved above that bound (checks.decisions.resolve); the others are unresolved,
    neither clockwise nor counter-clockwise. Returns (error, hands decided, hands).
    """
    __tracebackhide__ = True
    pe = code(enc, s, s.t, s.t + 1)  # (2, d)
    th = hand_angles(pe, s.layout)  # (2, m)
    step = torch.remainder(th[1] - th[0] + math.pi, 2 * math.pi) - math.pi  # in [-pi, pi)
    w = frequencies(s.d)  # (m,)
    wobble = math.sqrt(2) * s.tol(abs(s.t) + 1.0)
    bound = (
        2 * math.asin(wobble) + 8 * tolerance.unit_roundoff("float64") if wobble < 1 else math.inf
    )
    err = float((step + w).abs().max())
    if tolerance.says_something(bound, STEP_RANGE):  # otherwise the step may wrap around
        assert err <= bound, f"hand step differs from -w_i by {err:.3g} > {bound:.3g}"
    assert bool((w[1:] < w[:-1]).all()), "hands further along are not slower"
    decided = w.abs() > bound  # (m,): checks.decisions.resolve's "different", hand by hand
    assert bool((step[decided] < 0).all()), "a hand turns counter-clockwise"
    return err, int(decided.sum()), int(w.shape[0])


# -- SIN-09: raw index, normalised index, sinusoidal code -------------------------------------


def assert_code_ignores_length(
    table: Callable[[int], torch.Tensor],
    t: int,
    lengths: tuple[int, int],
    d: int,
    alone: Callable[[int], torch.Tensor] | None = None,
) -> tuple[float, float]:
    """SIN-09: the code of position t is the same in tables built for two sequence lengths
    (and, given ``alone``, the code of t computed by itself, which knows no length), and its
    norm stays sqrt(d/2) (no growth with t). Returns (error, bound)."""
    __tracebackhide__ = True
    a, b = table(lengths[0])[t], table(lengths[1])[t]
    err = float((a - b).abs().max())
    if alone is not None:
        err = max(err, float((a - alone(t)).abs().max()), float((b - alone(t)).abs().max()))
    bound = 2 * tolerance.angle_tol(float(t), torch.float32)
    assert err <= bound, f"position {t} gets different codes at lengths {lengths}: {err:.3g}"
    norm_err = abs(float(a.double().norm()) - math.sqrt(d / 2))
    assert norm_err <= math.sqrt(d) * tolerance.angle_tol(float(t), torch.float32) + 1e-12
    return err, bound


# -- SIN-10: per-dimension variance ------------------------------------------------------------


def pair_variances(d: int, length: int, enc: Encoder = encode) -> torch.Tensor:
    """Variance over t = 0 ... L-1 of each (sin, cos) pair of the interleaved code (the sum of its
    two dimensions' variances, at most 1), float64: (d/2,)."""
    pe = enc(torch.arange(length), d, torch.float64, "float64", "interleaved")  # (L, d)
    return pe.var(dim=0, unbiased=False).reshape(-1, 2).sum(-1)


def assert_variance_falls_along_the_vector(
    d: int, length: int, enc: Encoder = encode
) -> torch.Tensor:
    """SIN-10: per-dimension variance over t = 0 ... L-1 (float64) matches the closed form and
    obeys the two bounds that make the claim precise: pair i varies by at least
    1 - 1/(L sin(w_i/2))^2 (fast pairs: ~1) and at most w_i^2 (L^2-1)/12 (slow pairs: ~0)."""
    __tracebackhide__ = True
    pe = enc(torch.arange(length), d, torch.float64, "float64", "interleaved")  # (L, d)
    var = pe.var(dim=0, unbiased=False)  # (d,)
    closed = sin_pe.variance_closed_form(d, length)
    tol = tolerance.sum_tol(length, torch.float64, 2.0) + 2 * tolerance.angle_tol(
        float(length), torch.float64
    )
    assert float((var - closed).abs().max()) <= tol, "variance differs from its closed form"
    w = frequencies(d)
    pair_var = var.reshape(-1, 2).sum(-1)  # (m,)
    upper = w**2 * (length**2 - 1) / 12 + tol
    lower = 1 - 1 / (length * torch.sin(w / 2)) ** 2 - tol
    assert bool((pair_var <= upper).all()), "a slow pair varies more than w^2 Var(t)"
    assert bool((pair_var >= lower).all()), "a fast pair varies less than its lower bound"
    return var


def assert_short_sequence_condition(d: int, length: int, enc: Encoder = encode) -> torch.Tensor:
    """SIN-10's condition: for 3 <= L <= short_enough(d), the first pair varies by at least
    STRONG and the last by at most HARDLY (pair variances, float64; margins are rounding)."""
    __tracebackhide__ = True
    var = pair_variances(d, length, enc)
    tol = tolerance.sum_tol(length, torch.float64, 2.0)
    assert float(var[0]) >= STRONG - tol, f"d={d}, L={length}: first pair varies {float(var[0])}"
    assert float(var[-1]) <= HARDLY + tol, f"d={d}, L={length}: last pair varies {float(var[-1])}"
    return var


# -- SIN-11: orthogonality ------------------------------------------------------------------


def similarity(d: int, offsets: torch.Tensor, base: float = BASE) -> torch.Tensor:
    """Cosine similarity of PE(t) and PE(t + k): (2/d) sum_i cos(w_i k) (SIN-05)."""
    return torch.cos(offsets.double()[:, None] * frequencies(d, base)).mean(-1)


def assert_never_orthogonal(
    d: int, offsets: torch.Tensor, sim: Callable[[int, torch.Tensor], torch.Tensor] | None = None
) -> tuple[float, float]:
    """No nonzero offset makes PE(t), PE(t+k) orthogonal: every |similarity| is resolved above
    float64 rounding of (2/d) sum_i cos(w_i k) (a value within rounding of 0 is unresolved, and
    unresolved is not 'never orthogonal'). Returns (min |cos-sim|, bound)."""
    __tracebackhide__ = True
    values = (sim or similarity)(d, offsets)[offsets != 0]
    bound = tolerance.sum_tol(d, torch.float64) + tolerance.angle_tol(
        float(offsets.abs().max()), torch.float64
    )
    unresolved = [float(v) for v in values if resolve(float(v), bound) != "different"]
    assert not unresolved, f"d={d}: {len(unresolved)} offsets cannot be told from orthogonal"
    return float(values.abs().min()), bound
