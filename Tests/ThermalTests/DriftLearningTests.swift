import Foundation
import Geometry
import GeometryTesting
import Testing
import Thermal

@Suite("DriftLearning: the in-place session, bucket by bucket")
struct DriftLearningTests {
    static let k = Vector3(x: 0.0005, y: -0.0003, z: 0.0008)
    static let g0 = Vector3(x: 0.004, y: 0.001, z: 0.998)

    /// A reading every 10 s; the temperature climbs `rate` °C per hour from 20 °C.
    static func feed(_ session: inout DriftLearning, from start: Double, to end: Double, rate: Double = 1,
                     step: Vector3 = .zero, celsius: ((Double) -> Double?)? = nil, stable: Bool = true) -> [DriftLearning.Report] {
        var reports: [DriftLearning.Report] = []
        var time = start
        while time < end {
            let t = 20 + rate * time / 3600
            if let report = session.add(raw: g0 + k * (t - 20) + step, celsius: celsius.map { $0(t) } ?? t, stable: stable, at: time) {
                reports.append(report)
            }
            time += 10
        }
        return reports
    }

    @Test("Progress every ten minutes, not ready before an hour or the span, then finishes with the slope")
    func flow() throws {
        var session = DriftLearning(startedAt: 0)
        let early = Self.feed(&session, from: 0, to: 1800)
        #expect(early.count == 2)  // at 600 s and 1200 s
        guard case .progress(let first) = early.first else { Issue.record("\(early)"); return }
        #expect(first.elapsedSeconds == 600 && first.buckets == 10 && first.skipped == 0 && !first.ready)
        #expect(first.waitingFor == "60 min of readings: 10 min so far")
        do {
            _ = try session.finish(at: 1800)
            Issue.record("finished after 30 minutes")
        } catch {
            #expect(error.description.contains("waiting for 60 min of readings: 30 min so far"), "\(error)")
        }
        _ = Self.feed(&session, from: 1800, to: 7200)
        let halfway = session.progress(at: 7200)
        #expect(!halfway.ready && halfway.waitingFor == "a temperature span of 3.0 °C: 2.0 °C so far",
                "\(String(describing: halfway.waitingFor))")
        _ = Self.feed(&session, from: 7200, to: 4 * 3600)
        let done = session.progress(at: 4 * 3600)
        #expect(done.ready && done.waitingFor == nil && done.buckets == 239)
        expectClose(try #require(done.lowCelsius), 20.007, tolerance: 0.001)
        let model = try session.finish(at: 4 * 3600)
        #expect(model.origin == .inPlace && model.points == 240)
        expectClose(model.offsetPerDegree, Self.k, tolerance: 1e-9)
    }

    @Test("Unstable readings and readings without a temperature are skipped, and counted")
    func skipped() {
        var session = DriftLearning(startedAt: 0)
        _ = Self.feed(&session, from: 0, to: 300, stable: false)
        _ = Self.feed(&session, from: 300, to: 600, celsius: { _ in nil })
        _ = Self.feed(&session, from: 600, to: 1200)
        let progress = session.progress(at: 1200)
        #expect(progress.skipped == 60 && progress.buckets == 9, "\(progress)")
    }

    @Test("A step in the bucket means beyond the move limit fails the session once: the machine moved")
    func moved() throws {
        var session = DriftLearning(startedAt: 0)
        _ = Self.feed(&session, from: 0, to: 1200)
        let reports = Self.feed(&session, from: 1200, to: 1800, step: Vector3(x: 0, y: 0.003, z: 0))
        #expect(reports.count == 2)  // progress at 1200 s, then the failure
        guard case .failed(let error) = reports.last, case .moved(let axis, let step, let limit) = error.reason else {
            Issue.record("\(reports)"); return
        }
        #expect(axis == "y" && limit == 0.002)
        expectClose(step, 0.003, tolerance: 0.0001)
        #expect(error.description.contains("moved"))
        #expect(throws: error) { try session.finish(at: 1800) }
    }

    @Test("Temperature moving fast is not mistaken for a move: the slope so far explains it")
    func fastTemperature() throws {
        var session = DriftLearning(startedAt: 0)
        // 30 °C an hour moves z 0.4 mg a minute; with the slope known a 0.1 mg limit holds.
        session = DriftLearning(startedAt: 0, configuration: .init(moveLimit: 0.0001))
        let reports = Self.feed(&session, from: 0, to: 3600, rate: 30)
        #expect(!reports.contains { if case .failed = $0 { true } else { false } }, "\(reports)")
    }

    @Test("Too few still buckets keeps it waiting, saying how many it has")
    func fewBuckets() {
        var session = DriftLearning(startedAt: 0, configuration: .init(minimumDurationSeconds: 0))
        _ = Self.feed(&session, from: 0, to: 300, rate: 60)
        let progress = session.progress(at: 300)
        #expect(!progress.ready && progress.waitingFor == "10 minutes of still readings with a temperature: 4 so far",
                "\(progress)")
    }

    @Test("Running past the maximum duration fails")
    func tooLong() {
        var session = DriftLearning(startedAt: 100, configuration: .init(maximumDurationSeconds: 1000))
        let reports = Self.feed(&session, from: 100, to: 1200)
        guard case .failed(let error) = reports.last, case .tooLong = error.reason else { Issue.record("\(reports)"); return }
        #expect(session.failure == error)
    }
}

@Suite("TemperatureTracker: smoothing, staleness and rejection")
struct TemperatureTrackerTests {
    @Test("Unknown before any value; seeded by the first; an exponential average after")
    func smoothing() throws {
        var tracker = TemperatureTracker()
        #expect(tracker.reading(at: 0) == .unknown && tracker.reading(at: 0).celsius == nil)
        try tracker.accept(celsius: 20, at: 0)
        #expect(tracker.reading(at: 5) == .fresh(celsius: 20, age: 5))
        try tracker.accept(celsius: 30, at: 30)
        expectClose(try #require(tracker.reading(at: 30).celsius), 20 + 10 * (1 - exp(-1)), tolerance: 1e-12)
    }

    @Test("Stale after 600 s, keeping the last value; a value after that seeds afresh")
    func stale() throws {
        var tracker = TemperatureTracker(staleAfterSeconds: 600, smoothingSeconds: 30)
        try tracker.accept(celsius: 21, at: 0)
        #expect(tracker.reading(at: 600).celsius == 21)
        let stale = tracker.reading(at: 601)
        #expect(stale == .stale(celsius: 21, age: 601) && stale.celsius == nil && stale.lastCelsius == 21)
        try tracker.accept(celsius: 35, at: 700)
        #expect(tracker.reading(at: 700) == .fresh(celsius: 35, age: 0))
    }

    @Test("Non-finite and implausible values are refused, named, and change nothing", arguments: [Double.nan, 150, -41, .infinity])
    func rejection(value: Double) throws {
        var tracker = TemperatureTracker()
        try tracker.accept(celsius: 22, at: 0)
        #expect(throws: TemperatureRejection.self) { try tracker.accept(celsius: value, at: 1) }
        do { try tracker.accept(celsius: value, at: 1) } catch {
            #expect(error.description.contains("-40…125 °C") && error.description.contains("Check the temperature source"))
            if value == 150 { #expect(error.description.contains("150.0 °C")) }
        }
        #expect(tracker.reading(at: 1).celsius == 22)
    }
}
