// train: the first training iteration, through PyTorch's C++ library (libtorch), issue 28.
//
// A small CNN (three conv-bn-relu-pool stages, a linear head), random weights, a batch of
// 32 x 3 x 32 x 32 with random labels, cross-entropy, 50 iterations. Each step is a site:
// "forward", "loss", "backward", "optimizer step", and "iteration" around them all; on the GPU
// each is device-timed too, through PyTorch's current stream. No step synchronises: the host
// time of a device-timed site is what the articles read with a host clock and no sync, so the
// findings set it against the device time of the same calls.
//
// Beside the loop: the autograd graph of every iteration counted (nodes reached from the loss's
// grad_fn) and whether any node of the last iteration's graph is still alive when the next
// forward begins (the claim that iteration 2 "replays the recorded graph"); 50 forwards under
// torch::NoGradGuard against the forwards with grad (what building the graph costs); on the
// GPU, the device memory the first iterations took, from PyTorch's caching allocator and
// cudaMemGetInfo.
//
//   train [--optimizer sgd|adam] [--device cuda|cpu] [--batch N] [--prewarm auto|N]
//         [--context-first] [--json FILE]
//   --optimizer      SGD (no momentum: no state) or Adam (its state is made at its first step)
//   --device cpu     the same loop on the CPU (host times only; no GPU needed)
//   --batch N        N images a batch (32): at 32 the GPU waits for the host's launches, at
//                    some hundreds the host waits for the GPU
//   --prewarm auto   warmup::warmup_until_steady calls the whole training step (site "training
//                    step (prewarm)") until warmup's rule says it is steady; N: a fixed N calls
//   --context-first  the CUDA context made first, in its own scope, as the articles advise;
//                    otherwise model->to(device) makes it, PyTorch's lazy way
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/csrc/autograd/function.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <warmup/profile.hpp>

#include "../folklore.hpp"  // args, finish; fmt, first_vs_steady: the formats check_folklore.py rebuilds
#include "gpu_context.hpp"

namespace nn = torch::nn;
using torch::autograd::Node;

namespace {

constexpr int iterations = 50;
constexpr double mib = 1024.0 * 1024.0;

struct SmallCnnImpl : nn::Module {
  nn::Sequential body;
  nn::Linear head{nullptr};
  SmallCnnImpl() {
    int in = 3;
    for (int out : {32, 64, 128}) {
      body->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1).bias(false)));
      body->push_back(nn::BatchNorm2d(out));
      body->push_back(nn::Functional(torch::relu));
      body->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2)));
      in = out;
    }
    body->push_back(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)));
    register_module("body", body);
    head = register_module("head", nn::Linear(in, 10));
  }
  torch::Tensor forward(torch::Tensor x) { return head(body->forward(x).flatten(1)); }
};
TORCH_MODULE(SmallCnn);

// A step timed as a region: on the host always, on the device too where the loop runs on the GPU.
struct step_timer {
  bool on_gpu = false;
  cudaStream_t stream = nullptr;
  template <class Step>
  void operator()(const char* name, Step&& step) const {
    if (on_gpu) {
      warmup::region_scope s{name, stream};
      step();
    } else {
      warmup::region_scope s{name};
      step();
    }
  }
};

// One iteration's autograd graph: the nodes reached from the loss's grad_fn, each once.
struct graph_census {
  std::size_t nodes = 0;
  std::uint64_t root_sequence = 0;              // grad_fn's sequence number: rises with every new node
  std::vector<std::weak_ptr<Node>> watched;     // to see, later, whether any node outlived the iteration
};

graph_census count_graph(const torch::Tensor& loss) {
  graph_census g;
  const std::shared_ptr<Node> root = loss.grad_fn();
  if (!root) return g;
  g.root_sequence = root->sequence_nr();
  std::unordered_set<const Node*> seen;
  std::vector<std::shared_ptr<Node>> todo{root};
  while (!todo.empty()) {
    std::shared_ptr<Node> node = std::move(todo.back());
    todo.pop_back();
    if (!seen.insert(node.get()).second) continue;
    g.watched.emplace_back(node);
    for (const torch::autograd::Edge& e : node->next_edges())
      if (e.function) todo.push_back(e.function);
  }
  g.nodes = seen.size();
  return g;
}

