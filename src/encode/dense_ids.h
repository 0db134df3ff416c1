// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// DenseIds: an encoder's numbering of the entries of one table that it
// writes, 1, 2, 3 ... in order of first use, whatever their ids in the
// table; 0 stays "none".
#ifndef STACKREC_SRC_ENCODE_DENSE_IDS_H_
#define STACKREC_SRC_ENCODE_DENSE_IDS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "base/table_memory.h"

namespace stackrec {

class DenseIds {
 public:
  static constexpr uint32_t kUnmarked = 0;
  explicit DenseIds(size_t n) : out_(n, kUnmarked) {}
  // Returns true the first time `id` is marked. Ids past the table's size
  // are the encoder's own (inline groups): room is made for them.
  bool Mark(uint32_t id) {
    if (id >= out_.size()) out_.resize(size_t{id} + 1, kUnmarked);
    if (id == 0 || out_[id] != kUnmarked) return false;
    order_.push_back(id);
    out_[id] = static_cast<uint32_t>(order_.size());
    return true;
  }
  uint32_t operator[](uint32_t id) const { return out_[id]; }
  const TableVector<uint32_t>& order() const { return order_; }
  // Output id by id, for loops whose byte stores would otherwise make the
  // compiler reload the vector's data pointer at every element.
  const uint32_t* data() const { return out_.data(); }
  // Renumbers the marked ids by descending weight[id] (ties keep their
  // order), so that the most used get the shortest varints.
  void SortByWeight(const TableVector<uint64_t>& weight) {
    std::stable_sort(order_.begin(), order_.end(),
                     [&](uint32_t a, uint32_t b) { return weight[a] > weight[b]; });
    for (size_t i = 0; i < order_.size(); ++i) out_[order_[i]] = static_cast<uint32_t>(i + 1);
  }
  size_t capacity() const { return out_.size(); }

 private:
  TableVector<uint32_t> out_;
  TableVector<uint32_t> order_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_DENSE_IDS_H_
