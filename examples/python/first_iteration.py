"""Seed 001's three programs ("Why is the first PyTorch iteration slower?"), as written, with
warmup's scopes around each part of an iteration, and a fourth that prewarms the step first.

  sgd           the first example: Linear(10, 10), MSELoss, SGD, on the GPU
  cuda_first    the second: CUDA initialised first (the seed's randn(1).to(device) and sleep)
  no_optimizer  the third: forward and backward only
  prewarm       the first, after warmup.until_steady on the same step (a site of its own)

Each prints the seed's own lines ("Iteration 1 time: ..."), for --iterations iterations (the seed
ran 2), then warmup's table; --json FILE writes the report. Attribution and CPU sampling come from
the environment (WARMUP_ATTRIBUTION=1, WARMUP_CPU_SAMPLING=on), as for any program.
usage: python first_iteration.py VARIANT [--iterations N] [--json FILE]
"""
import argparse
import time

import torch

import warmup


def main():
    p = argparse.ArgumentParser()
    p.add_argument("variant", choices=["sgd", "cuda_first", "no_optimizer", "prewarm"])
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--json")
    a = p.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if a.variant == "cuda_first" and device == torch.device("cuda"):
        with warmup.context("CUDA first (the seed's randn(1).to(device))"):
            torch.cuda.empty_cache()  # Clear any previous state.
            temp_tensor = torch.randn(1).to(device)
        time.sleep(0.2)  # Allow CUDA to initialize.
        del temp_tensor

    with warmup.region("model and data to the device"):
        model = torch.nn.Linear(10, 10).to(device)
        input_tensor = torch.randn(1, 10).to(device)
    loss_fn = torch.nn.MSELoss()
    optimizer = None if a.variant == "no_optimizer" else torch.optim.SGD(model.parameters(), lr=0.01)
    stream = torch.cuda.current_stream() if device.type == "cuda" else None

    def step():
        if optimizer is not None:
            with warmup.region("zero_grad", stream=stream):
                optimizer.zero_grad()
        with warmup.region("forward", stream=stream):
            output = model(input_tensor)
        with warmup.region("loss", stream=stream):
            loss = loss_fn(output, torch.zeros_like(output))
        with warmup.region("backward", stream=stream):
            loss.backward()
        if optimizer is not None:
            with warmup.region("step", stream=stream):
                optimizer.step()

    if a.variant == "prewarm":
        r = warmup.until_steady(step, "iteration (prewarm)", stream=stream)
        print(f"prewarm: {r.why} after {r.calls} calls, {r.took_ns / 1e6:.1f} ms")

    for i in range(a.iterations):
        start_time = time.time()
        with warmup.region("iteration", stream=stream):
            step()
        end_time = time.time()
        print(f"Iteration {i+1} time: {end_time - start_time:.4f} seconds")

    report = warmup.snapshot(wait=True)
    report.print()
    if a.json:
        report.write(a.json)


if __name__ == "__main__":
    main()
