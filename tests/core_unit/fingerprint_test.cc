// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The fingerprints of the string path (fingerprint.h): a frame hashes the
// same read from the caller's stackrec_location as from its view (what
// c_api.cc relies on to skip the conversion), and every field of a frame, a
// function or a label counts in its hash, on every kernel this machine has.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "catch2/catch.hpp"
#include "hash/fingerprint.h"
#include "stackrec/stackrec.h"
#include "stackrec_str.h"
#include "support/core_test_support.h"

using stackrec::Fingerprint;
using stackrec::LocationView;
using stackrec_core_test::EachKernel;

namespace {

using stackrec_workloads::Str;  // a view of a string, which must outlive it

absl::string_view View(stackrec_str s) { return absl::string_view(s.ptr, s.len); }
stackrec::RawString Raw(stackrec_str s) { return stackrec::RawString{s.ptr, s.len}; }

LocationView ToView(const stackrec_location& in) {
  LocationView v;
  v.mapping.memory_start = in.mapping.memory_start;
  v.mapping.memory_limit = in.mapping.memory_limit;
  v.mapping.file_offset = in.mapping.file_offset;
  v.mapping.filename = View(in.mapping.filename);
  v.mapping.build_id = View(in.mapping.build_id);
  v.function.name = View(in.function.name);
  v.function.system_name = View(in.function.system_name);
  v.function.filename = View(in.function.filename);
  v.function.start_line = in.function.start_line;
  v.address = in.address;
  v.line = in.line;
  v.inlined = in.inlined;
  return v;
}

Fingerprint OfViews(const std::vector<LocationView>& views) {
  std::vector<uint64_t> hashes(views.size());
  return stackrec::FingerprintFrames(views, hashes.data());
}

Fingerprint OfStructs(const std::vector<stackrec_location>& frames) {
  std::vector<uint64_t> hashes(frames.size());
  return stackrec::FingerprintFrameArray(frames.data(), frames.size(), View, Raw, hashes.data());
}

// Strings of every length class the hash treats apart: empty, 1-3, 4-16,
// 17-32 and longer.
std::vector<std::string> Texts() {
  std::vector<std::string> texts;
  for (size_t len : {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 49, 100}) {
    std::string s;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>('a' + (i * 7 + len) % 26));
    texts.push_back(s);
  }
  return texts;
}

}  // namespace

TEST_CASE("a frame hashes the same read from the caller's struct as from its view") {
  const EachKernel kernel;
  const std::vector<std::string> texts = Texts();
  std::vector<stackrec_location> frames;
  for (size_t i = 0; i < texts.size(); ++i) {
    stackrec_location f{};
    f.function.name = Str(texts[i]);
    f.function.filename = Str(texts[(i + 5) % texts.size()]);
    f.function.start_line = static_cast<int64_t>(i);
    f.line = static_cast<int64_t>(i * 3);
    if (i % 3 == 0) {  // a native frame: mapping, address, system name
      f.mapping.memory_start = 0x400000 + i;
      f.mapping.memory_limit = 0x800000;
      f.mapping.file_offset = i;
      f.mapping.filename = Str(texts[(i + 9) % texts.size()]);
      f.mapping.build_id = Str(texts[(i + 11) % texts.size()]);
      f.function.system_name = Str(texts[(i + 13) % texts.size()]);
      f.address = 0x401000 + i;
    } else if (i % 3 == 1) {  // a Go frame: its name as its system name
      f.function.system_name = f.function.name;
    }
    frames.push_back(f);
  }
  // Every prefix: odd and even frame counts fold differently.
  std::vector<Fingerprint> seen;
  for (size_t n = 0; n <= frames.size(); ++n) {
    std::vector<stackrec_location> prefix(frames.begin(), frames.begin() + n);
    std::vector<LocationView> views;
    for (const stackrec_location& f : prefix) views.push_back(ToView(f));
    const Fingerprint fingerprint = OfStructs(prefix);
    CHECK(fingerprint == OfViews(views));
    for (const Fingerprint& other : seen) CHECK_FALSE(fingerprint == other);
    seen.push_back(fingerprint);
  }
}