// What the device's memory holds, read outside every scope (issue 28 item 7 will give each
// first call this signal inside the library; until then the example reads it itself).
struct device_memory {
  std::int64_t reserved = 0;   // PyTorch's caching allocator: bytes it holds from cudaMalloc
  std::int64_t allocated = 0;  // of which in live tensors
  std::int64_t free = 0;       // cudaMemGetInfo: the whole device, every library's memory included
};

device_memory read_memory() {
  device_memory m;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
  m.reserved = stats.reserved_bytes[0].current;  // [0]: StatType::AGGREGATE (its namespace moved between releases)
  m.allocated = stats.allocated_bytes[0].current;
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) m.free = static_cast<std::int64_t>(free);
  return m;
}

std::string times(std::chrono::nanoseconds a, std::chrono::nanoseconds b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", double(a.count()) / double(std::max<long long>(1, b.count())));
  return buf;
}

// A difference of durations, which may be negative: "-3.72 us".
std::string signed_fmt(std::chrono::nanoseconds d) {
  return d.count() < 0 ? "-" + folklore::fmt(-d) : folklore::fmt(d);
}

std::string signed_mib(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f MiB", double(bytes) / mib);
  return buf;
}

// What the loop saw besides the report.
struct loop_facts {
  std::size_t fewest_nodes = SIZE_MAX, most_nodes = 0;
  int new_roots = 0;         // iterations after the first whose grad_fn was a new node
  std::size_t survivors = 0;  // nodes of an iteration's graph still alive when the next began
  device_memory before, after[2];
};

// The site's figures, or a message on stderr where a clock lacks a steady state.
const warmup::site_report* steady_site(const warmup::report& r, const char* name, bool on_gpu) {
  const warmup::site_report* s = r.find(warmup::op_kind::region, name);
  if (s != nullptr && s->host.steady && (!on_gpu || (s->device && s->device->steady))) return s;
  std::fprintf(stderr, "train: the site \"%s\" lacks steady figures\n", name);
  return nullptr;
}

