// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_RMSNORM_HPP
#define KOKKOSRMSNORM_TEST_RMSNORM_HPP

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"
#include "Test_QuantizedReference.hpp"

namespace KokkosRMSNorm::Test {

template <class Case>
class RMSNormTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;

  // Runs rms_norm on views of the given extents (x may be a subview) and
  // compares every element of y, poisoned with NaN beforehand, with the
  // double host reference.
  template <class XView, class WeightView, class YView>
  void expect_matches_reference(const XView& x, const WeightView& weight,
                                const YView& y, double eps, double scale,
                                std::uint64_t seed) {
    Testing::fill_uniform(x, seed, scale);
    Testing::fill_uniform(weight, seed + 1);
    Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
    const typename Case::execution_space space;
    rms_norm(space, x, weight, y, eps);
    space.fence();
    expect_reference_result(x, weight, y, eps,
                            "rows=" + std::to_string(x.extent(0)) +
                                " N=" + std::to_string(x.extent(1)) +
                                " eps=" + std::to_string(eps) +
                                " scale=" + std::to_string(scale));
  }

  void expect_matches_reference(std::size_t rows, std::size_t n, double eps,
                                double scale = 1.0, std::uint64_t seed = 2024) {
    typename Case::matrix x("x", rows, n), y("y", rows, n);
    typename Case::vector weight("weight", n);
    expect_matches_reference(x, weight, y, eps, scale, seed);
  }
};

TYPED_TEST_SUITE_P(RMSNormTest);

TYPED_TEST_P(RMSNormTest, SeedCase) {
  this->expect_matches_reference(64, 256, 1e-6);
}

TYPED_TEST_P(RMSNormTest, RowLengths) {
  // On a GPU, 20000 16-bit values are eight Packs a lane in registers,
  // re-read for the scaling; 8000 floats and 16384 16-bit values are rows of
  // more than 16 KB a team, which teams hold in scratch (with idle lanes at
  // 8000) in a call that is not latency-bound, such as one of 160 rows.
  for (std::size_t n :
       {1, 2, 3, 31, 127, 256, 1000, 4097, 8000, 16384, 20000}) {
    this->expect_matches_reference(7, n, 1e-6);
  }
  for (std::size_t n : {8000, 16384}) {
    this->expect_matches_reference(160, n, 1e-6);
  }
}

TYPED_TEST_P(RMSNormTest, RowCounts) {
  for (std::size_t rows : {0, 1, 7, 64, 1000}) {
    this->expect_matches_reference(rows, 256, 1e-6);
  }
  this->expect_matches_reference(1000, 4097, 1e-6);
}

TYPED_TEST_P(RMSNormTest, Eps) {
  // eps = 0 is valid for rows that are not all zero (the inputs never are).
  for (double eps : {0.0, 1e-6, 1e-2}) {
    this->expect_matches_reference(64, 256, eps);
  }
}

TYPED_TEST_P(RMSNormTest, Magnitudes) {
  // Scales chosen so that N * x^2 neither underflows nor overflows the
  // accumulation type: the numerics promise nothing beyond that range. At
  // the tiny scale eps dominates the mean, which checks where eps is added.
  using T = typename TestFixture::T;
  for (double scale : {Tolerance<T>::tiny, 1e-3, Tolerance<T>::huge}) {
    for (double eps : {0.0, 1e-6}) {
      this->expect_matches_reference(64, 1000, eps, scale);
    }
  }
}

TYPED_TEST_P(RMSNormTest, MisalignedSubviews) {
  // Views that start one element into their allocation cannot be read with
  // vector loads; the result must not depend on that.
  using T = typename TestFixture::T;
  using Space = typename TypeParam::execution_space;
  const std::size_t rows = 33, n = 1024;
  Kokkos::View<T**, Kokkos::LayoutRight, Space> x_all("x", rows, n + 1),
      y_all("y", rows, n + 1);
  Kokkos::View<T*, Space> weight_all("weight", 2 * n);
  const auto columns = Kokkos::make_pair(std::size_t(1), n + 1);
  const auto x = Kokkos::subview(x_all, Kokkos::ALL, columns);
  const auto y = Kokkos::subview(y_all, Kokkos::ALL, columns);
  // A weight one value in as well (leading as the rows), one that starts on
  // a Pack (leading otherwise), and one of stride two.
  this->expect_matches_reference(x, Kokkos::subview(weight_all, columns), y,
                                 1e-6, 1.0, 99);
  this->expect_matches_reference(
      x, Kokkos::subview(weight_all, Kokkos::make_pair(std::size_t(0), n)), y,
      1e-6, 1.0, 100);
  const Kokkos::View<T*, Kokkos::LayoutStride, Space, Kokkos::MemoryUnmanaged>
      every_other(weight_all.data(), Kokkos::LayoutStride(n, 2));
  this->expect_matches_reference(x, every_other, y, 1e-6, 1.0, 101);
}

