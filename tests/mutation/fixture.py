"""The Python fixture of check_mutate.py: one function per kind of mutant pygen.py makes; nothing
in this docstring (a < b, x + 1) is ever mutated."""
from __future__ import annotations

LIMIT = 3
SHAPE: tuple[int, 8] = (2, 2)


def clamp_low(x: int, low: int = 0) -> int:
    if x < low:
        return low
    return x


def scaled(x, factor=2):
    return x * factor + 1


def call_with(fn, a, b, scale=1):
    return fn(a, b, scale=scale)


def label(flag):
    text = f"{flag and 1 < 2}"  # nothing inside an f-string
    return "on" if flag else "off"


def count(values):
    n = 0
    for v in values:
        n += 1
    return n
