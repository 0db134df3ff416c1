// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A recorder slot's lanes share one set of tables (src/recorder/
// slot_tables.h): samplers that meet the same new keys intern each once per
// slot, known keys are recorded without a lock, and a sampler stopped while
// it holds the slot's new-entry lock holds up no other sampler's records.
// Through the C API, as a host records (stack fingerprints and all), with
// the recorder's test hooks and table counts reached through its handle.
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "capi/c_handles.h"
#include "catch2/catch.hpp"
#include "oracle/pprof_decode.h"
#include "recorder/recorder.h"

using namespace stackrec_test;

namespace {

stackrec_str Str(const std::string& s) { return stackrec_str{s.data(), s.size()}; }

struct RecorderDeleter {
  void operator()(stackrec_recorder* r) const { stackrec_recorder_free(r); }
};
using RecorderPtr = std::unique_ptr<stackrec_recorder, RecorderDeleter>;

RecorderPtr NewRecorder() {
  static const stackrec_value_type kTypes[] = {{{"samples", 7}, {"count", 5}}};
  stackrec_profile_options opts{};
  opts.sample_types = kTypes;
  opts.sample_types_len = 1;
  stackrec_recorder* r = nullptr;
  REQUIRE(stackrec_recorder_new(&opts, &r) == STACKREC_OK);
  return RecorderPtr(r);
}

// Key k: a two-frame stack whose leaf is one of kStacks functions, and a
// label set of its own (a numeric "span" label k): every key is new to a
// slot when first met, and its stack is new only the first kStacks times.
constexpr int kStacks = 64;

class KeySample {
 public:
  explicit KeySample(int64_t key) : leaf_("leaf_" + std::to_string(key % kStacks)) {
    frames_[0] = {};
    frames_[0].function.name = Str(leaf_);
    frames_[1] = {};
    frames_[1].function.name = {"main", 4};
    label_ = {};
    label_.key = {"span", 4};
    label_.num = key;
    sample_.locations = frames_;
    sample_.locations_len = 2;
    sample_.values = &value_;
    sample_.values_len = 1;
    sample_.labels = &label_;
    sample_.labels_len = 1;
  }
  KeySample(const KeySample&) = delete;
  KeySample& operator=(const KeySample&) = delete;
  const stackrec_sample* get() const { return &sample_; }

 private:
  const std::string leaf_;
  stackrec_location frames_[2];
  stackrec_label label_;
  int64_t value_ = 1;
  stackrec_sample sample_{};
};

bool RecordKey(stackrec_recorder* r, int64_t key) {
  const KeySample sample(key);
  return stackrec_recorder_record(r, sample.get()) == STACKREC_OK;
}

// By span label, the samples of every profile decoded so far.
using SpanCounts = std::map<int64_t, int64_t>;

// Serializes; adds what the profile holds to *counts. The status.
stackrec_status TakeInto(stackrec_recorder* r, SpanCounts* counts) {
  stackrec_encoded* e = nullptr;
  const stackrec_status status = stackrec_recorder_serialize(r, nullptr, &e);
  if (status != STACKREC_OK) return status;
  const Profile p = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  stackrec_encoded_free(e);
  for (const auto& s : p.sample()) {
    int64_t span = -1;
    for (const auto& l : s.label()) {
      if (p.string_table(static_cast<int>(l.key())) == "span") span = l.num();
    }
    (*counts)[span] += s.value(0);
  }
  return status;
}

// Each stack and label set of `tables` is there once: as many distinct
// contents as entries.
void CheckInternedOnce(const stackrec::SampleTables& tables) {
  std::set<std::vector<uint32_t>> stacks;
  for (uint32_t i = 0; i < tables.stacks().size(); ++i) {
    const auto s = tables.stacks().Get(i);
    stacks.emplace(s.begin(), s.end());
  }
  CHECK(stacks.size() == tables.stacks().size());
  std::set<std::vector<std::pair<uint32_t, int64_t>>> label_sets;
  for (uint32_t i = 0; i < tables.label_sets().size(); ++i) {
    std::vector<std::pair<uint32_t, int64_t>> content;
    for (const stackrec::Label& l : tables.label_sets().Get(i)) content.emplace_back(l.key, l.num);
    label_sets.insert(content);
  }
  CHECK(label_sets.size() == tables.label_sets().size());
}

// Stops one thread inside the slot's new-entry lock (the recorder's test
// hook) until released.
struct LockHolder {
  std::atomic<bool> armed{false}, inside{false}, release{false};
  std::thread::id who;
  static void Hook(void* arg) {
    auto* self = static_cast<LockHolder*>(arg);
    if (!self->armed.load() || std::this_thread::get_id() != self->who) return;
    self->armed = false;
    self->inside = true;
    while (!self->release.load()) std::this_thread::yield();
  }
};

}  // namespace

