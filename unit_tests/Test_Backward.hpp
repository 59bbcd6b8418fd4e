// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_BACKWARD_HPP
#define KOKKOSRMSNORM_TEST_BACKWARD_HPP

#include <cstring>
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

namespace KokkosRMSNorm::Test {

template <class Case>
class BackwardTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;
  using Space = typename Case::execution_space;
  using Matrix = typename Case::matrix;
  using Vector = typename Case::vector;
  using Accumulation = Impl::accumulation_type_t<T>;
  using Rstd = Kokkos::View<Accumulation*, Space>;
  Workspace<Space> workspace;  // grown by the first calls, reused
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();

  // Seeded dy, x and weight, and the rstd of x computed on the host and
  // rounded to the accumulation type, as a forward pass would store it.
  struct Inputs {
    Matrix dy, x;
    Vector weight;
    Rstd rstd;
  };
  static Inputs make_inputs(std::size_t rows, std::size_t n) {
    Inputs in{Matrix("dy", rows, n), Matrix("x", rows, n), Vector("weight", n),
              Rstd("rstd", rows)};
    Testing::fill_uniform(in.dy, 3 * n + rows);
    Testing::fill_uniform(in.x, 3 * n + rows + 1);
    Testing::fill_uniform(in.weight, 3 * n + rows + 2);
    const auto rstd =
        Testing::reference_rstd(Testing::to_host_doubles(in.x), 1e-6);
    const auto rstd_host = Kokkos::create_mirror_view(in.rstd);
    for (std::size_t i = 0; i < rows; ++i) {
      rstd_host(i) = static_cast<Accumulation>(rstd(i));
    }
    Kokkos::deep_copy(in.rstd, rstd_host);
    return in;
  }

  // Compares dx, and dweight unless it is None, with the double reference
  // for the weight factors `factors`. Each is a sum of terms rounded in the
  // accumulation type (the terms of sum(g * x) for dx, the rows for
  // dweight), and then rounded to T: its error is bounded by T's rtol times
  // the sum of the terms' magnitudes (the reference's scale), however they
  // cancel.
  template <class DWeight>
  static void expect_results(const Inputs& in,
                             const Testing::HostVector& factors,
                             const Matrix& dx, const DWeight& dweight,
                             const std::string& what) {
    const auto expected = Testing::reference_rms_norm_backward(
        Testing::to_host_doubles(in.dy), Testing::to_host_doubles(in.x),
        factors, Testing::to_host_doubles_1d(in.rstd));
    const auto dx_mismatches = Testing::allclose_to_scale(
        Testing::to_host_doubles(dx), expected.dx, expected.dx_scale,
        Tolerance<T>::rtol, Tolerance<T>::atol);
    EXPECT_FALSE(dx_mismatches) << dx_mismatches.count << " dx mismatches for "
                                << what << ", first " << dx_mismatches.first;
    if constexpr (!std::is_same_v<DWeight, NoWeight>) {
      const auto mismatches = Testing::allclose_to_scale(
          Testing::as_row(Testing::to_host_doubles_1d(dweight)),
          Testing::as_row(expected.dweight),
          Testing::as_row(expected.dweight_scale), Tolerance<T>::rtol,
          Tolerance<T>::atol);
      EXPECT_FALSE(mismatches) << mismatches.count << " dweight mismatches for "
                               << what << ", first " << mismatches.first;
    }
  }
};

TYPED_TEST_SUITE_P(BackwardTest);

TYPED_TEST_P(BackwardTest, Weight) {
  // Rows from none (dweight is zero) to more than the teams; lengths that
  // are and are not whole Packs, held four or eight Packs a lane, or swept
  // twice. On a GPU, 16-bit rows of 512 and 4000 are held in scratch, and
  // teams of several rows (more rows than teams) load each next row while
  // they finish the current one, with idle lanes at 4000; 16-bit rows of
  // 20000 are held four Packs a lane by more than 256 lanes.
  for (auto [rows, n] : {std::pair<std::size_t, std::size_t>{0, 256},
                         {1, 1},
                         {200, 16},
                         {7, 256},
                         {64, 4097},
                         {16, 6000},
                         {3, 16384},
                         {5, 20000},
                         {2000, 512},
                         {2500, 4000}}) {
    const auto in = TestFixture::make_inputs(rows, n);
    typename TestFixture::Matrix dx("dx", rows, n);
    typename TestFixture::Vector dweight("dweight", n);
    Testing::poison(dx, TestFixture::nan);
    Testing::poison(dweight, TestFixture::nan);
    rms_norm_backward(typename TestFixture::Space(), in.dy, in.x, in.weight,
                      in.rstd, dx, dweight, this->workspace);
    typename TestFixture::Space().fence();
    TestFixture::expect_results(
        in, Testing::to_host_doubles_1d(in.weight), dx, dweight,
        "rows=" + std::to_string(rows) + " N=" + std::to_string(n));
  }
}