int print_findings(const warmup::report& r, const std::string& tag, bool on_gpu, const loop_facts& f) {
  const char* steps[] = {"forward", "loss", "backward", "optimizer step"};
  const warmup::site_report* it = steady_site(r, "iteration", on_gpu);
  const warmup::site_report* step_sites[4] = {};
  for (int i = 0; i < 4; ++i) step_sites[i] = steady_site(r, steps[i], on_gpu);
  const warmup::site_report* no_grad = steady_site(r, "forward (no grad)", on_gpu);
  if (it == nullptr || no_grad == nullptr || std::find(step_sites, step_sites + 4, nullptr) != step_sites + 4) return 1;

  std::printf("finding: the first training iteration (%s) on the host: %s%s\n", tag.c_str(),
              folklore::first_vs_steady(it->host).c_str(),
              on_gpu ? ("; on the device: " + folklore::first_vs_steady(*it->device)).c_str() : "");
  std::string by_step;
  int largest = 0;
  for (int i = 0; i < 4; ++i) {
    const auto excess = step_sites[i]->host.first - step_sites[i]->host.steady->p50;
    if (excess > step_sites[largest]->host.first - step_sites[largest]->host.steady->p50) largest = i;
    by_step += std::string(i ? ", " : "") + steps[i] + " " + signed_fmt(excess);
  }
  std::printf("finding: the first iteration's excess over steady, by step, on the host (%s): %s; the largest: %s\n",
              tag.c_str(), by_step.c_str(), steps[largest]);
  if (on_gpu) {
    // The articles' reading: a host clock around the call and no synchronisation, which is
    // exactly what warmup's host time of a device-timed scope is (a scope never synchronises).
    const warmup::site_report* all[] = {it, step_sites[0], step_sites[1], step_sites[2], step_sites[3]};
    for (const warmup::site_report* s : all) {
      const warmup::timing& h = s->host;
      const warmup::timing& d = *s->device;
      std::printf("finding: timing without a sync, %s (%s): a host clock around the call (warmup's host time, no "
                  "synchronisation) reads first %s against %s on the device (%s), steady %s against %s (%s)\n",
                  s->name.c_str(), tag.c_str(), folklore::fmt(h.first).c_str(), folklore::fmt(d.first).c_str(),
                  times(h.first, d.first).c_str(), folklore::fmt(h.steady->p50).c_str(),
                  folklore::fmt(d.steady->p50).c_str(), times(h.steady->p50, d.steady->p50).c_str());
    }
  }
  const std::string counted = f.fewest_nodes == f.most_nodes
                                  ? std::to_string(f.most_nodes) + " nodes in each of the " + std::to_string(iterations) + " iterations"
                                  : std::to_string(f.fewest_nodes) + " to " + std::to_string(f.most_nodes) + " nodes across the " +
                                        std::to_string(iterations) + " iterations";
  std::printf("finding: autograd builds the graph anew every iteration (%s): %s; the loss's grad_fn a new node in %d "
              "of %d iterations after the first; %zu nodes of an iteration's graph still alive when the next began\n",
              tag.c_str(), counted.c_str(), f.new_roots, iterations - 1, f.survivors);
  const warmup::site_report* with_grad = step_sites[0];
  std::printf("finding: building the graph, steady (%s): forward with grad p50 %s against under NoGradGuard %s on the "
              "host, %s a forward%s\n",
              tag.c_str(), folklore::fmt(with_grad->host.steady->p50).c_str(),
              folklore::fmt(no_grad->host.steady->p50).c_str(),
              signed_fmt(with_grad->host.steady->p50 - no_grad->host.steady->p50).c_str(),
              on_gpu ? ("; on the device " + folklore::fmt(with_grad->device->steady->p50) + " against " +
                        folklore::fmt(no_grad->device->steady->p50))
                           .c_str()
                     : "");
  if (on_gpu) {
    std::printf("finding: device memory the first iterations took (%s): PyTorch's caching allocator reserved %s in "
                "iteration 1 and %s in iteration 2 (allocated %s, %s); cudaMemGetInfo: free memory %s in iteration 1, "
                "%s in iteration 2\n",
                tag.c_str(), signed_mib(f.after[0].reserved - f.before.reserved).c_str(),
                signed_mib(f.after[1].reserved - f.after[0].reserved).c_str(),
                signed_mib(f.after[0].allocated - f.before.allocated).c_str(),
                signed_mib(f.after[1].allocated - f.after[0].allocated).c_str(),
                signed_mib(f.after[0].free - f.before.free).c_str(), signed_mib(f.after[1].free - f.after[0].free).c_str());
    // The library's own first-call signal (host signals of each device-timed site's first call).
    std::string taken;
    for (int i = 0; i < 4; ++i) {
      const auto& h = step_sites[i]->first_call_host;
      taken += std::string(i == 0 ? "" : ", ") + steps[i] + " " +
               (h && h->device_memory_taken ? signed_mib(*h->device_memory_taken) : std::string("not read"));
    }
    std::printf("finding: device memory each step's first call took, as warmup reads it (%s): %s\n", tag.c_str(),
                taken.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  folklore::program_name = "train";
  std::string optimizer_name = "sgd", device_name = "cuda", prewarm;
  long batch = 32;
  bool context_first = false;
  const bool read = folklore::args{}
                        .option("--json", folklore::json_path)
                        .option("--optimizer", optimizer_name)
                        .option("--device", device_name)
                        .option("--batch", batch)
                        .option("--prewarm", prewarm)
                        .flag("--context-first", context_first)
                        .read(argc, argv);
  const long fixed_count = prewarm.empty() || prewarm == "auto" ? 0 : std::strtol(prewarm.c_str(), nullptr, 10);
  const bool options_ok = read && (optimizer_name == "sgd" || optimizer_name == "adam") &&
                          (device_name == "cuda" || device_name == "cpu") && batch > 0 &&
                          (prewarm.empty() || prewarm == "auto" || fixed_count > 0) &&
                          !(context_first && device_name == "cpu");
  if (!options_ok) {
    std::fprintf(stderr, "usage: train [--optimizer sgd|adam] [--device cuda|cpu] [--batch N] [--prewarm auto|N] "
                         "[--context-first] [--json FILE]\n(--context-first is for --device cuda)\n");
    return 2;
  }
  const bool on_gpu = device_name == "cuda";
  if (on_gpu && !folklore::gpu_usable("train")) return 77;
  const std::string tag = optimizer_name + ", " + device_name + ", batch " + std::to_string(batch);
  std::printf("train: %s, %d iterations, %ld x 3 x 32 x 32, context %s\n", tag.c_str(), iterations, batch,
              !on_gpu ? "none (CPU)" : context_first ? "made first (--context-first)" : "made by model->to(device)");
  torch::manual_seed(1);
  const torch::Device device = on_gpu ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (context_first) folklore::make_context(device);
  SmallCnn model;
  model->train();
  {
    warmup::region_scope s{"model->to(device)"};  // on the GPU without --context-first, this makes the context
    model->to(device);
  }
  const torch::Tensor input = torch::randn({batch, 3, 32, 32}, device);
  const torch::Tensor labels = torch::randint(0, 10, {batch}, torch::TensorOptions().dtype(torch::kLong).device(device));
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (optimizer_name == "adam")
    optimizer = std::make_unique<torch::optim::Adam>(model->parameters(), torch::optim::AdamOptions(1e-3));
  else
    optimizer = std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.01));
  const step_timer run_step{on_gpu, on_gpu ? at::cuda::getCurrentCUDAStream().stream() : nullptr};

  // Prewarm: the whole training step called ahead of the loop, until steady or a fixed count.
  const auto training_step = [&] {
    optimizer->zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(input), labels);
    loss.backward();
    optimizer->step();
  };
  if (prewarm == "auto") {
    const warmup::steady_result w = on_gpu ? warmup::warmup_until_steady("training step (prewarm)", training_step, run_step.stream)
                                           : warmup::warmup_until_steady("training step (prewarm)", training_step);
    if (w.why == warmup::steady_stop::error) return std::fprintf(stderr, "train: %s\n", w.status.message.c_str()), 1;
    std::printf("prewarm: warmup_until_steady: %zu calls in %s (%s; %zu warm-up calls), steady p50 %s\n", w.calls,
                folklore::fmt(w.took).c_str(), warmup::to_string(w.why), w.warmup_calls, folklore::fmt(w.p50).c_str());
  } else if (fixed_count > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < fixed_count; ++i) {
      run_step("training step (prewarm)", training_step);
      if (on_gpu) torch::cuda::synchronize();
    }
    std::printf("prewarm: a fixed %ld calls in %s\n", fixed_count,
                folklore::fmt(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)).c_str());
  }

  loop_facts facts;
  if (on_gpu) facts.before = read_memory();
  std::vector<std::weak_ptr<Node>> last_graph;
  std::uint64_t last_root = 0;
  for (int i = 0; i < iterations; ++i) {
    // The last iteration's loss (and with it the graph) went out of scope at the end of its body.
    for (const std::weak_ptr<Node>& node : last_graph) facts.survivors += node.expired() ? 0 : 1;
    torch::Tensor loss;
    run_step("iteration", [&] {
      optimizer->zero_grad();
      torch::Tensor out;
      run_step("forward", [&] { out = model->forward(input); });
      run_step("loss", [&] { loss = torch::nn::functional::cross_entropy(out, labels); });
      run_step("backward", [&] { loss.backward(); });
      run_step("optimizer step", [&] { optimizer->step(); });
    });
    if (on_gpu && i < 2) facts.after[i] = read_memory();
    // backward() frees what the nodes saved, not the nodes: the graph can still be walked.
    graph_census g = count_graph(loss);
    facts.fewest_nodes = std::min(facts.fewest_nodes, g.nodes);
    facts.most_nodes = std::max(facts.most_nodes, g.nodes);
    if (i > 0 && g.root_sequence != last_root) ++facts.new_roots;
    last_root = g.root_sequence;
    last_graph = std::move(g.watched);
  }
  {
    torch::NoGradGuard no_grad;
    for (int i = 0; i < iterations; ++i) run_step("forward (no grad)", [&] { (void)model->forward(input); });
  }
  if (on_gpu) torch::cuda::synchronize();

  int found = 0;
  const int status = folklore::finish(0, [&](const warmup::report& r) { found = print_findings(r, tag, on_gpu, facts); });
  return status != 0 ? status : found;
}
