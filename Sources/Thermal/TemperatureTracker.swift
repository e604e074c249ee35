#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One temperature source's latest value, smoothed, and how old it is.
///
/// Smoothing: an exponential moving average with time constant ``smoothingSeconds`` (the weight
/// of a new value is `1 − e^(−Δt/τ)`, so irregular intervals are handled), seeded by the first
/// value and seeded afresh after the source was stale: an average across a gap would drag an old
/// temperature into a new one. A pure value; times are seconds of one monotonic clock.
public struct TemperatureTracker: Hashable, Sendable {
    /// The plausible range, °C: the industrial range every supported chip is specified over.
    public static let plausibleCelsius: ClosedRange<Double> = -40...125

    /// After this long without a value the temperature is stale, seconds.
    public let staleAfterSeconds: Double
    /// The moving average's time constant, seconds; 0 keeps only the latest value.
    public let smoothingSeconds: Double

    private var smoothed: Double?
    private var lastTime: Double?

    public init(staleAfterSeconds: Double = 600, smoothingSeconds: Double = 30) {
        self.staleAfterSeconds = staleAfterSeconds
        self.smoothingSeconds = smoothingSeconds
    }

    /// Takes one value from the source.
    ///
    /// - Throws: ``TemperatureRejection`` for a value that is not finite or is outside
    ///   ``plausibleCelsius``; the tracker is unchanged.
    public mutating func accept(celsius: Double, at time: Double) throws(TemperatureRejection) {
        guard celsius.isFinite, Self.plausibleCelsius.contains(celsius) else {
            throw TemperatureRejection(celsius: celsius, range: Self.plausibleCelsius)
        }
        if let previous = smoothed, let last = lastTime, time - last <= staleAfterSeconds {
            let dt = max(time - last, 0)
            let weight = smoothingSeconds > 0 ? 1 - exp(-dt / smoothingSeconds) : 1
            smoothed = previous + weight * (celsius - previous)
        } else {
            smoothed = celsius
        }
        lastTime = max(time, lastTime ?? time)
    }

    /// The temperature at `time`: unknown before any value, stale once older than ``staleAfterSeconds``.
    public func reading(at time: Double) -> TemperatureReading {
        guard let smoothed, let lastTime else { return .unknown }
        let age = max(time - lastTime, 0)
        return age > staleAfterSeconds ? .stale(celsius: smoothed, age: age) : .fresh(celsius: smoothed, age: age)
    }
}

/// A temperature as the budget and the pipeline see it.
public enum TemperatureReading: Hashable, Sendable {
    /// No value yet (no source, or none arrived).
    case unknown
    /// A current value, °C, and its age, seconds.
    case fresh(celsius: Double, age: Double)
    /// The last value, °C, too old to rely on, and its age, seconds.
    case stale(celsius: Double, age: Double)

    /// The temperature to use now: the fresh value only.
    public var celsius: Double? {
        if case .fresh(let celsius, _) = self { return celsius }
        return nil
    }

    /// The last value known, fresh or stale.
    public var lastCelsius: Double? {
        switch self {
        case .unknown: nil
        case .fresh(let celsius, _), .stale(let celsius, _): celsius
        }
    }
}

/// A temperature value refused as impossible; the ``description`` names it and says what to check.
public struct TemperatureRejection: Error, Hashable, Sendable, CustomStringConvertible {
    public let celsius: Double
    public let range: ClosedRange<Double>

    public init(celsius: Double, range: ClosedRange<Double>) {
        self.celsius = celsius
        self.range = range
    }

    public var description: String {
        let value = celsius.isFinite ? "\(celsius) °C" : "\(celsius)"
        return "The temperature \(value) is not plausible (a working sensor reads \(Int(range.lowerBound))…"
            + "\(Int(range.upperBound)) °C), so it was ignored. Check the temperature source: its topic, its units"
            + " (°C, not °F or millidegrees) and its wiring."
    }
}
