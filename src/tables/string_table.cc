// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "tables/string_table.h"

#include <algorithm>
#include <cstring>

#include "base/table_growth.h"
#include "base/utf8.h"
#include "tables/intern_tables.h"

namespace stackrec {
namespace {

// Chunks double from kFirstChunkBytes up to kMaxChunkBytes: a profile with
// a few strings (a fresh or reset slot, a short test) costs one small block,
// a big one takes a handful of allocations per megabyte.
constexpr size_t kFirstChunkBytes = 2 * 1024;
constexpr size_t kMaxChunkBytes = 64 * 1024;

}  // namespace

StringTable::StringTable() : index_(0, Hash{this}, Eq{this}) { Clear(); }

void StringTable::Clear() {
  chunks_.clear();
  arena_bytes_ = 0;
  chunk_pos_ = nullptr;
  chunk_left_ = 0;
  std::vector<absl::string_view>().swap(strings_);
  index_ = decltype(index_)(0, Hash{this}, Eq{this});
  strings_.emplace_back();
  GrowIndexBeforeInsert(index_, 0, 0);
  index_.insert(0);
}

absl::string_view StringTable::Copy(absl::string_view s) {
  if (s.size() > chunk_left_) {
    const size_t grown = std::min(kMaxChunkBytes, std::max(kFirstChunkBytes, arena_bytes_));
    const size_t size = std::max(grown, s.size());
    chunks_.push_back(MakeTableArray<char>(size));  // uninitialized: memcpy fills it
    arena_bytes_ += size;
    chunk_pos_ = chunks_.back().get();
    chunk_left_ = size;
  }
  std::memcpy(chunk_pos_, s.data(), s.size());
  absl::string_view copy(chunk_pos_, s.size());
  chunk_pos_ += s.size();
  chunk_left_ -= s.size();
  return copy;
}

bool StringTable::Intern(absl::string_view s, StringId* id) {
  auto it = index_.find(s);
  if (it != index_.end()) {
    *id = *it;
    return true;
  }
  if (!IsValidUtf8(s)) return false;
  // Room first, so that a failed allocation leaves the table unchanged
  // (but for the copy's bytes in the arena) and nothing after it can throw
  // (table_growth.h). The index hashes ids through strings_, so the string
  // goes in before its id.
  ReserveFor(strings_, 1);
  const auto new_id = static_cast<StringId>(strings_.size());
  GrowIndexBeforeInsert(index_, 0, new_id);
  strings_.push_back(Copy(s));
  index_.insert(new_id);
  *id = new_id;
  return true;
}

StringId StringTable::Find(absl::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? 0 : *it;
}

}  // namespace stackrec