TYPED_TEST_P(BackwardTest, OnePlusAndNoWeight) {
  const std::size_t rows = 33, n = 1000;
  const auto in = TestFixture::make_inputs(rows, n);
  typename TestFixture::Matrix dx("dx", rows, n);
  typename TestFixture::Vector dweight("dweight", n);
  Testing::poison(dx, TestFixture::nan);
  Testing::poison(dweight, TestFixture::nan);
  rms_norm_backward(typename TestFixture::Space(), in.dy, in.x,
                    one_plus(in.weight), in.rstd, dx, dweight, this->workspace);
  typename TestFixture::Space().fence();
  Testing::HostVector factors = one_plus_factors(in.weight);
  TestFixture::expect_results(in, factors, dx, dweight, "one_plus");

  Testing::poison(dx, TestFixture::nan);
  rms_norm_backward(typename TestFixture::Space(), in.dy, in.x, no_weight,
                    in.rstd, dx, no_weight, this->workspace);
  typename TestFixture::Space().fence();
  TestFixture::expect_results(in, unit_factors(n), dx, no_weight, "no weight");
}

TYPED_TEST_P(BackwardTest, DxInPlaceOfDy) {
  // More rows than teams: on a GPU a bf16 team copies each next row of dy
  // to scratch while it writes dx over the current one.
  const std::size_t rows = 2500, n = 4096;
  const auto in = TestFixture::make_inputs(rows, n);
  typename TestFixture::Matrix dy_before("dy before", rows, n);
  Kokkos::deep_copy(dy_before, in.dy);
  const auto original =
      typename TestFixture::Inputs{dy_before, in.x, in.weight, in.rstd};
  rms_norm_backward(typename TestFixture::Space(), in.dy, in.x, in.weight,
                    in.rstd, in.dy, no_weight, this->workspace);
  typename TestFixture::Space().fence();
  TestFixture::expect_results(original, Testing::to_host_doubles_1d(in.weight),
                              in.dy, no_weight, "dx in place of dy");
}

TYPED_TEST_P(BackwardTest, DeterministicWeightGradient) {
  // Two calls on the same inputs give dweight with the same bits.
  using T = typename TestFixture::T;
  const std::size_t rows = 3000, n = 1024;
  const auto in = TestFixture::make_inputs(rows, n);
  typename TestFixture::Matrix dx("dx", rows, n);
  std::vector<std::vector<unsigned char>> bits;
  for (int call = 0; call < 2; ++call) {
    typename TestFixture::Vector dweight("dweight", n);
    rms_norm_backward(typename TestFixture::Space(), in.dy, in.x, in.weight,
                      in.rstd, dx, dweight, this->workspace);
    const auto host =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dweight);
    const auto* bytes = reinterpret_cast<const unsigned char*>(host.data());
    bits.emplace_back(bytes, bytes + n * sizeof(T));
  }
  EXPECT_EQ(bits[0], bits[1]);
}

