// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "serialize/parts.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "base/saturating.h"
#include "encode/encode_driver.h"
#include "encode/otlp/otlp_encoder.h"
#include "encode/part_costs.h"
#include "encode/pprof/pprof_encoder.h"

namespace stackrec {

namespace {

constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

size_t LimitOf(size_t budget) { return budget == 0 ? kNoLimit : budget; }

// The budget of one part, with 0 ("none") as the largest size.
struct PartLimits {
  size_t bytes, uncompressed_bytes, samples;
  bool Fit(const EncodeStats& stats, size_t bytes_written) const {
    return bytes_written <= bytes && stats.uncompressed_bytes <= uncompressed_bytes &&
           stats.samples_written <= samples;
  }
};

MakeFormatWriter WriterOf(Format format) {
  return format == Format::kOtlp ? MakeOtlpWriter : MakePprofWriter;
}

PartCostModel CostModelOf(Format format, size_t enabled_types) {
  return format == Format::kOtlp ? OtlpCostModel(enabled_types) : PprofCostModel();
}

// A sample to place in a part: an aggregated key's id, or key_count() +
// the index of a timestamped sample, with what estimating its cost needs,
// read once in the order the samples are stored rather than again at
// random for each part it is tried in.
struct Item {
  uint32_t id, stack, labels, bytes;  // bytes: PartCosts::SampleBytes
};

// Cuts and writes the parts of one profile (see parts.h).
class Splitter {
 public:
  Splitter(Profile& profile, const SerializeOptions& options, size_t max_part_bytes, int64_t end_ns,
           TableString* out)
      : profile_(profile),
        parts_(profile.Parts()),
        options_(options),
        limits_{std::min(LimitOf(options.budget.part_bytes), max_part_bytes),
                LimitOf(options.budget.part_uncompressed_bytes),
                LimitOf(options.budget.part_samples)},
        max_parts_(LimitOf(options.budget.parts)),
        end_ns_(end_ns),
        out_(out),
        start_(out->size()),
        keys_(parts_.aggregate.key_count()),
        costs_(parts_, CostModelOf(options.format, parts_.aggregate.width())),
        extra_(parts_.aggregate.width(), 0) {
    // Before anything is written the compressed size is a guess; half the
    // message errs towards a part too small rather than one written twice.
    compressed_ratio_ = options.compression == Compression::kNone ? 1.0 : 0.5;
  }

  Status Run(std::vector<OutputPart>* parts, EncodeStats* stats, FoldReason* reason);

 private:
  size_t ItemCost(const Item& item) { return costs_.Add(item.stack, item.labels, item.bytes); }
  const int64_t* ItemValues(const Item& item) const {
    return item.id < keys_ ? parts_.aggregate.key_values(item.id)
                           : parts_.aggregate.timed_values(item.id - keys_);
  }
  // Fills kept_ with every sample to write, in writing order.
  void TakeAll();
  // Sums `item` into the pseudo-sample, for `reason` if it is the first.
  void Fold(const Item& item, FoldReason reason) {
    if (extra_stack_ == 0) extra_stack_ = profile_.InternPseudoStack(kOutputLimitFrame);
    if (reason_ == FoldReason::kNone) reason_ = reason;
    const int64_t* values = ItemValues(item);
    for (size_t k = 0; k < extra_.size(); ++k) extra_[k] = SaturatingAdd(extra_[k], values[k]);
    ++folded_;
  }
  // The estimated bytes a part may hold, as the parts written so far
  // measured the estimate.
  double Capacity() const;
  void Measure(size_t estimate, const EncodeStats& stats, size_t bytes);
  // Writes kept_[begin, end), and the pseudo-sample if `with_extra`, as
  // one part appended to out_; true if it fits.
  bool WritePart(size_t begin, size_t end, bool with_extra, EncodeStats* stats, size_t* bytes,
                 Status* status);
  // Adds a part just written to written_ and totals_.
  void Record(const EncodeStats& stats, size_t bytes);
  // Cuts kept_ into parts, folding samples too big for a part on their
  // own. False if max_parts_ parts were written and samples remain.
  bool CutAll(Status* status);
  // Keeps the heaviest samples, at most `count` of them whose estimated
  // bytes, in one sitting, are at most `units`, and folds the others.
  void KeepHeaviest(double units, double count);

