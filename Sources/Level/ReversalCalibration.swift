import Geometry

/// The machinist's reversal: two readings on the same spot, the second after turning the device
/// 180° about the vertical, separate the instrument's zero error from the surface's true tilt.
///
/// **Model.** Each reading, in the mount's level frame, is the true gravity on the surface plus
/// the instrument's zero error: `r = u + d`. The turn is about the surface normal (the device
/// stays on the spot, so it turns about the normal, which is the vertical to within the tilt),
/// and it maps the level-frame components of true gravity (uₓ, u_y, u_z) to (−uₓ, −u_y, u_z)
/// exactly, while `d`, fixed to the device, is unchanged. So, per horizontal axis:
///
///     zero error d = (r₁ + r₂) / 2        surface u = (r₁ − r₂) / 2
///
/// **Why gravity components, not angles.** The relation above is linear and exact at any tilt,
/// with noise averaging linearly too. Angles are not: half the sum of two atan2s is not the
/// atan2 of half the sum, so working in angles leaves a third-order error (and roll and pitch do
/// not add at all away from small angles). Slopes gx/gz would also be exact, since both readings
/// share the same gz, but only by dividing the same relation by a common number. Angles are
/// computed once, at the end, from the separated components.
///
/// The vertical part of the zero error (d_z) is not observable by a turn about the vertical. It
/// only scales an already small angle, by d_z / g_z; after a six-face ``SixPointFit`` it is noise.
///
/// Feed it device-frame gravity in g: raw, or better, already corrected by a ``Calibration``,
/// in which case the zero error found is what remains on top of it (fold it in with
/// ``Calibration/shifted(by:limits:)``).
///
/// A turn by the wrong angle (90° instead of 180°) cannot be told from gravity alone and gives
/// wrong answers; the checks catch readings that cannot come from one spot turned about the
/// vertical (a different tilt, a moved device, a flipped device).
public struct ReversalCalibration: Hashable, Sendable {
    /// What the readings must satisfy.
    public struct Limits: Hashable, Sendable {
        /// Where each reading's magnitude must lie, in g.
        public var magnitudeRange: ClosedRange<Double>
        /// The largest tilt of either reading in the level frame: beyond it the device is not
        /// lying on a nearly level surface, where the reversal is meant to be used.
        public var maxTilt: Angle
        /// How much the two magnitudes may differ, in g. A zero error `d` and tilt `u` make them
        /// differ by about 2 u·d, a few mg; far more means the device moved between readings.
        public var maxMagnitudeDifference: Double
        /// How much the two vertical (level z) components may differ, in g. A turn about the
        /// vertical leaves it unchanged; a different spot or a different tilt does not.
        public var maxVerticalDifference: Double

        public init(
            magnitudeRange: ClosedRange<Double> = 0.8...1.2, maxTilt: Angle = Angle(degrees: 10),
            maxMagnitudeDifference: Double = 0.05, maxVerticalDifference: Double = 0.01
        ) {
            self.magnitudeRange = magnitudeRange
            self.maxTilt = maxTilt
            self.maxMagnitudeDifference = maxMagnitudeDifference
            self.maxVerticalDifference = maxVerticalDifference
        }

        public static let standard = Limits()
    }

    /// The mount the readings were taken in: `flat` measures both horizontal axes, `upright` (a
    /// bar level standing on its edge) only the slope along the bar.
    public let mount: Mount
    /// The zero error as a device-frame gravity offset, in g: subtract it from readings (or fold
    /// it into a calibration with ``Calibration/shifted(by:limits:)``). Exact for an additive
    /// zero error, the kind the chip's zero-g offset is. Zero on axes the mount does not measure
    /// and on the vertical axis.
    public let zeroOffset: Vector3
    /// What the instrument reads, in the level frame and in g, on a truly level surface: the zero
    /// error as a reading. Pass it to ``ZeroReference/init(referenceGravity:)`` to zero by a
    /// rotation instead, which is exact when the error is a tilted mounting rather than an offset
    /// (the two agree to first order). For `upright` its y part is 0: the lean is not measured.
    public let levelReading: Vector3
    /// The roll the instrument reads on a truly level surface (its roll zero error); nil for
    /// `upright`, which does not measure it.
    public let zeroRoll: Angle?
    /// The pitch the instrument reads on a truly level surface (its pitch zero error; for
    /// `upright` the error along the bar).
    public let zeroPitch: Angle
    /// The surface's true roll at the spot, as the corrected instrument reads it in the first
    /// position; nil for `upright`.
    public let surfaceRoll: Angle?
    /// The surface's true pitch at the spot (for `upright`, its slope along the bar) in the first
    /// position.
    public let surfacePitch: Angle

