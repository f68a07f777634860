// DLPack both ways for the module: device memory of its own exported as a capsule (for
// frameworks it cannot allocate in), and the fields of a capsule a framework exported.
#pragma once

#include "dlpack_abi.hpp"

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace warpsort_py {

/// cudaMalloc'd bytes on one device, freed when the last owner (the Python object, or a
/// consumer holding an exported capsule) lets go.
class device_allocation {
 public:
  device_allocation(std::size_t bytes, int device);
  ~device_allocation();
  device_allocation(const device_allocation&) = delete;
  device_allocation& operator=(const device_allocation&) = delete;
  void* get() const { return ptr_; }
  int device() const { return device_; }

 private:
  void* ptr_ = nullptr;
  int device_;
};

/// A 1-D array of n elements of a DLPack dtype (code, bits) in a device_allocation.
class exported_array {
 public:
  exported_array(std::size_t n, int code, int bits, int device);
  std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(memory_->get()); }
  std::size_t size() const { return n_; }
  int device() const { return memory_->device(); }
  /// A new capsule ("dltensor", or "dltensor_versioned" for DLPack 1.0 consumers) that keeps
  /// the memory alive until its consumer calls the deleter (or, unconsumed, until it is freed).
  PyObject* to_capsule(bool versioned) const;

 private:
  std::shared_ptr<device_allocation> memory_;
  std::size_t n_;
  dlpack::data_type dtype_;
};

/// (ptr, shape, strides or None, code, bits, lanes, device type, device id, read-only) of a
/// "dltensor" or "dltensor_versioned" capsule, which stays unconsumed.
nanobind::tuple capsule_info(nanobind::handle capsule);

}  // namespace warpsort_py
