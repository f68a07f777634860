// Input distributions for experiments (data/README.md documents each and its source).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsort::data {

/// Every distribution's name, in the order experiments list them:
/// uniform, gaussian, zero, sorted, reverse_sorted, nearly_sorted, bucket_sorted, staggered,
/// g_group, deterministic_duplicates, randomized_duplicates, entropy_0.811, entropy_0.544,
/// entropy_0.337, entropy_0.201.
const std::vector<std::string>& distribution_names();

/// Parameters of the Helman-Bader-JaJa style distributions (data/README.md gives the formulas).
/// The papers set p to their machine's processor count; here p is fixed so inputs do not depend
/// on the machine, and a power of two so every sub-range is exact in every key type.
inline constexpr unsigned hbj_p = 128;             // "processors" (blocks of n/p keys) and buckets
inline constexpr unsigned hbj_log2_p = 7;
inline constexpr unsigned g_group_g = 8;           // g of g_group (divides p)
inline constexpr unsigned rd_range = 32;           // randomized_duplicates: values 0..31
inline constexpr std::size_t nearly_sorted_swaps_per = 100;  // one random swap per 100 keys

/// True if `name` is one of distribution_names().
bool is_distribution(const std::string& name);

/// Fills out[0..n) with distribution `name` drawn with `seed`. Deterministic: the same
/// (name, n, seed) gives the same keys whatever the number of threads used. Uses all hardware
/// threads for large n. Throws warpsort::input_error for an unknown name.
/// Explicitly instantiated for uint32_t, int32_t, float, uint64_t, int64_t, double.
template <class Key>
void generate(const std::string& name, std::uint64_t seed, Key* out, std::size_t n);

/// Upper bound on the threads generate() uses; 0 (the default) means
/// std::thread::hardware_concurrency(). The keys do not depend on it (tests vary it to check).
void set_generation_threads(unsigned threads);

template <class Key>
std::vector<Key> generate(const std::string& name, std::uint64_t seed, std::size_t n) {
  std::vector<Key> keys(n);
  generate(name, seed, keys.data(), n);
  return keys;
}

}  // namespace warpsort::data
