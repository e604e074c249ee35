import Accelerometers
import Geometry
import Level
/// Where the sensor stands, as the agent reports it: starting, running, or faulty with the
/// driver's message; and whether a self-test holds the chip. A value with no I/O: ``AgentCore``
/// feeds it the sampling service's updates and asks it what may be reported.
struct SensorState: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// No sample yet: the chip is being opened.
        case starting
        /// Samples arrive.
        case running
        /// The chip failed; the sampling service retries on its own. `message` is the driver's.
        case faulty(message: String)
    }

    /// Whether a `selftest` is waiting for the chip or running on it.
    enum SelfTest: Sendable, Equatable {
        case idle
        case running
    }

    private(set) var phase = Phase.starting
    private(set) var selfTest = SelfTest.idle
    /// The chip the sampler opened, from its probe; nil until then.
    var chip: ChipDescription?
    /// The rate the chip runs at and its noise there: what `stable` and the window sizes go by.
    /// Until the chip starts, the catalog's first chip at the configured rate stands in; no
    /// sample is judged before the chip has started and said what it is.
    var operatingPoint: OperatingPoint
    /// The range the chip runs at, in g, once started; nil before (the chip's default stands in).
    var rangeG: Int?

    init(rateHz: Double) {
        operatingPoint = ChipCatalog.simulated.operatingPoint(rateHz: rateHz)
    }

    /// The chip runs at `rateHz` (its own rate, from ``SamplingSettings``): whether that moved
    /// the operating point (then the pipeline is reconfigured).
    mutating func runs(atRateHz rateHz: Double) -> Bool {
        let point = (chip ?? ChipCatalog.simulated).operatingPoint(rateHz: rateHz)
        guard point != operatingPoint else { return false }
        operatingPoint = point
        return true
    }

    /// Whether a reading may be reported, used for a zero or a calibration: running, not faulty
    /// and not starting (`sensor: ok` in `P/state`).
    var mayReport: Bool { phase == .running }

    /// The fault's message while faulty.
    var faultMessage: String? {
        if case .faulty(let message) = phase { return message }
        return nil
    }

    var isFaulty: Bool { faultMessage != nil }

    /// The chip started (the first time, or again at a new rate).
    mutating func started() {
        // A start after a fault comes as `recovered` (``SamplingService``), which reports it.
        if !isFaulty { phase = .running }
    }

    /// The chip works again after a fault.
    mutating func recovered() {
        phase = .running
    }

    /// A fault: true when it is a new one (to report), false while the same outage goes on.
    mutating func fault(_ message: String) -> Bool {
        guard !isFaulty else { return false }
        phase = .faulty(message: message)
        return true
    }

    /// Claims the chip for a self-test: false when one already runs (the request is refused).
    mutating func beginSelfTest() -> Bool {
        guard selfTest == .idle else { return false }
        selfTest = .running
        return true
    }

    mutating func endSelfTest() {
        selfTest = .idle
    }

    /// Why a calibration cannot collect samples now; nil when it can.
    var calibrationHold: String? {
        if let faultMessage { return "the sensor is faulty (\(faultMessage))" }
        if selfTest == .running { return "a self-test is running on the chip" }
        if phase == .starting { return "the sensor is starting" }
        return nil
    }
}
