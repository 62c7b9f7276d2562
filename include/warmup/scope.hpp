/// @file
/// @brief `warmup::scope<Op>`: the RAII measurement of one call, and its short aliases.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "warmup/config.hpp"
#include "warmup/settings.hpp"
#include "warmup/op.hpp"

#if WARMUP_ENABLED
#include "warmup/detail/record/ticks.hpp"
#include "warmup/detail/record/device_timer.hpp"
#include "warmup/detail/record/exception_depth.hpp"
#include "warmup/detail/record/memory_probe.hpp"
#include "warmup/detail/record/nvtx.hpp"
#include "warmup/detail/record/site.hpp"
#else
WARMUP_BEGIN_NAMESPACE
namespace detail {
struct static_site {  // keeps the macro-facing signature when disabled
  constexpr static_site(op_kind, std::string_view) noexcept {}
};
struct shard_slot {};
}  // namespace detail
WARMUP_END_NAMESPACE
#endif

WARMUP_BEGIN_NAMESPACE
namespace detail {
// What a scope of `Op` does beyond timing is its kind's row in op.hpp (`kind_trait`).
/// Copies and allocations, which take a byte count.
template <class Op>
inline constexpr bool takes_bytes = has_trait(Op::kind, kind_trait::takes_bytes);
/// Copies with a host side, which may say where their host memory is.
template <class Op>
inline constexpr bool has_host_side = has_trait(Op::kind, kind_trait::host_side);
/// Allocations, which on a stream read the pool's reserved bytes around the call.
template <class Op>
inline constexpr bool reads_pool = has_trait(Op::kind, kind_trait::reads_pool);
/// Byte counts may be of any integer type (`int`, `long`, `size_t`, ...), but not `bool`.
template <class T>
inline constexpr bool is_byte_count = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// What only some kinds of scope hold, kept out of the others' frames: an allocation scope on a
/// stream reads the pool's reserved bytes before its call (memory_probe.hpp). Empty elsewhere,
/// and an empty base takes no room.
template <bool Reads_pool>
struct pool_reading {};
template <>
struct pool_reading<true> {
  std::optional<std::uint64_t> pool_before_;
};
}  // namespace detail
WARMUP_END_NAMESPACE

WARMUP_BEGIN_NAMESPACE

/// @brief Measures one call of a site from construction to destruction.
///
/// Host time always (the cycle counter where the CPU vouches for it, else the steady clock;
/// detail/runtime/time_base.hpp); device time too when given a stream: two CUDA events recorded on that
/// stream, read back later by `snapshot()`, never waited for here. The scope also opens an NVTX
/// range in the `warmup` domain (category = the operation kind, the first call in red, payload =
/// the call index) and feeds the site's first-call and steady-state figures. A site is the pair
/// (kind, name): scopes with the same kind and name, wherever they are, are one site.
///
/// Cost: two reads of the cycle counter, an NVTX push/pop and plain stores to the calling
/// thread's own figures (BENCHMARKS.md has its cost against the two reads alone); a named scope finds its
/// site by the name's address in a small per-thread table (a hash lookup the first time a name
/// is passed from a new place). A device-timed scope adds two event records (`cuEventRecord` on
/// an explicit stream, `cudaEventRecord` on the null or per-thread stream).
/// Never synchronises, never throws; an exception leaving the scope is measured and counted.
///
/// Neither copyable nor movable, and it cannot be made with `new`: a scope lives on the stack
/// of the thread whose work it times.
///
/// \code
///   {
///     warmup::h2d_scope up{"upload", bytes, stream};
///     cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream);
///   }
///   {
///     warmup::launch_scope k{"gemm", stream};
///     gemm<<<grid, block, 0, stream>>>(a, b, c);
///   }
/// \endcode
template <class Op>
class scope : private detail::pool_reading<WARMUP_ENABLED && detail::reads_pool<Op>> {
 public:
  /// @brief Host timing only.
  explicit scope(std::string_view name) noexcept {
#if WARMUP_ENABLED
    if (detail::measuring.load(std::memory_order_relaxed)) begin(detail::lookup(Op::kind, name), 0, nullptr, host_only);
#else
    (void)name;
#endif
  }

