// DLPack both ways (dlpack_export.hpp), through the CPython capsule API: a capsule's destructor
// must tell a consumed capsule (renamed "used_dltensor[_versioned]") from an unconsumed one.
#include "dlpack_export.hpp"

#include "sorts.hpp"

#include <nanobind/stl/string.h>

#include <string>
#include <type_traits>

namespace nb = nanobind;

namespace warpsort_py {

device_allocation::device_allocation(std::size_t bytes, int device) : device_(device) {
  ptr_ = reinterpret_cast<void*>(device_alloc(bytes, device));
}

device_allocation::~device_allocation() {
  try {
    device_free(reinterpret_cast<std::uintptr_t>(ptr_), device_);
  } catch (...) {
    // a destructor may run at interpreter exit, when the driver is already gone
  }
}

exported_array::exported_array(std::size_t n, int code, int bits, int device)
    : n_(n), dtype_{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), 1} {
  if (bits <= 0 || bits % 8 != 0) throw dtype_error("warpsort: a DLPack dtype of " + std::to_string(bits) + " bits");
  memory_ = std::make_shared<device_allocation>(n * static_cast<std::size_t>(bits / 8), device);
}

namespace {

/// What a capsule's tensor points into: the memory, kept alive, and its shape and strides.
template <class Managed>
struct export_context {
  std::shared_ptr<device_allocation> memory;
  std::int64_t shape[1];
  std::int64_t strides[1];
  Managed managed;
};

template <class Managed>
void delete_context(Managed* m) {
  delete static_cast<export_context<Managed>*>(m->manager_ctx);
}

template <class Managed>
void capsule_destructor(PyObject* capsule) {
  constexpr bool versioned = std::is_same_v<Managed, dlpack::managed_tensor_versioned>;
  const char* name = versioned ? "dltensor_versioned" : "dltensor";
  if (!PyCapsule_IsValid(capsule, name)) return;  // consumed: the consumer calls the deleter
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (m != nullptr && m->deleter != nullptr) m->deleter(m);
}

template <class Managed>
PyObject* make_capsule(const std::shared_ptr<device_allocation>& memory, std::size_t n,
                       dlpack::data_type dtype) {
  auto* ctx = new export_context<Managed>{memory, {static_cast<std::int64_t>(n)}, {1}, {}};
  Managed& m = ctx->managed;
  m.manager_ctx = ctx;
  m.deleter = &delete_context<Managed>;
  m.dl_tensor.data = memory->get();
  m.dl_tensor.dev = {dlpack::cuda, memory->device()};
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype = dtype;
  m.dl_tensor.shape = ctx->shape;
  m.dl_tensor.strides = ctx->strides;
  m.dl_tensor.byte_offset = 0;
  constexpr bool versioned = std::is_same_v<Managed, dlpack::managed_tensor_versioned>;
  if constexpr (versioned) {
    m.ver = {1, 0};
    m.flags = 0;
  }
  PyObject* capsule = PyCapsule_New(&m, versioned ? "dltensor_versioned" : "dltensor",
                                    &capsule_destructor<Managed>);
  if (capsule == nullptr) {
    delete ctx;
    throw nb::python_error();
  }
  return capsule;
}

nb::tuple describe(const dlpack::tensor& t, bool read_only) {
  nb::list shape;
  for (std::int32_t i = 0; i < t.ndim; ++i) shape.append(t.shape[i]);
  nb::object strides = nb::none();
  if (t.strides != nullptr) {
    nb::list s;
    for (std::int32_t i = 0; i < t.ndim; ++i) s.append(t.strides[i]);
    strides = nb::tuple(s);
  }
  const auto ptr = reinterpret_cast<std::uintptr_t>(t.data) + static_cast<std::uintptr_t>(t.byte_offset);
  return nb::make_tuple(ptr, nb::tuple(shape), strides, int(t.dtype.code), int(t.dtype.bits),
                        int(t.dtype.lanes), int(t.dev.device_type), int(t.dev.device_id),
                        read_only);
}

}  // namespace

PyObject* exported_array::to_capsule(bool versioned) const {
  return versioned ? make_capsule<dlpack::managed_tensor_versioned>(memory_, n_, dtype_)
                   : make_capsule<dlpack::managed_tensor>(memory_, n_, dtype_);
}

nb::tuple capsule_info(nb::handle capsule) {
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    auto* m = static_cast<dlpack::managed_tensor_versioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
    if (m->ver.major > 1)
      throw dtype_error("warpsort: a DLPack " + std::to_string(m->ver.major) + "." +
                        std::to_string(m->ver.minor) + " tensor (this module reads 1.x)");
    return describe(m->dl_tensor, (m->flags & dlpack::flag_read_only) != 0);
  }
  if (PyCapsule_IsValid(c, "dltensor")) {
    auto* m = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(c, "dltensor"));
    return describe(m->dl_tensor, false);
  }
  throw dtype_error("warpsort: __dlpack__ returned no unconsumed DLPack capsule");
}

}  // namespace warpsort_py
