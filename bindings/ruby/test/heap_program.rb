# frozen_string_literal: true

# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# A real Ruby program under Stackrec::HeapProfiler, for
# heap_profiler_test.rb: it allocates known objects from known methods,
# keeps some of them and drops others, and writes two profiles:
#
#   ruby heap_program.rb EVERY FIRST_PROFILE SECOND_PROFILE
#
# - FIRST: after build_orders (20_000 Orders, kept), drop_invoices (30_000
#   Invoices, garbage at once) and build_buffers (5_000 Strings of 1 KiB,
#   kept), and a GC.
# - SECOND: after the Orders were dropped and a GC; nothing new allocated.
#
# The kept objects are made in threads of their own and held only in
# globals, so no stale word of the main thread's C stack (which the GC
# scans conservatively) can keep dropped ones alive.
require "stackrec"

class Order
  def initialize(id)
    @id = id
  end
end

class Invoice
  def initialize(total)
    @total = total
  end
end

def build_orders(count)
  Array.new(count) { |i| Order.new(i) }
end

def drop_invoices(count)
  count.times { |i| Invoice.new(i) }
end

def build_buffers(count)
  Array.new(count) { "x" * 1024 }
end

every, first_path, second_path = ARGV
profiler = Stackrec::HeapProfiler.start(every: Integer(every))
Thread.new { $orders = build_orders(20_000) }.join
Thread.new { drop_invoices(30_000) }.join
Thread.new { $buffers = build_buffers(5_000) }.join
3.times { GC.start }
File.binwrite(first_path, profiler.serialize!)

$orders = nil
3.times { GC.start }
File.binwrite(second_path, profiler.serialize!)
profiler.stop
$stderr.puts profiler.stats.inspect
