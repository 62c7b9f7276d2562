// What the CPU sampling tests share: the test plugin's spin (CPU time in an object of its own),
// the causes it names, a signal's disposition, and a child process for what must not stay.
#pragma once
#include "catch.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"
#include "../support/test_plugin.hpp"

namespace sampling_test {

using spin_fn = unsigned long (*)(long long);
inline spin_fn plugin_spin() {
  static void* lib = dlopen(test_plugin_path().c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib != nullptr);
  auto* f = reinterpret_cast<spin_fn>(dlsym(lib, "warmup_test_plugin_spin"));
  REQUIRE(f != nullptr);
  return f;
}

inline const warmup::cause_time* host_code_in(const warmup::attribution& a, const std::string& object) {
  for (const warmup::cause_time& c : a.causes)
    if (c.what == warmup::cause::host_code && c.where == object) return &c;
  return nullptr;
}

inline bool is_default(int signal) {
  struct sigaction now {};
  REQUIRE(sigaction(signal, nullptr, &now) == 0);
  return (now.sa_flags & SA_SIGINFO) == 0 && now.sa_handler == SIG_DFL;
}

/// Runs `body` in a forked child and returns its exit status (128 + the signal that killed
/// it): what changes a signal's disposition or the descriptors for good stays out of this
/// process. `seconds`: the child is killed (SIGALRM) if it runs longer, as a hang would.
template <class F>
int in_child(F&& body, unsigned seconds = 60) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(seconds);
    _exit(body());
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Whether the report's notices hold `text`.
inline bool noticed(const warmup::report& r, const std::string& text) {
  for (const std::string& n : r.notices)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

/// Makes the process's first buffer (index 0, the one a lookup by index meets first) the one
/// the next sampled call takes, whatever order earlier calls left the spare ones in (a child's
/// parent sampled calls before it): false where it is not free.
inline bool first_buffer_next() {
  warmup::detail::sampler_shared& s = warmup::detail::sampler_state();
  const std::uint32_t made = s.made.load();
  std::vector<warmup::detail::sample_buffer*> others;
  warmup::detail::sample_buffer* first = nullptr;
  // Spare buffers until the first: at most every one made, or the first itself where none was.
  for (std::uint32_t i = 0; i < (made == 0 ? 1 : made) && first == nullptr; ++i) {
    warmup::detail::sample_buffer* b = s.take();
    if (b == nullptr) break;
    if (b == s.buffers[0].load())
      first = b;
    else
      others.push_back(b);
  }
  for (warmup::detail::sample_buffer* o : others) s.give_back(o);
  if (first == nullptr) return false;
  s.give_back(first);  // the last given back is the next taken
  return true;
}

}  // namespace sampling_test
