// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_CUDA_HPP
#define KOKKOSRMSNORM_TEST_CUDA_HPP

// What the suites need to know of the CUDA backend: its cases are
// CasesFor<Kokkos::Cuda> (Test_Cases.hpp), with the common tolerances.
#include "Test_Cases.hpp"

#endif
