// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/exporter.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <system_error>
#include <utility>

#include "export/backend_rules.h"
#include "export/export_status.h"
#include "export/otlp_response.h"
#include "export/retry_policy.h"

namespace stackrec_export {
namespace {

// A server's words in a message: its first line or so, printable only.
std::string Excerpt(const std::string& body) {
  std::string out;
  for (const char c : body) {
    if (out.size() >= 160) {
      out += "...";
      break;
    }
    out.push_back(c >= 0x20 && c < 0x7F ? c : ' ');
  }
  return out;
}

// The Unix time, which the backends' windows are in.
int64_t UnixNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Exporter::Exporter(Config config)
    : config_(std::move(config)),
      identity_(ReadProcessIdentity()),
      secrets_(config_.Secrets()),
      queue_(config_.max_queue_bytes, config_.max_queue_requests),
      rng_(std::random_device()()),
      pace_bytes_(static_cast<double>(kPyroscopeBurstBytes)),
      pace_at_(Clock::now()) {}

Exporter::~Exporter() {
  if (!shut_down_) (void)Shutdown(0);
}

stackrec_status Exporter::EnsureThread() {
  if (thread_.joinable()) return STACKREC_OK;
  try {
    client_ = std::make_unique<HttpClient>(config_, &stop_);
    thread_ = std::thread(&Exporter::Run, this);
  } catch (const std::system_error& e) {
    client_.reset();
    return Fail(STACKREC_OUT_OF_MEMORY, "the exporter's thread could not be started: %s", e.what());
  }
  return STACKREC_OK;
}

void Exporter::Enqueue(std::vector<std::unique_ptr<Payload>> parts) {
  for (auto& p : parts) {
    stats_.dropped += queue_.Push(std::move(p));
    ++stats_.requests_queued;
  }
  work_cv_.notify_one();
}

stackrec_status Exporter::Send(const stackrec_encoded* encoded) {
  const size_t n = stackrec_encoded_parts_len(encoded);
  if (n == 0) return Fail(STACKREC_INVALID_ARGUMENT, "encoded holds no part");
  // The copies are made before the lock: a big profile's bytes must not
  // hold up the exporter's thread or another sender.
  // Every part is held to the backend's rules before any is queued: a
  // refused send leaves the whole profile with the caller.
  PartFacts facts;
  facts.parts = n;
  facts.format = stackrec_encoded_format(encoded);
  facts.target = stackrec_encoded_target(encoded);
  facts.compression = stackrec_encoded_compression(encoded);
  facts.start_ns = stackrec_encoded_start_ns(encoded);
  for (size_t k = 0; k < stackrec_encoded_sample_types_len(encoded); ++k) {
    stackrec_str type{nullptr, 0}, unit{nullptr, 0};
    if (stackrec_encoded_sample_type(encoded, k, &type, &unit) != STACKREC_OK) {
      return Fail(STACKREC_INTERNAL, "encoded's sample type %zu could not be read", k);
    }
    facts.sample_types.emplace_back(std::string(type.ptr, type.len),
                                    std::string(unit.ptr, unit.len));
  }
  const int64_t now_ns = UnixNowNs();
  std::vector<std::unique_ptr<Payload>> parts;
  for (size_t i = 0; i < n; ++i) {
    stackrec_part part;
    std::memset(&part, 0, sizeof(part));
    if (stackrec_encoded_part(encoded, i, &part) != STACKREC_OK) {
      return Fail(STACKREC_INTERNAL, "encoded's part %zu of %zu could not be read", i, n);
    }
    facts.index = i;
    facts.bytes = part.size;
    facts.uncompressed_bytes = part.uncompressed_bytes;
    facts.samples = part.samples_written;
    const std::string refused = CheckPart(config_, facts, now_ns);
    if (!refused.empty()) {
      const std::string message = "not sent: " + refused;
      std::lock_guard<std::mutex> l(mu_);
      stats_.refused_before_sending += n;
      SetLastError(message);
      return Fail(STACKREC_INVALID_ARGUMENT, "%s", message.c_str());
    }
    auto p = std::make_unique<Payload>();
    p->body.assign(reinterpret_cast<const char*>(part.data), part.size);
    p->start_ns = stackrec_encoded_start_ns(encoded);
    p->end_ns = stackrec_encoded_end_ns(encoded);
    p->uncompressed_bytes = part.uncompressed_bytes;
    if (i == 0) {  // the counts belong to the serialization: sent once
      for (size_t k = 0; k < stackrec_encoded_endpoint_counts_len(encoded); ++k) {
        stackrec_str endpoint{nullptr, 0};
        int64_t count = 0;
        if (stackrec_encoded_endpoint_count(encoded, k, &endpoint, &count) != STACKREC_OK) {
          return Fail(STACKREC_INTERNAL, "encoded's endpoint count %zu could not be read", k);
        }
        p->endpoint_counts.emplace_back(std::string(endpoint.ptr, endpoint.len), count);
      }
    }
    parts.push_back(std::move(p));
  }
  std::lock_guard<std::mutex> l(mu_);
  if (stopping_) return Fail(STACKREC_INVALID_ARGUMENT, "exporter is shut down");
  const stackrec_status st = EnsureThread();
  if (st != STACKREC_OK) return st;
  Enqueue(std::move(parts));
  return STACKREC_OK;
}

stackrec_status Exporter::Flush(uint32_t timeout_ms) {
  std::unique_lock<std::mutex> l(mu_);
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  if (!idle_cv_.wait_until(l, deadline, [&] { return queue_.empty() && !in_flight_; })) {
    return Fail(STACKREC_TIMED_OUT, "flush: %zu part(s) still queued or in flight after %u ms",
                queue_.size() + (in_flight_ ? 1 : 0), timeout_ms);
  }
  return STACKREC_OK;
}

stackrec_status Exporter::StartPeriodic(std::unique_ptr<PeriodicJob> job) {
  std::lock_guard<std::mutex> l(mu_);
  if (stopping_) return Fail(STACKREC_INVALID_ARGUMENT, "exporter is shut down");
  if (periodic_ != nullptr) {
    return Fail(STACKREC_INVALID_ARGUMENT, "exporter already serializes a recorder periodically");
  }
  const stackrec_status st = EnsureThread();
  if (st != STACKREC_OK) return st;
  next_due_ = Clock::now() + std::chrono::milliseconds(job->period_ms);
  periodic_ = std::move(job);
  work_cv_.notify_one();
  return STACKREC_OK;
}

void Exporter::Stats(stackrec_export_stats* out) const {
  std::lock_guard<std::mutex> l(mu_);
  *out = stats_;
  out->queued = queue_.size();
  std::snprintf(out->last_error, sizeof(out->last_error), "%s", last_error_.c_str());
}

void Exporter::SetLastError(std::string message) {
  last_error_ = Redact(std::move(message), secrets_);
}

stackrec_status Exporter::Shutdown(uint32_t timeout_ms) {
  std::unique_lock<std::mutex> l(mu_);
  periodic_.reset();
  const uint64_t abandoned_before = stats_.abandoned;
  if (thread_.joinable()) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    idle_cv_.wait_until(l, deadline, [&] { return queue_.empty() && !in_flight_; });
  }
  stopping_ = true;
  stop_.store(true, std::memory_order_release);
  if (client_ != nullptr) client_->Wakeup();
  work_cv_.notify_all();
  l.unlock();
  if (thread_.joinable()) thread_.join();
  l.lock();
  shut_down_ = true;
  if (stats_.abandoned != abandoned_before) {
    return Fail(STACKREC_TIMED_OUT, "shutdown: %llu part(s) abandoned after %u ms",
                static_cast<unsigned long long>(stats_.abandoned - abandoned_before), timeout_ms);
  }
  return STACKREC_OK;
}

void Exporter::Run() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    if (periodic_ != nullptr && Clock::now() >= next_due_) {
      const std::shared_ptr<const PeriodicJob> job = periodic_;
      next_due_ += std::chrono::milliseconds(job->period_ms);
      if (next_due_ < Clock::now())
        next_due_ = Clock::now() + std::chrono::milliseconds(job->period_ms);
      l.unlock();
      RunPeriodic(*job);
      l.lock();
      continue;
    }
    if (!queue_.empty()) {
      const std::unique_ptr<Payload> p = queue_.Pop();
      in_flight_ = true;
      l.unlock();
      Deliver(*p);
      l.lock();
      in_flight_ = false;
      if (queue_.empty()) idle_cv_.notify_all();
      continue;
    }
    if (periodic_ != nullptr) {
      work_cv_.wait_until(l, next_due_);
    } else {
      work_cv_.wait(l);
    }
  }
  stats_.abandoned += queue_.size();
  while (queue_.Pop() != nullptr) {
  }
  idle_cv_.notify_all();
}

