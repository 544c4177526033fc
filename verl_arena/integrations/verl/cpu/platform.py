# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A CPU platform for verl's platform registry (verl 0.9 ships none).

verl asks its platform for a device name, a torch device module, a collective backend and a Ray resource. Here the
device is ``cpu``, collectives go over ``gloo``, and the Ray resource stays ``GPU``: verl's resource-pool manager
always asks Ray for GPUs, so a CPU run starts Ray with logical GPUs (``+ray_kwargs.ray_init.num_gpus=1``), one per
training process.

verl also calls the ``torch.cuda``-style API of the device module (memory statistics, random-number state, device
names, streams). :class:`CPUDeviceModule` answers those calls with the CPU's real state where it has one (RNG
state, total memory) and with neutral values where a CPU has no such thing (allocator statistics are 0).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

import torch
from verl.plugin.platform.platform_base import PlatformBase
from verl.plugin.platform.platform_manager import PlatformRegistry

__all__ = ["PLATFORM_NAME", "CPUDeviceModule", "CPUPlatform"]

logger = logging.getLogger(__name__)

#: the value of ``VERL_PLATFORM`` that selects this platform
PLATFORM_NAME = "cpu"


def _total_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 34


class CPUDeviceModule:
    """``torch.cpu`` with the parts of the ``torch.cuda`` API that verl calls."""

    def is_available(self) -> bool:
        return True

    def device_count(self) -> int:
        return 1

    def current_device(self) -> str:
        return "cpu"

    def set_device(self, device: Any) -> None:
        return None

    def get_device_name(self, device: Any = None) -> str:
        return "CPU"

    def synchronize(self, device: Any = None) -> None:
        return None

    def empty_cache(self) -> None:
        return None

    def mem_get_info(self, device: Any = None) -> tuple[int, int]:
        total = _total_memory()
        return total, total

    def memory_allocated(self, device: Any = None) -> int:
        return 0

    memory_reserved = max_memory_allocated = max_memory_reserved = memory_allocated

    def reset_peak_memory_stats(self, device: Any = None) -> None:
        return None

    def get_rng_state(self, device: Any = None) -> torch.Tensor:
        return torch.get_rng_state()

    def set_rng_state(self, state: torch.Tensor, device: Any = None) -> None:
        torch.set_rng_state(state)

    def manual_seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    manual_seed_all = manual_seed

    def __getattr__(self, name: str) -> Any:
        return getattr(torch.cpu, name)  # Stream, stream, current_stream, device_count, ...


@PlatformRegistry.register(platform=PLATFORM_NAME)
class CPUPlatform(PlatformBase):
    """verl's platform interface on the CPU. Chosen only with ``VERL_PLATFORM=cpu``, never by auto-detection."""

    _module = CPUDeviceModule()

    @property
    def device_name(self) -> str:
        return "cpu"

    @property
    def vendor_name(self) -> str:
        return "cpu"

    @property
    def device_module(self) -> Any:
        return self._module

    def is_available(self) -> bool:
        return True

    def is_platform_available(self, use_smi_check: bool = False) -> bool:
        return os.environ.get("VERL_PLATFORM", "").strip().lower() == PLATFORM_NAME

    def current_device(self) -> Any:
        return "cpu"  # verl passes it to .to(), torch.device() and to_empty(device=...)

    def device_count(self) -> int:
        return 1

    def set_device(self, device_index: int) -> None:
        return None

    def synchronize(self, device_index: int | None = None) -> None:
        return None

    def manual_seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def manual_seed_all(self, seed: int) -> None:
        torch.manual_seed(seed)

    def set_allocator_settings(self, settings: str) -> None:
        return None

    def empty_cache(self) -> None:
        return None

    def get_device_capability(self, device_index: int = 0) -> tuple[int | None, int | None]:
        return None, None

    def communication_backend_name(self) -> str:
        return "gloo"

    def visible_devices_envvar(self) -> str:
        return "CUDA_VISIBLE_DEVICES"  # Ray sets it for the logical GPUs; nothing reads it on a CPU

    @contextlib.contextmanager
    def nvtx_range(self, msg: str) -> Iterator[None]:
        yield

    def profiler_start(self) -> None:
        return None

    def profiler_stop(self) -> None:
        return None

    def ray_resource_name(self) -> str:
        return "GPU"

    def ray_noset_envvars(self) -> list[str]:
        return []

    def is_ipc_supported(self) -> bool:
        return False

    def cudart(self) -> Any:
        return None
