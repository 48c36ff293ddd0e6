"""Property-based tests: filename parser, metadata round trip, ordering laws."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pip_variants.filename import InvalidVariantFilename, parse_wheel_filename, split_variant_label
from pip_variants.metadata import InvalidVariantMetadata, load_metadata, parse_metadata
from pip_variants.metadata_write import dumps
from pip_variants.selection import rank_variants

ident = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=6)
value = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.", min_size=1, max_size=5)
label = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.", min_size=1, max_size=20)


@given(label=label, build=st.one_of(st.none(), st.from_regex(r"\A[0-9][a-z0-9_]{0,3}\Z")))
def test_filename_round_trip(label, build):
    parts = ["pkg", "1.0"] + ([build] if build else []) + ["py3", "none", "any", label]
    name = "-".join(parts) + ".whl"
    parsed = parse_wheel_filename(name)
    assert parsed.label == label and parsed.build == build
    assert split_variant_label(name)[0] + "" == "-".join(parts[:-1]) + ".whl"


@given(st.text(max_size=60))
def test_filename_parser_never_crashes(text):
    try:
        parse_wheel_filename(text + ".whl")
    except InvalidVariantFilename:
        pass


feature_values = st.dictionaries(ident, st.lists(value, min_size=1, max_size=3, unique=True), min_size=1, max_size=3)


@st.composite
def release(draw):
    namespaces = draw(st.lists(ident, min_size=1, max_size=3, unique=True))
    providers = {}
    for ns in namespaces:
        statics = draw(feature_values)
        entry = {"static-properties": statics}
        if len(statics) > 1:
            entry["feature-order"] = draw(st.permutations(list(statics)))
        providers[ns] = entry
    variants = {}
    for lab in draw(st.lists(ident.filter(lambda s: s != "null"), max_size=5, unique=True)):
        ns = draw(st.sampled_from(namespaces))
        variants[lab] = {ns: draw(feature_values)}
    if draw(st.booleans()):
        variants["null"] = {}
    return {
        "$schema": "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json",
        "default-priorities": {"namespace": namespaces},
        "providers": providers,
        "variants": variants,
    }


@settings(max_examples=150, deadline=None)
@given(release())
def test_metadata_round_trip(doc):
    md = parse_metadata(doc, "x")
    again = load_metadata(dumps(md), "x")
    assert again.variants == md.variants
    assert again.providers == md.providers
    assert again.namespaces == md.namespaces


@st.composite
def machine(draw, md):
    supported = {}
    for ns in md.namespaces:
        if draw(st.booleans()):
            feats = {}
            for props in md.variants.values():
                for f, vals in props.get(ns, {}).items():
                    pool = list(vals) + ["zz"]
                    feats[f] = tuple(draw(st.lists(st.sampled_from(pool), unique=True, max_size=3)))
            supported[ns] = feats
    return supported


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_ordering_laws(data):
    doc = data.draw(release())
    md = parse_metadata(doc, "x")
    sup = data.draw(machine(md))
    labels = list(md.variants)
    r1 = rank_variants(md, sup)
    r2 = rank_variants(md, sup, labels=list(reversed(labels)))
    # a deterministic total order, independent of input order
    assert r1.order == r2.order
    assert set(r1.order) | set(r1.rejected) == set(labels)
    assert not set(r1.order) & set(r1.rejected)
    # null is always compatible and comes after every other compatible variant
    if "null" in labels:
        assert r1.order[-1] == "null"
    # everything kept is really compatible: each feature shares a value with the machine
    for lab in r1.order:
        for ns, feats in md.variants[lab].items():
            for f, vals in feats.items():
                assert set(vals) & set(sup[ns][f])


@given(st.binary(max_size=200))
def test_reader_never_crashes_on_bytes(blob):
    try:
        load_metadata(blob, "fuzz")
    except InvalidVariantMetadata:
        pass


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
                    max_leaves=20))
def test_reader_never_crashes_on_json(obj):
    try:
        load_metadata(json.dumps(obj), "fuzz")
    except InvalidVariantMetadata:
        pass


def _reference_rank(md, sup, prefs=None):
    """The ranking spelled out with :func:`orders_for` and list positions."""
    from pip_variants.selection import Preferences, find_incompatibility, orders_for

    namespaces, features, values = orders_for(md, sup, prefs or Preferences())
    keyed = []
    for lab, props in md.variants.items():
        if find_incompatibility(lab, props, sup) is not None:
            continue
        keys = sorted(
            (namespaces.index(ns), features[ns].index(f),
             min(values[ns][f].index(v) for v in vals if v in sup[ns][f]))
            for ns, feats in props.items() for f, vals in feats.items()
        )
        keyed.append((tuple(keys), lab))
    return [lab for _, lab in sorted(keyed, key=lambda k: (k[0] + ((float("inf"),) * 3,), k[1]))]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_ranking_matches_the_orders_it_is_defined_by(data):
    from pip_variants.selection import Preferences

    md = parse_metadata(data.draw(release()), "x")
    sup = data.draw(machine(md))
    prefs = Preferences(
        namespaces=tuple(reversed(md.namespaces)),
        features={ns: tuple(reversed(list(feats))) for ns, feats in sup.items()},
        properties={ns: {f: tuple(reversed(vals)) for f, vals in feats.items()}
                    for ns, feats in sup.items()},
    )
    for p in (Preferences(), prefs):
        assert list(rank_variants(md, sup, prefs=p).order) == _reference_rank(md, sup, p)
