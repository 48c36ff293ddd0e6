"""The start-up hook: kill switch, idempotence, import cost, version gate."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pip_variants._bootstrap import kill_switch_set

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, False),
        ("", False),
        ("   ", True),  # pip does not strip: it would reject these; fail safe to stock pip
        (" 0", True),
        ("no ", True),
        ("0\n", True),
        ("0", False),
        ("no", False),
        ("N", False),
        ("False", False),
        ("off", False),
        ("f", False),
        ("1", True),
        ("yes", True),
        ("TRUE", True),
        ("on", True),
        ("y", True),
        ("maybe", True),  # pip would reject it; fail safe to stock pip
    ],
)
def test_kill_switch_reads_values_like_pip(value, expected):
    env = {} if value is None else {"PIP_NO_VARIANTS": value}
    assert kill_switch_set(env) is expected


def _run(code: str, env: dict, *args: str, cwd=None) -> subprocess.CompletedProcess:
    # cwd: ``-c`` puts the working directory on sys.path
    return subprocess.run(
        [sys.executable, *args, "-c", textwrap.dedent(code)],
        env=env, capture_output=True, text=True, timeout=120, cwd=cwd or "/",
    )


COUNT_FINDERS = """
    import sys
    import pip_variants._bootstrap as b
    print(sum(1 for f in sys.meta_path if getattr(f, "_pip_variants_finder", False)))
