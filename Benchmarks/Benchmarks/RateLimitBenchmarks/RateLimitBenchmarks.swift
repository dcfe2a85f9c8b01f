import Benchmark

/// The benchmarks, registered in the order the report shows them. See Benchmarks/README.md.
let benchmarks: @Sendable () -> Void = {
  CallBenchmarks.register()
  ContentionBenchmarks.register()
  TimerBenchmarks.register()
  LatenessBenchmarks.register()
  AsyncBenchmarks.register()
  ReducingBenchmarks.register()
  PermitBenchmarks.register()
  WaiterBenchmarks.register()
  ProtocolBenchmarks.register()
}
