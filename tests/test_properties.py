"""Property-based tests: every input to the parsers and query parameters is either accepted
with its correct meaning or refused with one line (a zeckdb error), never a traceback."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from zeckdb.errors import NotBuiltError, UsageError, ZeckdbError
from zeckdb import api
from zeckdb.ranges import MAX_N, parse_ns
from zeckdb.variants import get_variant

ASCII_DIGITS = "0123456789"
# text that looks like the real thing: digits of every script, separators, signs, underscores, spaces
NOISY = st.lists(st.sampled_from(list("0123456789,.-_ ()[]+eE٣١٠\t\n𝟙") + ["..", "١٠", "99999999999"]),
                 max_size=20).map("".join)


def one_line(exc: Exception) -> bool:
    text = str(exc)
    return bool(text) and "\n" not in text and "Traceback" not in text


@given(st.lists(st.tuples(st.integers(1, MAX_N), st.integers(0, 50)), min_size=1, max_size=5))
def test_well_formed_ranges_mean_what_they_say(parts):
    text = ",".join(str(lo) if width == 0 else f"{lo}..{min(lo + width, MAX_N)}" for lo, width in parts)
    expected = sorted({n for lo, width in parts for n in range(lo, min(lo + width, MAX_N) + 1)})
    assert parse_ns(text) == expected


@given(NOISY)
def test_any_range_text_is_parsed_or_refused_in_one_line(text):
    try:
        ns = parse_ns(text)
    except UsageError as exc:
        assert one_line(exc)
        return
    assert ns and all(0 <= n <= MAX_N for n in ns)  # a game says where it starts (0 or 1)
    # accepted text is ASCII digits, commas, dots and spaces only
    assert set(text) <= set(ASCII_DIGITS + ",. ")


@given(st.integers(MAX_N + 1, 10**40))
def test_huge_ranges_are_refused_before_anything_is_allocated(top):
    with pytest.raises(UsageError, match=f"n goes up to {MAX_N}"):
        parse_ns(f"1..{top}")


@given(st.lists(st.integers(0, 30), min_size=1, max_size=11))
def test_well_formed_positions_parse_to_their_counts(counts):
    variant = get_variant("zeckendorf")
    text = ",".join(map(str, counts))
    parsed = variant.parse(text)
    trimmed = list(counts)
    while trimmed and trimmed[-1] == 0:
        trimmed.pop()
    assert list(parsed) == trimmed
    assert variant.parse(f"({text})") == parsed


@pytest.mark.parametrize("name", ["zeckendorf", "reversed", "quilt", "fibonacci-nim", "black-hole-4",
                                  "black-hole-empty-board-3", "build-up"])
@given(text=NOISY)
@example(text="[1\t]")  # found by a run of this test: a tab inside brackets was taken as a space
def test_any_position_text_is_parsed_or_refused_in_one_line(name, text):
    variant = get_variant(name)
    try:
        position = variant.parse(text)
        variant.layer_of(position)
        variant.id_of(position)
    except UsageError as exc:
        assert one_line(exc)
        return
    assert all(isinstance(c, int) and c >= 0 for c in position)
    assert set(text.strip()) <= set(ASCII_DIGITS + ",()[] ")


@pytest.fixture(scope="module")
def store(small_db):
    with api.open(small_db) as s:
        yield s


PARAMETERS = st.sampled_from([("length-distribution", "measure"), ("length-moments", "measure"),
                              ("black-hole-p-positions", "mod"), ("length-mod", "modulus"), ("omega-b", "n"),
                              ("winning-moves", "position")])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(PARAMETERS, st.one_of(NOISY, st.sampled_from(["P", "mu", "0", "1", "3", "7", "40", "41", "3,1,0,2", "5"])),
       st.sampled_from([None, "zeckendorf", "reversed", "black-hole-3", "quilt"]))
def test_any_query_parameter_is_answered_or_refused_in_one_line(store, query_param, value, variant):
    name, param = query_param
    try:
        result = store.query(name, variant=variant, n=None, params={param: value})
    except (UsageError, NotBuiltError) as exc:
        assert one_line(exc)
        return
    except ZeckdbError as exc:  # any other zeckdb error would be a surprise here
        pytest.fail(f"{type(exc).__name__}: {exc}")
    assert result.columns