  Profile& profile_;
  const ProfileParts parts_;
  const SerializeOptions& options_;
  const PartLimits limits_;
  const size_t max_parts_;
  const int64_t end_ns_;
  TableString* const out_;
  const size_t start_;
  const size_t keys_;
  PartCosts costs_;

  std::vector<Item> kept_;      // samples still to be written, in writing order
  std::vector<int64_t> extra_;  // the values folded so far
  uint64_t folded_ = 0;
  uint32_t extra_stack_ = 0;
  FoldReason reason_ = FoldReason::kNone;

  std::vector<OutputPart> written_;
  EncodeStats totals_;
  // Measured so far: estimates, uncompressed and compressed bytes.
  double estimated_ = 0, uncompressed_ = 0, compressed_ = 0, compressed_ratio_;
};

double Splitter::Capacity() const {
  const double scale = estimated_ > 0 ? uncompressed_ / estimated_ : 1.0;
  const double ratio = uncompressed_ > 0 ? compressed_ / uncompressed_ : compressed_ratio_;
  double units = std::numeric_limits<double>::infinity();
  // Aim a little below the limits: the estimate is corrected on average,
  // not part by part, and not at all before the first part; a part over a
  // limit is written twice.
  const bool measured = estimated_ > 0;
  if (limits_.uncompressed_bytes != kNoLimit) {
    units = std::min(
        units, (measured ? 0.95 : 0.85) * static_cast<double>(limits_.uncompressed_bytes) / scale);
  }
  if (limits_.bytes != kNoLimit) {
    units = std::min(
        units, (measured ? 0.9 : 0.85) * static_cast<double>(limits_.bytes) / (scale * ratio));
  }
  return units;
}

void Splitter::Measure(size_t estimate, const EncodeStats& stats, size_t bytes) {
  estimated_ += static_cast<double>(estimate);
  uncompressed_ += static_cast<double>(stats.uncompressed_bytes);
  compressed_ += static_cast<double>(bytes);
}

bool Splitter::WritePart(size_t begin, size_t end, bool with_extra, EncodeStats* stats,
                         size_t* bytes, Status* status) {
  SampleSelection selection;
  for (size_t i = begin; i < end; ++i) {
    const uint32_t id = kept_[i].id;
    if (id < keys_) {
      selection.keys.push_back(id);
    } else {
      selection.timed.push_back(static_cast<uint32_t>(id - keys_));
    }
  }
  if (with_extra) {
    selection.extra_stack = extra_stack_;
    selection.extra_values = extra_;
  }
  const size_t offset = out_->size();
  *stats = EncodeStats();
  *status =
      EncodeProfile(parts_, options_, end_ns_, &selection, WriterOf(options_.format), out_, stats);
  *bytes = out_->size() - offset;
  if (status->ok() && limits_.Fit(*stats, *bytes)) return true;
  out_->resize(offset);
  return false;
}

void Splitter::Record(const EncodeStats& stats, size_t bytes) {
  written_.push_back(
      {out_->size() - bytes, bytes, stats.samples_written, stats.uncompressed_bytes});
  totals_.Add(stats);
}

bool Splitter::CutAll(Status* status) {
  written_.clear();
  totals_ = EncodeStats();
  out_->resize(start_);
  size_t pos = 0;
  bool extra_written = false;
  for (;;) {
    const bool has_extra = !extra_.empty() && folded_ != 0;
    if (pos == kept_.size() && (extra_written || !has_extra) && !written_.empty()) return true;
    if (written_.size() == max_parts_) return false;
    // Take items while the estimate stays within a part's capacity.
    const double capacity = Capacity();
    costs_.StartPart();
    size_t estimate = 0, end = pos;
    while (end < kept_.size()) {
      const size_t cost = ItemCost(kept_[end]);
      if (end > pos &&
          (static_cast<double>(estimate + cost) > capacity || end - pos + 1 > limits_.samples)) {
        break;
      }
      estimate += cost;
      ++end;
    }
    for (;;) {
      const bool with_extra = has_extra && end == kept_.size();
      const size_t extra_cost = with_extra ? costs_.AddPseudo(kOutputLimitFrame.size()) : 0;
      EncodeStats stats;
      size_t bytes = 0;
      const bool fits = WritePart(pos, end, with_extra, &stats, &bytes, status);
      if (!status->ok()) return false;
      Measure(estimate + extra_cost, stats, bytes);
      if (fits) {
        Record(stats, bytes);
        extra_written = extra_written || with_extra;
        pos = end;
        break;
      }
      if (end - pos > 1) {
        // Shorter by what the limits say, and a tenth more.
        double keep = 0.9;
        auto shrink = [&](size_t limit, uint64_t measured) {
          if (measured > limit) {
            keep = std::min(keep, 0.9 * static_cast<double>(limit) / static_cast<double>(measured));
          }
        };
        shrink(limits_.bytes, bytes);
        shrink(limits_.uncompressed_bytes, stats.uncompressed_bytes);
        shrink(limits_.samples, stats.samples_written);
        end = pos + std::max<size_t>(1, static_cast<size_t>(static_cast<double>(end - pos) * keep));
        costs_.StartPart();
        estimate = 0;
        for (size_t i = pos; i < end; ++i) estimate += ItemCost(kept_[i]);
        continue;
      }
      if (end - pos == 1 && with_extra) {
        // The last sample alone; the pseudo-sample goes in a part after it.
        const bool alone = WritePart(pos, end, false, &stats, &bytes, status);
        if (!status->ok()) return false;
        if (alone) {
          Record(stats, bytes);
          pos = end;
          break;
        }
      }
      if (end == pos) {
        // Only the pseudo-sample, and it does not fit.
        *status = Error(Code::kLimitExceeded,
                        "the budget is smaller than a part holding only the \"%s\" sample",
                        std::string(kOutputLimitFrame).c_str());
        return false;
      }
      // One sample that does not fit a part on its own.
      Fold(kept_[pos], FoldReason::kSampleTooBig);
      kept_.erase(kept_.begin() + static_cast<ptrdiff_t>(pos));
      break;
    }
  }
}

void Splitter::KeepHeaviest(double units, double count) {
  // What each item adds in writing order, as if in one part: a share of
  // the dictionary it reaches first, and its sample.
  std::vector<size_t> cost(kept_.size());
  costs_.StartPart();
  for (size_t i = 0; i < kept_.size(); ++i) cost[i] = ItemCost(kept_[i]);
  std::vector<uint32_t> order(kept_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return FoldWeight(ItemValues(kept_[a])) > FoldWeight(ItemValues(kept_[b]));
  });
  std::vector<uint8_t> keep(kept_.size(), 0);
  double used = 0, kept = 0;
  for (uint32_t i : order) {
    used += static_cast<double>(cost[i]);
    if (used > units || ++kept > count) break;
    keep[i] = 1;
  }
  std::vector<Item> remaining;
  for (size_t i = 0; i < kept_.size(); ++i) {
    if (keep[i] != 0) {
      remaining.push_back(kept_[i]);
    } else {
      Fold(kept_[i], FoldReason::kPartsLimit);
    }
  }
  kept_ = std::move(remaining);
}

void Splitter::TakeAll() {
  const Aggregate& samples = parts_.aggregate;
  const TableVector<uint32_t> order = KeysInWritingOrder(parts_);
  TableVector<uint32_t> position(keys_);
  for (size_t i = 0; i < keys_; ++i) position[order[i]] = static_cast<uint32_t>(i);
  kept_.resize(keys_ + samples.timed_count());
  for (uint32_t key = 0; key < keys_; ++key) {
    const uint32_t stack = samples.key_stack(key), labels = samples.key_labels(key);
    kept_[position[key]] = {
        key, stack, labels,
        static_cast<uint32_t>(costs_.SampleBytes(stack, labels, samples.key_values(key), false))};
  }
  for (size_t i = 0; i < samples.timed_count(); ++i) {
    const uint32_t stack = samples.timed_stack(i), labels = samples.timed_labels(i);
    kept_[keys_ + i] = {
        static_cast<uint32_t>(keys_ + i), stack, labels,
        static_cast<uint32_t>(costs_.SampleBytes(stack, labels, samples.timed_values(i), true))};
  }
  // An output of some of the values writes only the samples with one of
  // them (SerializeOptions::columns): the parts are cut from those alone.
  const std::vector<uint32_t>& columns = options_.columns;
  if (!columns.empty()) {
    kept_.erase(
        std::remove_if(kept_.begin(), kept_.end(),
                       [&](const Item& item) { return !HasValueIn(columns, ItemValues(item)); }),
        kept_.end());
  }
}

Status Splitter::Run(std::vector<OutputPart>* parts, EncodeStats* stats, FoldReason* reason) {
  TakeAll();
  Status status;
  // Each round that runs out of parts keeps fewer samples, aiming at what
  // the parts could hold by the estimate; the last keeps none, and its one
  // part is the pseudo-sample alone.
  double share = 0.85;
  bool done = false;
  for (int round = 0; !(done = CutAll(&status)); ++round) {
    if (!status.ok() || kept_.empty()) break;
    const double parts = static_cast<double>(max_parts_);
    const double samples = limits_.samples == kNoLimit ? std::numeric_limits<double>::infinity()
                                                       : static_cast<double>(limits_.samples);
    if (round < 12) {
      KeepHeaviest(share * parts * Capacity(), share * parts * samples);
    } else {
      KeepHeaviest(0, 0);
    }
    share *= 0.75;
  }
  if (!done) {
    out_->resize(start_);
    return status.ok() ? Error(Code::kLimitExceeded,
                               "the budget's %zu part(s) cannot hold even the \"%s\" sample",
                               max_parts_, std::string(kOutputLimitFrame).c_str())
                       : status;
  }
  *parts = written_;
  *stats = totals_;
  // A stack or label set used by several parts is counted in each: cap
  // the sums at the tables' sizes, which a recorder compares them with.
  stats->stacks_used = std::min<uint64_t>(stats->stacks_used, parts_.tables.stacks().size());
  stats->label_sets_used =
      std::min<uint64_t>(stats->label_sets_used, parts_.tables.label_sets().size());
  stats->samples_left_out = folded_;
  *reason = reason_;
  return OkStatus();
}

}  // namespace

