"""The persistent provider cache."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from pathlib import Path
from typing import Dict, List

import pytest

import pip_variants
from pip_variants.providers import cache
from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.cache import (
    cache_dir,
    cache_file,
    cache_key,
    cached_supported_configs,
    clear_cache,
)

CONFIGS = [FeatureConfig("level", ("v3", "v2", "v1")), FeatureConfig("sm", ("90_real",), True)]


class FakeProvider:
    namespace = "fake"
    packages = ("fake-provider",)
    plugin_apis = ("fake_provider",)

    def __init__(self, inputs: Dict[str, str] = None, configs: List[FeatureConfig] = None, error: bool = False):
        self.inputs = {"driver": "1"} if inputs is None else inputs
        self.configs = CONFIGS if configs is None else configs
        self.error = error
        self.calls = 0

    def supported_configs(self) -> List[FeatureConfig]:
        self.calls += 1
        if self.error:
            raise ProviderError(self.namespace, "detection failed")
        return list(self.configs)

    def cache_inputs(self) -> Dict[str, str]:
        return dict(self.inputs)


class OtherFakeProvider(FakeProvider):
    pass


@pytest.fixture
def where(tmp_path) -> Path:
    return tmp_path / "cache"


def test_miss_then_hit(where) -> None:
    provider = FakeProvider()
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert provider.calls == 1
    data = json.loads(cache_file("fake", where).read_text())
    assert data["key"] == cache_key(provider) and len(data["key"]) == 64
    assert data["configs"][1] == {"name": "sm", "values": ["90_real"], "multi_value": True}


def test_hit_survives_new_process_objects(where) -> None:
    cached_supported_configs(FakeProvider(), cache_dir=where)
    fresh = FakeProvider()
    assert cached_supported_configs(fresh, cache_dir=where) == CONFIGS
    assert fresh.calls == 0


def test_inputs_change_invalidates(where) -> None:
    provider = FakeProvider()
    cached_supported_configs(provider, cache_dir=where)
    provider.inputs = {"driver": "2"}
    provider.configs = [FeatureConfig("level", ("v1",))]
    assert cached_supported_configs(provider, cache_dir=where) == provider.configs
    assert provider.calls == 2
    assert cached_supported_configs(provider, cache_dir=where) == provider.configs
    assert provider.calls == 2


def test_version_change_invalidates(where, monkeypatch) -> None:
    provider = FakeProvider()
    cached_supported_configs(provider, cache_dir=where)
    monkeypatch.setattr(pip_variants, "__version__", "999.0")
    cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 2


def test_provider_class_is_part_of_key(where) -> None:
    cached_supported_configs(FakeProvider(), cache_dir=where)
    other = OtherFakeProvider()
    cached_supported_configs(other, cache_dir=where)
    assert other.calls == 1


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{",
        b"\xff\xfe garbage",
        b"[]",
        b"null",
        b'{"key": 1}',
        b'{"key": "KEY", "namespace": "fake", "configs": {}}',
        b'{"key": "KEY", "namespace": "fake", "configs": [{"name": 1, "values": []}]}',
        b'{"key": "KEY", "namespace": "fake", "configs": [{"name": "a", "values": [1]}]}',
        b'{"key": "KEY", "namespace": "fake", "configs": [{"name": "a", "values": "v1"}]}',
        b'{"key": "KEY", "namespace": "fake", "configs": [{"name": "a", "values": ["v"], "multi_value": "yes"}]}',
        b'{"key": "KEY", "namespace": "other", "configs": []}',
        b'{"key": "KEY", "namespace": "fake", "configs": [{"name": "a", "values": ["v"]}',
        b"[" * 100_000 + b"]" * 100_000,  # RecursionError in the JSON reader
        b'{"key": "KEY", "pad": "' + b"x" * (2 << 20) + b'"}',  # bigger than any entry ever written
    ],
)
def test_corrupt_file_recomputes_and_repairs(where, content) -> None:
    provider = FakeProvider()
    path = cache_file("fake", where)
    path.parent.mkdir(parents=True)
    path.write_bytes(content.replace(b"KEY", cache_key(provider).encode()))
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert provider.calls == 1
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert provider.calls == 1  # the file was rewritten


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cache_file_is_a_fifo(where) -> None:
    """Opening a FIFO for reading waits for a writer: the entry must not be read."""
    provider = FakeProvider()
    path = cache_file("fake", where)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert provider.calls == 1  # replaced by a regular entry


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_an_entry_that_is_not_a_file_leaks_no_descriptor(where) -> None:
    path = cache_file("fake", where)
    path.mkdir(parents=True)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        assert cache._load(path, "KEY", "fake") is None
    assert len(os.listdir("/proc/self/fd")) == before


def test_cache_file_is_a_directory(where) -> None:
    provider = FakeProvider()
    cache_file("fake", where).mkdir(parents=True)
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert provider.calls == 2


def test_cache_dir_is_a_file(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    provider = FakeProvider()
    assert cached_supported_configs(provider, cache_dir=blocker) == CONFIGS
    assert cached_supported_configs(provider, cache_dir=blocker / "deeper") == CONFIGS


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root ignores permissions")
def test_read_only_directory(where) -> None:
    where.mkdir()
    where.chmod(0o500)
    try:
        provider = FakeProvider()
        assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
        assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
        assert provider.calls == 2
    finally:
        where.chmod(0o700)


def test_failed_replace_leaves_no_temp_file(where, mocker) -> None:
    # Simulates a read-only file system, or a Windows sharing violation.
    mocker.patch.object(cache.os, "replace", side_effect=PermissionError("read-only"))
    provider = FakeProvider()
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert list(cache_file("fake", where).parent.iterdir()) == []


def test_failed_mkdir_is_silent(where, mocker) -> None:
    mocker.patch("tempfile.mkstemp", side_effect=OSError(30, "Read-only file system"))
    assert cached_supported_configs(FakeProvider(), cache_dir=where) == CONFIGS


def test_unreadable_file_is_silent(where, mocker) -> None:
    provider = FakeProvider()
    cached_supported_configs(provider, cache_dir=where)
    real_open = os.open

    def deny(path, *args, **kwargs):
        if str(path).endswith("fake.json"):
            raise PermissionError(13, "denied")
        return real_open(path, *args, **kwargs)

    mocker.patch("os.open", side_effect=deny)
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert provider.calls == 2


def test_provider_error_not_cached(where) -> None:
    provider = FakeProvider(error=True)
    for _ in range(2):
        with pytest.raises(ProviderError):
            cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 2
    assert not cache_file("fake", where).exists()
    provider.error = False
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS


def test_error_does_not_clobber_good_entry(where) -> None:
    provider = FakeProvider()
    cached_supported_configs(provider, cache_dir=where)
    provider.inputs = {"driver": "bad"}
    provider.error = True
    with pytest.raises(ProviderError):
        cached_supported_configs(provider, cache_dir=where)
    provider.inputs = {"driver": "1"}
    provider.error = False
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS
    assert provider.calls == 2


def test_empty_result_is_cached(where) -> None:
    provider = FakeProvider(configs=[])
    assert cached_supported_configs(provider, cache_dir=where) == []
    assert cached_supported_configs(provider, cache_dir=where) == []
    assert provider.calls == 1


@pytest.mark.parametrize("value", ["1", "true", "YES"])
def test_no_cache_env(where, monkeypatch, value) -> None:
    monkeypatch.setenv("PIP_VARIANTS_NO_CACHE", value)
    provider = FakeProvider()
    cached_supported_configs(provider, cache_dir=where)
    cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 2
    assert not cache_file("fake", where).exists()


def test_no_cache_env_zero_keeps_cache(where, monkeypatch) -> None:
    monkeypatch.setenv("PIP_VARIANTS_NO_CACHE", "0")
    provider = FakeProvider()
    cached_supported_configs(provider, cache_dir=where)
    cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 1


def test_use_cache_false(where) -> None:
    provider = FakeProvider()
    cached_supported_configs(provider, cache_dir=where, use_cache=False)
    cached_supported_configs(provider, cache_dir=where, use_cache=False)
    assert provider.calls == 2
    assert not cache_file("fake", where).exists()


def test_empty_inputs_disable_caching(where) -> None:
    provider = FakeProvider(inputs={})
    cached_supported_configs(provider, cache_dir=where)
    cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 2
    assert cache_key(provider) is None


def test_failing_cache_inputs(where, mocker) -> None:
    provider = FakeProvider()
    mocker.patch.object(provider, "cache_inputs", side_effect=RuntimeError("probe failed"))
    assert cached_supported_configs(provider, cache_dir=where) == CONFIGS


def test_default_dir_from_env(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PIP_VARIANTS_CACHE_DIR", str(tmp_path / "env"))
    provider = FakeProvider()
    cached_supported_configs(provider)
    assert (tmp_path / "env" / "providers" / "fake.json").is_file()
    assert cache_dir() == tmp_path / "env"


def test_cache_dir_linux(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("PIP_VARIANTS_CACHE_DIR")
    monkeypatch.setattr(cache.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "pip-variants"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "pip-variants"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == tmp_path / ".cache" / "pip-variants"


def test_cache_dir_macos(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("PIP_VARIANTS_CACHE_DIR")
    from pip_variants.providers import _host

    monkeypatch.setattr(_host.sys, "platform", "darwin")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "Library" / "Caches" / "pip-variants"


def test_cache_dir_windows(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("PIP_VARIANTS_CACHE_DIR")
    monkeypatch.setattr(cache.sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert cache_dir() == tmp_path / "Local" / "pip-variants" / "Cache"


def test_clear_cache(where) -> None:
    cached_supported_configs(FakeProvider(), cache_dir=where)
    cached_supported_configs(OtherFakeProvider(inputs={"x": "y"}), cache_dir=where)
    assert clear_cache(where) == 1  # both share the namespace "fake"
    assert clear_cache(where) == 0
    assert clear_cache(where / "missing") == 0


def test_host_fingerprint_is_strings() -> None:
    fp = cache.host_fingerprint()
    assert set(fp) == {"platform", "host", "boot_id"}
    assert all(isinstance(v, str) for v in fp.values())


def test_a_reboot_changes_the_fingerprint_off_linux_too(monkeypatch) -> None:
    """The CPU-derived answers (x86_64 level, aarch64 version) hold until a reboot:
    macOS names each boot session; without one the answer would be kept for ever."""
    from pip_variants.providers import _darwin

    from pip_variants.providers import _host

    monkeypatch.setattr(_host.sys, "platform", "darwin")
    monkeypatch.setattr(_darwin, "sysctl_str", lambda name: {"kern.bootsessionuuid": "B-1"}.get(name))
    first = cache.host_fingerprint()
    monkeypatch.setattr(_darwin, "sysctl_str", lambda name: {"kern.bootsessionuuid": "B-2"}.get(name))
    assert first["boot_id"] == "B-1" and cache.host_fingerprint() != first


# ---------------------------------------------------------------- concurrency

_BIG = 400  # values per config: makes torn writes likely if writes were not atomic


def _writer(args) -> int:
    where, worker, rounds = args
    bad = 0
    path = cache_file("fake", where)
    for i in range(rounds):
        configs = [FeatureConfig("f", tuple(f"w{worker}_{i}_{j}" for j in range(_BIG)))]
        provider = FakeProvider(inputs={"worker": str(worker), "round": str(i)}, configs=configs)
        if cached_supported_configs(provider, cache_dir=where) != configs:
            bad += 1
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        try:
            data = json.loads(raw)
            if len(data["configs"][0]["values"]) != _BIG:
                bad += 1
        except (ValueError, KeyError, IndexError, TypeError):
            bad += 1  # a half-written file was visible
    return bad


def test_concurrent_writers(where) -> None:
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    workers, rounds = 6, 60
    with ctx.Pool(workers) as pool:
        bad = pool.map(_writer, [(where, w, rounds) for w in range(workers)])
    assert sum(bad) == 0
    leftovers = [p.name for p in cache_file("fake", where).parent.iterdir() if p.name != "fake.json"]
    assert leftovers == []
    data = json.loads(cache_file("fake", where).read_text())
    assert len(data["configs"][0]["values"]) == _BIG


def test_unsafe_namespace_not_cached(where) -> None:
    provider = FakeProvider()
    provider.namespace = "../escape"
    cached_supported_configs(provider, cache_dir=where)
    cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 2
    assert not where.exists()


@pytest.mark.parametrize("namespace", ["", "Fake", "fa-ke", "fa.ke", "fake\n", "fake/x"])
def test_namespaces_outside_the_property_grammar_are_not_cached(where, namespace) -> None:
    provider = FakeProvider()
    provider.namespace = namespace
    cached_supported_configs(provider, cache_dir=where)
    cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 2 and not where.exists()


def test_the_property_grammar_decides_what_is_cached(where) -> None:
    from pip_variants.properties import NAMESPACE_RE

    provider = FakeProvider()
    provider.namespace = "fake_2"
    assert NAMESPACE_RE.fullmatch(provider.namespace)
    cached_supported_configs(provider, cache_dir=where)
    cached_supported_configs(provider, cache_dir=where)
    assert provider.calls == 1 and cache_file("fake_2", where).exists()
