// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_WEIGHT_HPP
#define KOKKOSRMSNORM_WEIGHT_HPP

namespace KokkosRMSNorm {

/// The weight argument of a weightless RMSNorm, y = x * rstd, and the
/// weight-gradient argument of a backward pass that computes none.
struct NoWeight {};
inline constexpr NoWeight no_weight{};

/// A weight applied as (1 + w), the 1 added in the accumulation type before
/// the product, as Gemma stores its RMSNorm weights.
template <class WeightView>
struct OnePlus {
  WeightView weight;
};

template <class WeightView>
OnePlus<WeightView> one_plus(const WeightView& weight) {
  return {weight};
}

}  // namespace KokkosRMSNorm

#endif
