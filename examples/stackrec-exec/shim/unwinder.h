// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Walks the interrupted thread's stack from inside the SIGPROF handler, with
// Debian's libunwind (libunwind8), from the signal's own register context.
//
// Why libunwind, and why through dlopen:
//  - It unwinds with the DWARF CFI every x86-64 object carries
//    (-fasynchronous-unwind-tables is GCC's default there), so programs and
//    libraries built without frame pointers, as Debian's are, unwind fully.
//  - Its state is its own. libgcc's _Unwind_Backtrace would share
//    _Unwind_Find_FDE with the program's own exception handling, whose mutex
//    a program that registers JIT frames may hold at the very instruction we
//    interrupt; libunwind's caches are touched only from our handler, and it
//    validates every stack read (conservative checks), so a bad CFA stops the
//    walk instead of faulting.
//  - Loaded RTLD_LOCAL: libunwind.so.8 also defines the _Unwind_* ABI, and
//    linking it into a preloaded library would put those first in the
//    program's symbol scope, so the program's C++ exceptions and
//    pthread_exit's forced unwinding would run through libunwind instead of
//    libgcc. Private, they cannot.
//  - Loaded privately its TLS would be dynamic (allocated by malloc on a
//    thread's first touch, not safe in a handler), so it runs with the global
//    cache (UNW_CACHE_GLOBAL, a lock libunwind takes with all signals
//    blocked, and only ever from our handlers) and never calls
//    unw_backtrace, the one path that uses TLS.
// Load() warms libunwind up (its one-time initialisation takes locks and
// maps memory) before the first signal can arrive.
#ifndef STACKREC_EXEC_SHIM_UNWINDER_H_
#define STACKREC_EXEC_SHIM_UNWINDER_H_

#include <cstdint>
#include <string>

namespace stackrec_exec {

class Unwinder {
 public:
  // Not async-signal-safe: dlopen and the warm-up. Once, at startup.
  bool Load(std::string* error);

  // Async-signal-safe. Stores the stack of the context `ucontext` (the
  // handler's third argument), innermost first, into pcs[0, max): pcs[0] is
  // the interrupted instruction, the rest return addresses. Returns the
  // count; *truncated tells whether the stack went on past `max`.
  int Capture(void* ucontext, uint64_t* pcs, int max, bool* truncated) const;

 private:
  // libunwind's entry points, as dlsym found them; unwinder.cc casts them
  // back to their declared types, so this header needs no libunwind.h.
  void* init_local2_ = nullptr;
  void* step_ = nullptr;
  void* get_reg_ = nullptr;
};

}  // namespace stackrec_exec

#endif  // STACKREC_EXEC_SHIM_UNWINDER_H_
