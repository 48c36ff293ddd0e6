"""H10: ``pip download`` keeps the index file beside the chosen variant wheel."""

from __future__ import annotations

import json

from pip_variants._pip.prepare import save_variants_json
from pip_variants._pip.state import STATE, ChosenVariant


def _link(url):
    from pip._internal.models.link import Link

    return Link(url)


def test_writes_the_fetched_bytes(patched, tmp_path):
    url = "https://files.example/my_pkg-1.0-py3-none-any-fv3.whl"
    STATE.chosen[url] = ChosenVariant("fv3", [], "u", json_bytes=b'{"x": 1}', name_version=("my_pkg", "1.0"))
    save_variants_json(str(tmp_path), _link(url))
    assert (tmp_path / "my_pkg-1.0-variants.json").read_bytes() == b'{"x": 1}'


def test_writes_regenerated_metadata(patched, tmp_path):
    url = "file:///w/pkg-1.0-py3-none-any-fv3.whl"
    STATE.chosen[url] = ChosenVariant("fv3", [], None, json_text='{"y": 2}\n', name_version=("pkg", "1.0"))
    save_variants_json(str(tmp_path), _link(url))
    assert json.loads((tmp_path / "pkg-1.0-variants.json").read_text()) == {"y": 2}


def test_plain_wheels_write_nothing(patched, tmp_path):
    save_variants_json(str(tmp_path), _link("https://files.example/pkg-1.0-py3-none-any.whl"))
    assert list(tmp_path.iterdir()) == []


def test_a_path_in_the_way_is_one_warning(patched, tmp_path, caplog):
    url = "https://files.example/my_pkg-1.0-py3-none-any-fv3.whl"
    STATE.chosen[url] = ChosenVariant("fv3", [], "u", json_bytes=b'{"x": 1}', name_version=("my_pkg", "1.0"))
    (tmp_path / "my_pkg-1.0-variants.json").mkdir()
    save_variants_json(str(tmp_path), _link(url))  # no exception
    text = caplog.text
    assert f"could not save {tmp_path / 'my_pkg-1.0-variants.json'}" in text, text
    assert "remove what is in the way" in text
