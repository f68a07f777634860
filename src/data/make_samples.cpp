// Writes the small sample datasets of data/samples/ (see data/README.md):
//   warpsort_make_samples OUT_DIR
// The files depend only on the generators and the fixed seed, so rerunning this after a change
// to distributions.cpp shows whether the committed samples are still current (a CTest does).
#include "data/dataset_io.hpp"
#include "data/distributions.hpp"
#include "data/key_types.hpp"

#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t kSeed = 1;
constexpr std::size_t kKeys = 1000;

template <class Key>
void write(const std::string& dir, const std::string& dist, const std::string& ext) {
  using namespace warpsort::data;
  const std::vector<Key> keys = generate<Key>(dist, kSeed, kKeys);
  const key_type t = key_type_of<Key>();
  const std::string path =
      dir + "/" + dist + "_" + key_type_name(t) + "_" + std::to_string(kKeys) + ext;
  write_dataset(path, t, keys.data(), keys.size());
  std::cout << path << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  try {
    write<std::uint32_t>(dir, "uniform", ".npy");
    write<std::uint32_t>(dir, "uniform", ".bin");  // the same keys, raw little-endian
    write<float>(dir, "gaussian", ".npy");
    write<std::int32_t>(dir, "randomized_duplicates", ".npy");
    write<std::int64_t>(dir, "deterministic_duplicates", ".npy");
    write<std::uint64_t>(dir, "staggered", ".npy");
    write<double>(dir, "nearly_sorted", ".npy");
    write<std::uint32_t>(dir, "entropy_0.337", ".npy");
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
