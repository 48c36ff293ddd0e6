"""``Charset``: the grammar checks that replaced compiled ``^[...]+$`` patterns."""

import re

import pytest

from pip_variants._charset import HEX_DIGITS, LOWER_DIGITS_UNDERSCORE, Charset
from pip_variants.filename import LABEL_RE
from pip_variants.properties import FEATURE_RE, NAMESPACE_RE, VALUE_RE

SAMPLES = [
    "", "a", "nvidia", "sm_arch", "90_real", "x86_64", "12.8", "cu128", "v3.1", "_", ".",
    "Nvidia", "sm-arch", "a b", "a:b", "é", "ａ", "12\u0660", "a\tb", " a", "a ", "a/b", "0" * 200,
]


@pytest.mark.parametrize(
    "charset, regex",
    [
        (NAMESPACE_RE, r"^[a-z0-9_]+$"),
        (FEATURE_RE, r"^[a-z0-9_]+$"),
        (VALUE_RE, r"^[a-z0-9_.]+$"),
        (LABEL_RE, r"^[0-9a-z_.]+$"),
        (Charset(HEX_DIGITS, r"^[0-9a-f]+$"), r"^[0-9a-f]+$"),
    ],
)
def test_same_answers_as_the_pattern_it_names(charset, regex):
    assert charset.pattern == regex
    for text in SAMPLES:
        assert charset.match(text) == bool(re.fullmatch(regex, text)), text
        assert charset.fullmatch(text) == charset.match(text)


def test_trailing_newline_is_refused_where_dollar_let_it_through():
    assert re.match(r"^[a-z0-9_]+$", "nvidia\n")
    assert not NAMESPACE_RE.match("nvidia\n")


@pytest.mark.parametrize("value", [None, 1, b"nvidia", ["nvidia"]])
def test_non_strings_never_match(value):
    assert not Charset(LOWER_DIGITS_UNDERSCORE, "x").match(value)


def test_repr_names_the_rule():
    assert repr(VALUE_RE) == "Charset('^[a-z0-9_.]+$')"
