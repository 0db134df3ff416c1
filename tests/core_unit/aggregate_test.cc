// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The aggregate (aggregate.h) on its own: deferred and immediate adds,
// keys that share a tag, undo, timestamped samples, clearing. Then through
// a profile, the deferred samples: a sample's key is looked up over
// the two calls after its own (its index slot, then its row, each fetched
// by the call before), so up to two samples are pending at once. Every
// reader sees them summed, in order, whatever comes next: another sample
// of the same key or of another one (whose values overwrite the profile's
// scratch), a read, a reset; a new key gets its row in the order the
// samples came; and when the first row of the key's tag belongs to
// another key (a 32-bit coincidence, found here by search), the sample
// still goes to its own row, new or not.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "catch2/catch.hpp"
#include "hash/fingerprint.h"
#include "profile/profile.h"
#include "tables/aggregate.h"
#include "tables/key_index.h"

using stackrec::Aggregate;
using stackrec::KeyIndex;
using stackrec::LabelView;
using stackrec::LocationView;
using stackrec::SampleKey;

namespace {

// Three sample types, the middle one disabled: the profile stores two
// values a sample and copies them out of the caller's array.
stackrec::ProfileOptions Options() {
  stackrec::ProfileOptions in;
  in.sample_types = {{"samples", "count"}, {"off", "count"}, {"cpu", "nanoseconds"}};
  in.enabled = {true, false, true};
  stackrec::ProfileOptions out;
  REQUIRE(stackrec::MakeProfileOptions(in, &out).ok());
  return out;
}

const std::vector<LocationView>& Frames() {
  static const std::vector<LocationView> frames = [] {
    std::vector<LocationView> v(2);
    v[0].function.name = "leaf";
    v[0].function.filename = "/app/a.rb";
    v[0].line = 3;
    v[1].function.name = "main";
    v[1].function.filename = "/app/a.rb";
    v[1].line = 1;
    return v;
  }();
  return frames;
}

// Labels {"n": n}.
std::vector<LabelView> Labels(int64_t n) {
  LabelView l;
  l.key = "n";
  l.num = n;
  return {l};
}

stackrec::Status Add(stackrec::Profile* profile, int64_t n, std::vector<int64_t> values) {
  const std::vector<LabelView> labels = Labels(n);
  stackrec::SampleView sample;
  sample.locations = Frames();
  sample.labels = labels;
  sample.values = values;
  return profile->Add(sample);
}

// The label {"n": n} of each key, in row order.
std::vector<int64_t> KeyOrder(const stackrec::Profile& profile) {
  std::vector<int64_t> order;
  for (size_t k = 0; k < profile.key_count(); ++k) {
    order.push_back(profile.label_sets().Get(profile.Parts().aggregate.key_labels(k))[0].num);
  }
  return order;
}

// The stored values of the key whose labels are {"n": n}; empty if absent.
std::vector<int64_t> Sums(const stackrec::Profile& profile, int64_t n) {
  for (size_t k = 0; k < profile.key_count(); ++k) {
    const auto labels = profile.label_sets().Get(profile.Parts().aggregate.key_labels(k));
    if (labels.size() == 1 && labels[0].num == n) {
      const int64_t* v = profile.Parts().aggregate.key_values(k);
      return {v, v + profile.stored_values()};
    }
  }
  return {};
}

}  // namespace

// ---- Aggregate on its own ---------------------------------------------------

namespace {

// Key i's key and values.
std::pair<SampleKey, std::vector<int64_t>> Row(const Aggregate& a, size_t i) {
  const int64_t* v = a.key_values(i);
  return {SampleKey{a.key_stack(i), a.key_labels(i)}, {v, v + a.width()}};
}

}  // namespace

TEST_CASE("an aggregate defers only once it has room, and sums deferred samples in order") {
  Aggregate a(2);
  // Nothing allocated yet: a deferred sample could not be settled.
  REQUIRE_FALSE(a.CanDefer());
  const int64_t first[] = {1, 2};
  a.Add(SampleKey{1, 1}, 7, first);
  REQUIRE(a.CanDefer());
  const int64_t more[] = {10, 20}, other[] = {3, 4};
  a.Defer(SampleKey{2, 1}, 9, other);
  a.Advance();
  a.Defer(SampleKey{1, 1}, 7, more);
  a.Advance();
  a.Defer(SampleKey{3, 5}, 9, other);
  // Readers settle everything pending: rows in the order the keys came.
  REQUIRE(a.key_count() == 3);
  CHECK(Row(a, 0) == std::make_pair(SampleKey{1, 1}, std::vector<int64_t>{11, 22}));
  CHECK(Row(a, 1) == std::make_pair(SampleKey{2, 1}, std::vector<int64_t>{3, 4}));
  CHECK(Row(a, 2) == std::make_pair(SampleKey{3, 5}, std::vector<int64_t>{3, 4}));
  CHECK(a.Find(SampleKey{3, 5}, 9) == 2);
  CHECK(a.Find(SampleKey{3, 5}, 7) == KeyIndex::kNone);  // found by tag and key
  CHECK(a.Find(SampleKey{4, 4}, 9) == KeyIndex::kNone);
}

