// `make bench`: prints the figures the targets are checked against. Not a test: nothing here
// fails a build; a person (or the closing note of an issue) reads the numbers.
import Accelerometers
import AccuracyBenchmark
import Foundation
import Geometry
import Sampling
import SimulatedADXL345

/// CPU seconds (user + system) this process has used.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

let clock = MonotonicPacingClock()

func figure(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

// MARK: 1. Decode + tilt, per sample

func benchmarkDecodeAndTilt() {
    let format = ADXL345SampleFormat(range: .g16, fullResolution: true, leftJustified: false)
    var generator = SystemRandomNumberGenerator()
    let samples: [[UInt8]] = (0..<4096).map { _ in (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) } }
    let iterations = 4_000_000
    var sink = 0.0
    // Warm up, then measure.
    for sample in samples { sink += Attitude(gravity: ADXL345.decode(sample, format: format).gravity).tilt.radians }
    let start = clock.now()
    for index in 0..<iterations {
        let gravity = ADXL345.decode(samples[index & 4095], format: format).gravity
        sink += Attitude(gravity: gravity).tilt.radians
    }
    let elapsed = clock.now() - start
    print("decode + tilt:     \(figure(elapsed / Double(iterations) * 1e9, 1)) ns per sample "
          + "(\(iterations) samples; checksum \(figure(sink, 0)))")
}

// MARK: 2. Sustained FIFO reading at 800 Hz

func benchmarkFIFO(seconds: Double) {
    let chip = SimulatedADXL345(configuration: .init(scene: .sweep(roll: .zero, pitch: .zero, amplitude: Angle(degrees: 2), period: 10)))
    let driver = ADXL345(bus: chip, clock: clock)
    let sampler = Sampler(chip: driver, clock: clock)
    do {
        chip.resetStatistics()
        let settings = try sampler.start(SamplingRequest(rateHz: 800, rangeG: 16))
        let deliveredBefore = sampler.statistics.samples
        let cpuStart = cpuSeconds()
        let start = clock.now()
        var readings = 0
        while clock.now() - start < seconds {
            _ = try sampler.nextBatch(samples: 80)
            readings += 1
        }
        let wall = clock.now() - start
        let cpu = cpuSeconds() - cpuStart
        let simulated = chip.statistics
        let delivered = sampler.statistics.samples - deliveredBefore
        let dropped = simulated.overwritten + simulated.lost
        let cpuPercent = cpu / wall * 100
        print("FIFO at \(figure(settings.rateHz, 0)) Hz:    \(figure(wall, 1)) s, \(delivered) samples delivered "
              + "(\(figure(Double(delivered) / wall, 1)) Hz), \(simulated.samplesProduced) produced, \(dropped) dropped, "
              + "\(sampler.statistics.overruns) overruns")
        print("                   CPU \(figure(cpuPercent, 2)) % of one core, \(figure(Double(sampler.statistics.wakeUps) / wall, 1)) wake-ups/s, "
              + "\(readings) readings of 80 samples, watermark \(settings.watermark)")
        print("targets:           none dropped: \(dropped == 0 ? "met" : "MISSED"); under 2 % CPU: \(cpuPercent < 2 ? "met" : "MISSED")")
        try driver.stop()
    } catch {
        print("FIFO benchmark failed: \(error)")
    }
}

