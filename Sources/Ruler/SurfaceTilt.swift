#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// The machine's surface as the level sees it: gravity in the level frame and the standard error
/// of that mean.
///
/// The level frame is the one the agent reports angles in, after the mount and the zero: x to the
/// front, y to the left, z up, and a level lying flat face-up reads (0, 0, +1) g. The surface the
/// level sits on is modelled as a plane whose height at horizontal position (x, y) is
/// `x·gx/gz + y·gy/gz`, the plane whose normal the gravity reading gives.
///
/// Uncertainties are expanded (k = 2, about 95 %) from the standard error alone, by first-order
/// propagation with the axes' noise taken as independent. They cover the noise of the reading,
/// not calibration: an offset in how the level is mounted is removed by zeroing it, not here.
public struct SurfaceTilt: Sendable, Hashable {
    /// The mean gravity in the level frame, in g (any magnitude: only its direction counts).
    public let levelGravity: Vector3
    /// The standard error of each component of ``levelGravity``, in g.
    public let standardError: Vector3
    /// Roll, pitch and tilt of the surface (see ``Attitude`` for the conventions).
    public let attitude: Attitude

    /// The steepest tilt a rise or shims are worked out for.
    public static let maximumTiltDegrees = 89.0

    /// The surface a level reads `levelGravity` on, with `standardError` per axis.
    ///
    /// - Throws: ``RulerError`` of kind ``RulerError/Kind/unmeasurable`` when gravity is zero,
    ///   not finite, or tilted 89° or more (the slope runs away to infinity near 90°, and past it
    ///   there is no surface below to shim), and when the standard error is negative or not finite.
    public init(levelGravity: Vector3, standardError: Vector3) throws(RulerError) {
        guard levelGravity.isFinite, levelGravity.magnitude > 0 else {
            throw RulerError(.unmeasurable, "the reading has no finite gravity (the sensor is starting or faulty);"
                + " retry in a few seconds.")
        }
        // Past 89° the slope (and its uncertainty, through gz²) runs away to infinity: an answer
        // there would be numbers that mean nothing, or not numbers at all.
        guard Attitude(gravity: levelGravity).tilt.degrees < Self.maximumTiltDegrees else {
            let tilt = Attitude(gravity: levelGravity).tilt.degrees.rounded(toDecimals: 1)
            throw RulerError(.unmeasurable, "the level is tilted \(tilt.plainText)° from flat; it must be within"
                + " \(Int(Self.maximumTiltDegrees))° of flat, mounted as configured (see the mount setting), to measure"
                + " a rise or shims.")
        }
        let noise = standardError
        guard noise.isFinite, noise.x >= 0, noise.y >= 0, noise.z >= 0 else {
            throw RulerError(.unmeasurable, "the reading's standard error (\(noise.x), \(noise.y), \(noise.z)) is not a"
                + " finite, non-negative number; the reading is faulty, retry in a few seconds.")
        }
        self.levelGravity = levelGravity
        self.standardError = standardError
        attitude = Attitude(gravity: levelGravity)
    }

    /// How far one end of `span` stands above the other along `axis`: `span·tan(angle)`, the
    /// height difference across a horizontal run of `span`.
    ///
    /// - Parameters:
    ///   - span: the run; its magnitude is used.
    ///   - axis: roll (along y), pitch (along x), or the steepest direction (the tilt).
    ///   - unit: the unit of the rise and its uncertainty.
    public func rise(over span: Length, axis: RiseAxis, in unit: LengthUnit) -> Rise {
        let run = abs(span.converted(to: unit).value)
        let g = levelGravity
        let angle: Angle
        let highEnd: HighEnd?
        var azimuth: Angle?
        switch axis {
        case .roll:
            angle = attitude.roll
            highEnd = angle.radians > 0 ? .plusY : angle.radians < 0 ? .minusY : nil
        case .pitch:
            angle = attitude.pitch
            highEnd = angle.radians > 0 ? .minusX : angle.radians < 0 ? .plusX : nil
        case .steepest:
            angle = attitude.tilt
            highEnd = HighEnd.uphill(g)
            azimuth = highEnd == nil ? nil : Angle(radians: atan2(g.y, g.x))
        }
        let slopeError = SlopePropagation.standardError(of: axis, gravity: g, noise: standardError)
        return Rise(rise: Length(abs(run * tan(angle.radians)), unit), angle: angle, highEnd: highEnd,
                    uncertainty: Length(2 * run * slopeError, unit), azimuth: azimuth)
    }
}

/// Which slope a rise is measured along.
public enum RiseAxis: String, CaseIterable, Sendable {
    /// Along y: the roll angle. The high end is +y or −y.
    case roll
    /// Along x: the pitch angle. The high end is +x or −x.
    case pitch
    /// Along the steepest direction: the tilt. The high end is the axis end nearest uphill.
    case steepest
}

/// The end of the level's frame that stands higher.
public enum HighEnd: String, Sendable {
    /// The front end (+x).
    case plusX = "+x"
    /// The rear end (−x).
    case minusX = "-x"
    /// The left end (+y).
    case plusY = "+y"
    /// The right end (−y).
    case minusY = "-y"

    /// The axis end nearest the uphill direction (gx > 0 means +x is up, gy > 0 that +y is);
    /// x wins a tie. Nil when gravity has no horizontal part: exactly level.
    static func uphill(_ g: Vector3) -> HighEnd? {
        guard g.x != 0 || g.y != 0 else { return nil }
        if abs(g.x) >= abs(g.y) { return g.x > 0 ? .plusX : .minusX }
        return g.y > 0 ? .plusY : .minusY
    }
}

/// A rise over a span, with the end that is higher.
public struct Rise: Sendable, Hashable {
    /// How much higher the high end is; never negative.
    public var rise: Length
    /// The signed angle the rise comes from: roll, pitch, or the tilt (never negative).
    public var angle: Angle
    /// The end that is higher; nil when exactly level.
    public var highEnd: HighEnd?
    /// Expanded uncertainty (k = 2) of ``rise`` from the reading's noise, in the same unit.
    public var uncertainty: Length
    /// For the steepest axis only: the uphill direction, measured from +x toward +y
    /// (`atan2(gy, gx)`); nil for roll and pitch, and when exactly level.
    public var azimuth: Angle?

    public init(rise: Length, angle: Angle, highEnd: HighEnd?, uncertainty: Length, azimuth: Angle?) {
        self.rise = rise
        self.angle = angle
        self.highEnd = highEnd
        self.uncertainty = uncertainty
        self.azimuth = azimuth
    }
}
