// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/part_costs.h"

#include "encode/proto_wire.h"

namespace stackrec {

PartCosts::PartCosts(const ProfileParts& p, const PartCostModel& model)
    : p_(p),
      model_(model),
      stacks_(p.tables.stacks().size(), 0),
      locations_(p.tables.locations().size(), 0),
      functions_(p.tables.functions().size(), 0),
      mappings_(p.tables.mappings().size(), 0),
      strings_(p.tables.strings().size(), 0),
      label_sets_(p.tables.label_sets().size(), 0) {}

size_t PartCosts::AddPseudo(size_t name_bytes) {
  // Its stack is new to every part; values of up to 10 bytes each.
  const size_t stack = model_.new_location + model_.new_function + model_.new_string + name_bytes +
                       (model_.frames_in_samples ? 0 : model_.new_stack);
  return stack +
         model_.messages_per_sample * (model_.message + model_.frame + 10 * p_.aggregate.width());
}

size_t PartCosts::SampleBytes(uint32_t stack, uint32_t labels, const int64_t* values,
                              bool timed) const {
  size_t per_message =
      model_.message + p_.tables.label_sets().Get(labels).size() * model_.sample_label;
  if (model_.frames_in_samples) per_message += p_.tables.stacks().Get(stack).size() * model_.frame;
  // The timestamp: a fixed64 (OTLP) or a label of up to 10 bytes (pprof).
  if (timed) per_message += 12;
  size_t value_bytes = 0;
  for (size_t i = 0; i < p_.aggregate.width(); ++i) {
    value_bytes += wire::VarintSize(static_cast<uint64_t>(values[i]));
  }
  // pprof writes every value in one Sample; OTLP one value in each.
  if (model_.messages_per_sample > 1) value_bytes /= p_.aggregate.width();
  return model_.messages_per_sample * (per_message + value_bytes);
}

size_t PartCosts::StackCost(uint32_t stack) {
  if (!FirstInPart(&stacks_[stack])) return 0;
  const absl::Span<const uint32_t> frames = p_.tables.stacks().Get(stack);
  size_t bytes = model_.frames_in_samples ? 0 : model_.new_stack + frames.size() * model_.frame;
  for (uint32_t location : frames) bytes += LocationCost(location);
  return bytes;
}

size_t PartCosts::LocationCost(uint32_t id) {
  if (!FirstInPart(&locations_[id])) return 0;
  const Location& loc = p_.tables.locations().Get(id);
  size_t bytes = model_.new_location;
  if (loc.function != 0 && FirstInPart(&functions_[loc.function])) {
    const Function& fn = p_.tables.functions().Get(loc.function);
    bytes += model_.new_function + StringCost(fn.name) + StringCost(fn.system_name) +
             StringCost(fn.filename);
  }
  if (loc.mapping != 0 && FirstInPart(&mappings_[loc.mapping])) {
    const Mapping& m = p_.tables.mappings().Get(loc.mapping);
    bytes += model_.new_mapping + StringCost(m.filename) + StringCost(m.build_id);
  }
  return bytes;
}

size_t PartCosts::LabelsCost(uint32_t labels) {
  if (labels == 0 || !FirstInPart(&label_sets_[labels])) return 0;
  size_t bytes = 0;
  for (const Label& l : p_.tables.label_sets().Get(labels)) {
    bytes += model_.new_label + StringCost(l.key) + StringCost(l.str) + StringCost(l.num_unit);
  }
  return bytes;
}

size_t PartCosts::StringCost(StringId id) {
  if (id == 0 || !FirstInPart(&strings_[id])) return 0;
  return model_.new_string + p_.tables.strings().Get(id).size();
}

}  // namespace stackrec
