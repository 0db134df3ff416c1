// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "utf8.h"

namespace stackrec_exec {
namespace {

std::string Hex(const unsigned char* bytes, int len) {
  std::string out;
  char buf[3];
  for (int i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", bytes[i]);
    out += buf;
  }
  return out;
}

// Separate debug info, from this machine only: Debian's -dbg and -dbgsym
// packages install it by build id. Not dwfl_standard_find_debuginfo, which
// with DEBUGINFOD_URLS set would download from inside the profiled
// process. Returning -1 leaves libdwfl with the file's own DWARF, if any.
int FindLocalDebuginfo(Dwfl_Module* mod, void**, const char*, Dwarf_Addr, const char*, const char*,
                       GElf_Word, char** debuginfo_file_name) {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr;
  const int len = dwfl_module_build_id(mod, &bits, &vaddr);
  if (len < 2) return -1;
  const std::string path =
      "/usr/lib/debug/.build-id/" + Hex(bits, 1) + "/" + Hex(bits + 1, len - 1) + ".debug";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) *debuginfo_file_name = strdup(path.c_str());
  return fd;
}

const Dwfl_Callbacks kDwflCallbacks = {
    dwfl_linux_proc_find_elf,  // the files the maps name
    FindLocalDebuginfo,
    nullptr,
    nullptr,
};

// Follows DW_AT_abstract_origin (an inlined or out-of-line instance) and
// DW_AT_specification (a definition outside its class) to the DIE that
// declares the function, where its name and enclosing scopes are.
Dwarf_Die Declaration(Dwarf_Die die) {
  for (int hops = 0; hops < 8; ++hops) {
    Dwarf_Attribute attr;
    Dwarf_Die next;
    if ((dwarf_attr(&die, DW_AT_abstract_origin, &attr) == nullptr &&
         dwarf_attr(&die, DW_AT_specification, &attr) == nullptr) ||
        dwarf_formref_die(&attr, &next) == nullptr) {
      break;
    }
    die = next;
  }
  return die;
}

// The name a DIE's function goes by: its mangled linkage name where the
// compiler kept one; else its plain name qualified with the namespaces and
// classes around its declaration (GCC leaves the linkage name out for many
// inline-only functions, whose plain name alone, "_M_run", says little).
// `symbol`, the ELF symbol at the address, is the better name for an
// out-of-line function without a linkage name (a lambda's operator(),
// whose class has no name in DWARF but does in the mangled symbol).
std::string FunctionName(Dwarf_Die* die, const char* symbol) {
  Dwarf_Attribute attr;
  const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (linkage == nullptr) {
    linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  }
  if (linkage != nullptr) return linkage;
  if (symbol != nullptr && *symbol != '\0') return symbol;
  Dwarf_Die decl = Declaration(*die);
  const char* name = dwarf_diename(&decl);
  if (name == nullptr) return "";
  std::string qualified = name;
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes_die(&decl, &scopes);  // decl, then outwards
  for (int i = 1; i < n; ++i) {
    const int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type) {
      continue;
    }
    const char* scope = dwarf_diename(&scopes[i]);
    const char* unnamed = tag == DW_TAG_namespace ? "(anonymous namespace)" : "{unnamed type}";
    qualified = std::string(scope != nullptr ? scope : unnamed) + "::" + qualified;
  }
  std::free(scopes);
  return qualified;
}

struct FuncSearch {
  Dwarf_Addr pc;
  Dwarf_Die found;
  bool ok;
};

int MatchFunction(Dwarf_Die* func, void* arg) {
  auto* search = static_cast<FuncSearch*>(arg);
  if (dwarf_haspc(func, search->pc) != 1) return DWARF_CB_OK;
  search->found = *func;
  search->ok = true;
  return DWARF_CB_ABORT;
}

// The concrete (out-of-line) function containing `pc`. dwarf_getscopes only
// descends into DIEs whose ranges hold pc, so it misses functions that GCC
// nests inside another function's DIE (a lambda's operator()); the full
// walk of dwarf_getfuncs finds those.
bool FindFunction(Dwarf_Die* cu, Dwarf_Addr pc, Dwarf_Die* out) {
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(cu, pc, &scopes);
  bool ok = false;
  for (int i = 0; i < n && !ok; ++i) {
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
      *out = scopes[i];
      ok = true;
    }
  }
  std::free(scopes);
  if (ok) return true;
  FuncSearch search{pc, {}, false};
  dwarf_getfuncs(cu, MatchFunction, &search, 0);
  if (search.ok) *out = search.found;
  return search.ok;
}

