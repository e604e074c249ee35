import Geometry

/// The in-place drift session behind `learn_drift start|stop|cancel`: still readings on the
/// machine as mounted, averaged into buckets (one ``DriftFit/DriftSample`` a minute by default),
/// while the temperature wanders; then a line per axis (``DriftFit/inPlace(_:)``).
///
/// A pure value, as ``DriftFit`` is: no I/O, no clock; every time is passed in, seconds of one
/// monotonic clock. Whoever holds it owns it (it is not shared while mutated).
///
/// **Moved.** When a bucket closes, its mean is compared with the previous bucket's: a step on
/// any axis larger than ``Configuration/moveLimit`` beyond what the slope learned so far explains
/// for the temperature change (before the slope is known, beyond the largest drift a working
/// part shows, ``DriftModel/maximumOffsetPerDegree``) means the machine was moved (a bump, a re-shim), and the session
/// fails: a line through readings of two positions would be a false drift. A slow creep of the
/// mount within the limit per minute is not caught here; it shows as a large residual.
public struct DriftLearning: Hashable, Sendable {
    public struct Configuration: Hashable, Sendable {
        /// One bucket's length, seconds.
        public var bucketSeconds: Double
        /// The temperature span the data must cover before finishing, °C.
        public var minimumSpanCelsius: Double
        /// The shortest session that may finish, seconds.
        public var minimumDurationSeconds: Double
        /// The longest a session may run before it fails, seconds.
        public var maximumDurationSeconds: Double
        /// How often ``add(raw:celsius:stable:at:)`` reports progress, seconds.
        public var progressEverySeconds: Double
        /// g: a bucket mean that differs from the previous one by more than this, beyond what
        /// temperature explains, means the machine moved (0.002 g is about 0.11°).
        public var moveLimit: Double

        public init(bucketSeconds: Double = 60, minimumSpanCelsius: Double = DriftFit.minimumLearningSpanCelsius,
                    minimumDurationSeconds: Double = 3600, maximumDurationSeconds: Double = 14 * 86_400,
                    progressEverySeconds: Double = 600, moveLimit: Double = 0.002) {
            self.bucketSeconds = bucketSeconds
            self.minimumSpanCelsius = minimumSpanCelsius
            self.minimumDurationSeconds = minimumDurationSeconds
            self.maximumDurationSeconds = maximumDurationSeconds
            self.progressEverySeconds = progressEverySeconds
            self.moveLimit = moveLimit
        }

        public static let standard = Configuration()
    }

    /// Where the session stands, as `learn_drift` progress reports it.
    public struct Progress: Hashable, Sendable {
        public var elapsedSeconds: Double
        /// Closed buckets so far.
        public var buckets: Int
        /// Readings left out: not stable, or without a temperature.
        public var skipped: Int
        /// The coolest and warmest bucket so far, °C; nil before the first bucket.
        public var lowCelsius: Double?
        public var highCelsius: Double?
        /// `high − low`, °C; 0 before two buckets.
        public var spanCelsius: Double
        /// Whether ``DriftLearning/finish(at:)`` would fit now.
        public var ready: Bool
        /// What it still waits for, for people: `a temperature span of 3 °C: 1.2 °C so far`; nil when ready.
        public var waitingFor: String?
    }

    /// What a reading made worth reporting.
    public enum Report: Hashable, Sendable {
        case progress(Progress)
        /// The session cannot go on (moved, too long); it is over, nothing was learned.
        case failed(DriftFitError)
    }

    public let startedAt: Double
    public let configuration: Configuration
    /// The closed buckets, in time order.
    public private(set) var samples: [DriftFit.DriftSample] = []
    public private(set) var skipped = 0
    /// The failure that ended the session, if one did; later readings are ignored.
    public private(set) var failure: DriftFitError?

    private var bucketIndex: Int?
    private var bucketSum = Vector3.zero
    private var bucketCelsius = 0.0
    private var bucketCount = 0
    private var lastProgressAt: Double

    public init(startedAt time: Double, configuration: Configuration = .standard) {
        startedAt = time
        self.configuration = configuration
        lastProgressAt = time
    }

    /// Feeds one reading.
    ///
    /// - Parameters:
    ///   - gravity: The raw device-frame reading (before calibration and drift removal), g.
    ///   - celsius: The part's temperature, °C; nil when not known now (the reading is skipped).
    ///   - stable: Whether the pipeline judged the device still (unstable readings are skipped).
    ///   - time: Seconds, the clock of `startedAt`.
    /// - Returns: Progress every ``Configuration/progressEverySeconds``, a failure once, else nil.
    public mutating func add(raw gravity: Vector3, celsius: Double?, stable: Bool, at time: Double) -> Report? {
        guard failure == nil else { return nil }
        let elapsed = time - startedAt
        if elapsed > configuration.maximumDurationSeconds {
            return fail(DriftFitError(reason: .tooLong(seconds: elapsed)))
        }
        let index = Int((max(elapsed, 0) / configuration.bucketSeconds).rounded(.down))
        if let current = bucketIndex, current != index {
            if let error = closeBucket() { return fail(error) }
        }
        bucketIndex = index
        if stable, let celsius, celsius.isFinite, gravity.isFinite {
            bucketSum += gravity
            bucketCelsius += celsius
            bucketCount += 1
        } else {
            skipped += 1
        }
        if time - lastProgressAt >= configuration.progressEverySeconds {
            lastProgressAt = time
            return .progress(progress(at: time))
        }
        return nil
    }

