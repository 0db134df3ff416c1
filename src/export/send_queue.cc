// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/send_queue.h"

#include <utility>

namespace stackrec_export {

size_t SendQueue::Push(std::unique_ptr<Payload> p) {
  const size_t bytes = p->body.size();
  if (bytes > max_bytes_) return 1;
  size_t dropped = 0;
  while (!items_.empty() && (items_.size() >= max_requests_ || bytes_ + bytes > max_bytes_)) {
    bytes_ -= items_.front()->body.size();
    items_.pop_front();
    ++dropped;
  }
  bytes_ += bytes;
  items_.push_back(std::move(p));
  return dropped;
}

std::unique_ptr<Payload> SendQueue::Pop() {
  if (items_.empty()) return nullptr;
  std::unique_ptr<Payload> p = std::move(items_.front());
  items_.pop_front();
  bytes_ -= p->body.size();
  return p;
}

}  // namespace stackrec_export
