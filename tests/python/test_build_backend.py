"""The wheel's build backend (tools/packaging/warmup_build.py) given a build folder made for
another Python: the module's file name carries its Python (EXT_SUFFIX), so such a folder holds no
module this Python imports, and the backend says so rather than pack a wheel without it. The
other Python is this one with its suffix changed; the folder is this test build's
(WARMUPTEST_BUILD_DIR, set by CTest). tests/python/wheel builds and installs real wheels."""
import os
import subprocess
import sys

import pytest

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("WARMUPTEST_BUILD_DIR")

OTHER_PYTHON = ("import sys, sysconfig; sys.path.insert(0, sys.argv[1]); import warmup_build; "
                "real = sysconfig.get_config_var; "
                "sysconfig.get_config_var = lambda k: '.cpython-399-x86_64-linux-gnu.so' if k == 'EXT_SUFFIX' else real(k); "
                "warmup_build.build_wheel(sys.argv[2], {'build-dir': sys.argv[3]})")


@pytest.mark.skipif(not BUILD, reason="CTest's python.test_build_backend names the build folder")
def test_a_build_folder_made_for_another_python_is_refused(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("WARMUP")}
    r = subprocess.run([sys.executable, "-c", OTHER_PYTHON, os.path.join(SOURCE, "tools", "packaging"), str(tmp_path),
                        BUILD], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode != 0, r.stdout[-2000:]
    assert "holds no module for" in r.stderr and "_warmup.cpython-399-x86_64-linux-gnu.so" in r.stderr, r.stderr[-2000:]
    assert "name a build folder made for this Python (build-dir=PATH)" in r.stderr, r.stderr[-2000:]
    assert not list(tmp_path.glob("*.whl"))
