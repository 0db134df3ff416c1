// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// libstackrec_exec_shim.so: what stackrec-exec preloads into the program.
// This file wires the parts together and follows the process through its
// life:
//  - start: a constructor, run before the program's own, reads the
//    configuration, loads the unwinder, creates the recorder, installs the
//    SIGPROF handler, starts the collector and arms the main thread's timer;
//  - threads: pthread_create is interposed so that every new thread arms
//    its own timer before running its start routine;
//  - fork: pthread_atfork closes the sampler's gate for the fork; the child
//    empties the ring, resets the recorder (stackrec_recorder_reset_after_
//    fork), starts its own collector and re-arms its only thread's timer, so
//    it writes its own files under its own pid;
//  - exec: the exec family is interposed to write the last profile of the
//    image being replaced (the new image, inheriting LD_PRELOAD, profiles
//    itself);
//  - exit: an atexit handler writes the last profile; SIGINT, SIGTERM and
//    SIGHUP, where the program leaves them at their default, write it too
//    before the process dies of them.
// If anything fails at start, the program runs unprofiled, with one line on
// stderr saying why.
//
// Only the interposed functions are exported (-fvisibility=hidden).
#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "collector.h"
#include "config.h"
#include "profile_writer.h"
#include "sample_ring.h"
#include "sampler.h"
#include "stackrec/stackrec.h"
#include "symbolizer.h"
#include "unwinder.h"

#define STACKREC_EXEC_EXPORT extern "C" __attribute__((visibility("default")))

extern char** environ;

