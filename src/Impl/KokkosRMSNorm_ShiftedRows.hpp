// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_SHIFTEDROWS_HPP
#define KOKKOSRMSNORM_IMPL_SHIFTEDROWS_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Pack.hpp"

// Rows that do not start on a Pack (an odd row length, a View starting one
// value in, a row pitch of no whole Packs) moved as Packs all the same: a row
// is covered by the aligned Packs that overlap it, and each of those inside
// the row moves as one access; only the one or two at its ends move value by
// value. Moved value by value throughout, rows of floats reached 29-34% of
// the copy on the H200, shifted 82-87% (log 63).

namespace KokkosRMSNorm::Impl {

// The rows of a rank-2 View of unit column stride as rows of `packs` Packs of
// Width: Pack j of row i is the aligned Pack j after the one holding the
// row's first value, `lead(i)` values of which come before that value.
// Values outside the row read as zero and are never written.
template <class T, int Width>
struct ShiftedPackRows {
  using non_const_value_type = Pack<std::remove_const_t<T>, Width>;
  using pack = non_const_value_type;

  T* data;
  std::size_t rows;
  std::size_t row_stride;  // values from a row's start to the next one's
  int n;                   // values a row
  int packs;               // Packs a row: as many as the longest-led row has

  KOKKOS_INLINE_FUNCTION std::size_t extent(int dimension) const {
    return dimension == 0 ? rows : std::size_t(packs);
  }

  KOKKOS_INLINE_FUNCTION T* row_start(std::size_t row) const {
    return data + row * row_stride;
  }

  // Values of row's first Pack before the row's first value.
  KOKKOS_INLINE_FUNCTION int lead(std::size_t row) const {
    return static_cast<int>(reinterpret_cast<std::uintptr_t>(row_start(row)) /
                            sizeof(T) % Width);
  }

  // The index in the row of Pack j's first value (negative in the first
  // Pack of a row that leads), and whether the Pack lies inside the row.
  KOKKOS_INLINE_FUNCTION int first_of(std::size_t row, int j) const {
    return j * Width - lead(row);
  }
  KOKKOS_INLINE_FUNCTION bool inside(int first) const {
    return first >= 0 && first + Width <= n;
  }

  // Aligned Pack j of the row, its address rounded down from the row's
  // start so that the compiler knows it aligned: as the row's start plus
  // first_of, nvcc stored 16-bit Packs value by value (log 84).
  KOKKOS_INLINE_FUNCTION PackOf<T, Width>* pack_at(std::size_t row,
                                                   int j) const {
    const auto start = reinterpret_cast<std::uintptr_t>(row_start(row));
    return reinterpret_cast<PackOf<T, Width>*>(start - start % sizeof(pack)) +
           j;
  }

  // Pack j of the row, whole where it lies inside the row (through
  // Backend::load_evicting_last), value by value at the row's ends.
  template <class Backend>
  KOKKOS_INLINE_FUNCTION pack load(std::size_t row, int j) const {
    const int first = first_of(row, j);
    if (inside(first)) {
      return Backend::load_evicting_last(pack_at(row, j));
    }
    return load_ends(row, first);
  }

  KOKKOS_INLINE_FUNCTION pack read(std::size_t row, int j) const {
    const int first = first_of(row, j);
    if (inside(first)) {
      return *pack_at(row, j);
    }
    return load_ends(row, first);
  }

  KOKKOS_INLINE_FUNCTION void write(std::size_t row, int j,
                                    const pack& value) const {
    const int first = first_of(row, j);
    if (inside(first)) {
      *pack_at(row, j) = value;
      return;
    }
    T* start = row_start(row);
    for (int k = 0; k < Width; ++k) {
      if (first + k >= 0 && first + k < n) {
        start[first + k] = value.lane[k];
      }
    }
  }

