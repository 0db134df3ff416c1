// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The string path's shortcut, from the inside: a frame hashes the same read
// from the caller's stackrec_location as from its view (what c_api.cc
// relies on to skip the conversion), every field of a frame or a label
// counts in its fingerprint, and Profile::Add with a FramesHint
// loads the frames only for a stack it does not hold, also once the
// profile is compacted. And the output's reservation from the last
// serialization's size.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "catch2/catch.hpp"
#include "fingerprint.h"
#include "pprof_encoder.h"
#include "profile.h"
#include "stackrec/stackrec.h"
#include "status.h"

using stackrec::Fingerprint;
using stackrec::LocationView;

namespace {

// A view of `s`, which must outlive it.
stackrec_str Str(const std::string& s) { return stackrec_str{s.data(), s.size()}; }
stackrec_str Str(std::string&&) = delete;

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
  return stackrec::FingerprintFrameArray(
      frames.data(), frames.size(), View, Raw, hashes.data());
}

// The fingerprint kernels this machine can run: the portable one always.
std::vector<stackrec::FingerprintKernel> AvailableKernels() {
  std::vector<stackrec::FingerprintKernel> kernels;
  for (auto k : {stackrec::FingerprintKernel::kPortable, stackrec::FingerprintKernel::kAes}) {
    if (stackrec::FingerprintKernelAvailable(k)) kernels.push_back(k);
  }
  return kernels;
}

// Runs the rest of the test case once per available kernel, and restores
// the process's kernel after.
class EachKernel {
 public:
  EachKernel() : saved_(stackrec::ActiveFingerprintKernel()) {
    const stackrec::FingerprintKernel kernel =
        GENERATE(Catch::Generators::from_range(AvailableKernels()));
    stackrec::SetFingerprintKernelForTesting(kernel);
  }
  ~EachKernel() { stackrec::SetFingerprintKernelForTesting(saved_); }
  EachKernel(const EachKernel&) = delete;
  EachKernel& operator=(const EachKernel&) = delete;