namespace stackrec_exec {
namespace {

// How long exec and exit wait for the last profile before going ahead
// without it: symbolizing a large binary for the first time takes a while,
// but a wedged profiler must never keep a program from exiting.
constexpr int kFlushTimeoutMs = 10000;

using PthreadCreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvpeFn = int (*)(const char*, char* const[], char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);

// The next definition after ours: libc's. Looked up on first use, since a
// library's constructor may create a thread before ours has run.
template <typename Fn>
Fn Next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

PthreadCreateFn RealPthreadCreate() {
  static const PthreadCreateFn real = Next<PthreadCreateFn>("pthread_create");
  return real;
}

// Everything lives for the process and is never freed: a handler or the
// collector may use it until the very end, after exit-time destructors.
struct Shim {
  Config config;
  SampleRing ring;
  Unwinder unwinder;
  stackrec_recorder* recorder = nullptr;
  Symbolizer* symbolizer = nullptr;
  ProfileWriter* writer = nullptr;
  Collector* collector = nullptr;
  pid_t pid = 0;                    // the process this state belongs to
  std::atomic<bool> active{false};  // set once everything is in place
  std::atomic<bool> terminating{false};
};
Shim* g_shim = nullptr;

void Log(const std::string& message) {
  std::fprintf(stderr, "stackrec-exec: %s\n", message.c_str());
}

// Profiling in this process: started, not exited, and not a vfork child
// (which shares the parent's memory, this state included, until it execs
// or exits, and must leave it alone).
bool Active() {
  Shim* s = g_shim;
  return s != nullptr && s->active.load() && getpid() == s->pid;
}

stackrec_recorder* NewRecorder(int64_t period_ns, std::string* error) {
  static const stackrec_value_type kTypes[] = {
      {{"cpu-samples", 11}, {"count", 5}},
      {{"cpu-time", 8}, {"nanoseconds", 11}},
  };
  stackrec_profile_options options = {};
  options.sample_types = kTypes;
  options.sample_types_len = 2;
  options.period_type = {{"cpu", 3}, {"nanoseconds", 11}};
  options.period = period_ns;
  stackrec_recorder* recorder = nullptr;
  if (stackrec_recorder_new(&options, &recorder) != STACKREC_OK) {
    *error = std::string("stackrec_recorder_new: ") + stackrec_last_error();
    return nullptr;
  }
  return recorder;
}

// ---- termination signals ---------------------------------------------------

void OnTerminationSignal(int sig) {  // async-signal-safe
  const int saved_errno = errno;
  Shim* s = g_shim;
  if (!Active() || s->terminating.exchange(true)) {
    // Not ours to flush, or a second Ctrl-C while flushing: die now.
    signal(sig, SIG_DFL);
    raise(sig);  // delivered when this handler returns
  } else {
    s->collector->OnTerminationSignal(sig);
  }
  errno = saved_errno;
}

void InstallTerminationHandlers() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction now;
    if (sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;  // the program's
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = OnTerminationSignal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

// ---- fork --------------------------------------------------------------------

void BeforeFork() {
  // No handler may be inside the ring or libunwind at the fork: the child
  // would inherit a half-claimed slot or a held lock. Signals meanwhile are
  // counted as lost, in the parent's profile.
  if (Active()) sampler::CloseGate(sampler::Gate::kClosedCountLost);
}

void AfterForkInParent() {
  if (Active()) sampler::OpenGate();
}

void AfterForkInChild() {
  Shim* s = g_shim;
  if (s == nullptr || !s->active.load()) return;
  // Only this thread came along. Everything the others were doing at the
  // fork is abandoned: the ring's contents, the recorder's (reset keeps it
  // usable), the collector's mutex and thread, and the symbolizer if the
  // collector was inside it.
  s->pid = getpid();
  s->terminating.store(false);
  s->ring.ResetAfterFork();
  sampler::ResetAfterFork();
  if (stackrec_recorder_reset_after_fork(s->recorder) != STACKREC_OK) {
    Log(std::string("profiling stops in fork child: ") + stackrec_last_error());
    s->active.store(false);
    return;
  }
  if (s->symbolizer->busy()) s->symbolizer = new Symbolizer(s->config.separate_debuginfo);
  s->config.root_process = false;  // a descendant: no empty files
  s->writer = new ProfileWriter(s->config.out_dir, program_invocation_short_name);
  s->collector = new Collector(s->config, &s->ring, s->recorder, s->symbolizer, s->writer);
  std::string error;
  if (!s->collector->Start(RealPthreadCreate(), &error)) {
    // No thread: exit and exec still flush, from the calling thread.
    Log("in fork child: " + error);
  }
  sampler::ArmThisThread();
}

// ---- exit ------------------------------------------------------------------------

void AtExit() {
  if (!Active()) return;
  g_shim->active.store(false);  // new threads from here on run unprofiled
  sampler::CloseGate(sampler::Gate::kClosedIgnore);
  if (!g_shim->collector->Finish(kFlushTimeoutMs)) Log("gave up waiting for the last profile");
}

// ---- start -----------------------------------------------------------------------

__attribute__((constructor)) void Start() {
  auto* s = new Shim();
  std::string warnings;
  s->config = ConfigFromEnvironment(&warnings);
  if (!warnings.empty()) Log(warnings.substr(0, warnings.size() - 1));
  s->pid = getpid();

  std::string error;
  if (!s->ring.Init(s->config.ring_slots)) {
    Log("profiling disabled: cannot map the sample ring");
    return;
  }
  if (!s->unwinder.Load(&error) ||
      (s->recorder = NewRecorder(s->config.period_ns(), &error)) == nullptr) {
    Log("profiling disabled: " + error);
    return;
  }
  s->symbolizer = new Symbolizer(s->config.separate_debuginfo);
  s->writer = new ProfileWriter(s->config.out_dir, program_invocation_short_name);
  s->collector = new Collector(s->config, &s->ring, s->recorder, s->symbolizer, s->writer);
  sampler::Options options;
  options.ring = &s->ring;
  options.unwinder = &s->unwinder;
  options.period_ns = s->config.period_ns();
  options.timestamps = s->config.timestamps;
  if (!sampler::Install(options, &error) || !s->collector->Start(RealPthreadCreate(), &error)) {
    Log("profiling disabled: " + error);
    return;
  }
  g_shim = s;
  pthread_atfork(BeforeFork, AfterForkInParent, AfterForkInChild);
  atexit(AtExit);
  InstallTerminationHandlers();
  s->active.store(true);
  if (!sampler::ArmThisThread()) Log("cannot arm the main thread's CPU timer");
}

// ---- threads -----------------------------------------------------------------------

struct ThreadStart {
  void* (*routine)(void*);
  void* arg;
};

void* StartProfiledThread(void* p) {
  const ThreadStart start = *static_cast<ThreadStart*>(p);
  delete static_cast<ThreadStart*>(p);
  if (Active()) sampler::ArmThisThread();
  return start.routine(start.arg);
}

// ---- exec --------------------------------------------------------------------------

// Writes the replaced image's last profile; true if the exec must be
// followed by AfterFailedExec when it returns.
bool BeforeExec() {
  if (!Active()) return false;
  sampler::CloseGate(sampler::Gate::kClosedIgnore);
  if (!g_shim->collector->FlushForExec(kFlushTimeoutMs)) {
    Log("gave up waiting for the profile before exec");
  }
  sampler::IgnoreSignalForExec();
  return true;
}

void AfterFailedExec(bool flushed) {
  if (!flushed) return;
  const int saved_errno = errno;
  sampler::RestoreSignalAfterFailedExec();
  sampler::OpenGate();
  errno = saved_errno;
}

// Collects an execl-style argument list (arg, ..., NULL) into an argv on
// the stack: no malloc, which a vfork child must not call.
#define STACKREC_EXEC_COLLECT_ARGS(argv, arg, last)                       \
  size_t argc_ = 1;                                                       \
  {                                                                       \
    va_list ap_;                                                          \
    va_start(ap_, last);                                                  \
    while (va_arg(ap_, const char*) != nullptr) ++argc_;                  \
    va_end(ap_);                                                          \
  }                                                                       \
  char** argv = static_cast<char**>(alloca((argc_ + 1) * sizeof(char*))); \
  argv[0] = const_cast<char*>(arg);

}  // namespace
}  // namespace stackrec_exec

using namespace stackrec_exec;  // NOLINT: the exported C symbols below

STACKREC_EXEC_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                                        void* (*routine)(void*), void* arg) __THROWNL {
  const PthreadCreateFn real = RealPthreadCreate();
  if (real == nullptr) return EAGAIN;
  if (!Active()) return real(thread, attr, routine, arg);
  auto* start = new (std::nothrow) ThreadStart{routine, arg};
  if (start == nullptr) return real(thread, attr, routine, arg);
  const int rc = real(thread, attr, StartProfiledThread, start);
  if (rc != 0) delete start;
  return rc;
}