  /// @brief Host and device timing of work on `stream` (context, launch and region scopes).
  template <class O = Op, std::enable_if_t<!detail::takes_bytes<O>, int> = 0>
  scope(std::string_view name, cudaStream_t stream) noexcept {
#if WARMUP_ENABLED
    if (detail::measuring.load(std::memory_order_relaxed)) begin(detail::lookup(Op::kind, name), 0, stream, device_timed);
#else
    (void)name, (void)stream;
#endif
  }

  /// @brief Host timing of an operation on `bytes` bytes (copies and allocations). Any integer
  /// type; a negative count is reported once and counted as 0 bytes.
  template <class Bytes, class O = Op,
            std::enable_if_t<detail::takes_bytes<O> && detail::is_byte_count<Bytes>, int> = 0>
  scope(std::string_view name, Bytes bytes) noexcept {
#if WARMUP_ENABLED
    if (detail::measuring.load(std::memory_order_relaxed))
      begin(detail::lookup(Op::kind, name), detail::byte_count(bytes), nullptr, host_only);
#else
    (void)name, (void)bytes;
#endif
  }

  /// @brief Host and device timing of `bytes` bytes moved or allocated on `stream`.
  template <class Bytes, class O = Op,
            std::enable_if_t<detail::takes_bytes<O> && detail::is_byte_count<Bytes>, int> = 0>
  scope(std::string_view name, Bytes bytes, cudaStream_t stream) noexcept {
#if WARMUP_ENABLED
    if (detail::measuring.load(std::memory_order_relaxed))
      begin(detail::lookup(Op::kind, name), detail::byte_count(bytes), stream, device_timed);
#else
    (void)name, (void)bytes, (void)stream;
#endif
  }

  /// @brief A copy of `bytes` bytes on `stream` from or to `host` (h2d and d2h): the report
  /// counts the calls whose host memory was pinned and those where it was pageable (one driver
  /// lookup, whose cost BENCHMARKS.md gives, outside the measured time).
  /// \code
  ///   warmup::h2d_scope s{"upload", bytes, stream, host_buffer};
  ///   cudaMemcpyAsync(dev, host_buffer, bytes, cudaMemcpyHostToDevice, stream);
  /// \endcode
  template <class Bytes, class O = Op,
            std::enable_if_t<detail::has_host_side<O> && detail::is_byte_count<Bytes>, int> = 0>
  scope(std::string_view name, Bytes bytes, cudaStream_t stream, const void* host) noexcept {
#if WARMUP_ENABLED
    if (detail::measuring.load(std::memory_order_relaxed))
      begin(detail::lookup(Op::kind, name), detail::byte_count(bytes), stream, device_timed, host);
#else
    (void)name, (void)bytes, (void)stream, (void)host;
#endif
  }

  // Misuses, each refused with a sentence instead of template noise.
  /// @brief Refused at compile time: a copy or allocation scope takes its byte count before the
  /// stream (`h2d_scope s{name, bytes, stream}`).
  template <class O = Op, std::enable_if_t<detail::takes_bytes<O>, int> = 0>
  scope(std::string_view, cudaStream_t) noexcept {
    static_assert(!detail::takes_bytes<O>,
                  "warmup: a copy or allocation scope takes its byte count before the stream: "
                  "h2d_scope s{name, bytes, stream}");
  }
  /// @brief Refused at compile time: only copy and allocation scopes take a byte count.
  template <class Bytes, class O = Op,
            std::enable_if_t<!detail::takes_bytes<O> && detail::is_byte_count<Bytes>, int> = 0>
  scope(std::string_view, Bytes, cudaStream_t) noexcept {
    static_assert(detail::takes_bytes<O>,
                  "warmup: only copy and allocation scopes take a byte count; "
                  "launch, region and context scopes take (name) or (name, stream)");
  }

  /// @brief For `WARMUP_SCOPE`: the site was found once, by a static, and the thread's shard of
  /// it is in a thread_local beside it; `name` is not looked at.
  scope(const detail::static_site& s, detail::shard_slot& slot, std::string_view name) noexcept {
#if WARMUP_ENABLED
    if (detail::measuring.load(std::memory_order_relaxed)) begin(s.s, &slot, 0, nullptr, host_only);
#else
    (void)s, (void)slot;
#endif
    (void)name;
  }