 private:
  stackrec::FingerprintKernel saved_;
};

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
    texts.push_back("Mod" + std::to_string(i % 37) + "::Class" + std::to_string(i) +
                    "#method_" + std::to_string(i * 7));
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
  stackrec::FingerprintFrameArray(
      frames.data(), frames.size(), View, Raw, hashes.data());
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
  auto set_start_line = [](stackrec_location* l, Texts*, uint8_t v) {
    l->function.start_line = v;
  };
  auto set_line = [](stackrec_location* l, Texts*, uint8_t v) { l->line = v; };
  auto set_address = [](stackrec_location* l, Texts*, uint8_t v) {
    l->address = uint64_t{v} << 8;
  };
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
  const std::vector<Case> cases = {
      {set_name_last, set_start_line, false},      {set_name_last, set_file_last, false},
      {set_file_last, set_start_line, false},      {set_name_first, set_file_last, false},
      {set_name_last, set_line, false},            {set_file_last, set_address, false},
      {set_path_last, set_build_id_last, true},    {set_path_last, set_memory_start, true},
      {set_build_id_last, set_file_offset, true},  {set_system_name_last, set_path_last, true},
      {set_system_name_last, set_name_last, true}, {set_build_id_last, set_file_last, true},
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

TEST_CASE("every field of a label, and the labels' order, are part of a label set's fingerprint") {
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
  std::vector<std::vector<LabelView>> changed(9, base);
  changed[0][0].key = "thread ID";
  changed[1][0].num = 18;
  changed[2][1].str = "worker-4";
  changed[3][2].num_unit = "kilobytes";
  // Where one string ends and the next begins.
  changed[4][1].key = "thread nam";
  changed[4][1].str = "eworker-3";
  changed[5][2].key = "allocatedbytes";
  changed[5][2].num_unit = "";
  // The same text in another field, the order, a label fewer.
  changed[6][1].key = "worker-3";
  changed[6][1].str = "thread name";
  std::swap(changed[7][0], changed[7][1]);
  changed[8].pop_back();
  for (size_t i = 0; i < changed.size(); ++i) {
    INFO("change " << i);
    CHECK_FALSE(stackrec::FingerprintLabels(changed[i]) == original);
  }
  CHECK_FALSE(stackrec::FingerprintLabels({}) == original);
}

namespace {

stackrec::ProfileOptions Options(size_t max_frames = 0) {
  stackrec::ProfileOptions in;
  in.sample_types = {{"samples", "count"}, {"cpu", "nanoseconds"}};
  in.max_frames = max_frames;
  stackrec::ProfileOptions out;
  REQUIRE(stackrec::MakeProfileOptions(in, &out).ok());
  return out;
}

// A stack of `depth` frames named "<prefix>0", "<prefix>1", ...
class Stack {
 public:
  Stack(const std::string& prefix, size_t depth) {
    for (size_t i = 0; i < depth; ++i) names_.push_back(prefix + std::to_string(i));
    for (const std::string& n : names_) {
      LocationView v;
      v.function.name = n;
      v.function.filename = "/app/stack.rb";
      v.line = 7;
      views_.push_back(v);
    }
  }
  // `other`'s first frames, then this stack's from frame `from` on (the
  // names stay owned by their stacks).
  Stack(const Stack& other, size_t leaf_frames, const Stack& rest, size_t from)
      : views_(other.views_.begin(), other.views_.begin() + leaf_frames) {
    views_.insert(views_.end(), rest.views_.begin() + from, rest.views_.end());
  }
  const std::vector<LocationView>& views() const { return views_; }
  std::vector<LocationView>& views() { return views_; }

 private:
  std::vector<std::string> names_;
  std::vector<LocationView> views_;
};

// What a profile asked of a FramesHint: the frames whole, or one at a time.
struct Conversions {
  int loads = 0;
  std::vector<size_t> frames;  // the indices asked for, in order
};

// Adds `values` with the frames of `stack` given by a FramesHint; counts
// what was converted.
stackrec::Status AddHinted(stackrec::Profile* profile, const Stack& stack,
                          std::vector<int64_t> values, Conversions* asked,
                          std::vector<stackrec::LabelView> labels = {}) {
  stackrec::SampleView sample;
  sample.values = values;
  sample.labels = labels;
  auto load = [&](absl::Span<const LocationView>* frames) {
    ++asked->loads;
    *frames = stack.views();
    return stackrec::OkStatus();
  };
  auto frame = [&](size_t i) {
    asked->frames.push_back(i);
    return stack.views()[i];
  };
  auto any_inlined = [&] {
    return std::any_of(stack.views().begin(), stack.views().end(),
                       [](const LocationView& v) { return v.inlined; });
  };
  std::vector<uint64_t> hashes(stack.views().size());
  const Fingerprint fingerprint = stackrec::FingerprintFrames(stack.views(), hashes.data());
  const stackrec::FramesHint hint{fingerprint, hashes.data(), stack.views().size(), load,
                                  frame, any_inlined};
  return profile->Add(sample, &hint);
}

std::vector<size_t> Range(size_t begin, size_t end) {
  std::vector<size_t> out;
  for (size_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

// The function names of the stack of key `k`, leaf first.
std::vector<std::string> KeyFrameNames(const stackrec::Profile& profile, size_t k) {
  std::vector<std::string> names;
  for (uint32_t id : profile.stacks().Get(profile.key_stack(k))) {
    const auto& location = profile.locations().Get(id);
    names.emplace_back(profile.strings().Get(profile.functions().Get(location.function).name));
  }
  return names;
}

std::vector<std::string> Names(const Stack& stack) {
  std::vector<std::string> names;
  for (const LocationView& v : stack.views()) names.emplace_back(v.function.name);
  return names;
}

}  // namespace

TEST_CASE("a profile adds a stack it holds by fingerprint, without loading the frames") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack known("known", 40), unknown("unknown", 40);
  Conversions asked;
  REQUIRE(AddHinted(&profile, known, {1, 100}, &asked).ok());
  // New to the profile: each of its frames, new too, converted and interned.
  CHECK(asked.loads == 0);
  CHECK(asked.frames == Range(0, 40));
  REQUIRE(AddHinted(&profile, known, {1, 50}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 40);
  // A stack added without a hint is found by the hint as well.
  stackrec::SampleView plain;
  const std::vector<int64_t> values = {1, 25};
  plain.values = values;
  plain.locations = unknown.views();
  REQUIRE(profile.Add(plain).ok());
  REQUIRE(AddHinted(&profile, unknown, {1, 5}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 40);
  REQUIRE(profile.key_count() == 2);
  CHECK(profile.samples_added() == 4);
  CHECK(profile.stacks().size() == 3);  // the empty stack and these two
  for (size_t k = 0; k < 2; ++k) {
    const auto frames = profile.stacks().Get(profile.key_stack(k));
    REQUIRE(frames.size() == 40);
    const int64_t* sums = profile.key_values(k);
    const auto& leaf = profile.locations().Get(frames[0]);
    const std::string name(profile.strings().Get(profile.functions().Get(leaf.function).name));
    if (name == "known0") {
      CHECK(sums[0] == 2);
      CHECK(sums[1] == 150);
    } else {
      CHECK(name == "unknown0");
      CHECK(sums[0] == 2);
      CHECK(sums[1] == 30);
    }
  }
}

TEST_CASE("a hinted stack deeper than max_frames is loaded and cut") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(8), 0);
  const Stack deep("deep", 20);
  Conversions asked;
  REQUIRE(AddHinted(&profile, deep, {1, 1}, &asked).ok());
  REQUIRE(AddHinted(&profile, deep, {1, 1}, &asked).ok());
  // Its fingerprint is of all 20 frames, the profile's stack of 8 and a
  // pseudo-frame: never the same, so every add loads.
  CHECK(asked.loads == 2);
  CHECK(asked.frames.empty());
  CHECK(profile.samples_truncated() == 2);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.stacks().Get(profile.key_stack(0)).size() == 9);
  CHECK(profile.key_values(0)[0] == 2);
}

TEST_CASE("a hinted sample of a known stack is checked like any other") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack known("known", 10);
  Conversions asked;
  REQUIRE(AddHinted(&profile, known, {1, 7}, &asked).ok());
  const stackrec::Status values = AddHinted(&profile, known, {1, 7, 9}, &asked);
  CHECK(values.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.values_len is 3 but the profile declares 2 sample types");
  stackrec::LabelView empty_key;
  empty_key.str = "v";
  const stackrec::Status labels = AddHinted(&profile, known, {1, 7}, &asked, {empty_key});
  CHECK(labels.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) == "sample.labels[0].key is empty");
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 10);  // the first add's
  CHECK(profile.samples_added() == 1);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.key_values(0)[0] == 1);
  CHECK(profile.key_values(0)[1] == 7);
}

