// The command line of a folklore example, read the same way by every one of them: options that
// take a value (--json FILE, --batch N) and flags (--prewarm), each bound to the variable it
// sets. Plain C++, no CUDA: tests/folklore/test_args.cpp tests it on the host.
#pragma once

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace folklore {

// The options and flags one program knows. A word it does not know, or an option given last
// without its value, makes read() false: the program then prints its usage line and exits 2.
//
//   const char* json_path = nullptr;
//   long batch = 32;
//   if (!folklore::args{}.option("--batch", batch).option("--json", json_path).read(argc, argv) || batch <= 0)
//     return std::fprintf(stderr, "usage: precision [--batch N] [--json FILE]\n"), 2;
class args {
 public:
  // --NAME VALUE; given twice, the last one counts.
  args& option(const char* name, const char*& value) {
    return bind(name, [&value](const char* v) { value = v; });
  }
  args& option(const char* name, std::string& value) {
    return bind(name, [&value](const char* v) { value = v; });
  }
  // --NAME N, read as a decimal number: 0 where N is none, so a program that wants a count
  // refuses anything not above 0.
  args& option(const char* name, long& value) {
    return bind(name, [&value](const char* v) { value = std::strtol(v, nullptr, 10); });
  }
  // --NAME alone: sets `on`.
  args& flag(const char* name, bool& on) {
    flags_.push_back({name, &on});
    return *this;
  }

  // Reads argv[1] .. argv[argc - 1]; false at the first word that is neither.
  bool read(int argc, char** argv) const {
    for (int i = 1; i < argc; ++i) {
      const option_entry* o = find(options_, argv[i]);
      const flag_entry* f = find(flags_, argv[i]);
      if (o != nullptr && i + 1 < argc) o->set(argv[++i]);
      else if (f != nullptr) *f->on = true;
      else return false;
    }
    return true;
  }

 private:
  struct option_entry {
    const char* name;
    std::function<void(const char*)> set;
  };
  struct flag_entry {
    const char* name;
    bool* on;
  };

  args& bind(const char* name, std::function<void(const char*)> set) {
    options_.push_back({name, std::move(set)});
    return *this;
  }
  template <class Entry>
  static const Entry* find(const std::vector<Entry>& entries, const char* word) {
    for (const Entry& e : entries)
      if (std::strcmp(e.name, word) == 0) return &e;
    return nullptr;
  }

  std::vector<option_entry> options_;
  std::vector<flag_entry> flags_;
};

}  // namespace folklore