TYPED_TEST_P(BackwardTest, EveryTeamKernel) {
  // The GPUs' kernel (BackwardKernel) in every shape the launcher takes for
  // the rows' Packs, on every backend, the host's too (where a team is one
  // thread, and the chooser picks the host's own kernel): two and four Packs
  // a lane (Packs of more than four values) or four and eight (the others)
  // held in registers, four held in team scratch (16-bit rows on a GPU;
  // registers elsewhere), and rows swept twice; teams of up to 256 lanes and,
  // in the shapes that take them, more; rows that fill the lanes or leave some
  // idle; groups of four rows, the last of one, of ten, the last of three
  // (rows swept twice add their weight terms in blocks of eight), and of
  // one row (which they take one at a time).
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  using Shape = Impl::BackwardLaunchShape;
  using Sweeps = Impl::LaunchShape::Sweeps;
  using Holding = Impl::LaunchShape::Holding;
  constexpr int width =
      std::is_same_v<typename TypeParam::layout, Kokkos::LayoutRight>
          ? Impl::vector_width_v<T>
          : 1;
  constexpr bool sixteen_bit_packs = width > 4;
  const std::size_t rows = 13;
  const auto team_sizes = Impl::is_gpu_v<Space> ? std::vector<int>{64, 96, 320}
                                                : std::vector<int>{1};
  for (const auto& grouping :
       {std::pair{4, 4}, std::pair{2, 10}, std::pair{13, 1}}) {
    // Named, not bound, since lambdas capture them (C++17).
    const int groups = grouping.first, rows_per_group = grouping.second;
    for (int lanes : team_sizes) {
      const auto shape = [&](int packs_per_lane, Sweeps sweeps,
                             Holding holding) {
        return Shape{groups,         rows_per_group, lanes,
                     packs_per_lane, sweeps,         holding};
      };
      const int held = sixteen_bit_packs ? 2 : 8;
      const std::vector<std::pair<Shape, std::vector<int>>> shapes_and_packs = {
          {shape(held, Sweeps::one, Holding::registers),
           {held * lanes - 1, held * lanes}},
          {shape(4, Sweeps::one, Holding::registers),
           {4 * lanes - 1, 4 * lanes}},
          {shape(4, Sweeps::one, Holding::team_scratch),
           {4 * lanes - 1, 4 * lanes}},
          {shape(4, Sweeps::two, Holding::registers),
           {8 * lanes + 1, 12 * lanes}}};
      for (const auto& [team_shape, row_packs] : shapes_and_packs) {
        // More than 256 lanes hold rows only in registers, in one sweep.
        const bool launched =
            lanes <= 256 || (team_shape.sweeps == Sweeps::one &&
                             team_shape.holding == Holding::registers &&
                             Impl::held_by_wide_backward_teams(
                                 team_shape.packs_per_lane, width, sizeof(T)));
        if (!launched) {
          continue;
        }
        for (int packs : row_packs) {
          const std::size_t n = std::size_t(packs) * width;
          const auto in = TestFixture::make_inputs(rows, n);
          typename TestFixture::Matrix dx("dx", rows, n);
          typename TestFixture::Vector dweight("dweight", n);
          Testing::poison(dx, TestFixture::nan);
          Testing::poison(dweight, TestFixture::nan);
          const std::size_t partials_bytes =
              groups * std::size_t(packs) *
              sizeof(Impl::Pack<typename TestFixture::Accumulation, width>);
          const auto pass = Impl::make_backward_pass<width, Space>(
              in.dy, in.x, in.weight, in.rstd, dx, dweight,
              this->workspace.reserve(Space(), partials_bytes).data(), groups,
              rows_per_group);
          Impl::launch_backward_teams("KokkosRMSNorm::Test::EveryTeamKernel",
                                      Space(), team_shape, pass);
          Impl::sum_partials(Space(), pass, dweight);
          Space().fence();
          TestFixture::expect_results(
              in, Testing::to_host_doubles_1d(in.weight), dx, dweight,
              "N=" + std::to_string(n) + " lanes=" + std::to_string(lanes) +
                  " packs_per_lane=" +
                  std::to_string(team_shape.packs_per_lane) + " swept " +
                  (team_shape.sweeps == Sweeps::two ? "twice" : "once") +
                  (team_shape.holding == Holding::team_scratch ? " in scratch"
                                                               : "") +
                  " groups of " + std::to_string(rows_per_group));
        }
      }
    }
  }
}

REGISTER_TYPED_TEST_SUITE_P(BackwardTest, Weight, OnePlusAndNoWeight,
                            DxInPlaceOfDy, DeterministicWeightGradient,
                            EveryTeamKernel);

}  // namespace KokkosRMSNorm::Test

#endif
