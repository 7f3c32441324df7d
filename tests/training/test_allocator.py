"""The trainer's allocator setting: a freed activation stays in the heap for the next one (training/allocator.py)."""

import subprocess
import sys

import pytest

# In a fresh process (the setting is process-wide): allocate a 4 MiB tensor, the size of a PPO minibatch's
# activation, and free it; print whether it came from its own mmap (glibc's mallinfo2 ``hblks``) and how much
# free memory the heap then holds (``fordblks``).
PROBE = """
import ctypes, sys, torch
from euchre_env.training.allocator import keep_freed_memory
libc = ctypes.CDLL(None)
if not hasattr(libc, "mallinfo2"):
    print("unsupported"); raise SystemExit
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]
libc.mallinfo2.restype = Info
if sys.argv[1] == "keep" and not keep_freed_memory():
    print("unsupported"); raise SystemExit
before = libc.mallinfo2().hblks
a = torch.ones(1 << 20)
mapped = libc.mallinfo2().hblks - before
del a
print(mapped, libc.mallinfo2().fordblks)
"""


def _probe(mode: str) -> list[int] | None:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True,
                         timeout=120).stdout.split()
    return None if out == ["unsupported"] else [int(v) for v in out]


def test_a_freed_activation_stays_in_the_heap():
    kept = _probe("keep")
    if kept is None:
        pytest.skip("no glibc mallopt / mallinfo2 here")
    default = _probe("default")
    assert default[0] == 1  # by default a fresh 4 MiB block is its own mmap, unmapped when freed ...
    assert kept[0] == 0 and kept[1] >= 4 * 2**20  # ... kept: it comes from the heap and stays there once freed
