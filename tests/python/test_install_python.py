"""tools/install-python refuses, before it builds anything, a build folder it cannot use: one made
for another Python (whose cache would install into that Python), and a name holding a newline."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "install-python")


def install(build_dir):
    env = dict(os.environ, PYTHON=sys.executable, WARMUP_PYTHON_BUILD_DIR=str(build_dir))
    return subprocess.run(["bash", SCRIPT], env=env, capture_output=True, text=True, timeout=60)


def test_a_folder_made_for_another_python_is_refused(tmp_path):
    (tmp_path / "CMakeCache.txt").write_text("Python3_EXECUTABLE:FILEPATH=/opt/other/bin/python3\n")
    r = install(tmp_path)
    assert r.returncode == 1, r
    assert f"was made for /opt/other/bin/python3, not {sys.executable}" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["CMakeCache.txt"]  # nothing configured there


def test_a_folder_name_with_a_newline_is_refused(tmp_path):
    build = tmp_path / "python-a\npython-b"
    r = install(build)
    assert r.returncode == 1, r
    assert "holds a control character" in r.stderr, r.stderr
    assert not build.exists() and os.listdir(tmp_path) == []
