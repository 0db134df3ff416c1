// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "unwinder.h"

// Local unwinding only: the names below become libunwind.so.8's _UL*
// entry points, which we look up by name instead of linking them.
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <ucontext.h>

#include <type_traits>

#ifndef STACKREC_EXEC_LIBUNWIND_SONAME
#define STACKREC_EXEC_LIBUNWIND_SONAME "libunwind.so.8"
#endif

// The handler's ucontext is passed to libunwind as its context: the same type
// on this architecture, which is what makes starting the walk at the
// interrupted instruction (UNW_INIT_SIGNAL_FRAME) possible.
static_assert(std::is_same<unw_context_t, ucontext_t>::value,
              "libunwind's context must be the signal handler's ucontext_t");

#define STACKREC_EXEC_STR2(x) #x
#define STACKREC_EXEC_STR(x) STACKREC_EXEC_STR2(x)  // expands libunwind's macros first

namespace stackrec_exec {
namespace {

using InitLocal2Fn = decltype(&unw_init_local2);
using StepFn = decltype(&unw_step);
using GetRegFn = decltype(&unw_get_reg);
using SetCachingPolicyFn = decltype(&unw_set_caching_policy);

}  // namespace

bool Unwinder::Load(std::string* error) {
  void* lib = dlopen(STACKREC_EXEC_LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    *error = std::string("cannot load " STACKREC_EXEC_LIBUNWIND_SONAME ": ") + dlerror();
    return false;
  }
  // Never dlclose'd: a handler may be running in it until the process ends.
  init_local2_ = dlsym(lib, STACKREC_EXEC_STR(unw_init_local2));
  step_ = dlsym(lib, STACKREC_EXEC_STR(unw_step));
  get_reg_ = dlsym(lib, STACKREC_EXEC_STR(unw_get_reg));
  auto set_caching_policy =
      reinterpret_cast<SetCachingPolicyFn>(dlsym(lib, STACKREC_EXEC_STR(unw_set_caching_policy)));
  auto* local_addr_space =
      static_cast<unw_addr_space_t*>(dlsym(lib, STACKREC_EXEC_STR(unw_local_addr_space)));
  if (!init_local2_ || !step_ || !get_reg_ || !set_caching_policy || !local_addr_space) {
    *error = STACKREC_EXEC_LIBUNWIND_SONAME " lacks unw_init_local2 (libunwind >= 1.3 needed)";
    init_local2_ = nullptr;
    return false;
  }
  // See unwinder.h: no per-thread (TLS) cache in a privately loaded library.
  set_caching_policy(*local_addr_space, UNW_CACHE_GLOBAL);

  // Warm-up: libunwind initialises itself on first use (locks, mmap), which
  // must not happen for the first time inside a signal handler.
  ucontext_t here;
  if (getcontext(&here) == 0) {
    uint64_t pcs[8];
    bool truncated;
    (void)Capture(&here, pcs, 8, &truncated);
  }
  return true;
}

int Unwinder::Capture(void* ucontext, uint64_t* pcs, int max, bool* truncated) const {
  *truncated = false;
  if (init_local2_ == nullptr || max <= 0) return 0;
  const auto init = reinterpret_cast<InitLocal2Fn>(init_local2_);
  const auto step = reinterpret_cast<StepFn>(step_);
  const auto get_reg = reinterpret_cast<GetRegFn>(get_reg_);

  unw_cursor_t cursor;
  auto* context = static_cast<unw_context_t*>(ucontext);
  if (init(&cursor, context, UNW_INIT_SIGNAL_FRAME) < 0) {
    pcs[0] = static_cast<uint64_t>(context->uc_mcontext.gregs[REG_RIP]);
    return 1;  // at least the leaf
  }
  int n = 0;
  for (;;) {
    unw_word_t ip = 0;
    if (get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
    pcs[n++] = ip;
    const int more = step(&cursor);
    if (more <= 0) break;  // 0: the outermost frame; < 0: no unwind info
    if (n == max) {
      *truncated = true;
      break;
    }
  }
  return n;
}

}  // namespace stackrec_exec