STACKREC_EXEC_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) __THROW {
  static const auto real = Next<ExecveFn>("execve");
  const bool flushed = BeforeExec();
  const int rc = real(path, argv, envp);
  AfterFailedExec(flushed);
  return rc;
}

STACKREC_EXEC_EXPORT int execv(const char* path, char* const argv[]) __THROW {
  return execve(path, argv, environ);
}

STACKREC_EXEC_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) __THROW {
  static const auto real = Next<ExecvpeFn>("execvpe");
  const bool flushed = BeforeExec();
  const int rc = real(file, argv, envp);
  AfterFailedExec(flushed);
  return rc;
}

STACKREC_EXEC_EXPORT int execvp(const char* file, char* const argv[]) __THROW {
  return execvpe(file, argv, environ);
}

STACKREC_EXEC_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) __THROW {
  static const auto real = Next<FexecveFn>("fexecve");
  const bool flushed = BeforeExec();
  const int rc = real(fd, argv, envp);
  AfterFailedExec(flushed);
  return rc;
}

STACKREC_EXEC_EXPORT int execl(const char* path, const char* arg, ...) __THROW {
  STACKREC_EXEC_COLLECT_ARGS(argv, arg, arg)
  va_list ap;
  va_start(ap, arg);
  for (size_t i = 1; i <= argc_; ++i) argv[i] = va_arg(ap, char*);  // through the NULL
  va_end(ap);
  return execve(path, argv, environ);
}

STACKREC_EXEC_EXPORT int execlp(const char* file, const char* arg, ...) __THROW {
  STACKREC_EXEC_COLLECT_ARGS(argv, arg, arg)
  va_list ap;
  va_start(ap, arg);
  for (size_t i = 1; i <= argc_; ++i) argv[i] = va_arg(ap, char*);
  va_end(ap);
  return execvpe(file, argv, environ);
}

STACKREC_EXEC_EXPORT int execle(const char* path, const char* arg, ...) __THROW {
  STACKREC_EXEC_COLLECT_ARGS(argv, arg, arg)
  va_list ap;
  va_start(ap, arg);
  for (size_t i = 1; i <= argc_; ++i) argv[i] = va_arg(ap, char*);
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return execve(path, argv, envp);
}
