// The DLPack C ABI (https://dmlc.github.io/dlpack/latest/c_api.html, version 1.0): the structs a
// capsule named "dltensor" or "dltensor_versioned" points to. Written from the specification,
// which fixes this layout for every producer and consumer.
#pragma once

#include <cstdint>

namespace warpsort_py::dlpack {

enum device_type : std::int32_t { cpu = 1, cuda = 2, cuda_host = 3, cuda_managed = 13 };
enum type_code : std::uint8_t { int_ = 0, uint = 1, float_ = 2, opaque = 3, bfloat = 4,
                                complex = 5, bool_ = 6 };

struct device {
  std::int32_t device_type;
  std::int32_t device_id;
};

struct data_type {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct tensor {
  void* data;
  device dev;
  std::int32_t ndim;
  data_type dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: compact row-major
  std::uint64_t byte_offset;
};

/// The unversioned capsule's payload ("dltensor").
struct managed_tensor {
  tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(managed_tensor* self);
};

struct version {
  std::uint32_t major;
  std::uint32_t minor;
};

constexpr std::uint64_t flag_read_only = 1u << 0;

/// The versioned capsule's payload ("dltensor_versioned", DLPack 1.0).
struct managed_tensor_versioned {
  version ver;
  void* manager_ctx;
  void (*deleter)(managed_tensor_versioned* self);
  std::uint64_t flags;
  tensor dl_tensor;
};

}  // namespace warpsort_py::dlpack
