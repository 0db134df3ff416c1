// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The exporter: a bounded queue of parts and the one thread that sends
// them, with retries, and optionally serializes a recorder on a period.
//
// The protocol, stated once. `mu_` guards the queue, the stats, the
// periodic job and the flags. Hosts' threads only ever hold it to copy in
// or out: Send copies the parts' bytes before taking it, so a sampler or a
// serializer calling Send never waits for the network. The exporter's
// thread releases it for every request, every serialization and every
// backoff wait, so Send, Flush and Stats never wait behind a transfer.
// `in_flight_` is true from the moment a part leaves the queue until its
// fate is counted, so "queue empty and nothing in flight" (Flush) means
// every part queued so far is counted in the stats. Shutdown raises
// `stop_`, which the transfer's progress callback and every wait observe,
// and joins the thread: a request is never left running on freed memory.
#ifndef STACKREC_SRC_EXPORT_EXPORTER_H_
#define STACKREC_SRC_EXPORT_EXPORTER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "export/export_config.h"
#include "export/http_client.h"
#include "export/periodic_job.h"
#include "export/process_identity.h"
#include "export/send_queue.h"
#include "stackrec/export.h"

namespace stackrec_export {

class Exporter {
 public:
  explicit Exporter(Config config);
  ~Exporter();  // Shutdown(0) first if the host did not shut it down
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  const Config& config() const { return config_; }

  // The calls of export.h, with their statuses and messages.
  stackrec_status Send(const stackrec_encoded* encoded);
  stackrec_status Flush(uint32_t timeout_ms);
  stackrec_status StartPeriodic(std::unique_ptr<PeriodicJob> job);
  void Stats(stackrec_export_stats* out) const;
  stackrec_status Shutdown(uint32_t timeout_ms);
  bool shut_down() const { return shut_down_; }

 private:
  using Clock = std::chrono::steady_clock;

  // Starts the thread (and its client) unless it runs; mu_ held.
  stackrec_status EnsureThread();
  void Run();
  // Serializes the recorder and queues the parts; mu_ not held.
  void RunPeriodic(const PeriodicJob& job);
  void Enqueue(std::vector<std::unique_ptr<Payload>> parts);  // mu_ held
  // Sends one part until it is sent, fails for good or is stopped, and
  // counts which; mu_ not held.
  void Deliver(const Payload& p);
  // Waits, unless stopping, until sending `bytes` keeps within the
  // backend's rate (Pyroscope's: its burst and rate per second); l holds mu_.
  // False if stopping came first.
  bool Pace(uint64_t bytes, std::unique_lock<std::mutex>* l);
  void SetLastError(std::string message);  // mu_ held

  const Config config_;
  const ProcessIdentity identity_;  // this process's, read at creation
  const std::vector<std::string> secrets_;
  std::atomic<bool> stop_{false};

  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // the thread: a part, a due period, or stop
  std::condition_variable idle_cv_;  // Flush and Shutdown: queue empty, nothing in flight
  SendQueue queue_;
  bool in_flight_ = false;
  bool stopping_ = false;
  bool shut_down_ = false;
  std::shared_ptr<const PeriodicJob> periodic_;
  Clock::time_point next_due_;
  stackrec_export_stats stats_{};
  std::string last_error_;

  std::unique_ptr<HttpClient> client_;  // created with the thread, used by it only
  std::thread thread_;
  std::mt19937_64 rng_;  // the thread's backoff jitter
  // The thread's rate allowance, in bytes, as of pace_at_ (Pace).
  double pace_bytes_ = 0;
  Clock::time_point pace_at_;
};

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_EXPORTER_H_
