"""providers/_host.py: the host facts the CPU providers share."""

from __future__ import annotations

import os
import platform

import pytest

from pip_variants.providers import _host, aarch64, x86_64


def test_current_machine_is_platform_machine() -> None:
    assert _host.current_machine() == platform.machine()


def test_current_machine_without_uname(monkeypatch) -> None:
    monkeypatch.delattr(os, "uname", raising=False)
    monkeypatch.setattr(platform, "machine", lambda: "ARM64")
    assert _host.current_machine() == "ARM64"


def test_cpu_providers_share_current_machine() -> None:
    assert x86_64.current_machine is _host.current_machine
    assert aarch64.current_machine is _host.current_machine


@pytest.mark.parametrize("machine", [None, "riscv64"])
def test_cpu_cache_inputs(monkeypatch, machine) -> None:
    monkeypatch.setenv("SOME_OVERRIDE", "v9")
    inputs = _host.cpu_cache_inputs(machine, "/x/cpuinfo", "SOME_OVERRIDE")
    assert inputs == {
        "platform": inputs["platform"], "host": inputs["host"], "boot_id": inputs["boot_id"],
        "machine": machine or platform.machine(), "proc_cpuinfo": "/x/cpuinfo", "SOME_OVERRIDE": "v9",
    }
    monkeypatch.delenv("SOME_OVERRIDE")
    assert _host.cpu_cache_inputs(machine, "/x/cpuinfo", "SOME_OVERRIDE")["SOME_OVERRIDE"] == ""


@pytest.mark.parametrize(
    "cls, env", [(x86_64.X8664Provider, x86_64.OVERRIDE_ENV), (aarch64.AArch64Provider, aarch64.OVERRIDE_ENV)]
)
def test_cpu_providers_cache_inputs(monkeypatch, cls, env) -> None:
    from pip_variants.providers._host import host_fingerprint

    monkeypatch.setenv(env, "x")
    assert cls(proc_cpuinfo="/p", machine="m").cache_inputs() == {
        **host_fingerprint(), "machine": "m", "proc_cpuinfo": "/p", env: "x",
    }
