// What `sort`, `fuzz` and `bench` do with the items they sort, written once for keys and for
// key-value pairs: workload<Key, Value, Comp> (Value = no_values for keys alone) holds the
// device buffers and the operations on them: load the input, copy, poison, sort with warpsort,
// run a baseline, validate. The values of a pairs workload are the input indices 0..n-1 (an
// argsort), which is what lets its checks prove that keys and values moved together.
#pragma once

#include "baselines/cub_descending.cuh"
#include "baselines/gpu_pair_baselines.cuh"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/device_helpers.cuh"
#include "cli/tuning.hpp"
#include "cli/value_type.hpp"
#include "data/distributions.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace warpsort::cli {

/// The Value of a workload of keys alone.
struct no_values {};

/// The items of a workload (Value = no_values for keys alone) on the device, and their input:
/// shared by the built-in keys' workload and the comparator key's (key128_workload.cuh).
template <class Key, class Value>
struct workload_items {
  static constexpr bool has_values = !std::is_same_v<Value, no_values>;
  /// The values' element type (never allocated for keys alone).
  using value_t = std::conditional_t<has_values, Value, unsigned char>;
  /// Device bytes of one item: the key, and the value for pairs.
  static constexpr std::size_t item_bytes = sizeof(Key) + (has_values ? sizeof(value_t) : 0);

  /// n items on the device: keys, and values for pairs.
  struct buffers {
    detail::device_buffer<Key> keys;
    detail::device_buffer<value_t> values;
    buffers() = default;
    explicit buffers(std::size_t n) : keys(n), values(has_values ? n : 0) {}
  };

  /// The input: the host keys, and the indices 0..n-1 as values.
  static void load(buffers& b, const Key* h_keys, std::size_t n, cudaStream_t s) {
    upload(b.keys.get(), h_keys, n, s);
    if constexpr (has_values) fill_indices(b.values.get(), n, s);
  }

  static void copy(buffers& to, const buffers& from, std::size_t n, cudaStream_t s) {
    copy_on_device(to.keys.get(), from.keys.get(), n, s);
    if constexpr (has_values) copy_on_device(to.values.get(), from.values.get(), n, s);
  }
};

template <class Key, class Value, class Comp>
struct workload : workload_items<Key, Value> {
  using items = workload_items<Key, Value>;
  using typename items::buffers;
  using typename items::value_t;
  using items::has_values;
  using items::item_bytes;
  using items::load;
  using items::copy;
  using key_type = Key;
  using order = Comp;

  /// End-to-end timing and the CPU baselines run on these keys (bench).
  static constexpr bool host_runs = true;

  /// "uint32", or "uint32+uint64" for pairs (the key_type column of result rows).
  static std::string type_name() {
    const std::string key = data::key_type_name(data::key_type_of<Key>());
    if constexpr (has_values) return key + "+" + data::key_type_name(data::key_type_of<value_t>());
    else return key;
  }

  /// n keys of distribution `dist` (bench's input).
  static std::vector<Key> generate(const std::string& dist, std::uint64_t seed, std::size_t n) {
    return data::generate<Key>(dist, seed, n);
  }

  /// Every algorithm sorts the built-in keys.
  static bool runs(const std::string&) { return true; }

  static void poison(buffers& b, std::size_t n, cudaStream_t s) {
    cli::poison(b.keys.get(), n * sizeof(Key), s);
    if constexpr (has_values) cli::poison(b.values.get(), n * sizeof(value_t), s);
  }

  /// Debug: flips the lowest bit of key `index` (the fault `fuzz --inject-failure` plants).
  static void corrupt(buffers& b, std::size_t index, cudaStream_t s) {
    corrupt_key(b.keys.get(), index, s);
  }

  /// warpsort's temporary bytes for n items (the size query of sort_keys or sort_pairs).
  static std::size_t temp_bytes(std::size_t n, const sort_tuning* tuning = nullptr) {
    std::size_t bytes = 0;
    sort(nullptr, bytes, buffers(), buffers(), n, 0, nullptr, tuning);
    return bytes;
  }

  /// warpsort from `in` into `out` (the same buffers: in place), with `tuning` (a preset: the
  /// library's default policy or one of the ablation's designs, keys only) or else tuned_sort.
  /// d_temp == nullptr: only sets temp_bytes.
  static void sort(void* d_temp, std::size_t& temp_bytes, const buffers& in, const buffers& out,
                   std::size_t n, cudaStream_t s, stage_times* times = nullptr,
                   const sort_tuning* tuning = nullptr) {
    const sort_tuning& t = tuning ? *tuning : tuned_sort<Key>();
    const policy& p = t.library;
    if (t.ablation) {
      if constexpr (has_values)
        throw input_error("the ablation's designs sort keys only (no --values)");
      else
        ablation::sort_keys<Key, Comp>(d_temp, temp_bytes, in.keys.get(), out.keys.get(), n,
                                       Comp{}, s, t.design, times);
    } else if constexpr (has_values)
      sort_pairs<Key, value_t, Comp>(d_temp, temp_bytes, in.keys.get(), out.keys.get(),
                                        in.values.get(), out.values.get(), n, Comp{}, s, p, times);
    else
      sort_keys<Key, Comp>(d_temp, temp_bytes, in.keys.get(), out.keys.get(), n, Comp{}, s, p,
                           times);
  }

