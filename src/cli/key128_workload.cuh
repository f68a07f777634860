// The bench's workload of the comparator key (data/key128.hpp): the interface of workload.cuh's
// workload for one more key type whose order is a comparator, so that bench.cu times it through
// the same code. warpsort sorts it through custom.cuh, the baselines are those with a comparator
// form (comparator_baselines.cuh); it sorts ascending, on the device only (no end-to-end or CPU
// runs). Its sorts and checks are compiled once, in key128_sorts.cu.
#pragma once

#include "baselines/comparator_baselines.cuh"
#include "cli/device_helpers.cuh"
#include "cli/tuning.hpp"
#include "cli/value_type.hpp"
#include "cli/workload.cuh"
#include "data/key128.hpp"
#include "data/key_types.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/error.hpp>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace warpsort::cli {

/// warpsort's sort of the comparator key (keys alone: Value = void), with the default policy
/// for 16-byte keys and WARPSORT_POLICY applied; d_temp == nullptr only sets temp_bytes.
template <class Value>
void sort_key128(void* d_temp, std::size_t& temp_bytes, const data::key128* keys_in,
                 data::key128* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                 cudaStream_t stream, stage_times* times);

/// The keys' reference: the input sorted by thrust::sort with the same comparator, once.
class key128_reference {
 public:
  key128_reference(const data::key128* d_input, std::size_t n, cudaStream_t stream);
  /// Empty when d_out equals the reference bit for bit, else the first position that differs.
  std::string check(const data::key128* d_out) const;
  const data::key128* sorted() const { return sorted_.get(); }

 private:
  detail::device_buffer<data::key128> sorted_;
  std::size_t n_;
  cudaStream_t stream_;
};

/// The pairs' check, with no reference: the input values were the indices 0..n-1, so the pairs
/// are a (stable) sort of the input exactly when every value is an index whose input key the
/// pair carries bit for bit, every index occurs once, the keys are in order, and (stable) equal
/// keys' indices increase. Empty when all holds, else the first fault.
template <class Value>
std::string check_key128_pairs(const data::key128* keys_in, const data::key128* keys_out,
                               const Value* values_out, std::size_t n, bool stable,
                               cudaStream_t stream);

/// Value: no_values (keys alone) or the values' type.
template <class Value>
struct key128_workload : workload_items<data::key128, Value> {
  using items = workload_items<data::key128, Value>;
  using typename items::buffers;
  using typename items::value_t;
  using items::has_values;
  using items::item_bytes;
  using items::load;
  using items::copy;
  using key_type = data::key128;
  using order = data::key128_less;
  /// No end-to-end timing and no CPU baselines (those are the built-in keys').
  static constexpr bool host_runs = false;

  static std::string type_name() {
    if constexpr (has_values)
      return data::key128_name + "+" + data::key_type_name(data::key_type_of<value_t>());
    else
      return data::key128_name;
  }

  static std::vector<key_type> generate(const std::string& dist, std::uint64_t seed, std::size_t n) {
    return data::generate_key128(dist, seed, n);
  }

  /// Whether `algorithm` sorts this key: warpsort, and the baselines with a comparator form.
  static bool runs(const std::string& algorithm) {
    return algorithm == "warpsort" || baselines::has_key128_baseline(algorithm, has_values);
  }

  static std::size_t temp_bytes(std::size_t n, const sort_tuning* = nullptr) {
    std::size_t bytes = 0;
    sort(nullptr, bytes, buffers(), buffers(), n, 0, nullptr, nullptr);
    return bytes;
  }

  /// `tuning` (the ablation's presets) is for the built-in keys: an input_error.
  static void sort(void* d_temp, std::size_t& temp_bytes, const buffers& in, const buffers& out,
                   std::size_t n, cudaStream_t s, stage_times* times = nullptr,
                   const sort_tuning* tuning = nullptr) {
    if (tuning != nullptr)
      throw input_error("the presets sort the built-in key types, not " + data::key128_name);
    if constexpr (has_values)
      sort_key128<value_t>(d_temp, temp_bytes, in.keys.get(), out.keys.get(), in.values.get(),
                           out.values.get(), n, s, times);
    else
      sort_key128<void>(d_temp, temp_bytes, in.keys.get(), out.keys.get(), nullptr, nullptr, n, s,
                        times);
  }

  class checker {
   public:
    checker(const buffers& pristine, std::size_t n, cudaStream_t s)
        : keys_in_(pristine.keys.get()), n_(n), stream_(s) {
      if constexpr (!has_values) reference_ = std::make_unique<key128_reference>(keys_in_, n, s);
    }
    std::string check(const buffers& out, bool stable) const {
      if constexpr (has_values)
        return check_key128_pairs<value_t>(keys_in_, out.keys.get(), out.values.get(), n_, stable,
                                           stream_);
      else
        return reference_->check(out.keys.get());
    }

   private:
    const key_type* keys_in_;
    std::size_t n_;
    cudaStream_t stream_;
    std::unique_ptr<key128_reference> reference_;
  };

  class baseline {
   public:
    explicit baseline(const std::string& name) {
      if constexpr (has_values) sorter_ = baselines::make_key128_pair_baseline<value_t>(name);
      else sorter_ = baselines::make_key128_baseline(name);
    }
    std::size_t temp_bytes(std::size_t n) const { return sorter_->temp_bytes(n); }
    void prepare(std::size_t n) { sorter_->prepare(n); }
    void sort(buffers& b, std::size_t n, cudaStream_t s) {
      if constexpr (has_values) sorter_->sort(b.keys.get(), b.values.get(), n, false, s);
      else sorter_->sort(b.keys.get(), n, s);
    }
    bool stable() const {
      if constexpr (has_values) return sorter_->stable();
      else return false;
    }

   private:
    std::unique_ptr<std::conditional_t<has_values, baselines::gpu_pair_sorter<key_type, value_t>,
                                       baselines::gpu_sorter<key_type>>>
        sorter_;
  };
};

}  // namespace warpsort::cli
