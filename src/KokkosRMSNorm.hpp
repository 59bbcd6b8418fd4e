// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_HPP
#define KOKKOSRMSNORM_HPP

#include "KokkosRMSNorm_AddRMSNorm.hpp"
#include "KokkosRMSNorm_Backward.hpp"
#include "KokkosRMSNorm_Quantization.hpp"
#include "KokkosRMSNorm_RMSNorm.hpp"
#include "KokkosRMSNorm_RMSNormQuantized.hpp"
#include "KokkosRMSNorm_Sharded.hpp"
#include "KokkosRMSNorm_Version.hpp"
#include "KokkosRMSNorm_Weight.hpp"
#include "KokkosRMSNorm_Workspace.hpp"

#endif