 private:
  KOKKOS_INLINE_FUNCTION pack load_ends(std::size_t row, int first) const {
    const T* start = row_start(row);
    pack value;
    for (int k = 0; k < Width; ++k) {
      value.lane[k] = first + k >= 0 && first + k < n
                          ? start[first + k]
                          : std::remove_const_t<T>(0.0f);
    }
    return value;
  }
};

template <class Rows>
inline constexpr bool is_shifted_pack_rows_v = false;
template <class T, int Width>
inline constexpr bool is_shifted_pack_rows_v<ShiftedPackRows<T, Width>> = true;

// A weight read beside ShiftedPackRows: its Pack j for a row that leads by
// `lead` holds the row's factors of that Pack, gathered value by value (the
// weight stays in cache, so its loads cost no memory traffic).
template <class View, int Width>
struct ShiftedPackRow {
  using value_type = typename View::non_const_value_type;
  using pack = Pack<value_type, Width>;

  View values;

  KOKKOS_INLINE_FUNCTION pack read(int j, int lead) const {
    const int first = j * Width - lead;
    const int n = static_cast<int>(values.extent(0));
    pack value;
    for (int k = 0; k < Width; ++k) {
      value.lane[k] = first + k >= 0 && first + k < n ? values(first + k)
                                                      : value_type(0.0f);
    }
    return value;
  }
};

// Values of `view`'s first row before its first Pack of Width.
template <int Width, class View>
std::size_t lead_of_first_row(const View& view) {
  using T = typename View::non_const_value_type;
  return reinterpret_cast<std::uintptr_t>(view.data()) / sizeof(T) % Width;
}

// Whether rows of unit column stride all lead alike, row by row, in every
// row argument: equal leads and row strides modulo a Pack, where `view`
// is one of them and `x` the rows of x (values of another type than x's,
// such as a quantized y, count in values).
template <int Width, class View, class XRows>
bool rows_lead_as(const View& view, const XRows& x) {
  if constexpr (is_none_v<View>) {
    return true;
  } else {
    return view.stride(1) == 1 &&
           (view.extent(0) <= 1 ||
            view.stride(0) % Width == x.stride(0) % Width) &&
           lead_of_first_row<Width>(view) == lead_of_first_row<Width>(x);
  }
}

// `view`'s rows as ShiftedPackRows, or None.
template <int Width, class View>
auto as_shifted_pack_rows(const View& view) {
  if constexpr (is_none_v<View>) {
    return None();
  } else {
    using Rows = ShiftedPackRows<typename View::value_type, Width>;
    const int n = static_cast<int>(view.extent(1));
    const std::size_t row_stride = view.extent(0) > 1 ? view.stride(0) : 0;
    Rows rows{view.data(), view.extent(0), row_stride, n, 0};
    // Rows a whole number of Packs apart lead alike; others by up to a Pack
    // less one value.
    const int most_lead = row_stride % Width == 0 ? rows.lead(0) : Width - 1;
    rows.packs = (most_lead + n + Width - 1) / Width;
    return rows;
  }
}

// The values a row of Packs j holds of the row, read or written: rows of
// aligned Packs (a View, or HeadRows), or ShiftedPackRows.
template <class Backend, class Rows>
KOKKOS_INLINE_FUNCTION auto load_pack(const Rows& rows, std::size_t row,
                                      int j) {
  if constexpr (!is_shifted_pack_rows_v<Rows>) {
    return Backend::load_evicting_last(&rows(row, j));
  } else {
    return rows.template load<Backend>(row, j);
  }
}

template <class Rows>
KOKKOS_INLINE_FUNCTION auto read_pack(const Rows& rows, std::size_t row,
                                      int j) {
  if constexpr (!is_shifted_pack_rows_v<Rows>) {
    return typename Rows::non_const_value_type(rows(row, j));
  } else {
    return rows.read(row, j);
  }
}

template <class Rows, class Value>
KOKKOS_INLINE_FUNCTION void write_pack(const Rows& rows, std::size_t row, int j,
                                       const Value& value) {
  if constexpr (!is_shifted_pack_rows_v<Rows>) {
    rows(row, j) = value;
  } else {
    rows.write(row, j, value);
  }
}

// Values before row's first Pack boundary: 0 for aligned Packs.
template <class Rows>
KOKKOS_INLINE_FUNCTION int lead_of([[maybe_unused]] const Rows& rows,
                                   [[maybe_unused]] std::size_t row) {
  if constexpr (!is_shifted_pack_rows_v<Rows>) {
    return 0;
  } else {
    return rows.lead(row);
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