TYPED_TEST_P(RMSNormTest, EveryLaunchShape) {
  // The kernel under launch shapes the chooser may not pick on this
  // backend, element by element (Packs of one): lanes that are a team's
  // threads or a thread's vector lanes, filling whole warps or not (CUDA
  // sums whole warps with shuffles, others with Kokkos's reductions), 1 to 8
  // values a lane, rows that fill the lanes exactly, leave a lane idle, or
  // take several sweeps; vector lanes of one value holding it for 2 or 4
  // rows at once, the last of them past the end for some teams (13 rows);
  // and rows split across 2 or 3 teams, on every backend: where a row's
  // teams do not all run at once (one at a time on Serial), the first sums
  // the others' chunks itself (RowSplit).
  using Space = typename TypeParam::execution_space;
  constexpr bool gpu = Impl::is_gpu_v<Space>;
  const std::vector<int> team_threads =  // a host team is 1 thread
      gpu ? std::vector<int>{64, 48} : std::vector<int>{1};
  const std::vector<int> vector_lanes =
      gpu ? std::vector<int>{32, 8} : std::vector<int>{1};
  const int rows = 13;
  using Backend = Impl::Backend<Space>;
  using Shape = Impl::LaunchShape;
  // Each shape, built for the rows it launches on, with the Packs its lanes
  // cover in one sweep (of all a row's chunks).
  std::vector<std::pair<int, std::function<Shape(const Impl::RowFacts&)>>>
      shapes;
  for (int per_lane : {1, 2, 4, 8}) {
    for (int threads : team_threads) {
      shapes.emplace_back(threads * per_lane, [=](const Impl::RowFacts& facts) {
        return Shape::team_per_row<Backend>(facts, threads, per_lane);
      });
      for (int teams = 2; teams <= 3 && per_lane >= 4; ++teams) {
        shapes.emplace_back(
            threads * per_lane * teams, [=](const Impl::RowFacts& facts) {
              return Shape::split_row<Backend>(facts, teams, threads, per_lane);
            });
      }
    }
    for (int vector : vector_lanes) {
      for (int per_thread = 1; per_thread <= (per_lane == 1 ? 4 : 1);
           per_thread *= 2) {
        shapes.emplace_back(
            vector * per_lane, [=](const Impl::RowFacts& facts) {
              return Shape::rows_per_vector(facts, 4, gpu ? 4 / per_thread : 1,
                                            vector, per_lane, per_thread);
            });
      }
    }
  }
  using T = typename TypeParam::value_type;
  const auto describe = [](int n, const Shape& shape) {
    return "N=" + std::to_string(n) +
           " lanes=" + std::to_string(shape.lanes()) +
           " rows_per_team=" + std::to_string(shape.rows_per_team) +
           " packs_per_lane=" + std::to_string(shape.packs_per_lane) +
           " rows_per_thread=" + std::to_string(shape.rows_per_thread) +
           " teams_per_row=" + std::to_string(shape.teams_per_row);
  };
  Workspace<Space> workspace;
  using Split = Impl::RowSplit<Impl::accumulation_type_t<T>>;
  const auto launch = [&](const auto& math, const Shape& shape) {
    Impl::launch_rms_norm(
        "KokkosRMSNorm::Test::EveryLaunchShape", Space(), math, shape,
        workspace.reserve(Space(), Split::bytes(rows, shape.teams_per_row))
            .data());
    Space().fence();
  };
  for (const auto& [sweep, shape_for] : shapes) {
    for (int n : {sweep - 1, sweep, 3 * sweep + 1}) {
      if (n < 1)
        continue;
      typename TypeParam::matrix x("x", rows, n), y("y", rows, n);
      typename TypeParam::vector weight("weight", n);
      Testing::fill_uniform(x, n);
      Testing::fill_uniform(weight, n + 1);
      Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
      const auto math = Impl::make_row_math<1>(x, Impl::None(), Impl::None(),
                                               weight, y, Impl::None(), 1e-6);
      const Shape shape = shape_for(Impl::RowFacts::of(math));
      launch(math, shape);
      const std::string what = describe(n, shape);
      expect_reference_result(x, weight, y, 1e-6, what);
      // The same shape over rows that do not start on a Pack, where the
      // layout allows (unit column stride): a View one value in, its rows
      // one value more than whole Packs apart, so that they lead by
      // different values (ShiftedPackRows). The values beside the rows, in
      // x, the weight and y, are NaN: read into a row's result, or
      // overwritten, they show.
      if constexpr (std::is_same_v<typename TypeParam::layout,
                                   Kokkos::LayoutRight>) {
        constexpr int width = Impl::vector_width_v<T>;
        const int values = n * width - 1;
        typename TypeParam::matrix x_all("x", rows, values + 2),
            y_all("y", rows, values + 2);
        const auto columns = Kokkos::make_pair(1, values + 1);
        const auto shifted_x = Kokkos::subview(x_all, Kokkos::ALL, columns);
        const auto shifted_y = Kokkos::subview(y_all, Kokkos::ALL, columns);
        // The weight leads by n % width values: by none, or not as the rows.
        typename TypeParam::vector weight_all("weight", values + width);
        const auto shifted_weight = Kokkos::subview(
            weight_all, Kokkos::make_pair(n % width, n % width + values));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        Testing::poison(x_all, nan);
        Testing::poison(weight_all, nan);
        Testing::poison(y_all, nan);
        Testing::fill_uniform(shifted_x, values);
        Testing::fill_uniform(shifted_weight, values + 1);
        const auto shifted_math =
            Impl::make_row_math<width, Impl::RowStarts::anywhere>(
                shifted_x, Impl::None(), Impl::None(), shifted_weight,
                shifted_y, Impl::None(), 1e-6);
        const Shape shifted_shape = shape_for(Impl::RowFacts::of(shifted_math));
        launch(shifted_math, shifted_shape);
        const std::string shifted_what =
            "shifted, " + describe(values, shifted_shape);
        expect_reference_result(shifted_x, shifted_weight, shifted_y, 1e-6,
                                shifted_what);
        const auto all = Testing::to_host_doubles(y_all);
        for (int row = 0; row < rows; ++row) {
          EXPECT_TRUE(std::isnan(all(row, 0)) &&
                      std::isnan(all(row, values + 1)))
              << shifted_what << ": row " << row << " written outside";
        }
      }
      // The same shape storing FP8 codes with a scale a row, whose largest
      // |y| the reduction summing the squares finds too (rows with their
      // own scale are never split).
      if constexpr (!std::is_same_v<T, double>) {
        if (shape.teams_per_row == 1) {
          Kokkos::View<std::uint8_t**, typename TypeParam::layout, Space> codes(
              "codes", rows, n);
          Kokkos::View<float*, Space> scales("scales", rows);
          const auto quantized_math = Impl::make_row_math<1>(
              x, Impl::None(), Impl::None(), weight, codes, Impl::None(), 1e-6,
              Impl::quantized_output(
                  "EveryLaunchShape", fp8_e4m3_per_row(scales, 1e-3f), x,
                  [](const char*, const auto& values) { return values; }));
          Impl::launch_rms_norm("KokkosRMSNorm::Test::EveryLaunchShape",
                                Space(), quantized_math, shape, nullptr);
          Space().fence();
          const auto host_scales = Testing::to_host_doubles_1d(scales);
          expect_quantized_reference<Fp8E4M3>(
              Testing::to_host_doubles(x), Testing::to_host_doubles_1d(weight),
              Testing::to_host_doubles(codes), 1e-6, 0, 1e-3, &host_scales,
              "fp8 per row, " + what);
        }
      }
    }
  }
}

