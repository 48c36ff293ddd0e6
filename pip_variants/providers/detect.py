"""Run the built-in providers (through the persistent cache).

>>> from pip_variants.providers.detect import detect
>>> detect(["x86_64"])  # doctest: +SKIP
{'x86_64': [FeatureConfig(name='level', values=('v3', 'v2', 'v1'), multi_value=False)]}
"""

from __future__ import annotations

import logging
from typing import Dict, Iterable, List, Optional, Union

from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.builtin import BUILTIN_PROVIDERS, get_builtin
from pip_variants.providers.cache import cached_supported_configs

__all__ = ["detect", "DetectionResult"]

logger = logging.getLogger(__name__)

DetectionResult = Dict[str, Union[List[FeatureConfig], ProviderError]]


def detect(
    namespaces: Optional[Iterable[str]] = None,
    *,
    use_cache: bool = True,
) -> DetectionResult:
    """Supported configs of the built-in providers, keyed by namespace.

    ``namespaces``: which built-ins to run (all when None); names without a
    built-in are left out of the result. A failing provider maps to its
    :class:`ProviderError` instead of raising, so one broken namespace never
    hides the others; callers treat it as unsupported and warn.
    """
    wanted = list(BUILTIN_PROVIDERS) if namespaces is None else list(dict.fromkeys(namespaces))
    out: DetectionResult = {}
    for namespace in wanted:
        provider = get_builtin(namespace)
        if provider is None:
            continue
        try:
            out[namespace] = cached_supported_configs(provider, use_cache=use_cache)
        except ProviderError as exc:
            out[namespace] = exc
        except Exception as exc:  # a bug in detection must not crash pip
            logger.debug("provider %s crashed", namespace, exc_info=True)
            # worded as support.SupportResolver words it for a pip run
            out[namespace] = ProviderError(f"builtin:{namespace}", f"{type(exc).__name__}: {exc}")
    return out