TEST_CASE("four samplers meeting the same fresh keys intern each once per slot, losing nothing") {
  RecorderPtr recorder = NewRecorder();
  constexpr int kSamplers = 4;
  constexpr int64_t kKeys = 3000;
  std::atomic<int> failures{0};
  std::atomic<int> running{kSamplers};
  std::vector<std::thread> samplers;
  // Every sampler records keys 0, 1, 2, ... in the same order, so that
  // they meet each new key at about the same time, on every path: known,
  // new under the lock, parked while another holds it.
  for (int t = 0; t < kSamplers; ++t) {
    samplers.emplace_back([&] {
      for (int64_t k = 0; k < kKeys; ++k) {
        if (!RecordKey(recorder.get(), k)) failures++;
      }
      running--;
    });
  }
  // A serializer flipping every millisecond meanwhile.
  SpanCounts counts;
  int flips = 0;
  while (running.load() > 0) {
    REQUIRE(TakeInto(recorder.get(), &counts) == STACKREC_OK);
    ++flips;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (std::thread& t : samplers) t.join();
  REQUIRE(failures == 0);

  // Each slot's tables hold each stack and label set once, and no more
  // of them than the keys give (plus the empty stack and label set, and
  // the storage-full stack): lanes that intern on their own would hold a
  // copy each.
  const stackrec::Recorder& impl = *recorder->impl;
  for (uint32_t s = 0; s < 2; ++s) {
    const stackrec::SampleTables& tables = impl.SlotTablesForTesting(s);
    INFO("slot " << s);
    CheckInternedOnce(tables);
    CHECK(tables.stacks().size() <= kStacks + 2);
    CHECK(tables.label_sets().size() <= kKeys + 1);
  }
  REQUIRE(TakeInto(recorder.get(), &counts) == STACKREC_OK);
  REQUIRE(TakeInto(recorder.get(), &counts) == STACKREC_OK);
  // Sums exact: every key once from every sampler.
  INFO("flips: " << flips);
  CHECK(counts.size() == static_cast<size_t>(kKeys));
  for (const auto& [span, n] : counts) {
    INFO("span " << span);
    CHECK(n == kSamplers);
  }
}

TEST_CASE("a sampler stopped holding the new-entry lock delays no other sampler's records") {
  RecorderPtr recorder = NewRecorder();
  stackrec::Recorder& impl = *recorder->impl;
  constexpr int64_t kKnown = 100;
  // Keys 0 .. kKnown-1 are known to the active slot.
  for (int64_t k = 0; k < kKnown; ++k) REQUIRE(RecordKey(recorder.get(), k));

  LockHolder holder;
  impl.SetNewEntryHookForTesting(&LockHolder::Hook, &holder);
  std::atomic<bool> stopped_ok{false};
  std::thread stopped([&] {
    holder.who = std::this_thread::get_id();
    holder.armed = true;
    stopped_ok = RecordKey(recorder.get(), 1000000);  // a new key: takes the lock
  });
  while (!holder.inside.load()) std::this_thread::yield();

  // Another sampler records the known keys over and over, and two new
  // keys, which it parks: none of it waits for the stopped one.
  constexpr int kRounds = 200;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread other([&] {
    for (int round = 0; round < kRounds; ++round) {
      for (int64_t k = 0; k < kKnown; ++k) {
        if (!RecordKey(recorder.get(), k)) failures++;
      }
    }
    if (!RecordKey(recorder.get(), 2000000)) failures++;
    if (!RecordKey(recorder.get(), 2000001)) failures++;
    done = true;
  });
  // Bounded: a sampler that waited for the lock would never be done.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool other_done = done.load();
  CHECK(other_done);
  CHECK(holder.inside.load());  // still stopped all along

  // The serializer cannot read the tables the stopped sampler is writing:
  // it says so, after a bounded wait, and keeps every sample.
  SpanCounts counts;
  CHECK(TakeInto(recorder.get(), &counts) == STACKREC_BUSY);
  const std::string why = stackrec_last_error();
  CHECK(why.find("stopped") != std::string::npos);

  holder.release = true;
  stopped.join();
  other.join();
  CHECK(stopped_ok.load());
  CHECK(failures == 0);
  for (int i = 0; i < 3; ++i) REQUIRE(TakeInto(recorder.get(), &counts) == STACKREC_OK);
  // Sums exact, the parked keys included.
  CHECK(counts.size() == static_cast<size_t>(kKnown + 3));
  for (int64_t k = 0; k < kKnown; ++k) CHECK(counts[k] == kRounds + 1);
  CHECK(counts[1000000] == 1);
  CHECK(counts[2000000] == 1);
  CHECK(counts[2000001] == 1);
}
