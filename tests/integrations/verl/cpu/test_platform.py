# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The CPU platform as verl's own platform manager selects it (``VERL_PLATFORM=cpu``, never by auto-detection) and as
verl's device helpers read it: device ``cpu``, collectives over ``gloo``, logical GPUs for Ray, the CPU's real random
state and memory, allocator statistics 0."""

from __future__ import annotations

import os

import pytest
import torch

pytest.importorskip("verl")

from verl.plugin.platform import platform_manager
from verl.utils import device

from verl_arena.integrations.verl.cpu.platform import PLATFORM_NAME, CPUDeviceModule, CPUPlatform


@pytest.fixture
def on_cpu(monkeypatch):
    """verl's platform chosen afresh with ``VERL_PLATFORM=cpu`` (the process's own platform is restored after)."""
    monkeypatch.setenv("VERL_PLATFORM", PLATFORM_NAME)
    monkeypatch.setattr(platform_manager, "_current_platform", None)
    state = torch.get_rng_state()
    yield platform_manager.get_platform()
    torch.set_rng_state(state)


def test_verl_selects_the_cpu_platform_by_verl_platform_only(on_cpu, monkeypatch):
    assert type(on_cpu) is CPUPlatform and platform_manager.PlatformRegistry.get("cpu") is CPUPlatform
    assert (device.get_device_name(), device.get_nccl_backend(), device.get_resource_name()) == ("cpu", "gloo", "GPU")
    assert device.get_visible_devices_keyword() == "CUDA_VISIBLE_DEVICES" and device.is_device_available()
    assert torch.ones(1).to(device.get_device_id()).device.type == "cpu"
    monkeypatch.delenv("VERL_PLATFORM")
    assert not CPUPlatform().is_platform_available(use_smi_check=True)
    assert platform_manager._detect_platform_name() != PLATFORM_NAME  # never chosen by auto-detection


def test_the_device_module_answers_with_the_cpus_random_state_and_memory(on_cpu):
    module = device.get_torch_device()
    assert isinstance(module, CPUDeviceModule)
    state = module.get_rng_state()
    first = torch.rand(4)
    module.set_rng_state(state)
    assert torch.equal(torch.rand(4), first)  # the state verl saves and restores is torch's own
    device.manual_seed(3)
    seeded = torch.rand(4)
    device.manual_seed_all(3)
    assert torch.equal(torch.rand(4), seeded)
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert module.mem_get_info() == (physical, physical) and physical > 0
    assert module.memory_allocated() == module.max_memory_reserved() == 0
    assert module.Stream is torch.cpu.Stream and module.device_count() == 1  # the rest is torch.cpu's
