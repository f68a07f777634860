// CPU baselines by name: the bitonic sorts (cpu_bitonic.cpp), std::sort and tbb::parallel_sort.
// Floating point keys: NaN is not supported (all of them assume a strict weak order).
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <warpsort/key_types.hpp>

#include <algorithm>
#include <cstdint>

#include "baselines/cpu_baselines.hpp"
#include "warpsort/error.hpp"

namespace warpsort::baselines {

std::vector<std::string> cpu_baseline_names() {
  return {"cpu_bitonic_seq", "cpu_bitonic_par", "std_sort", "tbb_parallel_sort"};
}

template <class Key>
void cpu_sort(const std::string& name, Key* keys, std::size_t n, unsigned threads) {
  if (name == "cpu_bitonic_seq") {
    cpu_bitonic_sort_sequential(keys, n);
  } else if (name == "cpu_bitonic_par") {
    cpu_bitonic_sort_parallel(keys, n, threads);  // 0: all hardware threads
  } else if (name == "std_sort") {
    std::sort(keys, keys + n);
  } else if (name == "tbb_parallel_sort") {
    if (threads == 0) {
      tbb::parallel_sort(keys, keys + n);
    } else {
      tbb::task_arena arena(static_cast<int>(threads));
      arena.execute([&] { tbb::parallel_sort(keys, keys + n); });
    }
  } else {
    std::string known;
    for (const auto& k : cpu_baseline_names()) known += (known.empty() ? "" : ", ") + k;
    throw input_error("unknown CPU baseline '" + name + "' (known: " + known + ")");
  }
}

#define WARPSORT_INSTANTIATE_CPU_SORT(name, Key) \
  template void cpu_sort<Key>(const std::string&, Key*, std::size_t, unsigned);
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_CPU_SORT)
#undef WARPSORT_INSTANTIATE_CPU_SORT

}  // namespace warpsort::baselines
