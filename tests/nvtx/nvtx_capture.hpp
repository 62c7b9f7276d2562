// An NVTX tool living inside the test process: it records every range the library emits, so
// NVTX output is tested with no Nsight and no GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nvtx_capture {

struct event {
  enum kind_t { push, pop } kind;
  std::string domain;
  std::string message;  // resolved from the registered string handle
  std::uint32_t category = 0;
  std::uint32_t color = 0;
  std::uint64_t payload = 0;  // read as its type says: 0 where it has none
  bool registered_message = false;
};

/// Names the tool declines to register (its DomainRegisterStringA returns no handle).
inline constexpr const char* declined_prefix = "declined.";

/// Whether the injection was loaded by NVTX (at the library's static initialisation).
bool attached();
/// Events recorded so far, and clears them.
std::vector<event> take();
/// Category names given to a domain: (id, name) pairs.
std::vector<std::pair<std::uint32_t, std::string>> categories(const std::string& domain);

}  // namespace nvtx_capture