TEST_CASE("the fingerprint runs on AES rounds where the processor has them") {
  using stackrec::FingerprintKernel;
  const bool aes = stackrec::FingerprintKernelAvailable(FingerprintKernel::kAes);
  CHECK(stackrec::FingerprintKernelAvailable(FingerprintKernel::kPortable));
  CHECK(stackrec::ActiveFingerprintKernel() ==
        (aes ? FingerprintKernel::kAes : FingerprintKernel::kPortable));
  if (!aes) return;
  // The two kernels are different functions: EachKernel's second pass
  // tests other code than its first.
  const std::string name = "Mod12::Class345#method_678", file = "/app/lib/mod12/file_34.rb";
  stackrec_location frame{};
  frame.function.name = Str(name);
  frame.function.filename = Str(file);
  stackrec::LabelView label;
  label.key = "thread id";
  label.num = 3;
  const Fingerprint frames_aes = OfStructs({frame});
  const Fingerprint labels_aes = stackrec::FingerprintLabels({label});
  stackrec::SetFingerprintKernelForTesting(FingerprintKernel::kPortable);
  const Fingerprint frames_portable = OfStructs({frame});
  const Fingerprint labels_portable = stackrec::FingerprintLabels({label});
  stackrec::SetFingerprintKernelForTesting(FingerprintKernel::kAes);
  CHECK_FALSE(frames_aes == frames_portable);
  CHECK_FALSE(labels_aes == labels_portable);
}

TEST_CASE("frames that differ by a bit, a byte or a length have distinct 64-bit hashes") {
  const EachKernel kernel;
  // Each variant of one frame: every bit of a 40-byte name flipped in
  // turn (across the overlapping loads of the 17-32 and longer buckets),
  // the name cut to every length from 0 to 40 (every bucket boundary),
  // the same for the file, and a thousand program-like names with their
  // files and lines. The frame cache keys on these hashes.
  const std::string name = "Mod12::Class345#method_678_and_some_more", file = "/app/lib/x.rb";
  std::vector<std::string> texts;
  for (size_t bit = 0; bit < name.size() * 8; ++bit) {
    std::string t = name;
    t[bit / 8] = static_cast<char>(t[bit / 8] ^ (1 << (bit % 8)));
    texts.push_back(t);
  }
  for (size_t len = 0; len <= name.size(); ++len) texts.push_back(name.substr(0, len));
  for (int i = 0; i < 1000; ++i) {
    texts.push_back("Mod" + std::to_string(i % 37) + "::Class" + std::to_string(i) + "#method_" +
                    std::to_string(i * 7));
  }
  std::vector<stackrec_location> frames;
  for (const std::string& t : texts) {
    stackrec_location f{};
    f.function.name = Str(t);
    f.function.filename = Str(file);
    frames.push_back(f);
    f.function.name = Str(file);
    f.function.filename = Str(t);
    frames.push_back(f);
  }
  for (int line = 1; line <= 1000; ++line) {
    stackrec_location f{};
    f.function.name = Str(name);
    f.function.filename = Str(file);
    f.line = line;
    frames.push_back(f);
  }
  std::vector<uint64_t> hashes(frames.size());
  stackrec::FingerprintFrameArray(frames.data(), frames.size(), View, Raw, hashes.data());
  std::sort(hashes.begin(), hashes.end());
  CHECK(std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end());
}

