// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_OPENMP_HPP
#define KOKKOSRMSNORM_TEST_OPENMP_HPP

// What the suites need to know of the OpenMP backend: its cases are
// CasesFor<Kokkos::OpenMP> (Test_Cases.hpp), with the common tolerances.
#include "Test_Cases.hpp"

#endif