TEST_CASE("an aggregate sums values with saturation, never wrapping") {
  Aggregate a(2);
  const int64_t big[] = {INT64_MAX - 1, INT64_MIN + 1};
  const int64_t push[] = {5, -5};
  a.Add(SampleKey{1, 0}, 1, big);
  a.Add(SampleKey{1, 0}, 1, push);
  CHECK(Row(a, 0).second == std::vector<int64_t>{INT64_MAX, INT64_MIN});
}

TEST_CASE("an aggregate's undo restores changed rows and removes the keys added since") {
  Aggregate a(1);
  auto tag_of = [](SampleKey key) { return key.stack * 31 + key.labels; };
  const int64_t one[] = {1}, five[] = {5}, seven[] = {7};
  a.Add(SampleKey{1, 0}, tag_of(SampleKey{1, 0}), one);
  a.Add(SampleKey{2, 0}, tag_of(SampleKey{2, 0}), one);
  stackrec::KeyUndo undo;
  undo.key_count = a.key_count();
  a.Add(SampleKey{2, 0}, tag_of(SampleKey{2, 0}), five, &undo);
  a.Add(SampleKey{3, 0}, tag_of(SampleKey{3, 0}), seven, &undo);
  a.Add(SampleKey{3, 0}, tag_of(SampleKey{3, 0}), seven, &undo);
  REQUIRE(a.key_count() == 3);
  a.Undo(undo, tag_of);
  REQUIRE(a.key_count() == 2);
  CHECK(Row(a, 0).second == std::vector<int64_t>{1});
  CHECK(Row(a, 1).second == std::vector<int64_t>{1});
  // The removed key is gone from the index too: it comes back as new.
  CHECK(a.Find(SampleKey{3, 0}, tag_of(SampleKey{3, 0})) == KeyIndex::kNone);
  a.Add(SampleKey{3, 0}, tag_of(SampleKey{3, 0}), seven);
  REQUIRE(a.key_count() == 3);
  CHECK(Row(a, 2) == std::make_pair(SampleKey{3, 0}, std::vector<int64_t>{7}));
}

TEST_CASE("an aggregate keeps timestamped samples one by one, apart from the keys") {
  Aggregate a(2);
  const int64_t v1[] = {1, 2}, v2[] = {3, 4};
  a.AddTimed(SampleKey{4, 2}, 1000, v1);
  a.AddTimed(SampleKey{4, 2}, 999, v2);
  CHECK(a.key_count() == 0);
  REQUIRE(a.timed_count() == 2);
  CHECK(a.timed_stack(1) == 4);
  CHECK(a.timed_labels(1) == 2);
  CHECK(a.timed_timestamp(0) == 1000);
  CHECK(a.timed_timestamp(1) == 999);
  CHECK(std::vector<int64_t>(a.timed_values(1), a.timed_values(1) + 2) ==
        std::vector<int64_t>{3, 4});
  CHECK(a.TimedBytes() > 0);
}

TEST_CASE("clearing an aggregate drops what is deferred and frees its storage") {
  Aggregate a(1);
  const int64_t one[] = {1};
  a.Add(SampleKey{1, 0}, 1, one);
  a.Defer(SampleKey{2, 0}, 2, one);
  a.Clear();
  CHECK(a.key_count() == 0);
  CHECK(a.timed_count() == 0);
  CHECK(a.KeyBytes() == 0);
  CHECK_FALSE(a.CanDefer());
  a.Add(SampleKey{2, 0}, 2, one);
  CHECK(Row(a, 0) == std::make_pair(SampleKey{2, 0}, std::vector<int64_t>{1}));
}

// ---- Deferred samples through a profile ---------------------------------

TEST_CASE("a known key's sample is summed before any read, reset or other sample") {
  stackrec::Profile profile(Options(), 0);
  REQUIRE(Add(&profile, 1, {1, 999, 10}).ok());  // new, the index empty: written now
  REQUIRE(Add(&profile, 1, {1, 999, 20}).ok());  // known: pending
  CHECK(profile.key_count() == 1);
  CHECK(Sums(profile, 1) == std::vector<int64_t>{2, 30});

  // Pending, then a new key, pending too, whose values go through the
  // same scratch.
  REQUIRE(Add(&profile, 1, {1, 999, 5}).ok());
  REQUIRE(Add(&profile, 2, {1, 999, 7}).ok());
  REQUIRE(Add(&profile, 2, {1, 999, 8}).ok());  // pending at the reads below
  CHECK(Sums(profile, 1) == std::vector<int64_t>{3, 35});
  CHECK(Sums(profile, 2) == std::vector<int64_t>{2, 15});

  // A failed add in between changes nothing, and what is pending survives it.
  REQUIRE(Add(&profile, 1, {1, 999, 100}).ok());
  CHECK(Add(&profile, 1, {1, 999}).code() == stackrec::Code::kInvalidArgument);
  CHECK(Sums(profile, 1) == std::vector<int64_t>{4, 135});
  CHECK(profile.samples_added() == 6);

  // Reset and ClearSamples drop the rows, the pending one with them.
  REQUIRE(Add(&profile, 2, {1, 999, 1}).ok());
  profile.ClearSamples(0);
  CHECK(profile.key_count() == 0);
  REQUIRE(Add(&profile, 2, {1, 999, 4}).ok());
  REQUIRE(Add(&profile, 2, {1, 999, 4}).ok());
  profile.Reset(0);
  CHECK(profile.key_count() == 0);
  REQUIRE(Add(&profile, 2, {1, 999, 6}).ok());
  REQUIRE(Add(&profile, 2, {1, 999, 6}).ok());
  CHECK(Sums(profile, 2) == std::vector<int64_t>{2, 12});
}