TYPED_TEST_P(RMSNormTest, InPlace) {
  // y may be x: each lane reads its elements before it writes them (held
  // in registers or, on a GPU, at N = 8192 for floats and 16384 for 16-bit
  // values in 160 rows, a call that is not latency-bound, in team scratch).
  using Space = typename TypeParam::execution_space;
  for (auto [rows, n] : {std::pair<std::size_t, std::size_t>{5, 256},
                         {5, 4097},
                         {160, 8192},
                         {160, 16384},
                         {5, 70000}}) {
    typename TypeParam::matrix x("x", rows, n), x_before("x_before", rows, n);
    typename TypeParam::vector weight("weight", n);
    Testing::fill_uniform(x, n);
    Testing::fill_uniform(weight, n + 1);
    Kokkos::deep_copy(x_before, x);
    rms_norm(Space(), x, weight, x, 1e-6);
    Space().fence();
    expect_reference_result(
        x_before, weight, x, 1e-6,
        "in place, rows=" + std::to_string(rows) + " N=" + std::to_string(n));
  }
}

TYPED_TEST_P(RMSNormTest, Rank3) {
  // (batch, sequence, N) is normalized over N, row by row: the same result
  // as the rank-2 View of its batch x sequence rows over the same memory.
  using T = typename TestFixture::T;
  using Layout = typename TypeParam::layout;
  using Space = typename TypeParam::execution_space;
  using Cube = Kokkos::View<T***, Layout, Space>;
  using Rows = Kokkos::View<T**, Layout, Space, Kokkos::MemoryUnmanaged>;
  const std::size_t batch = 3, sequence = 5, n = 1000;
  Cube x("x", batch, sequence, n), y("y", batch, sequence, n);
  typename TypeParam::vector weight("weight", n);
  const Rows x_rows(x.data(), batch * sequence, n);
  const Rows y_rows(y.data(), batch * sequence, n);
  Testing::fill_uniform(x_rows, 31);
  Testing::fill_uniform(weight, 32);
  Testing::poison(y_rows, std::numeric_limits<double>::quiet_NaN());
  rms_norm(Space(), x, weight, y, 1e-6);
  Space().fence();
  expect_reference_result(x_rows, weight, y_rows, 1e-6, "rank 3");
}