  /// @brief For `WARMUP_SCOPE(name, stream)`.
  scope(const detail::static_site& s, detail::shard_slot& slot, std::string_view name, cudaStream_t stream) noexcept {
#if WARMUP_ENABLED
    if (detail::measuring.load(std::memory_order_relaxed)) begin(s.s, &slot, 0, stream, device_timed);
#else
    (void)s, (void)slot, (void)stream;
#endif
    (void)name;
  }

  WARMUP_HOT_INLINE ~scope() {
#if WARMUP_ENABLED
    if (site_ == nullptr) return;
    const std::uint64_t stop = site_->time().now();
    if (!site_->owns(call_)) {
      detail::nvtx_pop(nvtx_pushed_);
      return;
    }
    const std::uint64_t index = call_.index;
    // Ticks of the site's clock (detail/runtime/time_base.hpp), converted when a snapshot reads them.
    const std::uint64_t host = (stop > start_ ? stop - start_ : 0) + carried_;
    const bool after_idle = site_->end_host(index, start_, stop, host);
    detail::device_end(mark_, stream_, after_idle);
    detail::nvtx_pop(nvtx_pushed_);
    // The cold window begins where the call's time does: with the first driver probe, if it
    // carried one, so that its causes split the same time as the site's first call.
    if (index == 0 || after_idle) site_->cold_call_ends(index, start_ > carried_ ? start_ - carried_ : 0, stop, after_idle);
    if constexpr (detail::reads_pool<Op>) {
      if (this->pool_before_)
        if (const auto after = detail::pool_reserved(stream_))
          site_->pool_reserved(index, *this->pool_before_, *after);
    }
    site_->end_call(call_, host, after_idle, bytes_, device_timed_, exceptions_.unwinding(exceptions_at_begin_));
#endif
  }

  scope(const scope&) = delete;
  scope(scope&&) = delete;
  scope& operator=(const scope&) = delete;
  scope& operator=(scope&&) = delete;
  static void* operator new(std::size_t) = delete;
  static void* operator new[](std::size_t) = delete;

#if WARMUP_ENABLED
 private:
  enum timing_mode { host_only, device_timed };

  /// For the named constructors: the site and the thread's shard slot, as the name cache holds them.
  void begin(detail::named_site* n, std::uint64_t bytes, cudaStream_t stream, timing_mode mode,
             const void* host = nullptr) noexcept {
    if (n != nullptr) begin(n->s, &n->slot, bytes, stream, mode, host);
  }

  void begin(detail::site* s, detail::shard_slot* slot, std::uint64_t bytes, cudaStream_t stream, timing_mode mode,
             const void* host = nullptr) noexcept {
    if (s == nullptr) return;
    site_ = s;
    bytes_ = bytes;
    stream_ = stream;
    call_ = s->begin_call(slot);
    const std::uint64_t index = call_.index;
    if (index == 0) s->first_call_begins(mode == device_timed);
    exceptions_at_begin_ = exceptions_.begin();
    nvtx_pushed_ = detail::nvtx_push(s->nvtx, Op::kind, index);
    device_timed_ = mode == device_timed;
    if (device_timed_ && s->wants_device(index)) {
      mark_ = detail::device_begin(s, index, stream, carried_);
      s->count_untimed(mark_.why);
    }
    // Memory signals (detail/record/memory_probe.hpp): driver calls, once CUDA was seen working.
    if constexpr (detail::reads_pool<Op>) {
      if (device_timed_) this->pool_before_ = detail::pool_reserved(stream);
    }
    if constexpr (detail::has_host_side<Op>) {
      if (host != nullptr) {
        const detail::host_memory_kind k = detail::classify_host_memory(host);
        if (k == detail::host_memory_kind::pinned || k == detail::host_memory_kind::pageable)
          s->host_memory(k == detail::host_memory_kind::pinned);
      }
    } else {
      (void)host;
    }
    if (index == 0) s->first_call_clock_starts();
    start_ = s->time().now();  // last: the library's own work above stays out of the time
  }

  detail::site* site_ = nullptr;
  detail::call_ticket call_{0, nullptr};
  std::uint64_t carried_ = 0;  ///< ticks of the first driver probe, which belong to the call
  std::uint64_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  detail::device_mark mark_{};
  detail::exception_depth exceptions_;
  unsigned exceptions_at_begin_ = 0;
  bool device_timed_ = false;
  bool nvtx_pushed_ = false;
  std::uint64_t start_ = 0;  ///< ticks of the site's clock
#endif
};