TEST_CASE("a new hinted stack converts only the frames the profile does not know") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack root("root", 30), leaves("leaf", 4);
  Conversions asked;
  REQUIRE(AddHinted(&profile, root, {1, 10}, &asked).ok());
  REQUIRE(asked.frames == Range(0, 30));
  // Four new leaf frames on root's frames 10 to 29, as a call tree grows.
  const Stack branch(leaves, 4, root, 10);
  asked.frames.clear();
  REQUIRE(AddHinted(&profile, branch, {1, 20}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames == Range(0, 4));
  CHECK(profile.locations().size() == 1 + 30 + 4);
  REQUIRE(profile.key_count() == 2);
  CHECK(KeyFrameNames(profile, 0) == Names(root));
  CHECK(KeyFrameNames(profile, 1) == Names(branch));
  CHECK(profile.key_values(1)[0] == 1);
  CHECK(profile.key_values(1)[1] == 20);
  // Found by fingerprint from now on, as any stack interned otherwise.
  asked.frames.clear();
  REQUIRE(AddHinted(&profile, branch, {1, 5}, &asked).ok());
  CHECK(asked.frames.empty());
  CHECK(profile.key_values(1)[1] == 25);
}

TEST_CASE("a new hinted stack with an inlined frame is loaded whole and checked") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  Stack bad("bad", 5);
  bad.views()[4].inlined = true;  // the root: nothing to be inlined into
  Conversions asked;
  const stackrec::Status status = AddHinted(&profile, bad, {1, 1}, &asked);
  CHECK(status.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.locations[4].inlined is set on the last (root) frame, which has no caller to "
        "be inlined into");
  CHECK(asked.loads == 1);
  CHECK(asked.frames.empty());
  CHECK(profile.key_count() == 0);
  CHECK(profile.samples_added() == 0);
  Stack good("good", 5);
  good.views()[1].inlined = true;
  good.views()[1].address = good.views()[2].address = 0x1234;
  REQUIRE(AddHinted(&profile, good, {1, 1}, &asked).ok());
  CHECK(asked.loads == 2);
  REQUIRE(profile.key_count() == 1);
  CHECK(KeyFrameNames(profile, 0) == Names(good));
  const auto ids = profile.stacks().Get(profile.key_stack(0));
  CHECK(profile.locations().Get(ids[1]).inlined);
  CHECK_FALSE(profile.locations().Get(ids[2]).inlined);
}