    /// Where the session stands at `time`.
    public func progress(at time: Double) -> Progress {
        Self.progress(samples: samples, skipped: skipped, elapsed: time - startedAt, configuration: configuration)
    }

    /// The drift learned, the bucket in hand included.
    ///
    /// - Throws: ``DriftFitError``: `notReady` saying what it waits for, a failure that ended the
    ///   session, or the fit's own refusal.
    public func finish(at time: Double) throws(DriftFitError) -> DriftModel {
        if let failure { throw failure }
        var all = samples
        if let partial = pendingSample { all.append(partial) }
        let state = Self.progress(samples: all, skipped: skipped, elapsed: time - startedAt, configuration: configuration)
        if let waiting = state.waitingFor { throw DriftFitError(reason: .notReady(waitingFor: waiting)) }
        return try DriftFit.inPlace(all)
    }

    private var pendingSample: DriftFit.DriftSample? {
        guard bucketCount > 0 else { return nil }
        let n = Double(bucketCount)
        return DriftFit.DriftSample(celsius: bucketCelsius / n, gravity: bucketSum / n, weight: bucketCount)
    }

    private mutating func fail(_ error: DriftFitError) -> Report {
        failure = error
        return .failed(error)
    }

    /// Closes the bucket in hand; a move error if it stepped from the previous one.
    private mutating func closeBucket() -> DriftFitError? {
        defer {
            bucketSum = .zero
            bucketCelsius = 0
            bucketCount = 0
        }
        guard let sample = pendingSample else { return nil }
        if let previous = samples.last {
            let change = sample.celsius - previous.celsius
            // Until the slope is known, allow the largest drift a working part shows; after, what it explains.
            let slope = slopeSoFar
            let allowance = configuration.moveLimit + (slope == nil ? DriftModel.maximumOffsetPerDegree * abs(change) : 0)
            let step = sample.gravity - previous.gravity - (slope ?? .zero) * change
            for (axis, value) in zip(["x", "y", "z"], [step.x, step.y, step.z]) where abs(value) > allowance {
                return DriftFitError(reason: .moved(axis: axis, stepG: abs(value), limitG: configuration.moveLimit))
            }
        }
        samples.append(sample)
        return nil
    }

    /// The slope of the buckets so far, g/°C; nil until three span half a degree (before that
    /// the slope is mostly noise).
    private var slopeSoFar: Vector3? {
        guard samples.count >= 3 else { return nil }
        let temperatures = samples.map(\.celsius)
        guard let low = temperatures.min(), let high = temperatures.max(), high - low >= 0.5 else { return nil }
        let mean = temperatures.reduce(0, +) / Double(samples.count)
        let deltas = temperatures.map { $0 - mean }
        let sxx = deltas.reduce(0) { $0 + $1 * $1 }
        return DriftFit.line(deltas: deltas, values: samples.map(\.gravity), sxx: sxx).slope
    }

    static func progress(samples: [DriftFit.DriftSample], skipped: Int, elapsed: Double,
                         configuration: Configuration) -> Progress {
        let low = samples.map(\.celsius).min(), high = samples.map(\.celsius).max()
        let span = (low.flatMap { l in high.map { $0 - l } }) ?? 0
        var waiting: String?
        if elapsed < configuration.minimumDurationSeconds {
            waiting = "\(minutes(configuration.minimumDurationSeconds)) of readings: \(minutes(elapsed)) so far"
        } else if span < configuration.minimumSpanCelsius {
            waiting = "a temperature span of \(DriftFitError.celsius(configuration.minimumSpanCelsius)):"
                + " \(DriftFitError.celsius(span)) so far"
        } else if samples.count < DriftFit.minimumLearningSamples {
            let what = configuration.bucketSeconds == 60 ? "minutes" : "buckets of \(Int(configuration.bucketSeconds)) s"
            waiting = "\(DriftFit.minimumLearningSamples) \(what) of still readings with a temperature:"
                + " \(samples.count) so far"
        }
        return Progress(elapsedSeconds: elapsed, buckets: samples.count, skipped: skipped, lowCelsius: low,
                        highCelsius: high, spanCelsius: span, ready: waiting == nil, waitingFor: waiting)
    }

    static func minutes(_ seconds: Double) -> String {
        let whole = Int((max(seconds, 0) / 60).rounded(.down))
        if whole >= 120, whole % 60 == 0 { return "\(whole / 60) h" }
        return "\(whole) min"
    }
}