"""


@pytest.mark.parametrize("value, finders", [(None, "1"), ("0", "1"), ("1", "0"), ("yes", "0"), ("", "1")])
def test_kill_switch_in_a_fresh_process(subprocess_env, value, finders):
    if value is not None:
        subprocess_env["PIP_NO_VARIANTS"] = value
    proc = _run(COUNT_FINDERS, subprocess_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == finders
    assert proc.stderr == ""


def test_kill_switch_leaves_pip_untouched(subprocess_env):
    subprocess_env["PIP_NO_VARIANTS"] = "1"
    proc = _run(
        """
        import pip_variants._bootstrap
        from pip._internal.models.wheel import Wheel
        from pip._internal.commands import create_command
        print(hasattr(Wheel.__init__, "__pip_variants_wraps__"))
        print(create_command("install").parser.has_option("--variant"))
        """,
        subprocess_env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]


def test_install_is_idempotent(subprocess_env):
    proc = _run(
        """
        import importlib, sys
        import pip_variants._bootstrap as b
        b.install(); b.install()
        importlib.reload(b)  # what a second .pth run (virtual build env) amounts to
        b.install()
        print(sum(1 for f in sys.meta_path if getattr(f, "_pip_variants_finder", False)))
        """,
        subprocess_env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "1"


def test_watched_import_is_patched_through_the_proxy_loader(subprocess_env):
    proc = _run(
        """
        import pip_variants._bootstrap
        from pip._internal.models.wheel import Wheel
        from pip._internal.index.package_finder import CandidateEvaluator
        import pip._internal.models.wheel as m
        print(hasattr(Wheel.__init__, "__pip_variants_wraps__"))
        print(hasattr(CandidateEvaluator._sort_key, "__pip_variants_wraps__"))
        print(type(m.__spec__.loader).__name__)
        print(m.__spec__.loader.get_source("pip._internal.models.wheel") is not None)
        """,
        subprocess_env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "_ProxyLoader", "True"]


def test_modules_imported_before_the_hook_are_patched_at_once(subprocess_env):
    proc = _run(
        """
        from pip._internal.models.wheel import Wheel
        import pip_variants._bootstrap
        print(hasattr(Wheel.__init__, "__pip_variants_wraps__"))
        """,
        subprocess_env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def test_bootstrap_imports_almost_nothing(subprocess_env):
    proc = _run(
        """
        import sys, os  # a normal start-up (site.py) has loaded os already
        before = set(sys.modules)
        import pip_variants._bootstrap
        print(sorted(set(sys.modules) - before))
        """,
        subprocess_env, "-S",  # -S: an installed pip-variants must not pre-load it
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['pip_variants', 'pip_variants._bootstrap']"


def _site_with_shim(tmp_path: Path, names=("pip_variants.pth", "_pip_variants_shim.py")) -> Path:
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    for name in names:
        (site_dir / name).write_text((REPO / "sitecustomize_shim" / name).read_text())
    return site_dir


def _with_real_pip(env: dict) -> dict:
    """``-S`` children: the repository, then the directory this pip lives in (its ``.pth`` files unread)."""
    import pip

    env["PYTHONPATH"] = f"{REPO}{os.pathsep}{Path(pip.__file__).resolve().parents[1]}"
    return env


STARTUP_STATE = (
    "print(sum(1 for f in sys.meta_path if getattr(f, '_pip_variants_finder', False)), "
    "'_pip_variants_pth' in sys.modules, 'pip_variants' in sys.modules, "
    "'_pip_variants_shim' in sys.modules)"
)


def test_pth_line_is_silent_without_the_package(tmp_path, subprocess_env):
    line = (REPO / "sitecustomize_shim" / "pip_variants.pth").read_text()
    assert line.startswith("import ")
    site_dir = _site_with_shim(tmp_path, names=("pip_variants.pth",))
    _fake_pip(tmp_path / "fakepip", "26.3")
    subprocess_env["PYTHONPATH"] = str(tmp_path / "fakepip")  # pip_variants is not importable
    proc = _run(
        f"import site, sys; site.addsitedir({str(site_dir)!r}); {STARTUP_STATE}; "
        f"import pip._internal; {STARTUP_STATE}",
        subprocess_env, "-S",
    )
    assert proc.returncode == 0, proc.stderr
    # asleep until pip's internals are imported; then it steps aside without a word
    assert proc.stdout.split("\n")[:2] == ["1 True False False", "0 True False False"]
    assert proc.stderr == ""


def test_pth_line_activates_with_the_package(tmp_path, subprocess_env):
    site_dir = _site_with_shim(tmp_path, names=("pip_variants.pth",))
    proc = _run(
        f"import site, sys; site.addsitedir({str(site_dir)!r}); site.addsitedir({str(site_dir)!r}); "
        f"{STARTUP_STATE}; print(type(sys.meta_path[0]).__name__)",
        subprocess_env, "-S",
    )
    assert proc.returncode == 0, proc.stderr
    # one finder however often site.py runs the line; nothing imported through sys.path
    assert proc.stdout.split() == ["1", "True", "False", "False", "module"]
    assert proc.stderr == ""


def test_pth_line_keeps_no_reference_to_site_globals(tmp_path, subprocess_env):
    # A finder whose globals are site.py's keeps them alive to the end: on 3.10 and
    # 3.11 that costs every process ~1% of its start-up again at exit.
    site_dir = _site_with_shim(tmp_path, names=("pip_variants.pth",))
    proc = _run(
        f"import site, sys; site.addsitedir({str(site_dir)!r}); "
        "g = sys.modules['_pip_variants_pth'].find_spec.__globals__; "
        "print(g is site.__dict__, sorted(k for k in g if k != '__builtins__'))",
        subprocess_env, "-S",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[0] == "False ['m', 'sys']"


def test_pth_line_hands_over_to_the_bootstrap_at_the_first_pip_import(tmp_path, subprocess_env):
    _with_real_pip(subprocess_env)
    site_dir = _site_with_shim(tmp_path, names=("pip_variants.pth",))
    proc = _run(
        f"""
        import site, sys
        site.addsitedir({str(site_dir)!r})
        from pip._internal.models.wheel import Wheel
        import pip_variants._bootstrap as b
        print([getattr(f, "__name__", type(f).__name__) for f in sys.meta_path
               if getattr(f, "_pip_variants_finder", False)])
        print(hasattr(Wheel.__init__, "__pip_variants_wraps__"))
        site.addsitedir({str(site_dir)!r})  # the line again: it does not come back
        print(sys.meta_path[0] is b._FINDER)
        """,
        subprocess_env, "-S",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["['_Finder']", "True", "True"]


@pytest.mark.parametrize("value, patched", [("1", "False"), ("0", "True")])
def test_pth_line_honours_the_kill_switch(tmp_path, subprocess_env, value, patched):
    _with_real_pip(subprocess_env)
    site_dir = _site_with_shim(tmp_path, names=("pip_variants.pth",))
    subprocess_env["PIP_NO_VARIANTS"] = value
    proc = _run(
        f"""
        import site, sys
        site.addsitedir({str(site_dir)!r})
        from pip._internal.models.wheel import Wheel
        print(hasattr(Wheel.__init__, "__pip_variants_wraps__"))
        print(sum(1 for f in sys.meta_path if getattr(f, "_pip_variants_finder", False)))
        """,
        subprocess_env, "-S",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [patched, "0" if value == "1" else "1"]
    assert proc.stderr == ""


def test_shim_module_is_silent_without_the_package(tmp_path, subprocess_env):
    """The module ``pip_variants.start`` names (Python 3.15+)."""
    site_dir = _site_with_shim(tmp_path)
    subprocess_env.pop("PYTHONPATH")
    proc = _run(
        f"import site, sys; site.addsitedir({str(site_dir)!r}); "
        "import _pip_variants_shim as s; "
        "print('pip_variants' in sys.modules, s.find_spec('pip._internal.models.wheel'))",
        subprocess_env, "-S",
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == "False None"
    assert proc.stderr == ""


def test_start_file_names_the_install_function(monkeypatch):
    import importlib.util

    monkeypatch.setenv("PIP_NO_VARIANTS", "1")  # load it without hooking this process
    text = (REPO / "sitecustomize_shim" / "pip_variants.start").read_text().strip()
    module, _, func = text.partition(":")
    assert module == "_pip_variants_shim"
    spec = importlib.util.spec_from_file_location(module, REPO / "sitecustomize_shim" / f"{module}.py")
    shim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shim)
    assert callable(getattr(shim, func))


RECORD_PATCHES = """
    import sys, types
    import pip_variants
    calls = []
    fake = types.ModuleType("pip_variants._pip")
    fake.patch_module = lambda module: calls.append(module.__name__)
    sys.modules["pip_variants._pip"] = pip_variants._pip = fake
    import pip_variants._bootstrap