// plumb-bench [FIFO_SECONDS [AGENT_SECONDS [CHIPS]]]: defaults 10 s, 60 s and 20 chips, as the
// targets are stated. `plumb-bench accuracy [CHIPS]` runs the accuracy section alone, its
// temperature tables included; CHIPS 0 skips it; `plumb-bench temperature [PARTS]` runs the
// temperature tables alone. `plumb-bench filter [MINUTES]` runs the filter section alone (default 10 minutes at
// the tolerance per case), `plumb-bench vibration` the vibration section, `plumb-bench fifo
// [FIFO_SECONDS]` the two FIFO sections, `plumb-bench fleet [DEVICES]` the fleet section, `plumb-bench
// picture` the bubble picture's cost.
var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "filter" {
    let minutes = arguments.dropFirst().first.flatMap(Double.init) ?? FilterBenchmark.Options().sittingSeconds / 60
    benchmarkFilters(sittingSeconds: minutes * 60)
    exit(0)
}
if arguments.first == "fleet" {
    // `plumb-bench fleet [DEVICES]`: the fleet section alone (default 10,000 devices).
    let count = arguments.dropFirst().first.flatMap(Int.init) ?? 10_000
    let plumbBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("plumb")
    FleetBenchmark(devices: count, plumb: plumbBinary).run()
    exit(0)
}
if arguments.first == "inbound" {
    // `plumb-bench inbound`: the inbound-stall section alone (docs/guides/brokers-and-failover.md, Inbound stalls).
    let plumbBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("plumb")
    InboundBenchmark(plumb: plumbBinary).run()
    exit(0)
}
if arguments.first == "picture" {
    benchmarkBubblePicture()
    exit(0)
}
if arguments.first == "temperature" {
    // `plumb-bench temperature [PARTS]`: the accuracy section's temperature tables alone (default 20 parts per chip).
    let parts = arguments.dropFirst().first.flatMap(Int.init) ?? 20
    print("plumb-bench temperature")
    benchmarkTemperature(parts: parts)
    exit(0)
}
if arguments.first == "agent" {
    // `plumb-bench agent [SECONDS]`: the two agent sections alone (default 60 s each).
    let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 60
    let plumbBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("plumb")
    AgentBenchmark(seconds: seconds, plumb: plumbBinary).run()
    AgentVibrationBenchmark(seconds: seconds, plumb: plumbBinary).run()
    exit(0)
}
let vibrationOnly = arguments == ["vibration"]
if vibrationOnly { arguments.removeFirst() }
let accuracyOnly = arguments.first == "accuracy"
let fifoOnly = arguments.first == "fifo"
if accuracyOnly || fifoOnly { arguments.removeFirst() }
let numbers = arguments.map { Double($0) }
guard numbers.allSatisfy({ $0 != nil && $0! >= 0 }) else {
    print("usage: plumb-bench [FIFO_SECONDS [AGENT_SECONDS [CHIPS]]] | plumb-bench accuracy [CHIPS]"
          + " | plumb-bench filter [MINUTES] | plumb-bench vibration | plumb-bench fifo [FIFO_SECONDS] | plumb-bench agent [SECONDS]"
          + " | plumb-bench fleet [DEVICES] | plumb-bench inbound | plumb-bench temperature [PARTS] | plumb-bench picture")
    exit(2)
}
let fifoSeconds = accuracyOnly ? 0 : numbers.first.flatMap { $0 } ?? 10
let agentSeconds = accuracyOnly ? 0 : numbers.dropFirst().first.flatMap { $0 } ?? 60
let chipCount = Int((accuracyOnly ? numbers.first : numbers.dropFirst(2).first).flatMap { $0 } ?? 20)
#if DEBUG
let build = "debug build: figures are pessimistic, use `make bench`"
#else
let build = "release build"
#endif
print("plumb-bench (\(build); \(ProcessInfo.processInfo.activeProcessorCount) cores)")
if fifoOnly {
    benchmarkFIFO(seconds: fifoSeconds)
    // Four cases (100 and 800 Hz, before and after), half the FIFO time each.
    FIFOBatchingBenchmark(seconds: fifoSeconds / 2).run()
    exit(0)
}
if vibrationOnly {
    benchmarkVibration()
    exit(0)
}
if !accuracyOnly {
    benchmarkDecodeAndTilt()
    benchmarkFIFO(seconds: fifoSeconds)
    FIFOBatchingBenchmark(seconds: fifoSeconds / 2).run()
    let plumbBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("plumb")
    AgentBenchmark(seconds: agentSeconds, plumb: plumbBinary).run()
    AgentVibrationBenchmark(seconds: agentSeconds, plumb: plumbBinary).run()
    benchmarkBubblePicture()
    RulerServiceBenchmark(seconds: 10, plumb: plumbBinary).run()
    InboundBenchmark(plumb: plumbBinary).run()
    FleetBenchmark(plumb: plumbBinary).run()
}
if chipCount > 0 {
    benchmarkAccuracy(chips: chipCount)
    benchmarkTemperature(parts: chipCount)
}
if !accuracyOnly {
    benchmarkFilters()
    benchmarkVibration()
}
