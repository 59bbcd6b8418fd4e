#ifndef KOKKOSRMSNORM_HPP
#define KOKKOSRMSNORM_HPP

#include "KokkosRMSNorm_RMSNorm.hpp"
#include "KokkosRMSNorm_Version.hpp"

#endif
