// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "profile_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace stackrec_exec {

ProfileWriter::ProfileWriter(std::string dir, std::string program)
    : dir_(std::move(dir)), program_(std::move(program)) {
  for (char& c : program_) {
    if (c == '/') c = '_';
  }
  if (program_.empty()) program_ = "program";
}

bool ProfileWriter::Write(const uint8_t* data, size_t size, std::string* error) {
  const std::string pid = std::to_string(getpid());
  const std::string tmp = dir_ + "/." + program_ + "." + pid + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write " + tmp + ": " + std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  for (;;) {
    const std::string path =
        dir_ + "/" + program_ + "." + pid + "." + std::to_string(next_seq_++) + ".pb.gz";
    if (link(tmp.c_str(), path.c_str()) == 0) {
      unlink(tmp.c_str());
      last_path_ = path;
      return true;
    }
    if (errno != EEXIST) {
      *error = "cannot create " + path + ": " + std::strerror(errno);
      unlink(tmp.c_str());
      return false;
    }
  }
}

}  // namespace stackrec_exec
