// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// How a container counts against a profile's max_memory_bytes: what it has
// allocated (its capacity), not what the allocator adds on top.
#ifndef STACKREC_SRC_BASE_MEMORY_BYTES_H_
#define STACKREC_SRC_BASE_MEMORY_BYTES_H_

#include <cstddef>

namespace stackrec {

// An absl::flat_hash_map or set: one control byte per slot, plus the slots.
template <typename Map>
size_t MapBytes(const Map& m) {
  return m.capacity() * (sizeof(typename Map::value_type) + 1);
}

// A std::vector or TableVector.
template <typename V>
size_t VectorBytes(const V& v) {
  return v.capacity() * sizeof(typename V::value_type);
}

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_MEMORY_BYTES_H_
