// SPDX-License-Identifier: BSD-3-Clause
// rmsnorm_run: normalizes a seeded random rows x N matrix with KokkosRMSNorm
// on the default execution space and checks it against a host reference.
// Prints the Kokkos version and backend first and True or False last.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <KokkosRMSNorm.hpp>

namespace {

struct Options {
  std::uint64_t rows = 64;
  std::uint64_t n = 256;
  double eps = 1e-6;
  std::uint64_t seed = 12345;
};

const char* const usage =
    "usage: rmsnorm_run [--M rows] [--N row_length] [--eps eps] [--seed s]\n"
    "                   [Kokkos flags such as --kokkos-num-threads=4]\n"
    "  defaults: --M 64 --N 256 --eps 1e-6 --seed 12345\n";

// Reads a whole number with `read` (std::stoull, std::stod); false on
// anything else, including a value out of range.
template <class T, class Read>
bool parse_whole(const std::string& text, T& value, Read read) {
  try {
    std::size_t used = 0;
    value = read(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

bool parse_count(const std::string& text, std::uint64_t& value) {
  // std::stoull would accept a sign and leading spaces.
  return !text.empty() && text.find_first_not_of("0123456789") == text.npos &&
         parse_whole(text, value, [](const std::string& t, std::size_t* used) {
           return std::stoull(t, used);
         });
}

bool parse_real(const std::string& text, double& value) {
  return parse_whole(text, value, [](const std::string& t, std::size_t* used) {
    return std::stod(t, used);
  });
}

// Parses "--flag value" pairs into `options`; returns what it could not
// understand, or an empty string.
std::string parse(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag != "--M" && flag != "--N" && flag != "--seed" && flag != "--eps")
      return "unknown flag " + flag;
    if (i + 1 == argc)
      return flag + " needs a value";
    const std::string value = argv[i + 1];
    const bool parsed = flag == "--M"      ? parse_count(value, options.rows)
                        : flag == "--N"    ? parse_count(value, options.n)
                        : flag == "--seed" ? parse_count(value, options.seed)
                                           : parse_real(value, options.eps);
    if (!parsed)
      return "bad value for " + flag + ": " + value;
  }
  return {};
}

// Runs rms_norm and compares with a double reference on the host, with
// numpy.allclose semantics. Each y is a product x * rstd * w, so its float
// error is that of the float sum of squares (about sqrt(N) roundings) plus a
// few roundings: rtol = 1e-4 covers N up to millions; atol = 1e-6 only
// matters for outputs near zero.
bool run(const Options& options) {
  constexpr double rtol = 1e-4, atol = 1e-6;
  using Matrix = Kokkos::View<float**>;
  Matrix x("x", options.rows, options.n), y("y", options.rows, options.n);
  Kokkos::View<float*> weight("weight", options.n);
  Kokkos::Random_XorShift64_Pool<> pool(options.seed);
  Kokkos::fill_random(x, pool, -1.0f, 1.0f);
  Kokkos::fill_random(weight, pool, 0.5f, 1.5f);
  Kokkos::deep_copy(y, std::nanf(""));

  KokkosRMSNorm::rms_norm(x, weight, y, options.eps);

  const auto x_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto w_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), weight);
  const auto y_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  std::size_t mismatches = 0;
  double worst = 0;
  for (std::uint64_t i = 0; i < options.rows; ++i) {
    double sum_of_squares = 0;
    for (std::uint64_t j = 0; j < options.n; ++j) {
      sum_of_squares += double(x_host(i, j)) * x_host(i, j);
    }
    const double rstd = 1 / std::sqrt(sum_of_squares / options.n + options.eps);
    for (std::uint64_t j = 0; j < options.n; ++j) {
      const double expected = x_host(i, j) * rstd * w_host(j);
      const double error = std::abs(y_host(i, j) - expected);
      if (!(error <= atol + rtol * std::abs(expected)))
        ++mismatches;
      if (!(error <= worst))
        worst = error;
    }
  }
  std::cout << "M=" << options.rows << " N=" << options.n
            << " eps=" << options.eps << " seed=" << options.seed
            << ": max abs error " << worst << ", " << mismatches
            << " elements outside rtol=" << rtol << " atol=" << atol << '\n';
  return mismatches == 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      std::cout << usage;
      return 0;
    }
  }
  // Kokkos first: it takes its own flags (--kokkos-num-threads, ...) out of
  // argv, leaving ours.
  Kokkos::ScopeGuard kokkos(argc, argv);
  Options options;
  const std::string error = parse(argc, argv, options);
  if (!error.empty()) {
    std::cerr << "rmsnorm_run: " << error << '\n' << usage;
    return 2;
  }
  std::cout << "Kokkos " << KOKKOS_VERSION / 10000 << '.'
            << KOKKOS_VERSION / 100 % 100 << '.' << KOKKOS_VERSION % 100
            << ", backend " << Kokkos::DefaultExecutionSpace::name() << '\n';
  bool ok = false;
  try {
    ok = run(options);
  } catch (const std::exception& error) {
    std::cout << error.what() << '\n';
  }
  std::cout << (ok ? "True" : "False") << std::endl;
  return ok ? 0 : 1;
}
