#!/usr/bin/env python3
"""Regenerate docs/examples/train_cpu.pt.trace.json (the README example).

A real trace of a small CNN training loop, written by the PyTorch profiler
of Debian's python3-torch (1.13, built without Kineto, so it writes the
legacy bare-array format).  Run with /usr/bin/python3 on Debian 12 after
`apt-get install python3-torch`.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 8 * 8, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
data = [(torch.randn(16, 3, 16, 16), torch.randint(0, 10, (16,))) for _ in range(6)]
schedule = torch.profiler.schedule(wait=0, warmup=1, active=5, repeat=1)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                            record_shapes=True, profile_memory=True,
                            schedule=schedule) as prof:
    for x, y in data:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        prof.step()
prof.export_chrome_trace("train_cpu.pt.trace.json")
