// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_PROFILING_HPP
#define KOKKOSRMSNORM_TEST_PROFILING_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// The regions a call opened and the kernels it launched, as a Kokkos Tools
// library sees them, recorded while an object of this class lives.
class RecordedToolEvents {
 public:
  RecordedToolEvents() {
    regions().clear();
    kernels().clear();
    Kokkos::Tools::Experimental::set_push_region_callback(
        [](const char* name) { regions().emplace_back(name); });
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(
        [](const char* name, std::uint32_t, std::uint64_t*) {
          kernels().emplace_back(name);
        });
  }
  ~RecordedToolEvents() {
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  }
  RecordedToolEvents(const RecordedToolEvents&) = delete;
  RecordedToolEvents& operator=(const RecordedToolEvents&) = delete;

  static std::vector<std::string>& regions() {
    static std::vector<std::string> names;
    return names;
  }
  static std::vector<std::string>& kernels() {
    static std::vector<std::string> names;
    return names;
  }
};

template <class Case>
class ProfilingTest : public ::testing::Test {};

TYPED_TEST_SUITE_P(ProfilingTest);

TYPED_TEST_P(ProfilingTest, EachCallIsARegionAroundKernelsNamedAfterIt) {
  using Space = typename TypeParam::execution_space;
  using Accumulation =
      Impl::accumulation_type_t<typename TypeParam::value_type>;
  using Strings = std::vector<std::string>;
  const std::size_t rows = 64, n = 256;
  typename TypeParam::matrix x("x", rows, n), y("y", rows, n),
      residual("residual", rows, n), sum("sum", rows, n), dy("dy", rows, n),
      dx("dx", rows, n);
  typename TypeParam::vector weight("weight", n), dweight("dweight", n);
  Kokkos::View<Accumulation*, Space> rstd("rstd", rows);
  Testing::fill_uniform(x, 1);
  Testing::fill_uniform(residual, 2);
  Testing::fill_uniform(dy, 3);
  Testing::fill_uniform(weight, 4);
  Workspace<Space> workspace;
  // Grown here, so that the recorded call allocates nothing.
  rms_norm_backward(Space(), dy, x, weight, rstd, dx, dweight, workspace);
  Space().fence();
  {
    const RecordedToolEvents events;
    rms_norm(Space(), x, weight, y, 1e-6, rstd);
    Space().fence();
    EXPECT_EQ(events.regions(), Strings{"KokkosRMSNorm::rms_norm"});
    EXPECT_EQ(events.kernels(), Strings{"KokkosRMSNorm::rms_norm"});
  }
  {
    const RecordedToolEvents events;
    add_rms_norm(Space(), x, residual, sum, weight, y, 1e-6);
    Space().fence();
    EXPECT_EQ(events.regions(), Strings{"KokkosRMSNorm::add_rms_norm"});
    EXPECT_EQ(events.kernels(), Strings{"KokkosRMSNorm::add_rms_norm"});
  }
  {
    const RecordedToolEvents events;
    rms_norm_backward(Space(), dy, x, weight, rstd, dx, dweight, workspace);
    Space().fence();
    EXPECT_EQ(events.regions(), Strings{"KokkosRMSNorm::rms_norm_backward"});
    EXPECT_EQ(events.kernels(),
              (Strings{"KokkosRMSNorm::rms_norm_backward",
                       "KokkosRMSNorm::rms_norm_backward_dweight"}));
  }
}

REGISTER_TYPED_TEST_SUITE_P(ProfilingTest,
                            EachCallIsARegionAroundKernelsNamedAfterIt);

}  // namespace KokkosRMSNorm::Test

#endif
