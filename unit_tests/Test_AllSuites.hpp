// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_ALLSUITES_HPP
#define KOKKOSRMSNORM_TEST_ALLSUITES_HPP

// Every backend-agnostic suite; a backend's test file instantiates them all
// for its execution space with KOKKOSRMSNORM_INSTANTIATE_TESTS.

#include "Test_AddRMSNorm.hpp"
#include "Test_Backward.hpp"
#include "Test_InvalidArguments.hpp"
#include "Test_Numerics.hpp"
#include "Test_Options.hpp"
#include "Test_Profiling.hpp"
#include "Test_RMSNorm.hpp"
#include "Test_Randomized.hpp"
#include "Test_Workspace.hpp"

#ifdef KOKKOSRMSNORM_HAS_KOKKOSKERNELS
#include "Test_KokkosKernels.hpp"
#define KOKKOSRMSNORM_INSTANTIATE_KOKKOSKERNELS_TESTS(Name, Space) \
  INSTANTIATE_TYPED_TEST_SUITE_P(                                  \
      Name, KokkosKernelsTest,                                     \
      KokkosRMSNorm::Test::KokkosKernelsCasesFor<Space>);
#else
#define KOKKOSRMSNORM_INSTANTIATE_KOKKOSKERNELS_TESTS(Name, Space)
#endif

#define KOKKOSRMSNORM_INSTANTIATE_TESTS(Name, Space)                    \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, RMSNormTest,                     \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, InvalidArgumentsTest,            \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, NumericsTest,                    \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, RandomizedTest,                  \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, OptionsTest,                     \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, AddRMSNormTest,                  \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, BackwardTest,                    \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, WorkspaceTest,                   \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Name, ProfilingTest,                   \
                                 KokkosRMSNorm::Test::CasesFor<Space>); \
  KOKKOSRMSNORM_INSTANTIATE_KOKKOSKERNELS_TESTS(Name, Space)

#endif
