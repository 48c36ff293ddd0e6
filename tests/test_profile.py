import json

import pytest

from pip_variants.profile import InvalidProfile, dumps_profile, load_profile, make_profile, parse_profile


def test_export_format_round_trips(tmp_path):
    prof = make_profile({"nvidia": {"cuda_version_lower_bound": ("12.8", "12.7"), "sm_arch": ("90_real",)}},
                        {"system": "Linux", "machine": "x86_64", "python": "3.12.1"})
    path = tmp_path / "p.json"
    path.write_text(dumps_profile(prof))
    loaded = load_profile(str(path))
    assert list(loaded["nvidia"]) == ["cuda_version_lower_bound", "sm_arch"]
    assert loaded["nvidia"]["cuda_version_lower_bound"] == ("12.8", "12.7")
    assert json.loads(path.read_text())["profile-version"] == 1


def test_providers_entry_toml_shape(tmp_path):
    path = tmp_path / "target.toml"
    path.write_text(
        '[nvidia]\nfeature-order = ["sm_arch", "cuda_version_lower_bound"]\n'
        'static-properties.cuda_version_lower_bound = ["12.8", "12.0"]\n'
        'static-properties.sm_arch = ["90_real", "90_virtual"]\n'
        '[x86_64]\nstatic-properties.level = ["v3", "v2", "v1"]\n'
    )
    loaded = load_profile(str(path))
    assert list(loaded["nvidia"]) == ["sm_arch", "cuda_version_lower_bound"]
    assert loaded["x86_64"] == {"level": ("v3", "v2", "v1")}


@pytest.mark.parametrize("content, words", [
    ("{", "not valid JSON"),
    ('{"profile-version": 9, "namespaces": {}}', "profile-version 9"),
    ('{"profile-version": "1", "namespaces": {}}', "it must be the number 1, not a string"),
    ('{"profile-version": true, "namespaces": {}}', "profile-version True is not supported"),
    ('{"profile-version": 1}', "missing 'namespaces'"),
    ('{"NVIDIA": {}}', "invalid namespace"),
    ('{"nvidia": {"sm_arch": "90_real"}}', "must be a list"),
    ('{"nvidia": {"sm_arch": ["90-real"]}}', "must be a list of values"),
    ('{"x86_64": {"feature-order": 5, "static-properties": {"level": ["v3"]}}}', "x86_64.feature-order must be a list"),
    ('{"x86_64": {"feature-order": "level", "static-properties": {"level": ["v3"]}}}', "feature-order must be a list"),
    ('{"x86_64": {"feature-order": [{"a": 1}], "static-properties": {"level": ["v3"]}}}', "feature-order must be"),
])
def test_bad_profiles_name_the_file(tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InvalidProfile) as exc:
        load_profile(str(path))
    assert str(path) in str(exc.value) and words in str(exc.value)


def test_missing_profile_file(tmp_path):
    with pytest.raises(InvalidProfile, match="cannot be read"):
        load_profile(str(tmp_path / "nope.json"))
    assert parse_profile({}) == {}
