// warpsort._warpsort: the nanobind bindings over sorts.hpp. Arrays arrive as raw pointers (the
// Python layer reads them from __cuda_array_interface__, DLPack or NumPy); errors become Python
// exceptions carrying the library's message.
#include "dlpack_export.hpp"
#include "sorts.hpp"

#include <warpsort/error.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
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

  // Result memory for frameworks warpsort cannot allocate in (JAX and other DLPack-only ones):
  // handed over through __dlpack__, freed with cudaFree when the last owner lets go.
  nb::class_<wp::exported_array>(m, "DeviceArray",
                                 "1-D device memory of warpsort's own, exported through DLPack.")
      .def(nb::init<std::size_t, int, int, int>(), nb::arg("n"), nb::arg("code"),
           nb::arg("bits"), nb::arg("device"))
      .def_prop_ro("ptr", &wp::exported_array::address)
      .def_prop_ro("size", &wp::exported_array::size)
      .def("__dlpack_device__",
           [](const wp::exported_array& a) { return nb::make_tuple(int(wp::dlpack::cuda), a.device()); })
      .def(
          "__dlpack__",
          [](const wp::exported_array& a, nb::handle stream, nb::handle max_version,
             nb::handle dl_device, nb::handle copy) {
            // The memory is written by a sort the module waits for before it hands the array
            // over, so it is ready on every stream: `stream` needs no event.
            (void)stream;
            if (copy.is_valid() && !copy.is_none() && nb::cast<bool>(copy))
              throw nb::buffer_error("warpsort.DeviceArray.__dlpack__: copy=True is not supported");
            if (dl_device.is_valid() && !dl_device.is_none()) {
              const auto d = nb::cast<std::pair<int, int>>(dl_device);
              if (d.first != wp::dlpack::cuda || d.second != a.device())
                throw nb::buffer_error("warpsort.DeviceArray.__dlpack__: dl_device is not the "
                                       "array's device (see __dlpack_device__)");
            }
            bool versioned = false;
            if (max_version.is_valid() && !max_version.is_none())
              versioned = nb::cast<std::pair<int, int>>(max_version).first >= 1;
            return nb::steal(a.to_capsule(versioned));
          },
          nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
          nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none());

  // DLPack-only arrays: what the Python layer needs of a capsule from x.__dlpack__(stream=...)
  // (the capsule is not consumed: the producer's destructor frees it, and the array it came
  // from must outlive the use of the pointer).
  m.def("dlpack_info", &wp::capsule_info, nb::arg("capsule"),
        "(ptr, shape, strides in elements or None, dtype code, bits, lanes, device type, device "
        "id, read-only)");
}
