"""Deterministic SplitMix64 generator whose whole state is a single Python int.

Every function is pure apart from ``shuffle`` (which reorders its list argument):
the caller threads the returned state into the next call.
"""

from __future__ import annotations

import hashlib

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
