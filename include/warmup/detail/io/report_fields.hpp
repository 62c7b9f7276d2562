/// @file
/// @brief The field list of each of the report's types (report.hpp): the JSON key and CSV
/// column of each field, in order, for the writers and the reader. Kept apart from the types
/// so that a file that measures, which includes report.hpp, does not compile them.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <tuple>

#include "warmup/config.hpp"
#include "warmup/detail/io/fields.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

template <>
struct record_fields<steady_state> {
  static constexpr auto get() {
    using self = steady_state;
    return std::make_tuple(WARMUP_DETAIL_FIELD(calls), WARMUP_DETAIL_FIELD(p50), WARMUP_DETAIL_FIELD(p90),
                           WARMUP_DETAIL_FIELD(p99), WARMUP_DETAIL_FIELD(p999), WARMUP_DETAIL_FIELD(min),
                           WARMUP_DETAIL_FIELD(max), WARMUP_DETAIL_FIELD(mean), WARMUP_DETAIL_FIELD(stddev),
                           WARMUP_DETAIL_FIELD(p50_low), WARMUP_DETAIL_FIELD(p50_high), WARMUP_DETAIL_FIELD(enough_calls));
  }
};

template <>
struct record_fields<code_time> {
  static constexpr auto get() {
    using self = code_time;
    return std::make_tuple(WARMUP_DETAIL_FIELD(function), WARMUP_DETAIL_FIELD(time), WARMUP_DETAIL_FIELD(count));
  }
};

template <>
struct record_fields<cause_time> {
  static constexpr auto get() {
    using self = cause_time;
    return std::make_tuple(WARMUP_DETAIL_FIELD(what), WARMUP_DETAIL_FIELD(time), WARMUP_DETAIL_FIELD(count),
                           WARMUP_DETAIL_FIELD(where), WARMUP_DETAIL_FIELD(functions));
  }
};

template <>
struct record_fields<cause_span> {
  static constexpr auto get() {
    using self = cause_span;
    return std::make_tuple(WARMUP_DETAIL_FIELD(what), WARMUP_DETAIL_FIELD(at), WARMUP_DETAIL_FIELD(time));
  }
};

template <>
struct record_fields<remedy_saving> {
  static constexpr auto get() {
    using self = remedy_saving;
    return std::make_tuple(WARMUP_DETAIL_FIELD(remedy), WARMUP_DETAIL_FIELD(could_save));
  }
};

template <>
struct record_fields<attribution> {
  static constexpr auto get() {
    using self = attribution;
    return std::make_tuple(WARMUP_DETAIL_FIELD(calls), WARMUP_DETAIL_FIELD(call), WARMUP_DETAIL_FIELD(excess),
                           WARMUP_DETAIL_FIELD(named), WARMUP_DETAIL_FIELD(unattributed), WARMUP_DETAIL_FIELD(causes),
                           WARMUP_DETAIL_FIELD(spans), WARMUP_DETAIL_FIELD(spans_left_out),
                           WARMUP_DETAIL_FIELD(other_threads), WARMUP_DETAIL_FIELD(remedies));
  }
};

template <>
struct record_fields<host_signals> {
  static constexpr auto get() {
    using self = host_signals;
    return std::make_tuple(WARMUP_DETAIL_FIELD(cpu), WARMUP_DETAIL_FIELD(minor_faults), WARMUP_DETAIL_FIELD(major_faults),
                           WARMUP_DETAIL_FIELD(context_existed), WARMUP_DETAIL_FIELD(libraries_loaded),
                           WARMUP_DETAIL_FIELD(device_memory_taken));
  }
};

template <>
struct record_fields<timing> {
  static constexpr auto get() {
    using self = timing;
    return std::make_tuple(WARMUP_DETAIL_FIELD(calls), WARMUP_DETAIL_FIELD(first), WARMUP_DETAIL_FIELD(warmup_calls),
                           WARMUP_DETAIL_FIELD(total), WARMUP_DETAIL_FIELD(first_call_excess),
                           WARMUP_DETAIL_FIELD(warmup_excess), WARMUP_DETAIL_FIELD(cold_recurrences),
                           WARMUP_DETAIL_FIELD(cold_excess), WARMUP_DETAIL_FIELD(steady),
                           WARMUP_DETAIL_FIELD(first_call_causes), WARMUP_DETAIL_FIELD(cold_causes));
  }
};

template <>
struct record_fields<transfer> {
  static constexpr auto get() {
    using self = transfer;
    return std::make_tuple(WARMUP_DETAIL_FIELD(first), WARMUP_DETAIL_FIELD(total), WARMUP_DETAIL_FIELD(sizes_vary),
                           WARMUP_DETAIL_FIELD(total_saturated), WARMUP_DETAIL_FIELD(gbps_clock),
                           WARMUP_DETAIL_FIELD(first_gbps), WARMUP_DETAIL_FIELD(steady_gbps), WARMUP_DETAIL_FIELD(mean_gbps),
                           WARMUP_DETAIL_FIELD(host_pinned_calls), WARMUP_DETAIL_FIELD(host_pageable_calls));
  }
};