TEST_CASE("keys that share a tag are each summed into their own row") {
  // The tag of (stack, labels) comes from the seeds of the two, which are
  // the low 32 bits of the high half of their fingerprints when they are
  // interned from content (SampleTables::KeyTag, SeedOf): find two label sets
  // whose keys with Frames() share it. About 82,000 tries are expected.
  std::vector<uint64_t> hashes(Frames().size());
  const auto stack_seed =
      static_cast<uint32_t>(stackrec::FingerprintFrames(Frames(), hashes.data()).hi);
  std::unordered_map<uint32_t, int64_t> seen;
  int64_t first = -1, second = -1;
  for (int64_t n = 0; n < 4000000 && second < 0; ++n) {
    const std::vector<LabelView> labels = Labels(n);
    const auto labels_seed = static_cast<uint32_t>(stackrec::FingerprintLabels(labels).hi);
    const uint32_t tag = stackrec::KeyIndex::Tag(uint64_t{stack_seed} << 32 | labels_seed);
    if (auto [it, inserted] = seen.emplace(tag, n); !inserted) {
      first = it->second;
      second = n;
    }
  }
  REQUIRE(second >= 0);
  INFO("labels {n: " << first << "} and {n: " << second << "}");

  stackrec::Profile profile(Options(), 0);
  REQUIRE(Add(&profile, first, {1, 0, 1}).ok());
  // New, but the first row of its tag is `first`'s: deferred, then found
  // absent and inserted when settled.
  REQUIRE(Add(&profile, second, {1, 0, 2}).ok());
  CHECK(profile.key_count() == 2);
  // Known, behind `first` on the chain: found past it when settled.
  REQUIRE(Add(&profile, second, {1, 0, 4}).ok());
  REQUIRE(Add(&profile, first, {1, 0, 8}).ok());
  REQUIRE(Add(&profile, second, {1, 0, 16}).ok());
  CHECK(profile.key_count() == 2);
  CHECK(Sums(profile, first) == std::vector<int64_t>{2, 9});
  CHECK(Sums(profile, second) == std::vector<int64_t>{3, 22});
}

TEST_CASE("new and known keys keep their order and their sums, read at any point") {
  // A model of the rows (first-seen order, sums) beside the profile, read
  // after a random number of adds each time, so that reads come with
  // nothing, one or two samples pending, of new keys and of known ones.
  stackrec::Profile profile(Options(), 0);
  std::vector<int64_t> order;
  std::map<int64_t, std::vector<int64_t>> sums;
  std::mt19937 rng(7);
  int64_t next_key = 0;
  for (int round = 0; round < 1500; ++round) {  // past a row block (512 rows)
    const int adds = static_cast<int>(rng() % 4);
    for (int a = 0; a < adds; ++a) {
      // A new key a third of the time, else one of the last few or any.
      int64_t n;
      if (next_key == 0 || rng() % 3 == 0) {
        n = next_key++;
      } else if (rng() % 2 == 0) {
        n = next_key - 1 - static_cast<int64_t>(rng() % std::min<int64_t>(next_key, 3));
      } else {
        n = static_cast<int64_t>(rng() % static_cast<uint64_t>(next_key));
      }
      const int64_t v = static_cast<int64_t>(rng() % 1000);
      REQUIRE(Add(&profile, n, {1, 999, v}).ok());
      auto [it, inserted] = sums.emplace(n, std::vector<int64_t>{0, 0});
      if (inserted) order.push_back(n);
      it->second[0] += 1;
      it->second[1] += v;
    }
    REQUIRE(KeyOrder(profile) == order);
    const int64_t probe = order.empty() ? 0 : order[rng() % order.size()];
    if (!order.empty()) CHECK(Sums(profile, probe) == sums[probe]);
  }
  for (int64_t n : order) CHECK(Sums(profile, n) == sums[n]);
  CHECK(profile.samples_added() ==
        static_cast<uint64_t>(
            std::accumulate(sums.begin(), sums.end(), int64_t{0},
                            [](int64_t t, const auto& kv) { return t + kv.second[0]; })));
}
