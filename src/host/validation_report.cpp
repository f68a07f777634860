// The message of a validation report.
#include <warpsort/validate.cuh>

#include <sstream>

namespace warpsort {

std::string validation_report::message() const {
  if (ok) return "valid: equal to thrust::sort and cub::DeviceRadixSort";
  std::ostringstream s;
  s << "mismatch against " << reference << " at index " << index << ": expected " << expected
    << ", got " << got;
  return s.str();
}

}  // namespace warpsort
