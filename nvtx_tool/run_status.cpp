// The launcher's records (run_status.hpp).
#include "run_status.hpp"

#include <fcntl.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <warmup/detail/runtime/environment.hpp>

namespace warmup_nvtx::run_status {
namespace {

char folder[PATH_MAX];  ///< WARMUP_NVTX_STATUS's value; empty where the launcher asked for none

/// This program image's name in the records: 16 hex digits of the kernel's random bytes for it.
void image_id(char (&out)[17]) noexcept {
  static constexpr char digits[] = "0123456789abcdef";
  const auto* random = reinterpret_cast<const unsigned char*>(::getauxval(AT_RANDOM));
  for (int i = 0; i < 8; ++i) {
    out[2 * i] = random != nullptr ? digits[random[i] >> 4] : '0';
    out[2 * i + 1] = random != nullptr ? digits[random[i] & 15] : '0';
  }
  out[16] = '\0';
}

/// The program's command line as /proc/self/cmdline holds it: its arguments joined by spaces,
/// a control character as '?', cut to the buffer.
void append_command_line(char* out, std::size_t cap, std::size_t& n) noexcept {
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[256];
  const ssize_t got = ::read(fd, buf, sizeof buf);
  ::close(fd);
  for (ssize_t i = 0; i < got && n + 1 < cap; ++i) {
    const auto c = static_cast<unsigned char>(buf[i]);
    if (c == '\0' && i + 1 == got) break;
    out[n++] = c == '\0' ? ' ' : c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  }
}

void append(char* out, std::size_t cap, std::size_t& n, const char* text) noexcept {
  for (; *text != '\0' && n + 1 < cap; ++text) out[n++] = *text;
}

/// Writes the record `kind` of this process, with `text`; a record that cannot be written (the
/// folder gone: the launcher ended before this process) is left unwritten.
void write_record(const char* kind, const char* text, std::size_t size) noexcept {
  char image[17];
  image_id(image);
  char path[PATH_MAX + 64];
  const int n = std::snprintf(path, sizeof path, "%s/%s.%ld.%s", folder, kind, static_cast<long>(::getpid()), image);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof path) return;
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  for (std::size_t at = 0; at < size;) {
    const ssize_t w = ::write(fd, text + at, size - at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    at += static_cast<std::size_t>(w);
  }
  ::close(fd);
}

}  // namespace

void start() noexcept {
  namespace wd = cuda_warmup::detail;
  const char* f = wd::read_setting<wd::setting::nvtx_status>().text;
  if (f == nullptr || *f == '\0' || std::strlen(f) >= sizeof folder) return;
  std::memcpy(folder, f, std::strlen(f) + 1);
  armed.store(true, std::memory_order_relaxed);
}

void range_began() noexcept {
  if (!armed.exchange(false, std::memory_order_relaxed)) return;  // another thread's range wrote it
  char text[320];
  std::size_t n = 0;
  char pid[24];
  std::snprintf(pid, sizeof pid, "%ld", static_cast<long>(::getpid()));
  append(text, sizeof text, n, "pid ");
  append(text, sizeof text, n, pid);
  append(text, sizeof text, n, "\nprogram ");
  append_command_line(text, sizeof text - 1, n);
  text[n++] = '\n';
  write_record("began", text, n);
}

void report_written() noexcept {
  if (folder[0] == '\0') return;
  char text[32];
  const int n = std::snprintf(text, sizeof text, "pid %ld\n", static_cast<long>(::getpid()));
  if (n > 0) write_record("report", text, static_cast<std::size_t>(n));
}

void after_fork_in_child() noexcept {
  if (folder[0] != '\0') armed.store(true, std::memory_order_relaxed);
}

}  // namespace warmup_nvtx::run_status
