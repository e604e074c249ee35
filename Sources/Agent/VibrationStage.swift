import Contract
import Settings
import Vibration
import VibrationVocabulary

/// The vibration analysis as the agent runs it: the monitor while it runs, why it is off when
/// `vibration` is on but its settings cannot be analysed, and the windows of monitors since
/// replaced. ``AgentCore`` publishes what ``configure(_:)`` says changed.
///
/// Not `Sendable`: ``VibrationMonitor`` is a class with one owner, the agent's actor.
struct VibrationStage {
    /// What a change of settings did to the analysis.
    enum Change: Equatable {
        /// Nothing to publish.
        case unchanged
        /// The analysis started or took the new settings.
        case running
        /// The analysis stopped: the retained `P/vibration` must be cleared. `warning` says why
        /// when the settings cannot be analysed (logged once per reason); nil when turned off.
        case stopped(warning: String?)
    }

    /// The monitor; nil while `vibration` is off or its settings cannot be analysed.
    private(set) var monitor: VibrationMonitor?
    /// Why the analysis is off although `vibration` is on (a rate too slow).
    private(set) var refusal: String?
    /// Windows analysed by monitors since replaced or stopped.
    private var windowsBefore = 0

    /// The stage for the settings at start; the warning to log when it cannot run.
    init(_ settings: VibrationSettings) {
        guard settings.isEnabled else { return }
        do {
            monitor = try VibrationMonitor(settings: settings)
        } catch {
            refusal = Self.refusal(error)
        }
    }

    /// The newest window as `P/vibration` carries it, stamped now; nil before the first.
    func latestPayload(machineClass: MachineClass) -> JSONValue? {
        guard let monitor, let figures = monitor.latest else { return nil }
        return VibrationPayload(figures, zone: monitor.zone, machineClass: machineClass, running: monitor.isRunning).json
    }

    /// Windows analysed since the agent started (`analysis_windows`).
    var windowsAnalysed: Int { windowsBefore + (monitor?.windowsCompleted ?? 0) }

    /// Starts, reconfigures or stops the analysis for `settings`.
    mutating func configure(_ settings: VibrationSettings) -> Change {
        guard settings.isEnabled else {
            guard monitor != nil || refusal != nil else { return .unchanged }
            stop(reason: nil)
            return .stopped(warning: nil)
        }
        do throws(VibrationAnalyzerError) {
            if let monitor {
                guard monitor.settings != settings else { return .unchanged }
                try monitor.reconfigure(settings)
            } else {
                monitor = try VibrationMonitor(settings: settings)
                refusal = nil
            }
            return .running
        } catch {
            let message = Self.refusal(error)
            guard refusal != message else { return .unchanged }
            stop(reason: message)
            return .stopped(warning: message)
        }
    }

    private mutating func stop(reason: String?) {
        if let monitor { windowsBefore += monitor.windowsCompleted }
        monitor = nil
        refusal = reason
    }

    static func refusal(_ error: VibrationAnalyzerError) -> String {
        "vibration analysis is off: \(error)"
    }
}
