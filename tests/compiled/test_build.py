"""Building the extensions: without a C compiler, setup.py says so in one line (what to install), not a compile
error per file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_compiler_is_one_line_saying_what_to_install(tmp_path):
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc")}
    run = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "-b", str(tmp_path / "lib"), "-t",
                          str(tmp_path / "tmp")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("euchre-env: no C compiler found") and "no-such-cc" in last and "apt-get install gcc" in last
    assert not (tmp_path / "lib").exists() or not list((tmp_path / "lib").rglob("*.so"))