TYPED_TEST_P(RMSNormTest, WeightOfAnotherType) {
  // The weight's type is independent of x's: float x with a double weight,
  // double x with a float weight; the accumulation type follows x.
  using T = typename TestFixture::T;
  using Space = typename TypeParam::execution_space;
  using Other = std::conditional_t<std::is_same_v<T, float>, double, float>;
  typename TypeParam::matrix x("x", 64, 256), y("y", 64, 256);
  Kokkos::View<Other*, Space> weight("weight", 256);
  this->expect_matches_reference(x, weight, y, 1e-6, 1.0, 77);
}

TYPED_TEST_P(RMSNormTest, StaticRowLength) {
  // Rows whose length x's type fixes (View<T*[N]>) take kernels specialised
  // on it, and on a GPU, where a team's lanes cover such a row exactly (the
  // calls of at most 262144 Packs), a constant lane count: lengths of one
  // Pack, of a team's exact cover (2048, 4096) and of idle lanes (5000), on
  // 1 to 300 rows, against the reference and, bit for bit, against the same
  // rows with N known at run time only (the same lanes add in the same
  // order).
  using T = typename TestFixture::T;
  using Space = typename TypeParam::execution_space;
  const auto check = [](auto row_length) {
    constexpr std::size_t n = decltype(row_length)::value;
    using Static = Kokkos::View<T* [n], Kokkos::LayoutRight, Space,
                                Kokkos::MemoryUnmanaged>;
    for (std::size_t rows : {1, 5, 300}) {
      Kokkos::View<T**, Kokkos::LayoutRight, Space> x("x", rows, n),
          y("y", rows, n), y_run_time("y_run_time", rows, n);
      typename TypeParam::vector weight("weight", n);
      Testing::fill_uniform(x, rows + n);
      Testing::fill_uniform(weight, rows + n + 1);
      Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
      rms_norm(Space(), Static(x.data(), rows), weight, Static(y.data(), rows),
               1e-6);
      rms_norm(Space(), x, weight, y_run_time, 1e-6);
      Space().fence();
      const std::string what =
          "static N=" + std::to_string(n) + " rows=" + std::to_string(rows);
      expect_reference_result(x, weight, y, 1e-6, what);
      const auto got = Testing::to_host_doubles(y);
      const auto run_time = Testing::to_host_doubles(y_run_time);
      std::size_t differing = 0;
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          differing += got(i, j) != run_time(i, j);
        }
      }
      EXPECT_EQ(differing, 0u) << what;
    }
  };
  check(std::integral_constant<std::size_t, 8>());
  check(std::integral_constant<std::size_t, 2048>());
  check(std::integral_constant<std::size_t, 4096>());
  check(std::integral_constant<std::size_t, 5000>());
}

REGISTER_TYPED_TEST_SUITE_P(RMSNormTest, SeedCase, RowLengths, RowCounts, Eps,
                            Magnitudes, MisalignedSubviews, EveryLaunchShape,
                            InPlace, Rank3, WeightOfAnotherType,
                            StaticRowLength);

}  // namespace KokkosRMSNorm::Test

#endif