void Exporter::RunPeriodic(const PeriodicJob& job) {
  stackrec_encoded* encoded = nullptr;
  const stackrec_status st = stackrec_recorder_serialize(job.recorder, &job.opts, &encoded);
  if (st != STACKREC_OK) {
    const std::string message = std::string("periodic serialize: ") + stackrec_status_name(st) +
                                ": " + stackrec_last_error();
    std::lock_guard<std::mutex> g(mu_);
    ++stats_.serialize_failed;
    SetLastError(message);
    return;
  }
  const stackrec_status sent = Send(encoded);
  stackrec_encoded_free(encoded);
  if (sent != STACKREC_OK) {  // shutting down, or refused (counted by Send)
    std::lock_guard<std::mutex> g(mu_);
    ++stats_.serialize_failed;
  }
}

bool Exporter::Pace(uint64_t bytes, std::unique_lock<std::mutex>* l) {
  if (config_.protocol != STACKREC_EXPORT_PYROSCOPE) return true;
  // A token bucket of Pyroscope's default tenant limits: full at the burst,
  // refilled at the rate. A process sending alone never gets 429 for them.
  constexpr double kRate = static_cast<double>(kPyroscopeRateBytesPerSecond);
  constexpr double kBurst = static_cast<double>(kPyroscopeBurstBytes);
  const double need = std::min(static_cast<double>(bytes), kBurst);
  for (;;) {
    const Clock::time_point now = Clock::now();
    pace_bytes_ = std::min(
        kBurst, pace_bytes_ + kRate * std::chrono::duration<double>(now - pace_at_).count());
    pace_at_ = now;
    if (pace_bytes_ >= need) break;
    const auto wait = std::chrono::duration<double>((need - pace_bytes_) / kRate);
    if (work_cv_.wait_for(*l,
                          std::chrono::duration_cast<std::chrono::microseconds>(wait) +
                              std::chrono::microseconds(1),
                          [&] { return stopping_; })) {
      return false;
    }
  }
  pace_bytes_ -= need;
  return true;
}