/// @brief Times device/context initialisation: `warmup::context_scope s{"init"}; cudaSetDevice(0);`
using context_scope = scope<op::context>;
/// @brief Times an allocation: `warmup::alloc_scope s{"weights", bytes}; cudaMalloc(&p, bytes);`
using alloc_scope = scope<op::alloc>;
/// @brief Times a host-to-device copy: `warmup::h2d_scope s{"upload", bytes, stream};`
using h2d_scope = scope<op::h2d>;
/// @brief Times a device-to-host copy: `warmup::d2h_scope s{"download", bytes, stream};`
using d2h_scope = scope<op::d2h>;
/// @brief Times a device-to-device copy: `warmup::d2d_scope s{"copy", bytes, stream};`
using d2d_scope = scope<op::d2d>;
/// @brief Times kernel launches: `warmup::launch_scope s{"gemm", stream}; gemm<<<...>>>();`
using launch_scope = scope<op::launch>;
/// @brief Times any region, such as a model's forward: `warmup::region_scope s{"forward", stream};`
using region_scope = scope<op::region>;

/// @brief Times one call of `fn` as a site of kind `Op` (a region unless named) and returns
/// what `fn` returns. Host-timed; give a stream to time the work `fn` enqueues on it as well.
/// \code
///   auto tokens = warmup::timed("tokenize", [&] { return tokenize(text); });
///   warmup::timed<warmup::op::launch>("gemm", stream, [&] { gemm<<<grid, block, 0, stream>>>(a, b, c); });
/// \endcode
template <class Op = op::region, class F>
decltype(auto) timed(std::string_view name, F&& fn) {
  static_assert(!detail::takes_bytes<Op>, "warmup::timed: copies and allocations need a scope with their byte count");
  const scope<Op> s{name};
  return std::forward<F>(fn)();
}

/// @brief `timed` with device timing of the work `fn` enqueues on `stream`.
template <class Op = op::region, class F>
decltype(auto) timed(std::string_view name, cudaStream_t stream, F&& fn) {
  static_assert(!detail::takes_bytes<Op>, "warmup::timed: copies and allocations need a scope with their byte count");
  const scope<Op> s{name, stream};
  return std::forward<F>(fn)();
}

WARMUP_END_NAMESPACE

#define WARMUP_DETAIL_CONCAT_(a, b) a##b
#define WARMUP_DETAIL_CONCAT(a, b) WARMUP_DETAIL_CONCAT_(a, b)
#define WARMUP_DETAIL_FIRST_(first, ...) first
#define WARMUP_DETAIL_FIRST(...) WARMUP_DETAIL_FIRST_(__VA_ARGS__, unused)
#define WARMUP_DETAIL_SCOPE(site_var, scope_var, ...)                                       \
  static const ::cuda_warmup::detail::static_site site_var{::cuda_warmup::op_kind::region, \
                                                           WARMUP_DETAIL_FIRST(__VA_ARGS__)}; \
  static thread_local ::cuda_warmup::detail::shard_slot WARMUP_DETAIL_CONCAT(site_var, _shard);  \
  const ::cuda_warmup::region_scope scope_var { site_var, WARMUP_DETAIL_CONCAT(site_var, _shard), __VA_ARGS__ }

#if WARMUP_ENABLED
/// @brief A region scope whose site is found once, by a function-local static:
/// `WARMUP_SCOPE("step");` or `WARMUP_SCOPE("forward", stream);`. The name is read the first
/// time control passes, so it should not change between calls.
#define WARMUP_SCOPE(...)                                                    \
  WARMUP_DETAIL_SCOPE(WARMUP_DETAIL_CONCAT(warmup_site_, __COUNTER__),       \
                      WARMUP_DETAIL_CONCAT(warmup_scope_, __COUNTER__), __VA_ARGS__)
/// @brief `WARMUP_SCOPE` named after the enclosing function (`__func__`).
#define WARMUP_FUNC_SCOPE() WARMUP_SCOPE(__func__)
#else
#define WARMUP_SCOPE(...) static_cast<void>(0)
#define WARMUP_FUNC_SCOPE() static_cast<void>(0)
#endif

#include "warmup/detail/header_end.hpp"
