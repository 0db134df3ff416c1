// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Turns raw instruction addresses of this process into pprof frames:
//  - the mapping, from /proc/self/maps: the executable segment's address
//    range, file offset and path, and the file's GNU build id (read from its
//    ELF note by libdwfl), so pprof tools can find the binary and its
//    debug info later;
//  - the function and line, with elfutils' libdw: DWARF where the file has
//    it, giving file:line and one frame per inlined call; otherwise the ELF
//    symbol tables (.symtab, which also names static functions, then
//    .dynsym), the separate debug file's (/usr/lib/debug/.build-id, never
//    the network) where there is one. That file's DWARF too only when asked
//    (separate_debuginfo): Debian compresses it, and decompressing libc's
//    alone costs each process ~60 ms of CPU;
//  - C++ names demangled with abi::__cxa_demangle, the mangled name kept as
//    the function's system name.
// An address outside every file-backed mapping (JIT code) stays a bare
// address.
//
// Everything is cached: the frames of each address (they are immutable
// while its mapping is), the interned strings the frames point into, and
// libdwfl's parsed files. Revalidate, on the collector's schedule, drops the
// frames when a mapping went away (a dlclose), since another library may
// later occupy the same addresses.
//
// Not thread-safe: only the collector thread uses it. Fork: the busy flag
// tells the child whether the parent's collector was inside the symbolizer
// at the fork; if it was not, the child can keep the (consistent) caches.
#ifndef STACKREC_EXEC_SHIM_SYMBOLIZER_H_
#define STACKREC_EXEC_SHIM_SYMBOLIZER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stackrec/stackrec.h"

struct Dwfl;
struct Dwfl_Module;

namespace stackrec_exec {

class Symbolizer {
 public:
  explicit Symbolizer(bool separate_debuginfo) : separate_debuginfo_(separate_debuginfo) {}
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;
  ~Symbolizer();

  // Appends the frames of `pc`, innermost first (more than one where the
  // compiler inlined calls). A return address (every frame but the
  // interrupted one) is looked up, and written, as pc - 1: inside the call
  // instruction, so that the line is the call's and not the next one's.
  // The locations point into this symbolizer's strings: valid until it is
  // destroyed.
  void Append(uint64_t pc, bool return_address, std::vector<stackrec_location>* out);

  // Starts a drain: the mappings may be re-read once more on a miss.
  void BeginBatch() { reread_allowed_ = true; }

  // Re-reads the mappings; forgets every cached frame if one went away.
  void Revalidate();

  void set_busy(bool busy) { busy_.store(busy, std::memory_order_seq_cst); }
  bool busy() const { return busy_.load(std::memory_order_seq_cst); }

 private:
  struct Mapping {
    uint64_t start, limit, offset;
    std::string path;
    stackrec_mapping c;  // build id filled on first use
    bool build_id_known;
  };

  bool EnsureStarted();
  bool ReadMappings(std::vector<Mapping>* out) const;
  void Report();  // (re)tells libdwfl the process's modules
  Mapping* FindMapping(uint64_t addr);
  void FillBuildId(Mapping* m);
  bool UseDwarf(Dwfl_Module* mod);  // its own DWARF, or separate allowed
  std::vector<stackrec_location> Resolve(uint64_t addr);
  void AddFrame(const std::string& name, const char* file, int line, int start_line,
                stackrec_location base, std::vector<stackrec_location>* out);
  stackrec_str Intern(const std::string& s);

  const bool separate_debuginfo_;
  bool started_ = false;
  bool reread_allowed_ = true;
  std::atomic<bool> busy_{false};
  Dwfl* dwfl_ = nullptr;
  std::vector<Mapping> mappings_;  // executable, sorted by start
  std::unordered_map<uint64_t, std::vector<stackrec_location>> frames_;
  std::unordered_set<std::string> strings_;               // node-based: stable data()
  std::unordered_map<Dwfl_Module*, bool> has_own_dwarf_;  // until Report()
};

}  // namespace stackrec_exec

#endif  // STACKREC_EXEC_SHIM_SYMBOLIZER_H_
