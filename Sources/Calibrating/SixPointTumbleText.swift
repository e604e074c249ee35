import Geometry
import Level

/// The sentences ``SixPointTumble`` says to the person: each says what happened and what to do.
/// The person answers with `next` (a Home Assistant button, the MQTT command or the command line).
enum TumbleText {
    static func list(_ faces: [Face]) -> String {
        faces.map(\.description).joined(separator: ", ")
    }

    static func percent(_ fraction: Double) -> String {
        "\(Int((fraction * 100).rounded(.down))) %"
    }

    static func layNextFace(remaining: [Face], first: Bool) -> String {
        let which = first ? "a face" : "the next face"
        let suggestion = remaining.first.map { ", \($0) for instance," } ?? ""
        return "Lay the device still on \(which)\(suggestion) then say next (to do: \(list(remaining)))."
    }

    static let settling = "Hold the device still on the face: it is measured as soon as it has settled."
    static let alreadySettling = "Already settling on this face, nothing restarted: hold the device still."
    static let notStarted = "No six-point calibration is running: start one first."
    static let over = "This six-point calibration is over: start a new one to calibrate again."

    static func alreadyAveraging(_ face: Face?, _ fraction: Double) -> String {
        "Already averaging \(face?.description ?? "the face") (\(percent(fraction))), nothing restarted: hold it still."
    }

    static func still(_ face: Face, seconds: Double) -> String {
        "\(face): still; averaging \(ProgressText.seconds(seconds)) s, hold it still."
    }

    static func averaging(_ face: Face?, _ fraction: Double) -> String {
        "Averaging \(face?.description ?? "the face"): \(percent(fraction)); hold it still."
    }

    static func moved(_ face: Face?) -> String {
        "\(face?.description ?? "The face"): moved while averaging; hold it still on the face, averaging starts again once it has settled."
    }

    static func done(_ pose: SixPointFit.Pose, remaining: [Face]) -> String {
        "\(pose.face): done, mean (\(ProgressText.g(pose.mean))) g of \(pose.sampleCount) samples; "
            + (remaining.isEmpty ? "all six faces done, fitting." : "remaining: \(list(remaining)).")
    }

    static func notOnAFace(_ error: SixPointFitError) -> String {
        error.description + " Then say next."
    }

    static func duplicate(_ face: Face, remaining: [Face]) -> String {
        "The device lies \(face), which is done already: turn it to a face still to do (\(list(remaining))), then say next."
    }

    static func neverStill(afterSeconds seconds: Double) -> String {
        "The device was not still within \(ProgressText.seconds(seconds)) s: lay it on a firm surface that does not"
            + " shake, let go of it, then say next."
    }
}
