# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# The exceptions, and where #serialize logs. The classes are defined by the
# native half (it raises them); this file documents them and adds #status.
#
# A call the library refuses raises with the library's own message
# (stackrec_last_error(), which names the argument), prefixed by the method:
#
#   Stackrec::InvalidArgument < ArgumentError   STACKREC_INVALID_ARGUMENT
#   Stackrec::Error < StandardError              any other failure, and:
#     Stackrec::LimitExceeded                    STACKREC_LIMIT_EXCEEDED
#     Stackrec::Busy                             STACKREC_BUSY
#     Stackrec::InternalError                    STACKREC_INTERNAL
#     Stackrec::Unsupported                      STACKREC_UNSUPPORTED
#   NoMemoryError                                STACKREC_OUT_OF_MEMORY
#
# InvalidArgument is an ArgumentError so that `rescue ArgumentError` keeps
# catching bad arguments whichever side refused them; the glue's own checks
# raise plain TypeError and ArgumentError naming the argument.
module Stackrec
  # Mixed into every exception that carries a library status.
  module LibraryError
    # :invalid_argument, :limit_exceeded, :busy, :internal or :unsupported
    attr_reader :status

    # The C enum's name, e.g. "STACKREC_BUSY".
    def status_name
      Stackrec.status_name(status)
    end
  end

  class Error
    include LibraryError
  end

  class InvalidArgument
    include LibraryError
  end

  # The C enum's values, for Stackrec.status_name.
  STATUS_CODES = {
    ok: 0, invalid_argument: 1, out_of_memory: 2, limit_exceeded: 3, busy: 4,
    internal: 5, unsupported: 6,
  }.freeze

  class << self
    # The library's name for a status, a Symbol or the C enum's Integer:
    # Stackrec.status_name(:busy) => "STACKREC_BUSY" (stackrec_status_name).
    def status_name(status)
      _status_name(status.is_a?(Symbol) ? STATUS_CODES.fetch(status) : Integer(status))
    end

    # Where #serialize logs why it returned nil. A Logger to $stderr unless
    # set (e.g. Stackrec.logger = Rails.logger).
    attr_writer :logger

    def logger
      @logger ||= Logger.new($stderr, progname: "stackrec")
    end
  end
end
