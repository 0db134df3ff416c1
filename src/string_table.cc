// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "string_table.h"

#include <algorithm>
#include <cstring>

#include "intern_tables.h"
#include "utf8.h"

namespace stackrec {
namespace {

// Large enough that a profile's strings take a handful of allocations,
// small enough that an almost empty profile stays cheap.
constexpr size_t kChunkBytes = 64 * 1024;

}  // namespace

StringTable::StringTable() { Clear(); }

void StringTable::Clear() {
  chunks_.clear();
  arena_bytes_ = 0;
  chunk_pos_ = nullptr;
  chunk_left_ = 0;
  std::vector<absl::string_view>().swap(strings_);
  index_ = {};
  strings_.emplace_back();
  index_.emplace(absl::string_view(), 0);
}

absl::string_view StringTable::Copy(absl::string_view s) {
  if (s.size() > chunk_left_) {
    const size_t size = std::max(kChunkBytes, s.size());
    chunks_.push_back(std::make_unique<char[]>(size));
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
    *id = it->second;
    return true;
  }
  if (!IsValidUtf8(s)) return false;
  // Reserve first so that a failed allocation leaves the table unchanged.
  ReserveFor(strings_, 1);
  const absl::string_view copy = Copy(s);
  const auto new_id = static_cast<StringId>(strings_.size());
  index_.emplace(copy, new_id);
  strings_.push_back(copy);
  *id = new_id;
  return true;
}

StringId StringTable::Find(absl::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? 0 : it->second;
}

}  // namespace stackrec