Status EncodeInParts(Profile& profile, const SerializeOptions& options, size_t max_part_bytes,
                     int64_t end_ns, TableString* out, std::vector<OutputPart>* parts,
                     EncodeStats* stats, FoldReason* reason) {
  Splitter splitter(profile, options, max_part_bytes, end_ns, out);
  return splitter.Run(parts, stats, reason);
}

Status CheckBudget(const ProfileOptions& profile_options, const SerializeOptions& options) {
  if (!options.budget.any()) return OkStatus();
  // A part's times are written too: take wide ones.
  Profile scratch(profile_options, INT64_MAX / 2);
  SampleSelection selection;
  selection.extra_stack = scratch.InternPseudoStack(kOutputLimitFrame);
  // The largest values a sample can have: ten bytes each.
  selection.extra_values.assign(scratch.Parts().aggregate.width(), INT64_MIN);
  TableString out;
  EncodeStats stats;
  STACKREC_RETURN_IF_ERROR(EncodeProfile(scratch.Parts(), options, INT64_MAX, &selection,
                                         WriterOf(options.format), &out, &stats));
  const Budget& b = options.budget;
  if (b.part_samples != 0 && stats.samples_written > b.part_samples) {
    return Error(Code::kInvalidArgument,
                 "opts.part_max_samples is %zu, less than the %llu sample(s) of a part holding "
                 "only the \"[stackrec: output limit]\" sample",
                 b.part_samples, static_cast<unsigned long long>(stats.samples_written));
  }
  if (b.part_uncompressed_bytes != 0 && stats.uncompressed_bytes > b.part_uncompressed_bytes) {
    return Error(Code::kInvalidArgument,
                 "opts.part_max_uncompressed_bytes is %zu, less than the %llu bytes of a part "
                 "holding only the \"[stackrec: output limit]\" sample",
                 b.part_uncompressed_bytes,
                 static_cast<unsigned long long>(stats.uncompressed_bytes));
  }
  if (b.part_bytes != 0 && out.size() > b.part_bytes) {
    return Error(Code::kInvalidArgument,
                 "opts.part_max_bytes is %zu, less than the %zu bytes of a part holding only the "
                 "\"[stackrec: output limit]\" sample",
                 b.part_bytes, out.size());
  }
  return OkStatus();
}

}  // namespace stackrec
