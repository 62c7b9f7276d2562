"""A compiled model's first training step, taken apart: a small transformer encoder compiled with
Inductor, each step (forward, backward and AdamW) one site, so that the first step (tracing,
lowering and compiling the forward and the backward graphs, seconds of CPU) stands apart from the
steady steps. With WARMUP_ATTRIBUTION=1 and WARMUP_CPU_SAMPLING=on the report names that first
step's time: the Python code by module (torch._dynamo, torch._inductor, ...), the shared objects,
the CUDA causes; a first step of any length is named in full (docs/why-slow.md, "CPU sampling").

Inductor's caches make a second process's first step fast: point TORCHINDUCTOR_CACHE_DIR and
TRITON_CACHE_DIR at fresh folders to see it cold.
usage: python compile_train.py [--steps N] [--layers N] [--json FILE]
"""
import argparse

import torch

import warmup


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--json")
    a = p.parse_args()

    with warmup.context("CUDA context"):
        torch.zeros(1, device="cuda")
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
    model = torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=a.layers), torch.nn.Linear(256, 10)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    compiled = torch.compile(model)
    x = torch.randn(32, 64, 256, device="cuda")
    target = torch.randint(0, 10, (32,), device="cuda")
    stream = torch.cuda.current_stream()
    for _ in range(a.steps):
        with warmup.region("compiled training step", stream=stream):
            loss = torch.nn.functional.cross_entropy(compiled(x).mean(dim=1), target)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
    warmup.snapshot(wait=True).write("stdout" + (f",{a.json}" if a.json else ""))  # the table, and the JSON


if __name__ == "__main__":
    main()
