"""xorshift32: a tiny seeded generator that gives the same stream in CPython and numba."""

from numba.extending import register_jitable


@register_jitable
def next_uniform(istate, slot: int) -> float:
    """Advance the generator held in istate[slot]; return a float in [0, 1)."""
    x = istate[slot]
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    istate[slot] = x
    return x / 4294967296.0


def seed_state(seed: int) -> int:
    """A non-zero 32-bit generator state from any integer seed (splitmix-style scramble)."""
    z = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return ((z ^ (z >> 31)) & 0xFFFFFFFF) or 1