TEST_CASE("a new hinted stack names a frame whose string is not UTF-8 and changes nothing") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack known("known", 6);
  Conversions asked;
  REQUIRE(AddHinted(&profile, known, {1, 3}, &asked).ok());
  const std::string bad_name = "caf\xc3";  // a truncated two-byte sequence
  Stack bad(known, 6, known, 6);            // known's frames...
  LocationView leaf;
  leaf.function.name = bad_name;
  leaf.function.filename = "/app/stack.rb";
  bad.views().insert(bad.views().begin(), leaf);  // ...under a new leaf
  asked.frames.clear();
  const stackrec::Status status = AddHinted(&profile, bad, {1, 4}, &asked);
  CHECK(status.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.locations[0].function.name is not valid UTF-8");
  CHECK(asked.frames == std::vector<size_t>{0});
  CHECK(profile.samples_added() == 1);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.key_values(0)[1] == 3);
  CHECK(profile.stacks().size() == 2);  // the empty stack and known
}

TEST_CASE("a new hinted stack past the memory cap is loaded whole into the storage-full sample") {
  const EachKernel kernel;
  stackrec::ProfileOptions options = Options();
  options.max_memory_bytes = 1;  // full from the first add on
  stackrec::Profile profile(options, 0);
  const Stack stack("s", 8);
  Conversions asked;
  REQUIRE(AddHinted(&profile, stack, {1, 9}, &asked).ok());
  CHECK(asked.loads == 1);
  CHECK(asked.frames.empty());
  CHECK(profile.samples_over_memory() == 1);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.key_values(0)[1] == 9);
}

