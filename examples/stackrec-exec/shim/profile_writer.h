// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Writes each serialized profile as DIR/PROGRAM.<pid>.<seq>.pb.gz.
//
// A file appears whole or not at all (written under a hidden temporary name,
// then linked into place), so a tool watching DIR never reads half a
// profile. A name is never reused: an exec keeps the pid, and a program that
// execs itself would otherwise overwrite its previous image's profiles, so
// the link fails on an existing name and the next sequence number is tried.
#ifndef STACKREC_EXEC_SHIM_PROFILE_WRITER_H_
#define STACKREC_EXEC_SHIM_PROFILE_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace stackrec_exec {

class ProfileWriter {
 public:
  // `program`: the file name's first part (the program's short name).
  ProfileWriter(std::string dir, std::string program);

  // Writes one profile; on failure returns false and says why in *error.
  bool Write(const uint8_t* data, size_t size, std::string* error);

  // The path of the last file written ("" before the first).
  const std::string& last_path() const { return last_path_; }

  // A fork child: its own pid, numbering from 0 again.
  void ResetAfterFork() { next_seq_ = 0; }

 private:
  std::string dir_, program_, last_path_;
  uint64_t next_seq_ = 0;
};

}  // namespace stackrec_exec

#endif  // STACKREC_EXEC_SHIM_PROFILE_WRITER_H_
