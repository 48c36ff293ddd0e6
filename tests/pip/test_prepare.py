"""H10: ``pip download`` keeps the index file beside the chosen variant wheel."""

from __future__ import annotations

import json

import pytest

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


def _release(labels, sm_arch=("90_real",)):
    from support.wheels import NVIDIA_PROVIDER, variants_json

    all_variants = {
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": list(sm_arch)}},
        "null": {},
    }
    return variants_json("pkg", "1.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
                         variants={label: all_variants[label] for label in labels})


def _save(tmp_path, label, document, *, url_json="u"):
    from pip_variants.metadata import parse_metadata

    url = f"https://files.example/pkg-1.0-py3-none-any-{label}.whl"
    content = json.dumps(document).encode()
    STATE.chosen[url] = ChosenVariant(label, [], url_json, json_bytes=content, name_version=("pkg", "1.0"),
                                      metadata=parse_metadata(document))
    save_variants_json(str(tmp_path), _link(url))
    return json.loads((tmp_path / "pkg-1.0-variants.json").read_text())


def test_a_file_listing_fewer_labels_never_replaces_a_fuller_one(patched, tmp_path):
    # a wheelhouse for several machines, then one local wheel whose own file lists one label
    full = _save(tmp_path, "cu126", _release(["cu126", "cu128", "null"]))
    assert _save(tmp_path, "cu128", _release(["cu128"])) == full


def test_a_fuller_file_replaces_one_listing_fewer_labels(patched, tmp_path):
    _save(tmp_path, "cu128", _release(["cu128"]))
    full = _release(["cu126", "cu128", "null"])
    assert _save(tmp_path, "cu126", full) == full


def test_files_listing_different_labels_are_merged(patched, tmp_path):
    _save(tmp_path, "cu128", _release(["cu128", "null"]))
    merged = _save(tmp_path, "cu126", _release(["cu126", "null"]))
    assert sorted(merged["variants"]) == ["cu126", "cu128", "null"]


def test_files_that_disagree_keep_the_first_with_one_warning(patched, tmp_path, caplog):
    first = _save(tmp_path, "cu128", _release(["cu128"]))
    assert _save(tmp_path, "cu128", _release(["cu128"], sm_arch=("80_real",)), url_json="https://other/j") == first
    assert "kept" in caplog.text and "https://other/j" in caplog.text
    assert "different folders" in caplog.text


def test_files_of_an_older_format_are_not_merged_but_the_first_kept(patched, tmp_path, caplog):
    # 0.1.1 (no providers table) and 0.0.3 (enable-if) do not survive the 0.2.0 writer
    from support.wheels import SCHEMA_0_1_1, variants_json

    def release(labels):
        variants = {"cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
                    "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, "null": {}}
        return variants_json("pkg", "1.0", namespaces=["nvidia"], providers=None, schema=SCHEMA_0_1_1,
                             variants={label: variants[label] for label in labels})

    first = _save(tmp_path, "cu128", release(["cu128", "null"]))
    assert _save(tmp_path, "cu126", release(["cu126", "null"])) == first
    assert "does not list variant cu126" in caplog.text and "different folders" in caplog.text


def test_a_second_pip_saving_into_the_folder_waits_for_the_first(patched, tmp_path):
    # the first writer holds the folder; its file lands while the second waits,
    # and the second merges into it instead of replacing it
    import threading

    from pip_variants._pip import prepare

    pytest.importorskip("fcntl")
    saved = {}
    with prepare._folder_lock(str(tmp_path)):
        second = threading.Thread(target=lambda: saved.update(doc=_save(tmp_path, "cu128", _release(["cu128"]))))
        second.start()
        second.join(0.3)
        assert second.is_alive()  # waiting for the lock
        (tmp_path / "pkg-1.0-variants.json").write_text(json.dumps(_release(["cu126"])))
    second.join(5)
    assert sorted(saved["doc"]["variants"]) == ["cu126", "cu128"]


def test_a_lock_never_released_delays_the_save_but_does_not_stop_it(patched, tmp_path, monkeypatch):
    from pip_variants._pip import prepare

    pytest.importorskip("fcntl")
    monkeypatch.setattr(prepare, "_LOCK_WAIT", 0.1)
    with prepare._folder_lock(str(tmp_path)):
        assert sorted(_save(tmp_path, "cu128", _release(["cu128"]))["variants"]) == ["cu128"]


def test_a_file_system_without_locks_saves_at_once(patched, tmp_path, monkeypatch):
    import errno
    import time

    fcntl = pytest.importorskip("fcntl")
    from pip_variants._pip import prepare

    def refuse(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", refuse)
    started = time.monotonic()
    assert sorted(_save(tmp_path, "cu128", _release(["cu128"]))["variants"]) == ["cu128"]
    assert time.monotonic() - started < prepare._LOCK_WAIT / 2
