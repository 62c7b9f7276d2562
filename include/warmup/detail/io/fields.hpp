/// @file
/// @brief One description of each report record, from which the JSON and CSV writers work.
///
/// Each report struct lists its fields once, by member name: the report's own types in
/// `record_fields` specialisations (detail/io/report_fields.hpp, apart from report.hpp so that
/// a file that measures does not compile them), the merge's and the comparison's in a static
/// `fields()`. The JSON key and the CSV column are that name, so any key of any report can be
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

/// The field list of `T`: a specialisation for each of the report's types
/// (detail/io/report_fields.hpp); this one for a type with a static `fields()`; none otherwise.
template <class T, class = void>
struct record_fields {};
template <class T>
struct record_fields<T, std::void_t<decltype(T::fields())>> {
  static constexpr auto get() { return T::fields(); }
};

/// Calls `f(name, value)` for each field `T`'s list holds, in order.
template <class T, class F>
void for_each_field(const T& record, F&& f) {
  std::apply([&](const auto&... fs) { (f(fs.name, record.*(fs.member)), ...); }, record_fields<T>::get());
}

/// Calls `f(name, pointer)` for each field, the pointer null when `record` is: for a CSV
/// header, or the empty cells of a record that is absent.
template <class T, class F>
void for_each_field_of(const T* record, F&& f) {
  std::apply([&](const auto&... fs) { (f(fs.name, record != nullptr ? &(record->*(fs.member)) : nullptr), ...); },
             record_fields<T>::get());
}

template <class T, class = void>
inline constexpr bool is_record = false;
template <class T>
inline constexpr bool is_record<T, std::void_t<decltype(record_fields<T>::get())>> = true;

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

// WARMUP_DETAIL_FIELD(member), a field of `self` named by its member, is in detail/macros.hpp:
// defined again at each outermost header, as the field lists of later headers need it.

#include "warmup/detail/header_end.hpp"