// The inlined bodies under `die` that hold `pc`, outermost first.
void InlinedChain(Dwarf_Die* die, Dwarf_Addr pc, std::vector<Dwarf_Die>* chain) {
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
         tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
        dwarf_haspc(&child, pc) == 1) {
      if (tag == DW_TAG_inlined_subroutine) chain->push_back(child);
      InlinedChain(&child, pc, chain);
      return;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

Symbolizer::~Symbolizer() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

stackrec_str Symbolizer::Intern(const std::string& s) {
  if (s.empty()) return {nullptr, 0};
  const std::string& kept = *strings_.insert(SanitizeUtf8(s)).first;
  return {kept.data(), kept.size()};
}

bool Symbolizer::EnsureStarted() {
  if (started_) return dwfl_ != nullptr;
  started_ = true;
  dwfl_ = dwfl_begin(&kDwflCallbacks);
  if (dwfl_ == nullptr) return false;
  Report();
  return true;
}

void Symbolizer::Report() {
  has_own_dwarf_.clear();    // its keys may be freed below
  dwfl_report_begin(dwfl_);  // modules not reported again are dropped
  dwfl_linux_proc_report(dwfl_, getpid());
  dwfl_report_end(dwfl_, nullptr, nullptr);
  std::vector<Mapping> fresh;
  ReadMappings(&fresh);
  mappings_ = std::move(fresh);
}

bool Symbolizer::ReadMappings(std::vector<Mapping>* out) const {
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  char* line = nullptr;
  size_t cap = 0;
  while (getline(&line, &cap, maps) > 0) {
    uint64_t start, limit, offset;
    char perms[8];
    int path_at = 0;
    // start-limit perms offset dev inode [path]
    if (std::sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &limit,
                    perms, &offset, &path_at) < 4) {
      continue;
    }
    if (perms[2] != 'x') continue;  // only code is ever sampled
    std::string path = line + path_at;
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    const std::string deleted = " (deleted)";
    if (path.size() > deleted.size() &&
        path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0) {
      path.resize(path.size() - deleted.size());
    }
    if (path.empty()) continue;  // anonymous (JIT) code: bare addresses
    Mapping m{};
    m.start = start;
    m.limit = limit;
    m.offset = offset;
    m.path = std::move(path);
    out->push_back(std::move(m));
  }
  std::free(line);
  std::fclose(maps);
  std::sort(out->begin(), out->end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  return true;
}

Symbolizer::Mapping* Symbolizer::FindMapping(uint64_t addr) {
  auto it = std::upper_bound(mappings_.begin(), mappings_.end(), addr,
                             [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == mappings_.begin()) return nullptr;
  --it;
  return addr < it->limit ? &*it : nullptr;
}

void Symbolizer::FillBuildId(Mapping* m) {
  m->build_id_known = true;
  m->c.memory_start = m->start;
  m->c.memory_limit = m->limit;
  m->c.file_offset = m->offset;
  m->c.filename = Intern(m->path);
  Dwfl_Module* mod = dwfl_addrmodule(dwfl_, m->start);
  if (mod == nullptr) return;
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr;
  int len = dwfl_module_build_id(mod, &bits, &vaddr);
  if (len <= 0) {
    GElf_Addr bias;
    dwfl_module_getelf(mod, &bias);  // opens the file; then the note is known
    len = dwfl_module_build_id(mod, &bits, &vaddr);
  }
  if (len > 0) m->c.build_id = Intern(Hex(bits, len));
}

bool Symbolizer::UseDwarf(Dwfl_Module* mod) {
  if (separate_debuginfo_) return true;
  auto it = has_own_dwarf_.find(mod);
  if (it != has_own_dwarf_.end()) return it->second;
  bool has = false;
  GElf_Addr bias;
  size_t names;
  if (Elf* elf = dwfl_module_getelf(mod, &bias);
      elf != nullptr && elf_getshdrstrndx(elf, &names) == 0) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr && !has;
         scn = elf_nextscn(elf, scn)) {
      GElf_Shdr header;
      const char* name =
          gelf_getshdr(scn, &header) != nullptr ? elf_strptr(elf, names, header.sh_name) : nullptr;
      has = name != nullptr && std::strcmp(name, ".debug_info") == 0;
    }
  }
  has_own_dwarf_[mod] = has;
  return has;
}

void Symbolizer::AddFrame(const std::string& name, const char* file, int line, int start_line,
                          stackrec_location base, std::vector<stackrec_location>* out) {
  if (name.empty()) return;
  stackrec_location loc = base;
  int status = -1;
  char* demangled = name.compare(0, 2, "_Z") == 0
                        ? abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status)
                        : nullptr;
  if (status == 0 && demangled != nullptr) {
    loc.function.name = Intern(demangled);
    loc.function.system_name = Intern(name);
  } else {
    loc.function.name = Intern(name);
  }
  std::free(demangled);
  if (file != nullptr) loc.function.filename = Intern(file);
  loc.function.start_line = start_line > 0 ? start_line : 0;
  loc.line = line > 0 ? line : 0;
  out->push_back(loc);
}

