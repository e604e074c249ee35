import Geometry
import SimulatedADXL345

/// How far a measured attitude is from the true one: |measured − true| of roll, pitch and tilt,
/// in degrees. Pure, so a test can check the benchmark measures what it says.
public struct AttitudeError: Hashable, Sendable {
    public let roll: Double
    public let pitch: Double
    public let tilt: Double

    public init(measured: Attitude, truth: Attitude) {
        roll = Self.difference(measured.roll, truth.roll)
        pitch = Self.difference(measured.pitch, truth.pitch)
        tilt = Self.difference(measured.tilt, truth.tilt)
    }

    /// The largest of the three.
    public var worst: Double { max(roll, pitch, tilt) }

    /// |a − b| in degrees, taken the short way round, so 179.9° against −179.9° is 0.2°.
    static func difference(_ a: Angle, _ b: Angle) -> Double {
        let d = (a.degrees - b.degrees).truncatingRemainder(dividingBy: 360)
        return min(abs(d), 360 - abs(d))
    }
}

/// One attitude the benchmark holds the chip at: roll or pitch of the device on a level surface.
public struct BenchAttitude: Hashable, Sendable, CustomStringConvertible {
    public enum Axis: String, Sendable { case roll, pitch }
    public let axis: Axis
    public let degrees: Double

    public init(_ axis: Axis, _ degrees: Double) {
        self.axis = axis
        self.degrees = degrees
    }

    /// The angles measured: 0, 0.5, 1, 2, 5, 10, 20 and 45°, of roll and of pitch.
    public static let angles: [Double] = [0, 0.5, 1, 2, 5, 10, 20, 45]
    public static let all: [BenchAttitude] = [Axis.roll, .pitch].flatMap { axis in angles.map { BenchAttitude(axis, $0) } }

    /// Flat and face up, tipped by the angle about its axis.
    public var pose: SimulatedPose {
        axis == .roll ? SimulatedPose(roll: Angle(degrees: degrees)) : SimulatedPose(pitch: Angle(degrees: degrees))
    }

    /// The attitude an ideal instrument reads here: the true gravity's roll, pitch and tilt.
    public var truth: Attitude { Attitude(gravity: pose.gravity) }

    public var description: String { "\(axis.rawValue) \(degrees)°" }
}