TEST_CASE("frames that differ in two fields at once have distinct 64-bit hashes") {
  const EachKernel kernel;
  // Every pair of values of one byte in each of two fields: 65,536 frames
  // a pair of fields. A hash whose fields went through separate chains
  // that were too short before being combined let two such differences
  // cancel: with two AES rounds after a field's last block, frames
  // differing in the name's last byte and the start line's low byte
  // shared their low 64 bits about once in 65,536 pairs. A native frame's
  // mapping goes through chains of its own, tried likewise.
  struct Texts {
    std::string name = "Mod4::Class124#method_998", file = "/app/lib/mod4/file_3.rb",
                system_name = "_ZN4Mod48Class12410method_998Ev",
                path = "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2",
                build_id = "4f2d0c3b1a9e8d7c6b5a49382716051403f2e1d0";
  };
  using Set = void (*)(stackrec_location*, Texts*, uint8_t);
  auto set_name_last = [](stackrec_location*, Texts* t, uint8_t v) {
    t->name.back() = static_cast<char>(v);
  };
  auto set_file_last = [](stackrec_location*, Texts* t, uint8_t v) {
    t->file.back() = static_cast<char>(v);
  };
  auto set_name_first = [](stackrec_location*, Texts* t, uint8_t v) {
    t->name.front() = static_cast<char>(v);
  };
  auto set_start_line = [](stackrec_location* l, Texts*, uint8_t v) { l->function.start_line = v; };
  auto set_line = [](stackrec_location* l, Texts*, uint8_t v) { l->line = v; };
  auto set_address = [](stackrec_location* l, Texts*, uint8_t v) { l->address = uint64_t{v} << 8; };
  auto set_system_name_last = [](stackrec_location*, Texts* t, uint8_t v) {
    t->system_name.back() = static_cast<char>(v);
  };
  auto set_path_last = [](stackrec_location*, Texts* t, uint8_t v) {
    t->path.back() = static_cast<char>(v);
  };
  auto set_build_id_last = [](stackrec_location*, Texts* t, uint8_t v) {
    t->build_id.back() = static_cast<char>(v);
  };
  auto set_memory_start = [](stackrec_location* l, Texts*, uint8_t v) {
    l->mapping.memory_start = 0x7f3a12400000 + (uint64_t{v} << 12);
  };
  auto set_file_offset = [](stackrec_location* l, Texts*, uint8_t v) {
    l->mapping.file_offset = uint64_t{v} << 12;
  };
  struct Case {
    Set first, second;
    bool native;  // the frames have a mapping and a system name
  };
  const std::vector<Case> cases = {{set_name_last, set_start_line, false},
                                   {set_name_last, set_file_last, false},
                                   {set_file_last, set_start_line, false},
                                   {set_name_first, set_file_last, false},
                                   {set_name_last, set_line, false},
                                   {set_file_last, set_address, false},
                                   {set_path_last, set_build_id_last, true},
                                   {set_path_last, set_memory_start, true},
                                   {set_build_id_last, set_file_offset, true},
                                   {set_system_name_last, set_path_last, true},
                                   {set_system_name_last, set_name_last, true},
                                   {set_build_id_last, set_file_last, true},
                                   {set_path_last, set_address, true}};
  for (size_t c = 0; c < cases.size(); ++c) {
    INFO("pair of fields " << c);
    // The strings of all frames live at once: a frame points into them.
    std::vector<Texts> texts;
    std::vector<stackrec_location> frames;
    texts.reserve(65536);
    for (int a = 0; a < 256; ++a) {
      for (int b = 0; b < 256; ++b) {
        stackrec_location f{};
        Texts t;
        if (cases[c].native) {
          f.mapping.memory_start = 0x7f3a12400000;
          f.mapping.memory_limit = 0x7f3a12800000;
          f.mapping.file_offset = 0x1000;
          f.address = 0x7f3a12401234;
        }
        cases[c].first(&f, &t, static_cast<uint8_t>(a));
        cases[c].second(&f, &t, static_cast<uint8_t>(b));
        texts.push_back(std::move(t));
        const Texts& kept = texts.back();
        f.function.name = Str(kept.name);
        f.function.filename = Str(kept.file);
        if (cases[c].native) {
          f.function.system_name = Str(kept.system_name);
          f.mapping.filename = Str(kept.path);
          f.mapping.build_id = Str(kept.build_id);
        }
        frames.push_back(f);
      }
    }
    std::vector<uint64_t> hashes(frames.size());
    stackrec::FingerprintFrameArray(frames.data(), frames.size(), View, Raw, hashes.data());
    std::sort(hashes.begin(), hashes.end());
    CHECK(std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end());
  }
}

