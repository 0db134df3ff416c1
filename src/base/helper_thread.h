// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// One thread that runs one job at a time for its owner, so that the owner
// can go on with other work meanwhile: the compressor uses it to compress
// one buffer while the encoder fills the next. The job is fixed at
// construction; what it works on is the owner's to hand over.
//
// Memory ordering: everything the owner wrote before Post() is visible to
// the job, and everything the job wrote is visible to the owner after
// Wait() returns, because both pass through the same mutex. Between a Post()
// and its Wait() the owner must not touch what the job reads or writes.
// The thread starts only when asked (Start), so a host that must not start
// threads never gets one, and a failure to start is an answer, not an
// exception: the owner then does the work itself.
#ifndef STACKREC_SRC_BASE_HELPER_THREAD_H_
#define STACKREC_SRC_BASE_HELPER_THREAD_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace stackrec {

class HelperThread {
 public:
  // `job` runs on the helper thread, once per Post(); its result is what
  // the matching Wait() returns.
  explicit HelperThread(std::function<bool()> job);
  // Waits for a posted job, then stops and joins the thread.
  ~HelperThread();
  HelperThread(const HelperThread&) = delete;
  HelperThread& operator=(const HelperThread&) = delete;

  // Starts the thread; false if the system refused one. Call once.
  bool Start();
  bool started() const { return thread_.joinable(); }

  // Runs the job once on the thread. The previous one must have been
  // waited for.
  void Post();
  // Waits for the posted job and returns its result; true if none was posted.
  bool Wait();

 private:
  void Loop();

  const std::function<bool()> job_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  bool posted_ = false;  // a job waits to run or runs
  bool stop_ = false;    // the thread is to end
  bool result_ = true;   // of the last job
};

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_HELPER_THREAD_H_