TEST_CASE("a serialization reserves its output from the last one like it") {
  stackrec::Profile profile(Options(), 0);
  for (int i = 0; i < 200; ++i) {
    stackrec::SampleView sample;
    const Stack stack("s" + std::to_string(i) + "_", 12);
    const std::vector<int64_t> values = {1, i};
    sample.values = values;
    sample.locations = stack.views();
    REQUIRE(profile.Add(sample).ok());
  }
  stackrec::OutputSizes sizes;
  stackrec::SerializationStats stats;
  stackrec::TableString gzip, zstd, none;
  const stackrec::SerializeOptions gzip_options{stackrec::Compression::kGzip, 0};
  REQUIRE(stackrec::SerializeProfile(profile, gzip_options, 1, &gzip, &stats, &sizes).ok());
  const size_t first = gzip.size();
  // Compressed outputs share their estimate; an uncompressed one has its own.
  CHECK(sizes.Expected(stackrec::Compression::kZstd) == first + first / 8);
  CHECK(sizes.Expected(stackrec::Compression::kNone) == 0);
  REQUIRE(stackrec::SerializeProfile(profile, {stackrec::Compression::kZstd, 0}, 1, &zstd,
                                     &stats, &sizes)
              .ok());
  CHECK(zstd.capacity() >= first + first / 8);
  CHECK(sizes.Expected(stackrec::Compression::kGzip) == zstd.size() + zstd.size() / 8);
  REQUIRE(stackrec::SerializeProfile(profile, {stackrec::Compression::kNone, 0}, 1, &none,
                                     &stats, &sizes)
              .ok());
  CHECK(sizes.Expected(stackrec::Compression::kNone) == none.size() + none.size() / 8);
  // Never more than max_output_bytes.
  stackrec::ProfileOptions capped = Options();
  capped.max_output_bytes = size_t{1} << 20;
  stackrec::Profile small(capped, 0);
  sizes.Record(stackrec::Compression::kGzip, size_t{1} << 30);
  stackrec::TableString out;
  REQUIRE(stackrec::SerializeProfile(small, gzip_options, 1, &out, &stats, &sizes).ok());
  CHECK(out.capacity() >= capped.max_output_bytes);
  CHECK(out.capacity() < 2 * capped.max_output_bytes);
  CHECK(sizes.Expected(stackrec::Compression::kGzip) == out.size() + out.size() / 8);
}

TEST_CASE("Compact frees the frame and function caches and the stack pool's slack, and adding goes on") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  std::vector<Stack> stacks;
  for (int i = 0; i < 300; ++i) stacks.emplace_back("s" + std::to_string(i) + "_", 12);
  Conversions asked;
  for (const Stack& stack : stacks) REQUIRE(AddHinted(&profile, stack, {1, 1}, &asked).ok());
  REQUIRE(asked.frames.size() == 3600);
  const size_t before = profile.MemoryBytes();
  profile.Compact();
  // 3,600 distinct frames of as many functions: the frame cache and the
  // function cache hold 3,600 entries each, as this map does.
  absl::flat_hash_map<uint64_t, uint32_t> same;
  for (uint32_t i = 0; i < 3600; ++i) same.emplace(i, i);
  const size_t cache_bytes = same.capacity() * (sizeof(std::pair<const uint64_t, uint32_t>) + 1);
  CHECK(before - profile.MemoryBytes() >= 2 * cache_bytes);
  // Known stacks are still found by fingerprint, without their frames.
  for (const Stack& stack : stacks) REQUIRE(AddHinted(&profile, stack, {1, 2}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 3600);
  CHECK(profile.key_count() == 300);
  CHECK(profile.key_values(299)[0] == 2);
  CHECK(profile.key_values(299)[1] == 3);
  // A new stack of known frames is interned through the string table.
  stackrec::SampleView sample;
  const std::vector<int64_t> values = {1, 7};
  sample.values = values;
  std::vector<LocationView> frames = stacks[5].views();
  std::reverse(frames.begin(), frames.end());
  sample.locations = frames;
  const size_t locations = profile.locations().size();
  REQUIRE(profile.Add(sample).ok());
  CHECK(profile.locations().size() == locations);  // no frame is new
  REQUIRE(profile.key_count() == 301);
  const auto ids = profile.stacks().Get(profile.key_stack(300));
  REQUIRE(ids.size() == 12);
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto& location = profile.locations().Get(ids[i]);
    CHECK(profile.strings().Get(profile.functions().Get(location.function).name) ==
          "s5_" + std::to_string(11 - i));
  }
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

