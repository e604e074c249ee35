/// The payloads of `P/command/calibrate_six_point` (and the control socket's `six_point`
/// actions): the steps of the six-point tumble run by the agent.
public enum SixPointAction: String, Sendable, CaseIterable {
    /// Starts a tumble; refused while another calibration runs.
    case start
    /// The device lies still on the next face: measure it.
    case next
    /// Ends the tumble; nothing is applied.
    case cancel

    /// `start, next and cancel`, for "the payloads are …".
    public static let list = allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " and " + (allCases.last?.rawValue ?? "")
}