void Exporter::Deliver(const Payload& p) {
  const HttpRequest request = BuildRequest(config_, identity_, p);
  for (int retry = 0;; ++retry) {
    {
      // A part that aged out of the backend's window while queued or
      // retried would only be refused: it is dropped and counted instead.
      std::unique_lock<std::mutex> l(mu_);
      const std::string too_old = CheckAge(config_, p.start_ns, UnixNowNs());
      if (!too_old.empty()) {
        ++stats_.dropped_too_old;
        SetLastError("dropped, not sent: " + too_old);
        return;
      }
      if (!Pace(p.uncompressed_bytes, &l)) {
        ++stats_.abandoned;
        return;
      }
    }
    const Outcome o = client_->Perform(request);
    const Verdict v = Classify(o.code, o.status);
    std::unique_lock<std::mutex> l(mu_);
    if (o.status != 0) stats_.last_http_status = o.status;
    const std::string where = " (" + config_.url + ")";
    std::string what = o.code != CURLE_OK
                           ? std::string(curl_easy_strerror(o.code)) + ": " + o.error + where
                           : "HTTP " + std::to_string(o.status) + where;
    if (o.code == CURLE_OK && !o.body.empty() && v != Verdict::kSent) {
      what += ": " + Excerpt(o.body);
    }
    switch (v) {
      case Verdict::kSent: {
        ++stats_.requests_sent;
        stats_.bytes_sent += p.body.size();
        PartialSuccess partial;
        if (config_.protocol == STACKREC_EXPORT_OTLP && ParsePartialSuccess(o.body, &partial) &&
            (partial.rejected_profiles != 0 || !partial.error_message.empty())) {
          stats_.partial_success_rejected += static_cast<uint64_t>(partial.rejected_profiles);
          SetLastError("partial success: the collector rejected " +
                       std::to_string(partial.rejected_profiles) +
                       " profile(s): " + Excerpt(partial.error_message) + where);
        }
        return;
      }
      case Verdict::kRetry:
        if (retry < config_.max_retries) break;
        if (o.code == CURLE_OK) {
          ++stats_.failed_http_5xx;
        } else {
          ++stats_.failed_connection;
        }
        SetLastError(what + ", after " + std::to_string(retry) + " retries");
        return;
      case Verdict::kHttp4xx:
        ++stats_.failed_http_4xx;
        SetLastError(what);
        return;
      case Verdict::kTooLarge:
        ++stats_.failed_too_large;
        SetLastError("HTTP 413" + where + ": the backend refused a part of " +
                     std::to_string(p.body.size()) +
                     " bytes as too large; serialize with a smaller budget "
                     "(stackrec_serialize_options.part_max_bytes, "
                     "docs/limits.md#budgets-profiles-that-backends-accept)");
        return;
      case Verdict::kHttp5xx:
        ++stats_.failed_http_5xx;
        SetLastError(what);
        return;
      case Verdict::kConnection:
        ++stats_.failed_connection;
        SetLastError(what);
        return;
      case Verdict::kAborted:
        ++stats_.abandoned;
        return;
    }
    // Retry: wait, unless shutdown comes first.
    ++stats_.retries;
    SetLastError(what + ", retrying");
    int64_t wait_ms = RetryAfterMs(o.retry_after, static_cast<int64_t>(std::time(nullptr)));
    if (wait_ms < 0) {
      wait_ms = BackoffMs(retry, config_.initial_backoff_ms, config_.max_backoff_ms, &rng_);
    }
    wait_ms = std::min<int64_t>(wait_ms, config_.max_backoff_ms);
    if (work_cv_.wait_for(l, std::chrono::milliseconds(wait_ms), [&] { return stopping_; })) {
      ++stats_.abandoned;
      return;
    }
  }
}

}  // namespace stackrec_export
