"""Tests for runtime.rng: the SplitMix64 generator with an int state."""

from __future__ import annotations

import hashlib
import itertools
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime.rng import below, next_u64, seed_state, shuffle

ROOT = Path(__file__).resolve().parent.parent
MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15

# Published SplitMix64 reference outputs for state 0.
GOLDEN_0 = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
# seed_state("abc") is the first 8 bytes (big-endian) of sha256(b"abc").
STATE_ABC = 0xBA7816BF8F01CFEA
GOLDEN_ABC = [0xC2BB062BB0E9D803, 0x3104B56B2FF99396, 0xED735411C5675BFB]

states = st.integers(min_value=0, max_value=MASK)


def outputs(state: int, count: int) -> list[int]:
    out = []
    for _ in range(count):
        state, x = next_u64(state)
        out.append(x)
    return out


def reference_shuffle(state: int, items: list) -> int:
    for i in range(len(items) - 1, 0, -1):
        state, j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def test_golden_outputs_seed_0():
    assert seed_state(0) == 0
    assert outputs(seed_state(0), 3) == GOLDEN_0


def test_golden_outputs_seed_str():
    assert seed_state("abc") == STATE_ABC
    assert int(hashlib.sha256(b"abc").hexdigest()[:16], 16) == STATE_ABC
    assert outputs(seed_state("abc"), 3) == GOLDEN_ABC


def test_same_seed_same_sequence():
    def run(seed):
        state = seed_state(seed)
        draws = []
        for n in range(1, 200):
            state, r = below(state, n)
            draws.append(r)
        items = list(range(50))
        state = shuffle(state, items)
        return draws, items, state

    assert run(12345) == run(12345)
    assert run("some seed") == run("some seed")
    assert run(12345) != run(12346)
    assert run("some seed") != run("some seed!")


def test_state_advances_by_gamma():
    state = 987654321
    for _ in range(5):
        new, _ = next_u64(state)
        assert new == (state + GAMMA) & MASK
        state = new


@given(st.integers())
def test_int_seed_in_range(seed):
    s = seed_state(seed)
    assert 0 <= s < 2**64
    assert s == seed % 2**64


@given(st.text())
def test_str_seed_in_range_and_stable(seed):
    s = seed_state(seed)
    assert 0 <= s < 2**64
    assert s == seed_state(seed)


