"""H9: the ``variant`` entry of ``--report`` items."""

from __future__ import annotations

from types import SimpleNamespace

from pip_variants._pip.report import variant_entry
from pip_variants._pip.state import STATE, ChosenVariant


def _ireq(url):
    from pip._internal.models.link import Link

    return SimpleNamespace(link=Link(url), original_link=None)


def test_entry_for_a_chosen_variant(patched):
    url = "https://files.example/pkg-1.0-py3-none-any-cu129.whl"
    STATE.labels = True
    STATE.chosen[url] = ChosenVariant(
        "cu129", ["nvidia :: cuda_version_lower_bound :: 12.9"], "https://files.example/pkg-1.0-variants.json"
    )
    assert variant_entry(_ireq(url + "#sha256=00")) == {
        "label": "cu129",
        "properties": ["nvidia :: cuda_version_lower_bound :: 12.9"],
        "variants_json_url": "https://files.example/pkg-1.0-variants.json",
    }


def test_no_entry_for_plain_wheels(patched):
    assert variant_entry(_ireq("https://files.example/pkg-1.0-py3-none-any.whl")) is None
    assert variant_entry(_ireq("https://files.example/pkg-1.0.tar.gz")) is None


class _Info:
    def to_dict(self):
        return {"url": "u"}

    to_dict_compat = to_dict


def _full_ireq(url):
    from pip._internal.models.link import Link

    dist = SimpleNamespace(metadata_dict={"name": "pkg"})
    return SimpleNamespace(
        link=Link(url), original_link=None, download_info=_Info(), is_direct=False,
        user_supplied=True, extras=(), get_dist=lambda: dist,
    )


def test_report_method_adds_the_key(patched):
    from pip._internal.models.installation_report import InstallationReport

    url = "https://files.example/pkg-1.0-py3-none-any-fv3.whl"
    STATE.labels = True
    STATE.chosen[url] = ChosenVariant("fv3", ["fake :: level :: v3"], None)
    res = InstallationReport._install_req_to_dict(_full_ireq(url))
    assert res["variant"] == {"label": "fv3", "properties": ["fake :: level :: v3"], "variants_json_url": None}
    assert res["metadata"] == {"name": "pkg"}


def test_report_method_is_stock_for_plain_wheels(patched):
    from pip._internal.models.installation_report import InstallationReport

    STATE.labels = True
    res = InstallationReport._install_req_to_dict(_full_ireq("https://files.example/pkg-1.0-py3-none-any.whl"))
    assert "variant" not in res
