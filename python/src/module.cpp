// warpsort._warpsort: the nanobind bindings over sorts.hpp. Arrays arrive as raw pointers (the
// Python layer reads them from __cuda_array_interface__, DLPack or NumPy); errors become Python
// exceptions carrying the library's message.
#include "sorts.hpp"

#include <warpsort/error.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace nb = nanobind;
namespace wp = warpsort_py;

NB_MODULE(_warpsort, m) {
  m.doc() = "warpsort: GPU Warp Sort (Ye et al. 2010); the low-level module under warpsort";
  m.attr("__version__") = WARPSORT_VERSION;  // the CMake project's version

  // Library errors: bad arguments -> ValueError, CUDA failures -> RuntimeError, with the message.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const wp::dtype_error& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const warpsort::input_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const warpsort::cuda_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const wp::no_device_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  m.def("key_types", &wp::key_type_names, "Names of the key dtypes the library is built for.");
  m.def("value_types", &wp::value_type_names, "Names of the value words of pairs.");
  m.def("device_count", &wp::device_count,
        "Number of CUDA devices; RuntimeError when there is none usable.");
  m.def("pointer_device", &wp::pointer_device, nb::arg("ptr"),
        "Device of a pointer, -1 for host memory.");

  m.def("sort_keys", &wp::sort_keys, nb::arg("keys_in"), nb::arg("keys_out"), nb::arg("n"),
        nb::arg("dtype"), nb::arg("descending"), nb::arg("stream"), nb::arg("device"),
        nb::arg("times"), nb::call_guard<nb::gil_scoped_release>(),
        "Sorts n keys (device pointers) on a stream; returns the four step times (ms) if asked.");
  m.def("sort_pairs", &wp::sort_pairs, nb::arg("keys_in"), nb::arg("keys_out"),
        nb::arg("values_in"), nb::arg("values_out"), nb::arg("n"), nb::arg("key_dtype"),
        nb::arg("value_dtype"), nb::arg("descending"), nb::arg("stream"), nb::arg("device"),
        nb::arg("times"), nb::call_guard<nb::gil_scoped_release>(),
        "Stable sort of key-value pairs (device pointers) by key.");
  m.def("argsort", &wp::argsort, nb::arg("keys_in"), nb::arg("indices"), nb::arg("n"),
        nb::arg("dtype"), nb::arg("index_dtype"), nb::arg("descending"), nb::arg("stream"),
        nb::arg("device"), nb::arg("times"), nb::call_guard<nb::gil_scoped_release>(),
        "Stable argsort into uint32 or int64 indices; the keys are left unchanged.");

  m.def("device_alloc", &wp::device_alloc, nb::arg("bytes"), nb::arg("device"));
  m.def("device_free", &wp::device_free, nb::arg("ptr"), nb::arg("device"));
  m.def("copy", &wp::copy, nb::arg("dst"), nb::arg("src"), nb::arg("bytes"), nb::arg("stream"),
        nb::arg("device"), nb::call_guard<nb::gil_scoped_release>());
  m.def("synchronize", &wp::synchronize, nb::arg("stream"), nb::arg("device"),
        nb::call_guard<nb::gil_scoped_release>());
  m.def("stream_wait", &wp::stream_wait, nb::arg("consumer"), nb::arg("producer"),
        nb::arg("device"));

  // Result memory for frameworks warpsort cannot allocate in (handed over by DLPack): freed
  // with cudaFree when the last owner lets go.
  m.def(
      "device_array",
      [](size_t n, const std::string& dtype, int device) {
        const bool is_float = dtype.rfind("float", 0) == 0;
        const bool is_unsigned = dtype.rfind("uint", 0) == 0;
        const int bits = std::stoi(dtype.substr(is_float ? 5 : is_unsigned ? 4 : 3));
        const std::uintptr_t p = wp::device_alloc(n * static_cast<size_t>(bits / 8), device);
        nb::capsule owner(reinterpret_cast<void*>(p), [](void* q) noexcept { cudaFree(q); });
        const size_t shape[1] = {n};
        nb::dlpack::dtype t{static_cast<uint8_t>(is_float      ? nb::dlpack::dtype_code::Float
                                                 : is_unsigned ? nb::dlpack::dtype_code::UInt
                                                               : nb::dlpack::dtype_code::Int),
                            static_cast<uint8_t>(bits), 1};
        return nb::ndarray<>(reinterpret_cast<void*>(p), 1, shape, owner, nullptr, t,
                             nb::device::cuda::value, device);
      },
      nb::arg("n"), nb::arg("dtype"), nb::arg("device"));

  // DLPack-only arrays (no __cuda_array_interface__): nanobind imports them zero-copy; this
  // reports what the Python layer needs. The source object must outlive the use of the pointer.
  m.def(
      "dlpack_info",
      [](nb::ndarray<nb::ro> a) {
        nb::list shape, strides;
        for (size_t i = 0; i < a.ndim(); ++i) {
          shape.append(a.shape(i));
          strides.append(a.stride(i));
        }
        const nb::dlpack::dtype t = a.dtype();
        return nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), nb::tuple(shape),
                              nb::tuple(strides), int(t.code), int(t.bits), int(t.lanes),
                              a.device_type(), a.device_id());
      },
      nb::arg("array"),
      "(ptr, shape, strides in elements, dtype code, bits, lanes, device type, device id)");
}
