import Agent
import Geometry
import Vibration
import VibrationVocabulary

/// `plumb watch`'s vibration line: the newest window's RMS velocity over its band, the zone,
/// the dominant frequency and the running state, or why there is none.
struct WatchVibration {
    /// What the line says.
    let text: String

    init(_ monitor: Result<VibrationMonitor, VibrationAnalyzerError>, latest: VibrationOutcome?) {
        switch monitor {
        case .failure(let error):
            text = "vibration: none (\(error))"
        case .success:
            guard let outcome = latest else {
                text = "vibration: filling the first window"
                return
            }
            let figures = outcome.figures
            let running = outcome.running.map { $0 ? "running" : "stopped" } ?? "deciding"
            text = "vibration \(fixed(figures.overall.velocityRMS, 2)) mm/s (\(plain(figures.band.low, 2))–"
                + "\(plain(figures.band.high, 2)) Hz)  zone \(outcome.zone?.rawValue ?? "–")  "
                + "dominant \(fixed(figures.overall.dominantHz, 1)) Hz  \(running)"
        }
    }
}
