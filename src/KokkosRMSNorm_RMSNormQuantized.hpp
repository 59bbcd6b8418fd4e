// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_RMSNORMQUANTIZED_HPP
#define KOKKOSRMSNORM_RMSNORMQUANTIZED_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_Forward.hpp"
#include "Impl/KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Quantization.hpp"
#include "KokkosRMSNorm_Weight.hpp"

namespace KokkosRMSNorm {

/// rms_norm with y quantized, in one pass over memory: y(i, j) = x(i, j) *
/// rstd(i) * weight(j) is computed in float, divided by its row's scale and
/// stored as a one-byte code (`quantization`: fp8_e4m3, fp8_e4m3_per_row,
/// int8 or int8_per_row; see KokkosRMSNorm_Quantization.hpp). x holds
/// float, half_t or bhalf_t; y is a View of std::uint8_t or std::int8_t of
/// x's extents, which may not share memory with x. A scale or minimum that is
/// not a finite positive float with a finite reciprocal, or scales of the
/// wrong extents, throw std::invalid_argument before any launch, leaving y
/// and the scales untouched. Otherwise as rms_norm (asynchronous on `space`,
/// one kernel, no allocation).
template <
    class ExecutionSpace, class XView, class Weight, class YView, class Format,
    class ScaleView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_quantized(const ExecutionSpace& space, const XView& x,
                        const Weight& weight, const YView& y, double eps,
                        const Quantization<Format, ScaleView>& quantization) {
  Impl::rms_norm_forward("KokkosRMSNorm::rms_norm_quantized", space, x,
                         Impl::None(), Impl::None(), weight, y, Impl::None(),
                         eps, nullptr, quantization);
}

/// rms_norm_quantized on a default instance of x's execution space.
template <class XView, class Weight, class YView, class Format, class ScaleView,
          class = std::enable_if_t<Kokkos::is_view<XView>::value>>
void rms_norm_quantized(const XView& x, const Weight& weight, const YView& y,
                        double eps,
                        const Quantization<Format, ScaleView>& quantization) {
  rms_norm_quantized(typename XView::execution_space(), x, weight, y, eps,
                     quantization);
}

/// add_rms_norm with y quantized, as vLLM's
/// fused_add_rms_norm_static_fp8_quant: sum = x + residual (in x's type;
/// sum may be residual or x), y = the quantized rms_norm of sum.
template <
    class ExecutionSpace, class XView, class ResidualView, class SumView,
    class Weight, class YView, class Format, class ScaleView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void add_rms_norm_quantized(
    const ExecutionSpace& space, const XView& x, const ResidualView& residual,
    const SumView& sum, const Weight& weight, const YView& y, double eps,
    const Quantization<Format, ScaleView>& quantization) {
  Impl::rms_norm_forward("KokkosRMSNorm::add_rms_norm_quantized", space, x,
                         residual, sum, weight, y, Impl::None(), eps, nullptr,
                         quantization);
}

}  // namespace KokkosRMSNorm

#endif
