/// @file
/// @brief One description of each report record, from which the JSON and CSV writers work.
///
/// Each report struct lists its fields once, in a static `fields()` (report.hpp), by member
/// name: the JSON key and the CSV column are that name, so any key of any report can be
/// grepped back to its field, and a new field is written everywhere once it is listed.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

template <class T, class M>
struct field {
  using pointer = M T::*;
  const char* name;
  pointer member;
};

template <class T, class M>
constexpr field<T, M> make_field(const char* name, M T::*member) noexcept {
  return {name, member};
}

/// Calls `f(name, value)` for each field `T::fields()` lists, in order.
template <class T, class F>
void for_each_field(const T& record, F&& f) {
  std::apply([&](const auto&... fs) { (f(fs.name, record.*(fs.member)), ...); }, T::fields());
}

/// Calls `f(name, pointer)` for each field, the pointer null when `record` is: for a CSV
/// header, or the empty cells of a record that is absent.
template <class T, class F>
void for_each_field_of(const T* record, F&& f) {
  std::apply([&](const auto&... fs) { (f(fs.name, record != nullptr ? &(record->*(fs.member)) : nullptr), ...); },
             T::fields());
}

template <class T, class = void>
inline constexpr bool is_record = false;
template <class T>
inline constexpr bool is_record<T, std::void_t<decltype(T::fields())>> = true;

template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;

template <class T>
inline constexpr bool is_vector = false;
template <class T, class A>
inline constexpr bool is_vector<std::vector<T, A>> = true;

}  // namespace detail
WARMUP_END_NAMESPACE

/// Names a field of `self` (an alias the struct's `fields()` declares) by its member name.
#define WARMUP_DETAIL_FIELD(member) ::cuda_warmup::detail::make_field(#member, &self::member)

#include "warmup/detail/header_end.hpp"