std::vector<stackrec_location> Symbolizer::Resolve(uint64_t addr) {
  std::vector<stackrec_location> frames;
  stackrec_location base{};
  base.address = addr;
  Mapping* m = FindMapping(addr);
  if (m == nullptr && reread_allowed_) {
    reread_allowed_ = false;  // a dlopen since the last look: once per drain
    Report();
    m = FindMapping(addr);
  }
  if (m == nullptr) {
    frames.push_back(base);  // anonymous code: a bare address
    return frames;
  }
  if (!m->build_id_known) FillBuildId(m);
  base.mapping = m->c;

  Dwfl_Module* mod = dwfl_addrmodule(dwfl_, addr);
  if (mod != nullptr) {
    // DWARF: the innermost position from the line table, then one frame
    // per enclosing inlined body, each continuing at its call site.
    Dwarf_Addr bias = 0;
    const char* file = nullptr;
    int line = 0;
    const bool use_dwarf = UseDwarf(mod);
    Dwfl_Line* l = use_dwarf ? dwfl_module_getsrc(mod, addr) : nullptr;
    if (l != nullptr) {
      file = dwfl_lineinfo(l, nullptr, &line, nullptr, nullptr, nullptr);
    }
    GElf_Off offset;
    GElf_Sym sym;
    // The symbol tables: .symtab (which also names static functions), else
    // .dynsym, of the file or its separate debug file.
    const char* symbol = dwfl_module_addrinfo(mod, addr, &offset, &sym, nullptr, nullptr, nullptr);
    Dwarf_Die* cu = use_dwarf ? dwfl_module_addrdie(mod, addr, &bias) : nullptr;
    Dwarf_Die function;
    if (cu != nullptr && FindFunction(cu, addr - bias, &function)) {
      std::vector<Dwarf_Die> inlined;
      InlinedChain(&function, addr - bias, &inlined);
      Dwarf_Files* files = nullptr;
      size_t nfiles = 0;
      const bool have_files = dwarf_getsrcfiles(cu, &files, &nfiles) == 0;
      for (size_t i = inlined.size() + 1; i-- > 0;) {
        Dwarf_Die* scope = i == 0 ? &function : &inlined[i - 1];
        int decl_line = 0;
        dwarf_decl_line(scope, &decl_line);
        const char* decl_file = dwarf_decl_file(scope);
        AddFrame(FunctionName(scope, i == 0 ? symbol : nullptr),
                 decl_file != nullptr ? decl_file : file, line, decl_line, base, &frames);
        if (i == 0) break;
        // The caller goes on at this body's call site.
        Dwarf_Attribute attr;
        Dwarf_Word value;
        line = dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attr), &value) == 0
                   ? static_cast<int>(value)
                   : 0;
        file = have_files &&
                       dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &attr), &value) == 0 &&
                       value < nfiles
                   ? dwarf_filesrc(files, value, nullptr, nullptr)
                   : nullptr;
      }
    }
    if (frames.empty() && symbol != nullptr) {
      AddFrame(symbol, file, line, 0, base, &frames);  // no DWARF: the symbol
    }
    // Every body but the outermost function was inlined into the next one
    // out, at this same address: one pprof Location with a Line each.
    for (size_t i = 0; i + 1 < frames.size(); ++i) frames[i].inlined = true;
  }
  if (frames.empty()) frames.push_back(base);  // no symbol: address + mapping
  return frames;
}

void Symbolizer::Append(uint64_t pc, bool return_address, std::vector<stackrec_location>* out) {
  const uint64_t addr = return_address && pc > 0 ? pc - 1 : pc;
  auto it = frames_.find(addr);
  if (it == frames_.end()) {
    if (!EnsureStarted()) {
      stackrec_location bare{};
      bare.address = addr;
      out->push_back(bare);
      return;
    }
    it = frames_.emplace(addr, Resolve(addr)).first;
  }
  out->insert(out->end(), it->second.begin(), it->second.end());
}

void Symbolizer::Revalidate() {
  if (!started_ || dwfl_ == nullptr) return;
  std::vector<Mapping> now;
  if (!ReadMappings(&now)) return;
  bool unchanged = now.size() == mappings_.size();
  for (size_t i = 0; unchanged && i < now.size(); ++i) {
    unchanged = now[i].start == mappings_[i].start && now[i].limit == mappings_[i].limit &&
                now[i].offset == mappings_[i].offset && now[i].path == mappings_[i].path;
  }
  if (unchanged) return;
  // Something was unmapped or remapped: an address may mean another
  // function now. Additions alone would be harmless, but are rare enough
  // not to tell apart.
  frames_.clear();
  Report();
}

}  // namespace stackrec_exec
