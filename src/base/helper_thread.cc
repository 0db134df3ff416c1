// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "base/helper_thread.h"

#include <system_error>
#include <utility>

namespace stackrec {

HelperThread::HelperThread(std::function<bool()> job) : job_(std::move(job)) {}

HelperThread::~HelperThread() {
  if (!thread_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !posted_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool HelperThread::Start() {
  try {
    thread_ = std::thread([this] { Loop(); });
  } catch (const std::system_error&) {
    return false;  // no thread to be had: the owner works alone
  }
  return true;
}

void HelperThread::Post() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    posted_ = true;
  }
  cv_.notify_all();
}

bool HelperThread::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !posted_; });
  return result_;
}

void HelperThread::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return posted_ || stop_; });
    if (!posted_) return;  // stop_, with nothing left to run
    // The job runs unlocked: the owner may call Wait (and block on cv_)
    // meanwhile, but touches nothing the job uses until Wait returns.
    lock.unlock();
    const bool result = job_();
    lock.lock();
    result_ = result;
    posted_ = false;
    cv_.notify_all();
  }
}

}  // namespace stackrec
