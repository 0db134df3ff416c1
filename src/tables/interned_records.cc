// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "tables/interned_records.h"

#include "input/profile_options.h"

namespace stackrec {

void EndTruncatedStack(size_t cut, StringTable* strings, ValueTable<Function>* functions,
                       ValueTable<Location>* locations, std::vector<uint32_t>* kept) {
  Location last = locations->Get(kept->back());
  if (last.inlined) {
    last.inlined = false;
    kept->back() = locations->Intern(last);
  }
  Function fn;
  // An ASCII name: interning cannot fail on bad input.
  (void)strings->Intern(TruncatedFrameName(cut), &fn.name);
  Location pseudo;
  pseudo.function = functions->Intern(fn);
  kept->push_back(locations->Intern(pseudo));
}

}  // namespace stackrec
