/// @file
/// @brief What a report path stands for, read as the shell's `>` reads it: a symlink is followed
/// to its target, this process's own descriptors (`/dev/stdout`, `/dev/fd/N`,
/// `/proc/self/fd/N`) are written where they point, anything else that is no regular file (a
/// terminal, a FIFO, a socket, a device) is written in place; only a regular file, or none yet,
/// is written whole beside itself and renamed into place. So no report ever replaces a link, a
/// device or a stream, root's least of all.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A path's destination once its links are followed.
/// \code
///   const warmup::detail::path_target t = warmup::detail::target_of("/dev/stdout");
///   // t.kind == path_target::descriptor, t.fd == 1
/// \endcode
struct path_target {
  enum kind_t {
    file,        ///< a regular file, or none yet: `path` is written beside itself and renamed over
    descriptor,  ///< one of this process's open descriptors, `fd`: written where it points
    in_place,    ///< a terminal, FIFO, socket or device (`path`): opened and written, never replaced
    failed       ///< `error` says why (a link loop, a folder, a descriptor not open)
  };
  kind_t kind = failed;
  std::string path;  ///< the path at the end of the links (`file`, `in_place`)
  int fd = -1;       ///< `descriptor`'s number
  int error = 0;     ///< `failed`'s errno
};

/// The folder part of `path` with its slash, "" for a bare name: a file's temporary is made
/// there, so that the rename that puts it in place stays on one file system.
inline std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string{} : path.substr(0, slash + 1);
}

/// Whose descriptor folder in /proc `folder` is, as a pid (`/dev/fd/`, `/proc/self/fd/` and
/// `/proc/thread-self/fd/` resolve to `/proc/<pid>[/task/<tid>]/fd`); 0 where it is none.
inline long fd_folder_owner(const std::string& folder) {
  char real[PATH_MAX];
  if (::realpath(folder.empty() ? "." : folder.c_str(), real) == nullptr) return 0;
  const auto number = [&](const char*& c) {
    long v = 0;
    const char* from = c;
    for (; *c >= '0' && *c <= '9' && c - from < 10; ++c) v = v * 10 + (*c - '0');
    return c == from ? -1 : v;
  };
  const char* c = real;
  if (std::strncmp(c, "/proc/", 6) != 0) return 0;
  c += 6;
  const long pid = number(c);
  if (pid <= 0) return 0;
  if (std::strncmp(c, "/task/", 6) == 0) {
    c += 6;
    if (number(c) <= 0) return 0;
  }
  return std::strcmp(c, "/fd") == 0 ? pid : 0;
}

/// The descriptor number a path's last part names ("3" -> 3), or -1.
inline int descriptor_number(const std::string& path) {
  const std::string name = path.substr(folder_of(path).size());
  if (name.empty() || name.size() > 9) return -1;
  int n = 0;
  for (const char c : name) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

/// What `path` stands for: its links followed one at a time (at most 40, as the kernel allows),
/// stopping at this process's descriptor links, whose targets (a pipe, a socket, a file opened
/// at some offset) only the open descriptor reaches.
inline path_target target_of(const std::string& path) {
  path_target t;
  std::string p = path;
  for (int hop = 0; hop <= 40; ++hop) {
    const std::string folder = folder_of(p);
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      const int e = errno;
      if (e == ENOENT && descriptor_number(p) >= 0 && fd_folder_owner(folder) == ::getpid()) {
        t.error = EBADF;  // /dev/fd/N where N is not open
        return t;
      }
      if (e != ENOENT) {
        t.error = e;
        return t;
      }
      t.kind = path_target::file;  // a new file; a missing folder is the write's to say
      t.path = p;
      return t;
    }
    if (S_ISLNK(st.st_mode)) {
      if (const int n = descriptor_number(p); n >= 0) {
        if (const long owner = fd_folder_owner(folder); owner == ::getpid()) {
          t.kind = path_target::descriptor;
          t.fd = n;
          return t;
        } else if (owner != 0) {  // another process's descriptor: only opening the link reaches it
          t.kind = path_target::in_place;
          t.path = p;
          return t;
        }
      }
      std::string to(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : PATH_MAX), '\0');
      const ssize_t n = ::readlink(p.c_str(), &to[0], to.size());
      if (n <= 0) {
        t.error = n < 0 ? errno : ENOENT;
        return t;
      }
      to.resize(static_cast<std::size_t>(n));
      p = to[0] == '/' ? to : folder + to;
      continue;
    }
    t.path = p;
    if (S_ISDIR(st.st_mode)) {
      t.error = EISDIR;
      return t;
    }
    t.kind = S_ISREG(st.st_mode) ? path_target::file : path_target::in_place;
    return t;
  }
  t.error = ELOOP;
  return t;
}

