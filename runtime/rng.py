"""Deterministic SplitMix64 generator whose whole state is a single Python int.

Every function is pure apart from ``shuffle`` (which reorders its list argument):
the caller threads the returned state into the next call.
"""

from __future__ import annotations

import hashlib
import sys

__all__ = ["below", "next_u64", "seed_state", "shuffle"]

_MASK = (1 << 64) - 1
_TWO64 = 1 << 64
BELOW_LIMIT = 1 << 32  # below(state, n) takes 1 <= n < BELOW_LIMIT
_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def seed_state(seed: int | str) -> int:
    """Return a 64-bit state derived deterministically from an int or str seed."""
    if isinstance(seed, int):
        return seed & _MASK
    if isinstance(seed, str):
        return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")
    raise TypeError(f"seed must be int or str, not {type(seed).__name__}")


def next_u64(state: int) -> tuple[int, int]:
    """Advance one SplitMix64 step and return (new_state, 64-bit output)."""
    state = (state + _GAMMA) & _MASK
    z = ((state ^ (state >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """Return (new_state, r) with r uniform in [0, n) for 1 <= n < 2**32 (Lemire, unbiased)."""
    if not 0 < n < BELOW_LIMIT:
        raise ValueError(f"n must satisfy 1 <= n < 2**32, got {n}")
    while True:
        state = (state + _GAMMA) & _MASK
        z = ((state ^ (state >> 30)) * _MIX1) & _MASK
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK
        m = (z ^ (z >> 31)) * n
        low = m & _MASK
        # Reject the few low halves that would bias the result (rare: needs low < n).
        if low < n and low < (_TWO64 - n) % n:
            continue
        return state, m >> 64


def shuffle(state: int, items: list) -> int:
    """Shuffle items in place (Fisher-Yates driven by below) and return the new state."""
    if _PACKED_FROM <= len(items) <= _PACKED_UP_TO and _NATIVE_LITTLE:
        return _packed_shuffle(state, items)
    return _step_shuffle(state, items)


def _step_shuffle(state: int, items: list) -> int:
    """shuffle, one draw after the other."""
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        # Inlined copy of below(state, n) for speed; tests check it matches exactly.
        while True:
            state = (state + _GAMMA) & _MASK
            z = ((state ^ (state >> 30)) * _MIX1) & _MASK
            z = ((z ^ (z >> 27)) * _MIX2) & _MASK
            m = (z ^ (z >> 31)) * n
            low = m & _MASK
            if low < n and low < (_TWO64 - n) % n:
                continue
            break
        j = m >> 64
        items[i], items[j] = items[j], items[i]
    return state


# Lists of these lengths are shuffled with all their draws made at once (_packed_shuffle),
# whose constants for each length are kept: at most about 3 MB for every length.
_PACKED_FROM = 16
_PACKED_UP_TO = 256
_NATIVE_LITTLE = sys.byteorder == "little"  # the packed draws are read as native 64-bit words
_LANE = 128  # bits a draw takes in the packed integer: a 64-bit value times a 64-bit one fits
_LANES: dict[int, tuple[int, int, int]] = {}


def _lanes(draws: int) -> tuple[int, int, int]:
    """For `draws` lanes: 1 in each lane, the k-th lane's k * gamma (mod 2**64), 64 ones in each."""
    known = _LANES.get(draws)
    if known is None:
        ones = sum(1 << (_LANE * k) for k in range(draws))
        ramp = sum((((k + 1) * _GAMMA) & _MASK) << (_LANE * k) for k in range(draws))
        known = _LANES[draws] = (ones, ramp, ones * _MASK)
    return known


def _packed_shuffle(state: int, items: list) -> int:
    """shuffle with the SplitMix64 outputs of all its draws computed side by side in one integer.

    Draw k (from 1) has the state `state + k * gamma`, as long as no draw is rejected; each
    lane of 128 bits holds one draw's 64-bit value, masked to 64 bits after every step, so the
    arithmetic of the steps (a product of two 64-bit values included) never crosses into the
    next lane. A rejected draw (about one in 2**58 for these list lengths) shifts every later
    state: the list is then put back and shuffled one draw after the other.
    """
    draws = len(items) - 1
    ones, ramp, low = _lanes(draws)
    x = (state * ones + ramp) & low
    x = ((x ^ (x >> 30)) & low) * _MIX1 & low
    x = ((x ^ (x >> 27)) & low) * _MIX2 & low
    x = (x ^ (x >> 31)) & low
    outputs = memoryview(x.to_bytes(draws * _LANE // 8, "little")).cast("Q").tolist()[::2]
    before = items[:]
    i = draws
    for z in outputs:
        n = i + 1
        m = z * n
        if (m & _MASK) < n and (m & _MASK) < (_TWO64 - n) % n:
            items[:] = before
            return _step_shuffle(state, items)
        j = m >> 64
        items[i], items[j] = items[j], items[i]
        i -= 1
    return (state + draws * _GAMMA) & _MASK
