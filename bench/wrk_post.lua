-- wrk script for bench/loadgen.py: every request POSTs the same body, read once from the file
-- named by BENCH_BODY (headers come from wrk's -H), and the run's totals are printed as one
-- JSON line at the end so the harness never has to parse wrk's human-readable report.
local file = assert(io.open(assert(os.getenv("BENCH_BODY"), "BENCH_BODY is not set"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "connect": %d, "read": %d, "write": %d, "status": %d, ' ..
    '"timeout": %d, "p50_us": %d, "p95_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99)))
end