  /// Device bytes `warpsort sort` needs at most (memory_check.hpp's estimate).
  static std::size_t sort_device_bytes(std::size_t n, std::size_t temp_bytes, bool out_of_place) {
    if constexpr (has_values)
      return sort_pairs_device_bytes_needed(n, sizeof(Key), sizeof(value_t), temp_bytes,
                                            out_of_place);
    else
      return sort_device_bytes_needed(n, sizeof(Key), temp_bytes, std::is_floating_point_v<Key>,
                                      out_of_place);
  }

  /// Validates `out`, warpsort's output for the input loaded from h_keys, after warpsort's
  /// temporary storage has been freed. In place (in == nullptr): the input is loaded into new
  /// buffers for the check. Out of place: `in` is what the sort read; it must still hold the
  /// input bit for bit (a sort must not write its input), and is then the references' input.
  /// Keys: against thrust::sort and cub::DeviceRadixSort (validate_against_references); pairs:
  /// against CUB's two stable pair sorts (validate_pairs_against_references). Returns an empty
  /// string when valid, else what is wrong.
  static std::string validate(const Key* h_keys, const buffers* in, const buffers& out,
                              std::size_t n, cudaStream_t s) {
    buffers loaded;
    if (in != nullptr) {
      if (const auto changed = first_changed_key(in->keys.get(), h_keys, n, s))
        return "the sort modified its (const) input keys at index " + std::to_string(*changed);
      if constexpr (has_values)
        if (const auto changed = first_non_index(in->values.get(), n, s))
          return "the sort modified its (const) input values at index " + std::to_string(*changed);
    } else {
      loaded = buffers(n);
      load(loaded, h_keys, n, s);
      in = &loaded;
    }
    validation_report report;
    if constexpr (has_values)
      report = validate_pairs_against_references<Key, value_t, Comp>(
          in->keys.get(), in->values.get(), out.keys.get(), out.values.get(), n, Comp{}, s);
    else
      report = validate_against_references<Key, Comp>(in->keys.get(), out.keys.get(), n, Comp{}, s);
    return report.ok ? std::string() : report.message();
  }

  /// The check of many outputs of one input (bench validates every run): the references are
  /// computed once from the pristine input, which must outlive the checker unchanged.
  class checker {
   public:
    checker(const buffers& pristine, std::size_t n, cudaStream_t s) {
      if constexpr (has_values)
        impl_ = std::make_unique<impl>(pristine.keys.get(), pristine.values.get(), n, Comp{}, s);
      else
        impl_ = std::make_unique<impl>(pristine.keys.get(), n, Comp{}, s);
    }
    /// Empty when `out` is a correct sort of the input (`stable`: of pairs, the stable one).
    std::string check(const buffers& out, bool stable) const {
      validation_report report;
      if constexpr (has_values) report = impl_->check(out.keys.get(), out.values.get(), stable);
      else report = impl_->check(out.keys.get());
      return report.ok ? std::string() : report.message();
    }
    /// Keys alone: the thrust::sort reference, on the device (for host-side checks).
    const Key* sorted_keys() const {
      static_assert(!has_values, "keys alone");
      return impl_->sorted();
    }

   private:
    using impl = std::conditional_t<has_values, pair_reference_checker<Key, value_t, Comp>,
                                    reference_checker<Key, Comp>>;
    std::unique_ptr<impl> impl_;
  };

  /// A GPU baseline of this workload by name, timed beside warpsort through the same code:
  /// keys: baselines::make_keys_sorter (CUB's descending sorts under a descending order);
  /// pairs: baselines::make_gpu_pair_baseline. Construction touches no device; prepare()
  /// allocates the temporary storage, so a timed sort() allocates nothing.
  class baseline {
   public:
    explicit baseline(const std::string& name) {
      if constexpr (has_values) sorter_ = baselines::make_gpu_pair_baseline<Key, value_t>(name);
      else sorter_ = baselines::make_keys_sorter<Key>(name, order_traits<Key, Comp>::descending);
    }
    std::size_t temp_bytes(std::size_t n) const { return sorter_->temp_bytes(n); }
    void prepare(std::size_t n) { sorter_->prepare(n); }
    /// Sorts b's n items in place, asynchronously on s.
    void sort(buffers& b, std::size_t n, cudaStream_t s) {
      if constexpr (has_values)
        sorter_->sort(b.keys.get(), b.values.get(), n, order_traits<Key, Comp>::descending, s);
      else
        sorter_->sort(b.keys.get(), n, s);
    }
    /// Whether equal keys keep their input order (checked exactly for pairs).
    bool stable() const {
      if constexpr (has_values) return sorter_->stable();
      else return false;
    }

   private:
    std::unique_ptr<std::conditional_t<has_values, baselines::gpu_pair_sorter<Key, value_t>,
                                       baselines::gpu_sorter<Key>>>
        sorter_;
  };
};

/// Calls f(workload<Key, Value, Comp>{}) for the key type, the order (warpsort::less or
/// warpsort::greater) and the values (none: no_values); in f:
/// `using W = decltype(w);`. input_error for an unsupported key type.
template <class F>
decltype(auto) with_workload(data::key_type type, bool descending, value_type values, F&& f) {
  return with_key_type(type, [&](auto tag) {
    using Key = typename decltype(tag)::type;
    auto with_order = [&](auto comp) {
      using Comp = decltype(comp);
      if (values == value_type::none) return f(workload<Key, no_values, Comp>{});
      return with_value_type(values, [&](auto vtag) {
        return f(workload<Key, typename decltype(vtag)::type, Comp>{});
      });
    };
    return descending ? with_order(warpsort::greater<Key>{}) : with_order(warpsort::less<Key>{});
  });
}

}  // namespace warpsort::cli