    /// Separates zero error and surface tilt from two device-frame readings, in g.
    ///
    /// - Parameters:
    ///   - first: The mean reading in the first position.
    ///   - second: The mean reading on the same spot after turning 180° about the vertical.
    ///   - mount: `flat` or `upright` (or a custom remap equal to one of them).
    /// - Throws: ``ReversalError`` when the mount is neither, or the readings are not consistent
    ///   with one spot turned about the vertical.
    public init(first: Vector3, second: Vector3, mount: Mount, limits: Limits = .standard) throws(ReversalError) {
        let measuresRoll: Bool
        if mount.remap == Mount.flat.remap {
            measuresRoll = true
        } else if mount.remap == Mount.upright.remap {
            measuresRoll = false
        } else {
            throw ReversalError(reason: .unsupportedMount(mount.name))
        }
        guard first.isFinite, second.isFinite else { throw ReversalError(reason: .notFinite) }
        let one = mount.levelFrame(first), two = mount.levelFrame(second)
        for (position, reading) in [(1, one), (2, two)] {
            guard limits.magnitudeRange.contains(reading.magnitude) else {
                throw ReversalError(reason: .magnitudeOutOfRange(position: position, magnitude: reading.magnitude,
                                                                 range: limits.magnitudeRange))
            }
            let tilt = Attitude(gravity: reading).tilt
            guard tilt <= limits.maxTilt else {
                throw ReversalError(reason: .tooTilted(position: position, tilt: tilt, limit: limits.maxTilt))
            }
        }
        let magnitudeDifference = abs(one.magnitude - two.magnitude)
        guard magnitudeDifference <= limits.maxMagnitudeDifference else {
            throw ReversalError(reason: .magnitudesDiffer(difference: magnitudeDifference, limit: limits.maxMagnitudeDifference))
        }
        let verticalDifference = abs(one.z - two.z)
        guard verticalDifference <= limits.maxVerticalDifference else {
            throw ReversalError(reason: .verticalsDiffer(difference: verticalDifference, limit: limits.maxVerticalDifference))
        }

        let zero = (one + two) / 2
        let surface = (one - two) / 2
        if measuresRoll {
            // The vertical part the corrected instrument sees on this spot is the mean z; on a
            // truly level surface it would see 1 g where this spot sees u_z = √(1 − uₓ² − u_y²).
            let vertical = zero.z
            let surfaceGravity = Vector3(x: surface.x, y: surface.y, z: vertical)
            let levelVertical = vertical + 1 - max(0, 1 - surface.x * surface.x - surface.y * surface.y).squareRoot()
            levelReading = Vector3(x: zero.x, y: zero.y, z: levelVertical)
            let zeroAttitude = Attitude(gravity: levelReading), surfaceAttitude = Attitude(gravity: surfaceGravity)
            zeroRoll = zeroAttitude.roll
            zeroPitch = zeroAttitude.pitch
            surfaceRoll = surfaceAttitude.roll
            surfacePitch = surfaceAttitude.pitch
        } else {
            // Along the bar only. The part of gravity across the bar, √(y² + z²), is unchanged by
            // the turn whatever the lean, so the lean (level y) drops out entirely.
            let across = ((one.y * one.y + one.z * one.z).squareRoot() + (two.y * two.y + two.z * two.z).squareRoot()) / 2
            let levelAcross = across + 1 - max(0, 1 - surface.x * surface.x).squareRoot()
            levelReading = Vector3(x: zero.x, y: 0, z: levelAcross)
            zeroRoll = nil
            zeroPitch = Attitude(gravity: levelReading).pitch
            surfaceRoll = nil
            surfacePitch = Attitude(gravity: Vector3(x: surface.x, y: 0, z: across)).pitch
        }
        self.mount = mount
        // Back to the device frame; the remap is a signed permutation, so its inverse is exact.
        let levelOffset = Vector3(x: zero.x, y: measuresRoll ? zero.y : 0, z: 0)
        zeroOffset = mount.remap.rotation.inverse.apply(levelOffset)
    }
}

/// Why two readings could not be used for a reversal. The ``description`` says what to do.
public struct ReversalError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The mount (named) is neither flat nor upright.
        case unsupportedMount(String)
        /// A reading has a NaN or infinite component.
        case notFinite
        /// Reading 1 or 2 is not about 1 g.
        case magnitudeOutOfRange(position: Int, magnitude: Double, range: ClosedRange<Double>)
        /// Reading 1 or 2 is tilted more than the limit.
        case tooTilted(position: Int, tilt: Angle, limit: Angle)
        /// The magnitudes of the two readings differ by more than the limit, in g.
        case magnitudesDiffer(difference: Double, limit: Double)
        /// The vertical components of the two readings differ by more than the limit, in g.
        case verticalsDiffer(difference: Double, limit: Double)
    }

    public let reason: Reason

    public init(reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        let again = " Place the device on the spot, measure, turn it 180° about the vertical on the same spot, and measure again."
        switch reason {
        case .unsupportedMount(let name):
            return "The reversal works for the flat and upright mounts, not \"\(name)\"; measure in one of those."
        case .notFinite:
            return "A reading is not a number; check the sensor is connected and reading."
        case .magnitudeOutOfRange(let position, let magnitude, let range):
            return "Reading \(position) is \(SixPointFitError.g(magnitude)), not about 1 g (\(SixPointFitError.g(range.lowerBound))"
                + "…\(SixPointFitError.g(range.upperBound))): the device was moving or is not at rest." + again
        case .tooTilted(let position, let tilt, let limit):
            return "Reading \(position) is tilted \(SixPointFitError.degrees(tilt)), more than \(SixPointFitError.degrees(limit)):"
                + " the reversal needs a nearly level surface and the device in its mount's working position." + again
        case .magnitudesDiffer(let difference, let limit):
            return "The two readings differ in magnitude by \(CalibrationError.milliG(difference)), more than"
                + " \(CalibrationError.milliG(limit)): the device moved or was disturbed between them." + again
        case .verticalsDiffer(let difference, let limit):
            return "The vertical parts of the two readings differ by \(CalibrationError.milliG(difference)), more than"
                + " \(CalibrationError.milliG(limit)): that is not the same spot turned about the vertical." + again
        }
    }
}