template <>
struct record_fields<pool_growth> {
  static constexpr auto get() {
    using self = pool_growth;
    return std::make_tuple(WARMUP_DETAIL_FIELD(calls_read), WARMUP_DETAIL_FIELD(grew_calls), WARMUP_DETAIL_FIELD(grown),
                           WARMUP_DETAIL_FIELD(first_call));
  }
};

template <>
struct record_fields<call_record> {
  static constexpr auto get() {
    using self = call_record;
    return std::make_tuple(WARMUP_DETAIL_FIELD(index), WARMUP_DETAIL_FIELD(host_start), WARMUP_DETAIL_FIELD(host),
                           WARMUP_DETAIL_FIELD(device_start), WARMUP_DETAIL_FIELD(device));
  }
};

template <>
struct record_fields<untimed_calls> {
  static constexpr auto get() {
    using self = untimed_calls;
    return std::make_tuple(WARMUP_DETAIL_FIELD(captured), WARMUP_DETAIL_FIELD(unavailable), WARMUP_DETAIL_FIELD(dropped),
                           WARMUP_DETAIL_FIELD(sampled_out));
  }
};

template <>
struct record_fields<site_report> {
  static constexpr auto get() {
    using self = site_report;
    return std::make_tuple(WARMUP_DETAIL_FIELD(name), WARMUP_DETAIL_FIELD(op), WARMUP_DETAIL_FIELD(calls),
                           WARMUP_DETAIL_FIELD(host), WARMUP_DETAIL_FIELD(device), WARMUP_DETAIL_FIELD(bytes),
                           WARMUP_DETAIL_FIELD(exceptions), WARMUP_DETAIL_FIELD(device_untimed),
                           WARMUP_DETAIL_FIELD(first_call_host), WARMUP_DETAIL_FIELD(pool), WARMUP_DETAIL_FIELD(notes),
                           WARMUP_DETAIL_FIELD(first_calls), WARMUP_DETAIL_FIELD(timeline));
  }
};

template <>
struct record_fields<run_identity> {
  static constexpr auto get() {
    using self = run_identity;
    return std::make_tuple(WARMUP_DETAIL_FIELD(rank), WARMUP_DETAIL_FIELD(local_rank), WARMUP_DETAIL_FIELD(world_size),
                           WARMUP_DETAIL_FIELD(launcher), WARMUP_DETAIL_FIELD(host), WARMUP_DETAIL_FIELD(pid),
                           WARMUP_DETAIL_FIELD(started), WARMUP_DETAIL_FIELD(library_version));
  }
};

template <>
struct record_fields<device_description> {
  static constexpr auto get() {
    using self = device_description;
    return std::make_tuple(WARMUP_DETAIL_FIELD(index), WARMUP_DETAIL_FIELD(name), WARMUP_DETAIL_FIELD(uuid),
                           WARMUP_DETAIL_FIELD(compute_major),
                           WARMUP_DETAIL_FIELD(compute_minor), WARMUP_DETAIL_FIELD(multiprocessors),
                           WARMUP_DETAIL_FIELD(memory_bytes), WARMUP_DETAIL_FIELD(driver_version),
                           WARMUP_DETAIL_FIELD(runtime_version), WARMUP_DETAIL_FIELD(event_pair_floor));
  }
};

template <>
struct record_fields<library_costs> {
  static constexpr auto get() {
    using self = library_costs;
    return std::make_tuple(WARMUP_DETAIL_FIELD(nvtx_init), WARMUP_DETAIL_FIELD(event_pools), WARMUP_DETAIL_FIELD(event_pairs),
                           WARMUP_DETAIL_FIELD(site_bytes), WARMUP_DETAIL_FIELD(device_probe));
  }
};

template <>
struct record_fields<report> {
  static constexpr auto get() {
    using self = report;
    return std::make_tuple(WARMUP_DETAIL_FIELD(enabled), WARMUP_DETAIL_FIELD(identity), WARMUP_DETAIL_FIELD(device), WARMUP_DETAIL_FIELD(device_status),
                           WARMUP_DETAIL_FIELD(device_pending), WARMUP_DETAIL_FIELD(attribution_source),
                           WARMUP_DETAIL_FIELD(cpu_sampling), WARMUP_DETAIL_FIELD(module_loading), WARMUP_DETAIL_FIELD(jit_cache),
                           WARMUP_DETAIL_FIELD(host_clock), WARMUP_DETAIL_FIELD(library), WARMUP_DETAIL_FIELD(notices),
                           WARMUP_DETAIL_FIELD(sites));
  }
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
