// Key type names, sizes and NumPy dtype strings.
#include "data/key_types.hpp"

#include "warpsort/error.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <type_traits>
#include <vector>

namespace warpsort::data {

namespace {
struct key_type_facts {
  key_type type;
  const char* name;
  std::size_t size;
  char kind;  // NumPy's: 'u', 'i' or 'f'
};
template <class Key>
constexpr char numpy_kind() {
  return std::is_floating_point_v<Key> ? 'f' : std::is_signed_v<Key> ? 'i' : 'u';
}
const std::vector<key_type_facts>& facts() {
  static const std::vector<key_type_facts> list{
#define WARPSORT_KEY_FACTS_(name, Key) {key_type::name, #name, sizeof(Key), numpy_kind<Key>()},
      WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_KEY_FACTS_)
#undef WARPSORT_KEY_FACTS_
  };
  return list;
}
const key_type_facts& facts_of(key_type t) {
  for (const key_type_facts& f : facts())
    if (f.type == t) return f;
  throw input_error("invalid key_type value " + std::to_string(static_cast<int>(t)));
}
}  // namespace

const std::vector<key_type>& all_key_types() {
  static const std::vector<key_type> list = [] {
    std::vector<key_type> v;
    for (const key_type_facts& f : facts()) v.push_back(f.type);
    return v;
  }();
  return list;
}

key_type parse_key_type(const std::string& name) {
  std::string s = name;
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "float") s = "float32";  // C's names for the two float types
  if (s == "double") s = "float64";
  std::string accepted;
  for (const key_type_facts& f : facts()) {
    if (s == f.name) return f.type;
    accepted += (accepted.empty() ? "" : ", ") + std::string(f.name);
  }
  throw input_error("unknown key type '" + name + "'; accepted: " + accepted +
                    " (float32 also as float, float64 as double)");
}

std::string key_type_name(key_type t) { return facts_of(t).name; }

std::size_t key_type_size(key_type t) { return facts_of(t).size; }

std::string npy_descr(key_type t) {
  const key_type_facts& f = facts_of(t);
  return std::string("<") + f.kind + std::to_string(f.size);
}

}  // namespace warpsort::data