def test_seed_rejects_other_types():
    with pytest.raises(TypeError):
        seed_state(1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        seed_state(b"abc")  # type: ignore[arg-type]


@given(states)
def test_next_u64_in_range(state):
    new, out = next_u64(state)
    assert 0 <= new < 2**64
    assert 0 <= out < 2**64


@given(states, st.integers(min_value=1, max_value=2**32 - 1))
def test_below_in_range(state, n):
    new, r = below(state, n)
    assert 0 <= r < n
    assert 0 <= new < 2**64


def test_below_one_is_zero():
    state = seed_state(5)
    for _ in range(100):
        state, r = below(state, 1)
        assert r == 0


@pytest.mark.parametrize("n", [0, -1, -(2**70), 2**32, 2**64])
def test_below_rejects_bad_n(n):
    with pytest.raises(ValueError):
        below(0, n)


def test_below_uses_one_step_without_rejection():
    state = seed_state("step")
    new, r = below(state, 6)
    expected_state, x = next_u64(state)
    assert new == expected_state
    assert r == (x * 6) >> 64


def test_below_rejection_path():
    # From this state the next output is 0, whose low product half is 0 for any n.
    state = (-GAMMA) & MASK
    assert next_u64(state) == (0, 0)
    # n = 3 * 2**30: 2**64 % n == 2**30 > 0, so low half 0 is rejected and a second draw used.
    n = 3 * 2**30
    s1, _ = next_u64(state)
    s2, x2 = next_u64(s1)
    assert below(state, n) == (s2, (x2 * n) >> 64)
    # n = 2**20 divides 2**64, nothing is ever rejected: the first output (0) gives 0.
    assert below(state, 2**20) == (0, 0)
    # shuffle's inlined draw takes the same path (its first draw, n = 10, rejects 0 too).
    items = list(range(10))
    ref = list(items)
    assert shuffle(state, items) == reference_shuffle(state, ref)
    assert items == ref


def test_below_rough_uniformity():
    state = seed_state(2024)
    draws = 60_000
    counts = [0] * 6
    for _ in range(draws):
        state, r = below(state, 6)
        counts[r] += 1
    expected = draws / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    # 5 degrees of freedom: P(chi2 > 30) is about 1e-5.
    assert chi2 < 30, counts


def test_below_large_n_spreads_over_range():
    state = seed_state(77)
    n = 3 * 2**30
    quarters = Counter()
    for _ in range(8000):
        state, r = below(state, n)
        quarters[r * 4 // n] += 1
    assert set(quarters) == {0, 1, 2, 3}
    assert min(quarters.values()) > 1700


@given(states, st.lists(st.integers(), max_size=40))
def test_shuffle_is_permutation_and_matches_below(state, items):
    mine = list(items)
    ref = list(items)
    new = shuffle(state, mine)
    assert sorted(mine) == sorted(items)
    assert new == reference_shuffle(state, ref)
    assert mine == ref


@pytest.mark.parametrize("size", [16, 17, 20, 64, 110, 256, 257, 300])
def test_a_long_shuffle_draws_as_below_does(size):
    # Lists of 16 items or more are shuffled with all their draws computed at once.
    for seed in range(50):
        state = seed_state(f"long/{size}/{seed}")
        items = list(range(size))
        ref = list(items)
        assert shuffle(state, items) == reference_shuffle(state, ref)
        assert items == ref


@pytest.mark.parametrize(("size", "k"), [(20, 1), (20, 7), (110, 1), (110, 60)])
def test_a_long_shuffle_takes_a_rejected_draw_as_below_does(size, k):
    # From this state draw k's output is 0, which draw k's n = size - k + 1 rejects (2**64 is
    # not a multiple of it), so every later draw comes one state later.
    state = (-k * GAMMA) & MASK
    n = size - k + 1
    assert (2**64 - n) % n > 0
    items = list(range(size))
    ref = list(items)
    assert shuffle(state, items) == reference_shuffle(state, ref)
    assert items == ref


def test_shuffle_short_lists_draw_nothing():
    for items in ([], [1]):
        assert shuffle(42, items) == 42


def test_shuffle_rough_uniformity():
    state = seed_state("perm")
    counts = Counter()
    rounds = 24_000
    for _ in range(rounds):
        items = [0, 1, 2]
        state = shuffle(state, items)
        counts[tuple(items)] += 1
    assert set(counts) == set(itertools.permutations([0, 1, 2]))
    expected = rounds / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 30, counts


def test_str_seed_independent_of_hash_seed():
    # Load rng.py on its own so the check does not depend on the rest of the package.
    code = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('rng_alone', sys.argv[1])\n"
        "rng = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(rng)\n"
        "next_u64, seed_state = rng.next_u64, rng.seed_state\n"
        "s = seed_state('abc')\n"
        "out = [s]\n"
        "for _ in range(3):\n"
        "    s, x = next_u64(s)\n"
        "    out.append(x)\n"
        "print(out, hash('abc'))\n"
    )
    results = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        proc = subprocess.run(
            [sys.executable, "-c", code, str(ROOT / "runtime" / "rng.py")],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        values, str_hash = proc.stdout.rsplit(" ", 1)
        results.append((values, str_hash))
    (values1, hash1), (values2, hash2) = results
    assert hash1 != hash2  # the two interpreters really hash strings differently
    assert values1 == values2 == str([STATE_ABC, *GOLDEN_ABC])
