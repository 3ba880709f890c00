from __future__ import annotations

import json
import math
import random
import shutil
import struct
import subprocess

import pytest

from mem.core.javascript import jsmath

NAN = math.nan
INF = math.inf


def bits(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def from_bits(b: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", b))[0])


def same(a: float, b: float) -> bool:
    """Bit-identical, except that every NaN is the same NaN (as in JS)."""
    return (math.isnan(a) and math.isnan(b)) or bits(a) == bits(b)


# Values printed by node 20 (V8 11.3).
LOG_CASES = [
    (3.0, 1.0986122886681096),  # glibc: 1.0986122886681098
    (1.0, 0.0),
    (2.0, 0.6931471805599453),
    (10.0, 2.302585092994046),
    (0.0, -INF),
    (-0.0, -INF),
    (-1.0, NAN),
    (-INF, NAN),
    (INF, INF),
    (NAN, NAN),
    (5e-324, -744.4400719213812),
    (1.7976931348623157e308, 709.782712893384),
]
POW_CASES = [
    (0.5, 8.395833333333334 / 30, 0.8236703085552646),  # glibc: 0.8236703085552647
    (0.5, 1.0, 0.5),
    (2.0, 10.0, 1024.0),
    (2.0, -1074.0, 5e-324),
    (2.0, -1075.0, 0.0),
    (2.0, 1024.0, INF),
    (-2.0, 3.0, -8.0),
    (-8.0, 1 / 3, NAN),
    (NAN, 0.0, 1.0),
    (NAN, -0.0, 1.0),
    (1.0, NAN, NAN),
    (1.0, INF, NAN),
    (-1.0, -INF, NAN),
    (0.5, INF, 0.0),
    (0.5, -INF, INF),
    (0.0, -1.0, INF),
    (-0.0, -1.0, -INF),
    (-0.0, -2.0, INF),
    (-0.0, 3.0, -0.0),
    (-0.0, 0.5, 0.0),
    (-INF, 0.5, INF),
    (-INF, 3.0, -INF),
    (-INF, -3.0, -0.0),
    (4.0, 0.5, 2.0),
]


@pytest.mark.parametrize(("x", "expected"), LOG_CASES)
def test_log_known_values(x: float, expected: float) -> None:
    assert same(jsmath.log(x), expected)


@pytest.mark.parametrize(("x", "y", "expected"), POW_CASES)
def test_pow_known_values(x: float, y: float, expected: float) -> None:
    assert same(jsmath.pow(x, y), expected)


def test_log1p_weight() -> None:
    assert jsmath.log1p_weight(1) == 1.0
    assert jsmath.log1p_weight(3) == 1 + 1.0986122886681096


def random_double(rng: random.Random, *, sign: bool = False, lowest: int = 0) -> float:
    """Any finite double: the exponent field uniform (0 gives subnormals), the mantissa random."""
    exponent = rng.randint(lowest, 0x7FE)
    b = (exponent << 52) | rng.getrandbits(52)
    if sign and rng.random() < 0.5:
        b |= 1 << 63
    return from_bits(b)


SPECIALS = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 5e-324]
SPECIALS += [-5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308]


def log_inputs(rng: random.Random) -> list[float]:
    xs = [float(k) for k in range(1, 100001)]  # every term frequency the scorer will see
    xs += [random_double(rng) for _ in range(3000)]
    xs += [random_double(rng, lowest=0x3F0, sign=True) for _ in range(1000)]
    xs += [from_bits(rng.getrandbits(52)) for _ in range(500)]  # subnormals
    xs += [from_bits(bits(1.0) + rng.randint(-(2**22), 2**22)) for _ in range(500)]  # near 1
    xs += [rng.uniform(0.0, 10.0) for _ in range(1000)]
    return xs + SPECIALS


def pow_inputs(rng: random.Random) -> list[tuple[float, float]]:
    pairs = [(0.5, rng.uniform(0.0, 200.0)) for _ in range(3000)]  # recall decay: 0.5 ** (age/30)
    pairs += [(0.5, rng.randint(0, 6000 * 86_400_000) / 86_400_000 / 30) for _ in range(1000)]
    pairs += [(0.5, k / 30) for k in range(0, 6001)]
    pairs += [(0.5, rng.uniform(1000.0, 1100.0)) for _ in range(200)]  # subnormal results
    pairs += [(random_double(rng, lowest=0x3C0), rng.uniform(-50.0, 50.0)) for _ in range(1000)]
    pairs += [(random_double(rng, sign=True), random_double(rng, sign=True)) for _ in range(1000)]
    pairs += [(rng.uniform(-10.0, 10.0), float(rng.randint(-400, 400))) for _ in range(1000)]
    pairs += [(-random_double(rng), float(rng.randint(-(2**53), 2**53))) for _ in range(300)]
    pairs += [(-random_double(rng), rng.randint(-1000, 1000) + 0.5) for _ in range(100)]
    pairs += [(from_bits(rng.getrandbits(52)), rng.uniform(-2.0, 2.0)) for _ in range(300)]
    pairs += [(rng.uniform(1.9, 2.1), rng.uniform(1020.0, 1030.0)) for _ in range(300)]
    pairs += [(rng.uniform(1.9, 2.1), rng.uniform(-1080.0, -1070.0)) for _ in range(300)]
    # |1 - x| <= 2**-20 with |y| > 2**31: the short series for log(x)
    for _ in range(500):
        x = from_bits(bits(1.0) + rng.randint(-(2**31), 2**31))
        pairs.append((rng.choice([x, -x]), rng.choice([1, -1]) * rng.uniform(2.0**31, 2.0**40)))
    pairs += [
        (rng.uniform(0.5, 2.0), rng.choice([1, -1]) * 2.0 ** rng.uniform(31, 70))
        for _ in range(300)
    ]
    exponents = SPECIALS + [0.25, -0.5, 1 / 3, 1e10, 2.0**31 + 1, 2.0**64 + 2**12, 1075.0, -1075.0]
    exponents += [1024.0, -1074.0, 2.0**53, 2.0**53 + 2, 2.0**52 + 1, 4503599627370497.5]
    pairs += [(x, y) for x in SPECIALS for y in exponents]
    return pairs


def encode(x: float) -> str:
    return f"{bits(x):016x}"


NODE_SCRIPT = r"""
const data = JSON.parse(require("fs").readFileSync(0, "utf8"));
const view = new DataView(new ArrayBuffer(8));
const dec = (h) => { view.setBigUint64(0, BigInt("0x" + h)); return view.getFloat64(0); };
const enc = (d) => {
  view.setFloat64(0, d);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
};
process.stdout.write(JSON.stringify({
  log: data.log.map((h) => enc(Math.log(dec(h)))),
  pow: data.pow.map(([a, b]) => enc(Math.pow(dec(a), dec(b)))),
}));
"""


def run_node(log_xs: list[float], pow_pairs: list[tuple[float, float]]) -> dict[str, list[str]]:
    node = shutil.which("node")
    assert node is not None
    payload = {
        "log": [encode(x) for x in log_xs],
        "pow": [[encode(a), encode(b)] for a, b in pow_pairs],
    }
    done = subprocess.run(
        [node, "-e", NODE_SCRIPT],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")


@needs_node
def test_bit_for_bit_with_node() -> None:
    rng = random.Random(20240611)
    log_xs = log_inputs(rng)
    pow_pairs = pow_inputs(rng)
    expected = run_node(log_xs, pow_pairs)
    mismatches: list[str] = []
    for x, want in zip(log_xs, expected["log"], strict=True):
        got = jsmath.log(x)
        if not same(got, from_bits(int(want, 16))):
            mismatches.append(f"log({x!r}) = {got!r}, node {from_bits(int(want, 16))!r}")
    for (a, b), want in zip(pow_pairs, expected["pow"], strict=True):
        got = jsmath.pow(a, b)
        if not same(got, from_bits(int(want, 16))):
            mismatches.append(f"pow({a!r}, {b!r}) = {got!r}, node {from_bits(int(want, 16))!r}")
    print(f"compared {len(log_xs)} log and {len(pow_pairs)} pow samples with node")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:20])
