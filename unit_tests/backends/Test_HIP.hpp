// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_HIP_HPP
#define KOKKOSRMSNORM_TEST_HIP_HPP

// What the suites need to know of the HIP backend: its cases are
// CasesFor<Kokkos::HIP> (Test_Cases.hpp), with the common tolerances.
#include "Test_Cases.hpp"

#endif