/// Writes all of `text` to `fd`, through partial writes and signals, waiting (up to 10 s of
/// silence) where the descriptor does not block and is full; returns 0 or the errno.
inline int write_all(int fd, const std::string& text) noexcept {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      int ready = -1;
      do ready = ::poll(&p, 1, 10000);
      while (ready < 0 && errno == EINTR);
      if (ready > 0) continue;
      return ready == 0 ? ETIMEDOUT : errno;
    }
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// Writes `text` to this process's descriptor `fd`, after what the program's own standard
/// streams hold for it, at the descriptor's offset: what `./app > out` collects keeps the
/// program's output and the report, in the order they were written.
inline int write_to_descriptor(int fd, const std::string& text) noexcept {
  if (fd == STDOUT_FILENO) std::fflush(stdout);
  if (fd == STDERR_FILENO) std::fflush(stderr);
  return write_all(fd, text);
}

/// A message naming why a file could not be written, the reason first: a long path is what
/// gets cut, never why.
inline std::string cannot_write(const std::string& path, int e) {
  return std::string("cannot write (") + std::strerror(e) + ") '" + path + "'";
}

/// 64 bits no other user can guess, for temporary file names: from the kernel's random source
/// when it answers at once, else mixed from the clock, the pid and a counter.
inline std::uint64_t unpredictable() noexcept {
  std::uint64_t v = 0;
#if defined(__linux__)
  if (::getrandom(&v, sizeof v, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof v)) return v;
#endif
  static std::atomic<std::uint64_t> counter{0};
  v = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  v ^= static_cast<std::uint64_t>(::getpid()) << 32;
  v ^= (counter.fetch_add(1, std::memory_order_relaxed) + 1) * 0x9E3779B97F4A7C15ULL;
  return v;
}

/// Writes `text` to the regular file `path` (or none yet) whole: into a new temporary file in
/// its folder, made exclusively under a name no one can guess without following links, with the
/// permissions any new file of the program gets, then renamed over it. `written` gets the new
/// file's device and inode. Returns an empty string, or why it failed (naming the path).
inline std::string replace_file(const std::string& path, const std::string& text, struct stat* written = nullptr) {
  const std::string dir = folder_of(path);
  int fd = -1;
  std::string tmp;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    char name[48];
    std::snprintf(name, sizeof name, ".warmup-%016llx.tmp", static_cast<unsigned long long>(unpredictable()));
    tmp = dir + name;
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return cannot_write(path, errno);
  int error = write_all(fd, text);
  if (error == 0 && written != nullptr && ::fstat(fd, written) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    return cannot_write(path, error);
  }
  return {};
}

/// Writes `text` into what `path` is (a terminal, a FIFO, a device), never replacing it.
/// Opened without blocking, so a FIFO nobody reads fails at once instead of hanging the program.
inline std::string write_in_place(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return cannot_write(path, errno == ENXIO ? EPIPE : errno);
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const int error = write_all(fd, text);
  ::close(fd);
  return error == 0 ? std::string{} : cannot_write(path, error);
}

/// Writes `text` where `t` (`target_of(path)`) says: a descriptor where it points, a device or
/// FIFO in place, a regular file replaced whole (`replace_file`). Returns why it failed, or "".
inline std::string write_target(const std::string& path, const path_target& t, const std::string& text) {
  switch (t.kind) {
    case path_target::descriptor:
      if (const int e = write_to_descriptor(t.fd, text)) return cannot_write(path, e);
      return {};
    case path_target::in_place: return write_in_place(t.path, text);
    case path_target::file: return replace_file(t.path, text);
    case path_target::failed: break;
  }
  return cannot_write(path, t.error);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
