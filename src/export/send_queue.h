// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The bounded queue between the threads that send and the exporter's
// thread. Bounded in bytes and in requests, because a backend that is down
// must not make a host grow without end; when full, the oldest parts go
// first, since a profiling backend values the newest interval most and an
// old one may already be past its retention. Not synchronised: the
// exporter holds its lock around every call.
#ifndef STACKREC_SRC_EXPORT_SEND_QUEUE_H_
#define STACKREC_SRC_EXPORT_SEND_QUEUE_H_

#include <cstddef>
#include <deque>
#include <memory>

#include "export/request.h"

namespace stackrec_export {

class SendQueue {
 public:
  SendQueue(size_t max_bytes, size_t max_requests)
      : max_bytes_(max_bytes), max_requests_(max_requests) {}

  // Appends `p`, first dropping the oldest parts until it fits both bounds;
  // returns how many were dropped (`p` itself, if it alone is over
  // max_bytes).
  size_t Push(std::unique_ptr<Payload> p);

  // The oldest part, or null when empty.
  std::unique_ptr<Payload> Pop();

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

 private:
  size_t max_bytes_, max_requests_;
  size_t bytes_ = 0;
  std::deque<std::unique_ptr<Payload>> items_;
};

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_SEND_QUEUE_H_