namespace {

// A label's own 64-bit hash, from which the label cache's fingerprints are
// folded, under the AES kernel where this machine has it; elsewhere the
// low half of the one-label set's fingerprint (the portable kernel's own
// label hash is internal to fingerprint.cc).
#ifdef STACKREC_AES_FINGERPRINT
STACKREC_AES_TARGET uint64_t AesLabelHash(const stackrec::LabelView& label) {
  return stackrec::fingerprint_aes::Low64(stackrec::fingerprint_aes::HashLabel(label));
}
#endif

uint64_t LabelHash(const stackrec::LabelView& label) {
#ifdef STACKREC_AES_FINGERPRINT
  if (stackrec::FingerprintKernelAvailable(stackrec::FingerprintKernel::kAes)) {
    return AesLabelHash(label);
  }
#endif
  return stackrec::FingerprintLabels({label}).lo;
}

}  // namespace

TEST_CASE("labels that differ in two fields at once have distinct 64-bit hashes") {
  // As for frames above: one byte of each of two fields, every pair of
  // values; the key's last byte with the number's low byte, and with the
  // unit's or the string's last byte.
  const std::string key = "local root span id", str = "worker-thread-12", unit = "bytes";
  for (int p = 0; p < 3; ++p) {
    INFO("pair of fields " << p);
    std::vector<uint64_t> hashes;
    for (int a = 0; a < 256; ++a) {
      for (int b = 0; b < 256; ++b) {
        std::string k = key, s = str, u = unit;
        k.back() = static_cast<char>(a);
        stackrec::LabelView l;
        l.key = k;
        if (p == 0) l.num = b;
        if (p == 1) {
          l.num = 1;
          u.back() = static_cast<char>(b);
          l.num_unit = u;
        }
        if (p == 2) {
          s.back() = static_cast<char>(b);
          l.str = s;
        }
        hashes.push_back(LabelHash(l));
      }
    }
    std::sort(hashes.begin(), hashes.end());
    CHECK(std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end());
  }
}

TEST_CASE("every field of a frame is part of its hash") {
  const EachKernel kernel;
  const std::string name = "Mod12::Class345#method_678", file = "/app/lib/mod12/file_34.rb";
  stackrec_location base{};
  base.function.name = Str(name);
  base.function.filename = Str(file);
  base.function.start_line = 10;
  base.line = 12;
  const Fingerprint original = OfStructs({base});
  const std::string other = "x", name2 = "Mod12::Class345#method_679",
                    file2 = "/app/lib/mod12/file_35.rb";
  std::vector<stackrec_location> changed(13, base);
  changed[0].function.name = Str(name2);
  changed[1].function.filename = Str(file2);
  changed[2].function.system_name = Str(other);
  changed[3].function.start_line = 11;
  changed[4].line = 13;
  changed[5].address = 1;
  changed[6].inlined = true;
  changed[7].mapping.memory_start = 1;
  changed[8].mapping.memory_limit = 1;
  changed[9].mapping.file_offset = 1;
  changed[10].mapping.filename = Str(other);
  changed[11].mapping.build_id = Str(other);
  // The same text moved from one field to another.
  changed[12].function.name = Str(file);
  changed[12].function.filename = Str(name);
  for (size_t i = 0; i < changed.size(); ++i) {
    INFO("change " << i);
    CHECK_FALSE(OfStructs({changed[i]}) == original);
  }
}

TEST_CASE("a function's hash is the frame hash of a frame that holds only that function") {
  const EachKernel kernel;
  const std::vector<std::string> texts = Texts();
  for (size_t i = 0; i < texts.size(); ++i) {
    INFO("text " << i);
    LocationView frame;
    frame.function.name = texts[i];
    frame.function.filename = texts[(i + 5) % texts.size()];
    frame.function.system_name = i % 2 == 0 ? absl::string_view() : texts[(i + 3) % texts.size()];
    frame.function.start_line = static_cast<int64_t>(i);
    uint64_t hash = 0;
    stackrec::FingerprintFrames({frame}, &hash);
    CHECK(stackrec::HashFunction(frame.function) == hash);
    // A frame with more than its function hashes otherwise.
    frame.line = 3;
    stackrec::FingerprintFrames({frame}, &hash);
    CHECK_FALSE(stackrec::HashFunction(frame.function) == hash);
  }
}

