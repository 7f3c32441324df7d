"""Keep the memory a PPO update frees inside the process, so that its large tensors stop costing page faults.

glibc's ``malloc`` serves a large block (above a threshold that starts at 128 KiB and grows with the blocks
freed) from fresh pages of its own ``mmap`` and gives them back at ``free``, and it hands the top of its heap
back to the system once more than twice that threshold is free there. A PPO minibatch allocates and frees
dozens of 4 MiB activations (4,096 rows of 256 float32), and many of them came back as fresh pages that the
kernel zeroes at first touch: 2,000-100,000 page faults a PPO update of ~16,900 decisions on this project's
machine in a training loop (``getrusage``), about a microsecond each, more on a busy host. With both
thresholds raised (:func:`keep_freed_memory`) the freed blocks stay in the heap for the next minibatch: next
to no page faults after the first update. One update repeated on one rollout, alternated over four pairs of
processes: 0.54-0.63 s by default, 0.44-0.51 s with the setting (docs/speed.md). PyTorch's performance guide
makes the same point for its CPU users (a caching allocator such as jemalloc or tcmalloc); this is the same
effect without a second library.

The cost: the process holds on to its peak memory between updates instead of returning part of it; the peak
itself is unchanged (about 800 MiB resident either way for configs/knock_scratch.yaml). Only glibc has
``mallopt``'s two settings; elsewhere (macOS, musl) nothing changes.
"""

from __future__ import annotations

import ctypes
import sys

# glibc's malloc.h
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# glibc's largest mmap threshold on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX): blocks above it (a
# rollout's observation matrix) still come from mmap, once an update.
MMAP_THRESHOLD = 32 * 2**20
TRIM_THRESHOLD = 2**30  # the heap's free top is given back only beyond this


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process; whether they were set (False off glibc)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # mallopt answers 1 where it took the setting (musl's stub answers 0 to everything)
    return mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
