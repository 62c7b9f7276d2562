"""The GPU half of the Python tests (CTest's python_gpu): exits 77 (skipped) where no GPU is
visible or PyTorch is missing, else runs the tests beside this file under pytest."""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def gpu_visible():
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    r = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return r.returncode == 0 and "GPU" in r.stdout


if __name__ == "__main__":
    if not gpu_visible():
        print("skipped: no GPU visible (nvidia-smi -L)")
        sys.exit(77)
    try:
        import torch  # noqa: F401
    except ImportError:
        print(f"skipped: no PyTorch for {sys.executable}")
        sys.exit(77)
    import pytest
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", HERE] + sys.argv[1:]))