TEST_CASE("a native frame's strings count apart: moved or split otherwise, they hash otherwise") {
  const EachKernel kernel;
  const std::string name = "rb_vm_exec", path = "/usr/lib/libruby.so.3.1",
                    build_id = "4f2d0c3b1a9e", system_name = "_Z10rb_vm_execv", empty;
  stackrec_location base{};
  base.function.name = Str(name);
  base.function.system_name = Str(system_name);
  base.mapping.memory_start = 0x7f3a12400000;
  base.mapping.memory_limit = 0x7f3a12800000;
  base.mapping.file_offset = 0x1000;
  base.mapping.filename = Str(path);
  base.mapping.build_id = Str(build_id);
  base.address = 0x7f3a12401234;
  const Fingerprint original = OfStructs({base});
  const std::string joined = path + build_id, path_short = path.substr(0, path.size() - 1),
                    build_id_long = path.substr(path.size() - 1) + build_id;
  std::vector<stackrec_location> changed(6, base);
  changed[0].mapping.filename = Str(build_id);  // the two swapped
  changed[0].mapping.build_id = Str(path);
  changed[1].mapping.filename = Str(joined);  // all in the path
  changed[1].mapping.build_id = Str(empty);
  changed[2].mapping.filename = Str(path_short);  // split a byte earlier
  changed[2].mapping.build_id = Str(build_id_long);
  changed[3].function.system_name = Str(path);  // system name and path swapped
  changed[3].mapping.filename = Str(system_name);
  changed[4].function.system_name = Str(empty);  // the system name as the build id
  changed[4].mapping.build_id = Str(system_name);
  changed[5].mapping.memory_start = 0;  // the mapping's integers alone differ
  changed[5].mapping.memory_limit = 0x400000;
  for (size_t i = 0; i < changed.size(); ++i) {
    INFO("change " << i);
    CHECK_FALSE(OfStructs({changed[i]}) == original);
    CHECK(OfStructs({changed[i]}) == OfViews({ToView(changed[i])}));
  }
}

TEST_CASE("every field of a label is part of a label set's fingerprint, and their order is not") {
  const EachKernel kernel;
  using stackrec::LabelView;
  LabelView thread;
  thread.key = "thread id";
  thread.num = 17;
  LabelView name;
  name.key = "thread name";
  name.str = "worker-3";
  LabelView bytes;
  bytes.key = "allocated";
  bytes.num = 4096;
  bytes.num_unit = "bytes";
  const std::vector<LabelView> base = {thread, name, bytes};
  const Fingerprint original = stackrec::FingerprintLabels(base);
  CHECK(stackrec::FingerprintLabels(base) == original);
  std::vector<std::vector<LabelView>> changed(8, base);
  changed[0][0].key = "thread ID";
  changed[1][0].num = 18;
  changed[2][1].str = "worker-4";
  changed[3][2].num_unit = "kilobytes";
  // Where one string ends and the next begins.
  changed[4][1].key = "thread nam";
  changed[4][1].str = "eworker-3";
  changed[5][2].key = "allocatedbytes";
  changed[5][2].num_unit = "";
  // The same text in another field, a label fewer.
  changed[6][1].key = "worker-3";
  changed[6][1].str = "thread name";
  changed[7].pop_back();
  for (size_t i = 0; i < changed.size(); ++i) {
    INFO("change " << i);
    CHECK_FALSE(stackrec::FingerprintLabels(changed[i]) == original);
  }
  CHECK_FALSE(stackrec::FingerprintLabels({}) == original);
  // A label set is a set: every order of the same labels is one set.
  auto by_key = [](const LabelView& a, const LabelView& b) { return a.key < b.key; };
  std::vector<LabelView> order = base;
  std::sort(order.begin(), order.end(), by_key);
  do {
    CHECK(stackrec::FingerprintLabels(order) == original);
  } while (std::next_permutation(order.begin(), order.end(), by_key));
  // Two labels swapping their values is another set.
  std::vector<LabelView> swapped = base;
  std::swap(swapped[0].num, swapped[2].num);
  CHECK_FALSE(stackrec::FingerprintLabels(swapped) == original);
}