"""


def _fake_pip(root: Path, version: str) -> None:
    pkg = root / "pip"
    (pkg / "_internal" / "models").mkdir(parents=True)
    (pkg / "__init__.py").write_text(f"__version__ = {version!r}\n")
    (pkg / "_internal" / "__init__.py").write_text("")
    (pkg / "_internal" / "models" / "__init__.py").write_text("")
    (pkg / "_internal" / "models" / "wheel.py").write_text("class Wheel:\n    pass\n")


@pytest.mark.parametrize("version", ["23.1.2", "22.3"])
def test_version_gate_below_the_tested_range(tmp_path, subprocess_env, version):
    _fake_pip(tmp_path, version)
    subprocess_env["PYTHONPATH"] = f"{tmp_path}:{REPO}"
    proc = _run(
        RECORD_PATCHES + """
    import pip._internal.models.wheel
    import pip._internal.models.wheel
    print(calls)
    """,
        subprocess_env, "-S",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    assert proc.stderr.strip() == (
        f"WARNING: pip-variants: pip {version} is not supported (tested 23.2\u201326.3); "
        "variant wheels are ignored"
    )


# Newer releases pass the gate: pip_variants._pip checks each hook point's shape
# before patching (tests/pip/test_shape.py, tests/e2e/test_newer_pip_e2e.py).
@pytest.mark.parametrize("version", ["23.2", "26.3.1", "26.4.dev0", "27.0"])
def test_version_gate_inside_or_above_the_tested_range(tmp_path, subprocess_env, version):
    _fake_pip(tmp_path, version)
    subprocess_env["PYTHONPATH"] = f"{tmp_path}:{REPO}"
    proc = _run(
        RECORD_PATCHES + """
    import pip._internal.models.wheel
    print(calls)
    """,
        subprocess_env, "-S",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['pip._internal.models.wheel']"
    assert proc.stderr == ""


def test_zipimport_modules_get_their_own_proxy(tmp_path, subprocess_env):
    import zipfile

    archive = tmp_path / "fake.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("pip/__init__.py", "__version__ = '24.0'\n")
        zf.writestr("pip/_internal/__init__.py", "")
        zf.writestr("pip/_internal/models/__init__.py", "")
        zf.writestr("pip/_internal/models/wheel.py", "class Wheel:\n    pass\n")
        zf.writestr("pip/_internal/models/link.py", "X = 1\n")
    subprocess_env["PYTHONPATH"] = f"{archive}:{REPO}"
    proc = _run(
        RECORD_PATCHES + """
    import pip._internal.models.wheel as w
    import pip._internal.models.link as l
    print(calls, l.X, w.Wheel.__name__)
    """,
        subprocess_env, "-S",
    )
    # zipimporter before 3.10 has only load_module: the legacy proxy covers it.
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["['pip._internal.models.wheel']", "1", "Wheel"]