namespace {

// A sample of one stack of `frames` (leaf first), values {1, 1}.
stackrec::Status AddFrames(stackrec::Profile* profile, const std::vector<LocationView>& frames) {
  stackrec::SampleView sample;
  const std::vector<int64_t> values = {1, 1};
  sample.values = values;
  sample.locations = frames;
  return profile->Add(sample);
}

// The function name, function file, start line and line of each frame of
// key `key`'s stack, leaf first.
std::vector<std::string> Frames(const stackrec::Profile& profile, size_t key) {
  REQUIRE(key < profile.key_count());  // settles what is pending
  std::vector<std::string> out;
  for (uint32_t id : profile.stacks().Get(profile.key_stack(key))) {
    const auto& location = profile.locations().Get(id);
    const auto& function = profile.functions().Get(location.function);
    out.push_back(std::string(profile.strings().Get(function.name)) + " " +
                  std::string(profile.strings().Get(function.filename)) + " " +
                  std::to_string(function.start_line) + " " + std::to_string(location.line));
  }
  return out;
}

LocationView Frame(absl::string_view name, absl::string_view file, int64_t start_line,
                   int64_t line) {
  LocationView v;
  v.function.name = name;
  v.function.filename = file;
  v.function.start_line = start_line;
  v.line = line;
  return v;
}

}  // namespace

TEST_CASE("new locations of known functions find their function, field by field") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 10), Frame("g", "a.rb", 5, 20)}).ok());
  REQUIRE(profile.functions().size() == 3);  // id 0 and two
  const size_t strings = profile.strings().size();
  // New locations of f and g: no new function, no new string.
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 11), Frame("g", "a.rb", 5, 21),
                               Frame("f", "a.rb", 1, 12)})
              .ok());
  CHECK(profile.functions().size() == 3);
  CHECK(profile.strings().size() == strings);
  CHECK(Frames(profile, 1) ==
        std::vector<std::string>{"f a.rb 1 11", "g a.rb 5 21", "f a.rb 1 12"});
  // Functions that differ from f in one field each are functions of their own.
  LocationView system = Frame("f", "a.rb", 1, 13);
  system.function.system_name = "_Z1fv";
  REQUIRE(AddFrames(&profile, {Frame("f", "b.rb", 1, 13), Frame("f", "a.rb", 2, 13), system,
                               Frame("h", "a.rb", 1, 13)})
              .ok());
  CHECK(profile.functions().size() == 7);
  CHECK(Frames(profile, 2) == std::vector<std::string>{"f b.rb 1 13", "f a.rb 2 13",
                                                       "f a.rb 1 13", "h a.rb 1 13"});
  const auto stack = profile.stacks().Get(profile.key_stack(2));
  CHECK(profile.strings().Get(
            profile.functions().Get(profile.locations().Get(stack[2]).function).system_name) ==
        "_Z1fv");
}

TEST_CASE("after a reset, the function of a new location is interned again") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 10)}).ok());
  profile.Reset(0);
  // g now takes the id f had; f's next location must not find that id.
  REQUIRE(AddFrames(&profile, {Frame("g", "a.rb", 1, 10)}).ok());
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 11)}).ok());
  CHECK(Frames(profile, 0) == std::vector<std::string>{"g a.rb 1 10"});
  CHECK(Frames(profile, 1) == std::vector<std::string>{"f a.rb 1 11"});
}

TEST_CASE("a new frame twice in a new stack is one location; a bad frame interns none") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 10), Frame("g", "a.rb", 1, 10),
                               Frame("f", "a.rb", 1, 10)})
              .ok());
  REQUIRE(profile.key_count() == 1);  // settles what is pending
  const auto ids = profile.stacks().Get(profile.key_stack(0));
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] == ids[2]);
  CHECK(ids[0] != ids[1]);
  CHECK(profile.locations().size() == 3);  // id 0 and two
  // New frames before a bad one: the add fails naming it, and none of its
  // locations is interned.
  const std::string bad = "\xff";
  const stackrec::Status status = AddFrames(
      &profile, {Frame("f", "a.rb", 1, 30), Frame("k", "a.rb", 1, 31), Frame(bad, "a.rb", 1, 32)});
  CHECK(status.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.locations[2].function.name is not valid UTF-8");
  CHECK(profile.locations().size() == 3);
  CHECK(profile.key_count() == 1);
  // The same frames with a good last one go in whole.
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 30), Frame("k", "a.rb", 1, 31),
                               Frame("m", "a.rb", 1, 32)})
              .ok());
  CHECK(Frames(profile, 1) ==
        std::vector<std::string>{"f a.rb 1 30", "k a.rb 1 31", "m a.rb 1 32"});
}