TEST_CASE("a function's hash takes every field of the function and nothing else of the frame") {
  const EachKernel kernel;
  const std::string name = "Mod12::Class345#method_678", file = "/app/lib/mod12/file_34.rb";
  const std::string other = "x", name2 = "Mod12::Class345#method_679",
                    file2 = "/app/lib/mod12/file_35.rb";
  stackrec::FunctionView base;
  base.name = name;
  base.filename = file;
  base.start_line = 10;
  const uint64_t original = stackrec::HashFunction(base);
  std::vector<stackrec::FunctionView> changed(5, base);
  changed[0].name = name2;
  changed[1].filename = file2;
  changed[2].system_name = other;
  changed[3].start_line = 11;
  changed[4].name = file;  // the same text in another field
  changed[4].filename = name;
  for (size_t i = 0; i < changed.size(); ++i) {
    INFO("change " << i);
    CHECK(stackrec::HashFunction(changed[i]) != original);
  }
  // The same content at other addresses hashes the same.
  const std::string name_copy = name, file_copy = file;
  stackrec::FunctionView copy = base;
  copy.name = name_copy;
  copy.filename = file_copy;
  CHECK(stackrec::HashFunction(copy) == original);
}

TEST_CASE("a system name equal to the name hashes by its bytes, apart from none and from others") {
  const EachKernel kernel;
  const std::vector<std::string> texts = Texts();
  const std::string file = "/app/lib/mod12/file_34.rb", path = "/usr/lib/libgo.so";
  std::vector<uint64_t> hashes;
  for (size_t i = 1; i < texts.size(); ++i) {  // every non-empty length class
    INFO("text " << i);
    const std::string& name = texts[i];
    const std::string copy = name;  // the same bytes elsewhere
    std::string other = name;       // as long, its last byte changed
    other.back() = static_cast<char>(other.back() == 'z' ? 'a' : other.back() + 1);
    stackrec_location base{};
    base.function.name = Str(name);
    base.function.filename = Str(file);
    base.function.start_line = 10;
    base.line = 12;
    stackrec_location same = base;  // the name's own pointer
    same.function.system_name = same.function.name;
    stackrec_location copied = base;
    copied.function.system_name = Str(copy);
    stackrec_location differs = base;
    differs.function.system_name = Str(other);
    stackrec_location renamed = base;  // the two names swapped
    renamed.function.name = Str(other);
    renamed.function.system_name = Str(name);
    stackrec_location mapped = same;  // with a mapping: the other path
    mapped.mapping.memory_start = 0x400000;
    mapped.mapping.filename = Str(path);
    stackrec_location mapped_none = mapped;
    mapped_none.function.system_name = Str("");
    uint64_t h[7];
    const std::vector<stackrec_location> frames = {base,    same,   copied,     differs,
                                                   renamed, mapped, mapped_none};
    for (size_t k = 0; k < frames.size(); ++k) {
      std::vector<uint64_t> one(1);
      const Fingerprint from_struct =
          stackrec::FingerprintFrameArray(&frames[k], 1, View, Raw, one.data());
      h[k] = one[0];
      CHECK(from_struct == OfViews({ToView(frames[k])}));
    }
    // By content: the name's pointer or a copy of its bytes hash alike.
    CHECK(h[1] == h[2]);
    CHECK(OfStructs({same}) == OfStructs({copied}));
    stackrec::FunctionView function = ToView(same).function;
    CHECK(stackrec::HashFunction(function) == stackrec::HashFunction(ToView(copied).function));
    function.system_name = absl::string_view();
    CHECK(stackrec::HashFunction(function) != stackrec::HashFunction(ToView(same).function));
    for (size_t k : {0, 1, 3, 4, 5, 6}) hashes.push_back(h[k]);
  }
  // And every other frame apart, across all the texts.
  std::sort(hashes.begin(), hashes.end());
  CHECK(std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end());
}
