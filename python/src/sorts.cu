// The module's CUDA side (see sorts.hpp): dtype names dispatched over the one list of key and
// value types (include/warpsort/key_types.hpp), every CUDA call checked.
#include "sorts.hpp"

#include <warpsort/key_types.hpp>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

namespace warpsort_py {
namespace {

template <class T>
struct tag {
  using type = T;
};

/// Calls f(tag<Key>{}) for the key type named `name`.
template <class F>
void with_key_type(const std::string& name, F&& f) {
#define WARPSORT_PY_KEY_(kname, Key) \
  if (name == #kname) return f(tag<Key>{});
  WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_PY_KEY_)
#undef WARPSORT_PY_KEY_
  throw dtype_error("warpsort: unsupported key dtype " + name);
}

/// Calls f(tag<Value>{}) for the value type named `name` (the list is the same for every key).
template <class F>
void with_value_type(const std::string& name, F&& f) {
#define WARPSORT_PY_VALUE_(vname, Value, Key, A) \
  if (name == #vname) return f(tag<Value>{});
  WARPSORT_VALUE_TYPES_(WARPSORT_PY_VALUE_, void, ~)
#undef WARPSORT_PY_VALUE_
  throw dtype_error("warpsort: unsupported value dtype " + name + " (values are 4- or 8-byte words)");
}

void check(cudaError_t code, const char* what) {
  if (code == cudaSuccess) return;
  // a failed call also sets the runtime's last error: clear it, or the next launch check of
  // this thread (cudaGetLastError) would report this failure as its own
  cudaGetLastError();
  throw warpsort::cuda_error(code, std::string("warpsort (python): ") + what + " failed: " +
                                         cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
                                         ")");
}

cudaStream_t as_stream(std::uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

/// Makes `device` current for the call and restores the caller's device after it.
class device_guard {
 public:
  explicit device_guard(int device) {
    device_count();
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (device >= 0 && device != previous_) check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~device_guard() { cudaSetDevice(previous_); }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = 0;
};

/// The module's own stream-ordered memory pool on the current device (one per device, made on
/// first use), for its temporary storage. It keeps what is freed into it (release threshold:
/// all), so a sort does not map its storage anew after every synchronization (milliseconds at
/// 2^28 keys); being the module's own, it leaves the device's default pool, which other code
/// may use, as it was.
cudaMemPool_t module_pool() {
  static std::mutex m;
  static std::map<int, cudaMemPool_t> pools;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard<std::mutex> lock(m);
  if (const auto found = pools.find(device); found != pools.end()) return found->second;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
  std::uint64_t keep = ~std::uint64_t{0};
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
        "cudaMemPoolSetAttribute(ReleaseThreshold)");
  pools.emplace(device, pool);
  return pool;
}

/// Stream-ordered scratch memory, given back on the stream even when the sort throws.
class stream_buffer {
 public:
  stream_buffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes == 0) return;
    check(cudaMallocFromPoolAsync(&ptr_, bytes, module_pool(), stream),
          "cudaMallocFromPoolAsync (temporary storage)");
  }
  ~stream_buffer() {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
  }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  void* get() const { return ptr_; }
  template <class T>
  T* at(std::size_t byte_offset) const {
    return reinterpret_cast<T*>(static_cast<char*>(ptr_) + byte_offset);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

step_times to_list(const warpsort::stage_times& t, bool want) {
  if (!want) return {};
  return {t.sort_chunks_ms, t.merge_sequences_ms, t.split_ms, t.merge_groups_ms};
}

}  // namespace

std::vector<std::string> key_type_names() {
  std::vector<std::string> names;
#define WARPSORT_PY_NAME_(kname, Key) names.push_back(#kname);
  WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_PY_NAME_)
#undef WARPSORT_PY_NAME_
  return names;
}

std::vector<std::string> value_type_names() {
  std::vector<std::string> names;
#define WARPSORT_PY_VNAME_(vname, Value, Key, A) names.push_back(#vname);
  WARPSORT_VALUE_TYPES_(WARPSORT_PY_VNAME_, void, ~)
#undef WARPSORT_PY_VNAME_
  return names;
}

int device_count() {
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so a later call reports its own error
    throw no_device_error(std::string("warpsort: no CUDA device: cudaGetDeviceCount failed: ") +
                          cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
  }
  if (count == 0) throw no_device_error("warpsort: no CUDA device: cudaGetDeviceCount found none");
  return count;
}

int pointer_device(std::uintptr_t ptr) {
  device_count();
  cudaPointerAttributes a{};
  check(cudaPointerGetAttributes(&a, reinterpret_cast<const void*>(ptr)), "cudaPointerGetAttributes");
  if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) return a.device;
  return -1;
}

/// f(warpsort::less<Key>{}) or f(warpsort::greater<Key>{}).
template <class Key, class F>
void with_order(bool descending, F&& f) {
  if (descending)
    f(warpsort::greater<Key>{});
  else
    f(warpsort::less<Key>{});
}

/// The library's two calls: sort(nullptr, bytes), the size query (a throw there leaves the
/// output untouched), then, when there is work, sort(temp, bytes) with temporary storage from
/// the module's pool on the stream.
template <class Sort>
void sized_then_sorted(std::size_t n, cudaStream_t stream, Sort&& sort) {
  std::size_t bytes = 0;
  sort(nullptr, bytes);
  if (n == 0) return;
  stream_buffer temp(bytes, stream);
  sort(temp.get(), bytes);
}

step_times sort_keys(std::uintptr_t in, std::uintptr_t out, std::size_t n, const std::string& dtype,
                     bool descending, std::uintptr_t stream_id, int device, bool want_times) {
  warpsort::stage_times t;
  with_key_type(dtype, [&](auto key_tag) {
    using Key = typename decltype(key_tag)::type;
    device_guard guard(device);
    const cudaStream_t stream = as_stream(stream_id);
    with_order<Key>(descending, [&](auto comp) {
      sized_then_sorted(n, stream, [&](void* temp, std::size_t& bytes) {
        warpsort::sort_keys<Key>(temp, bytes, reinterpret_cast<const Key*>(in),
                                 reinterpret_cast<Key*>(out), n, comp, stream,
                                 warpsort::default_policy<Key>(), want_times ? &t : nullptr);
      });
    });
  });
  return to_list(t, want_times);
}

step_times sort_pairs(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                      std::uintptr_t values_out, std::size_t n, const std::string& key_dtype,
                      const std::string& value_dtype, bool descending, std::uintptr_t stream_id,
                      int device, bool want_times) {
  warpsort::stage_times t;
  with_key_type(key_dtype, [&](auto key_tag) {
    using Key = typename decltype(key_tag)::type;
    with_value_type(value_dtype, [&](auto value_tag) {
      using Value = typename decltype(value_tag)::type;
      device_guard guard(device);
      const cudaStream_t stream = as_stream(stream_id);
      with_order<Key>(descending, [&](auto comp) {
        sized_then_sorted(n, stream, [&](void* temp, std::size_t& bytes) {
          warpsort::sort_pairs<Key, Value>(
              temp, bytes, reinterpret_cast<const Key*>(keys_in), reinterpret_cast<Key*>(keys_out),
              reinterpret_cast<const Value*>(values_in), reinterpret_cast<Value*>(values_out), n,
              comp, stream, warpsort::default_policy<Key>(), want_times ? &t : nullptr);
        });
      });
    });
  });
  return to_list(t, want_times);
}

step_times argsort(std::uintptr_t keys_in, std::uintptr_t indices, std::size_t n,
                   const std::string& dtype, const std::string& index_dtype, bool descending,
                   std::uintptr_t stream_id, int device, bool want_times) {
  if (index_dtype != "int64" && index_dtype != "uint32")
    throw dtype_error("warpsort.argsort: indices are uint32 or int64 (got " + index_dtype + ")");
  warpsort::stage_times t;
  with_key_type(dtype, [&](auto key_tag) {
    using Key = typename decltype(key_tag)::type;
    device_guard guard(device);
    const cudaStream_t stream = as_stream(stream_id);
    // the library writes the indices from its sort (int64 ones as uint64: the same bits)
    const auto sorted = [&](auto index_tag) {
      using Index = typename decltype(index_tag)::type;
      with_order<Key>(descending, [&](auto comp) {
        sized_then_sorted(n, stream, [&](void* temp, std::size_t& bytes) {
          warpsort::argsort<Key, Index>(temp, bytes, reinterpret_cast<const Key*>(keys_in),
                                        reinterpret_cast<Index*>(indices), n, comp, stream,
                                        warpsort::default_policy<Key>(),
                                        want_times ? &t : nullptr);
        });
      });
    };
    if (index_dtype == "int64")
      sorted(tag<std::uint64_t>{});
    else
      sorted(tag<std::uint32_t>{});
  });
  return to_list(t, want_times);
}

std::uintptr_t device_alloc(std::size_t bytes, int device) {
  device_guard guard(device);
  void* p = nullptr;
  check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
  return reinterpret_cast<std::uintptr_t>(p);
}

void device_free(std::uintptr_t ptr, int device) {
  device_guard guard(device);
  check(cudaFree(reinterpret_cast<void*>(ptr)), "cudaFree");
}

void copy(std::uintptr_t dst, std::uintptr_t src, std::size_t bytes, std::uintptr_t stream,
          int device) {
  device_guard guard(device);
  if (bytes == 0) return;
  check(cudaMemcpyAsync(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes,
                        cudaMemcpyDefault, as_stream(stream)),
        "cudaMemcpyAsync");
}

void synchronize(std::uintptr_t stream, int device) {
  device_guard guard(device);
  check(cudaStreamSynchronize(as_stream(stream)), "cudaStreamSynchronize");
}

void stream_wait(std::uintptr_t consumer, std::uintptr_t producer, int device) {
  if (consumer == producer) return;
  device_guard guard(device);
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  cudaError_t code = cudaEventRecord(e, as_stream(producer));
  if (code == cudaSuccess) code = cudaStreamWaitEvent(as_stream(consumer), e, 0);
  cudaEventDestroy(e);  // released once the wait is done
  check(code, "cudaEventRecord/cudaStreamWaitEvent");
}

}  // namespace warpsort_py
