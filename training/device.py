"""Where a run's networks run and with how many threads: ``run.device`` and ``run.torch_threads`` on this machine."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from euchre_env.training.ranges import shown

if TYPE_CHECKING:  # torch is imported by the functions that use it: a config is checked before it loads
    import torch

AUTO_DEVICE = "auto"  # run.device: resolved by the trainer on the machine the run starts on
DENSE_CPU = "cpu-dense"  # run.device: the accelerator's code path (dense first layer, torch only) on the CPU
DEVICES = ("auto", "cpu", "cuda", "cuda:N", "mps")  # what run.device takes (and DENSE_CPU), for messages


def usable_cores() -> int:
    """The CPUs this process may run on (a container's or ``taskset``'s share, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity call
        return os.cpu_count() or 1


def threads_here(requested: int) -> tuple[int, str]:
    """The torch threads to use for ``run.torch_threads`` on this machine, and a warning where it was capped."""
    cores = usable_cores()
    if requested <= cores:
        return requested, ""
    return cores, (f"warning: run.torch_threads {requested} is more than the {cores} cores this process may use: "
                   f"using {cores}")


def devices_here() -> list[str]:
    """The devices torch can run the networks on here: ``cpu``, then ``cuda:0``... and ``mps`` where it sees them."""
    import torch

    here = ["cpu"]
    if torch.cuda.is_available():
        here += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        here.append("mps")
    return here


def resolve_device(name: str) -> tuple[torch.device, bool]:
    """``(the torch device, dense)`` that ``run.device`` ``name`` asks for on this machine; ``dense``: the networks
    take the accelerator's form (a dense first layer, torch's operations only), everywhere but on ``cpu``.
    ValueError in one line for a name that is no device or one this machine lacks, naming those it has."""
    import torch

    if not re.fullmatch(r"auto|cpu|cpu-dense|cuda(:\d+)?|mps", name):
        raise ValueError(f"config run.device must be one of {', '.join(map(repr, DEVICES))}, got {shown(name)}")
    here = devices_here()
    if name == AUTO_DEVICE:
        name = "cuda" if "cuda:0" in here else "mps" if "mps" in here else "cpu"
    if name in ("cpu", DENSE_CPU):
        return torch.device("cpu"), name == DENSE_CPU
    if (name + ":0" if name == "cuda" else name) not in here:
        build = "" if torch.version.cuda or name == "mps" else f" (torch {torch.__version__} is built without CUDA)"
        raise ValueError(f"config run.device {name!r} is not available on this machine, which has: "
                         f"{', '.join(here)}{build}; set run.device to one of those, or auto")
    return torch.device(name), True


def describe_device(device: torch.device, dense: bool) -> str:
    """The device as a run's log names it: ``cpu``, ``cpu-dense (...)``, ``cuda:0 (NVIDIA H200)``, ``mps (...)``."""
    import torch

    if device.type == "cpu":
        return f"{DENSE_CPU} (the accelerator's code path on the CPU)" if dense else "cpu"
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        return f"cuda:{index} ({torch.cuda.get_device_name(index)})"
    return f"{device.type} (dense first layer)"
