import Geometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the six rest poses of the tumble: which device axis points straight up.
///
/// The axis that points up reads +1 g (the reaction to gravity), so `.plusZ` is the device
/// flat, face up, reading (0, 0, +1), and `.minusZ` is it lying on its face, reading (0, 0, −1).
/// The raw value is the text a person types or reads: `"+x"`, `"-x"`, … `"-z"`.
public enum Face: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    case plusX = "+x"
    case minusX = "-x"
    case plusY = "+y"
    case minusY = "-y"
    case plusZ = "+z"
    case minusZ = "-z"

    /// The gravity an ideal sensor reads in this pose, in g: ±1 on one axis.
    public var gravity: Vector3 {
        switch self {
        case .plusX: Vector3(x: 1, y: 0, z: 0)
        case .minusX: Vector3(x: -1, y: 0, z: 0)
        case .plusY: Vector3(x: 0, y: 1, z: 0)
        case .minusY: Vector3(x: 0, y: -1, z: 0)
        case .plusZ: Vector3(x: 0, y: 0, z: 1)
        case .minusZ: Vector3(x: 0, y: 0, z: -1)
        }
    }

    /// `"+x up"` and so on.
    public var description: String { "\(rawValue) up" }

    /// The face a resting reading shows: the axis nearest to the reading's direction.
    ///
    /// - Parameters:
    ///   - mean: A mean gravity reading, in g (raw: the uncalibrated errors of an ADXL345 tip it
    ///     by at most about 3°).
    ///   - maxAngle: How far the reading may point from that axis.
    /// - Throws: ``SixPointFitError`` with ``SixPointFitError/Reason/notNearAnAxis(nearest:angle:limit:)``
    ///   when the reading is further than `maxAngle` from every axis (the device is not lying on a
    ///   face), or ``SixPointFitError/Reason/noDirection`` for a zero or non-finite reading.
    public static func detect(_ mean: Vector3, maxAngle: Angle = Angle(degrees: 10)) throws(SixPointFitError) -> Face {
        guard let unit = mean.normalized else { throw SixPointFitError(reason: .noDirection) }
        // The nearest axis is the one with the largest cosine; the angle comes from atan2 of the
        // off-axis and on-axis parts, accurate even within a fraction of a degree of the axis.
        let nearest = allCases.max { $0.gravity.dot(unit) < $1.gravity.dot(unit) }!
        let angle = nearest.angle(to: unit)
        guard angle <= maxAngle else { throw SixPointFitError(reason: .notNearAnAxis(nearest: nearest, angle: angle, limit: maxAngle)) }
        return nearest
    }

    /// The angle between this face's gravity and the direction of `v`.
    func angle(to v: Vector3) -> Angle {
        Angle(radians: atan2(gravity.cross(v).magnitude, gravity.dot(v)))
    }

    /// The faces not yet in `done`, in the order of ``allCases`` (+x, −x, +y, −y, +z, −z), for
    /// telling a person which faces remain.
    public static func remaining(after done: some Sequence<Face>) -> [Face] {
        let seen = Set(done)
        return allCases.filter { !seen.contains($0) }
    }
}

/// The tumble calibration: a least-squares fit of the sensor model `raw = A · g + b` to mean
/// readings taken at rest in known poses, giving the ``Calibration`` `M = A⁻¹`, `offset = b`.
///
/// **The model.** `A` holds the gain of each axis on its diagonal and the cross-axis coupling
/// (including chip misalignment) off it; `b` is the zero-g offset, both in g. True gravity `g` is
/// 1 g along a known direction in each pose.
///
/// **The solve.** Each pose gives three equations, one per raw axis r: `raw_r = A_r · g + b_r`,
/// linear in the four unknowns (A_r, b_r). The three axes share the same design row `[gᵀ, 1]`,
/// so the 3n × 12 problem splits exactly into three n × 4 least-squares problems with one
/// normal matrix `XᵀX = Σ [g; 1][g; 1]ᵀ`, factored once (Cholesky, 4 × 4) and solved for three
/// right-hand sides. That is the same answer as the full 12 × 12 normal equations (their matrix
/// is block-diagonal, `I₃ ⊗ XᵀX`) at a fraction of the work, and it works for any number of
/// poses that point gravity in enough different directions: repeated faces, extra tilted poses.
///
/// **Six faces.** With one pose per ±axis, `XᵀX = diag(2, 2, 2, 6)` and the solution is in closed
/// form: `b` is the mean of the six readings and column k of `A` is `(m(+k) − m(−k)) / 2`. The
/// residual is then the same for both faces of an axis, `b − (m(+k) + m(−k)) / 2`: how much
/// the offsets seen by the three axis pairs disagree. It is zero only if they agree exactly, so
/// with real data it measures noise, movement during the tumble and how well the linear model
/// holds, in mg.
public struct SixPointFit: Hashable, Sendable {
    /// A mean reading taken at rest on one face.
    public struct Pose: Hashable, Sendable, Codable {
        /// Which axis pointed up.
        public var face: Face
        /// The mean raw reading, in g.
        public var mean: Vector3
        /// How many samples the mean is of (informative; the fit weighs every pose alike).
        public var sampleCount: Int
        /// Their per-axis sample standard deviation, in g, when known (informative).
        public var standardDeviation: Vector3?

        public init(face: Face, mean: Vector3, sampleCount: Int = 1, standardDeviation: Vector3? = nil) {
            self.face = face
            self.mean = mean
            self.sampleCount = sampleCount
            self.standardDeviation = standardDeviation
        }

        /// A pose from a ``GravityAverage``; nil when it has no samples.
        public init?(face: Face, average: GravityAverage) {
            guard let mean = average.mean else { return nil }
            self.init(face: face, mean: mean, sampleCount: average.count, standardDeviation: average.standardDeviation)
        }
    }

    /// One equation set for the general fit: a mean raw reading and the true gravity direction
    /// in the device frame at that moment.
    public struct Observation: Hashable, Sendable {
        /// The direction of true gravity in the device frame; only its direction counts, its
        /// length is taken as 1 g.
        public var trueGravity: Vector3
        /// The mean raw reading, in g.
        public var mean: Vector3

        public init(trueGravity: Vector3, mean: Vector3) {
            self.trueGravity = trueGravity
            self.mean = mean
        }
    }

    /// What the fit accepts.
    public struct Limits: Hashable, Sendable {
        /// Where the magnitude of every mean must lie, in g. Outside it the device was moving, or
        /// the numbers are not an accelerometer's at rest.
        public var magnitudeRange: ClosedRange<Double>
        /// How far a pose's mean may point from its face's axis.
        public var maxAngleFromFace: Angle
        /// The largest condition number accepted for `A`.
        public var maxConditionNumber: Double
        /// What the resulting calibration must satisfy.
        public var calibration: Calibration.Limits

        public init(
            magnitudeRange: ClosedRange<Double> = 0.8...1.2, maxAngleFromFace: Angle = Angle(degrees: 10),
            maxConditionNumber: Double = 100, calibration: Calibration.Limits = .standard
        ) {
            self.magnitudeRange = magnitudeRange
            self.maxAngleFromFace = maxAngleFromFace
            self.maxConditionNumber = maxConditionNumber
            self.calibration = calibration
        }

        public static let standard = Limits()
    }

    /// `A`, the fitted sensitivity: raw = A · g + b.
    public let sensitivity: Matrix3
    /// `b`, the fitted zero-g offset, in g.
    public let bias: Vector3
    /// The correction that undoes them: `M = A⁻¹`, `offset = b`.
    public let calibration: Calibration
    /// Per observation, in input order, `A · g_i + b − raw_i`, in g.
    public let residuals: [Vector3]

    /// The root mean square of the residual vectors' lengths, in mg: √(Σ|r_i|² / n).
    public var residualRMSMilliG: Double {
        guard !residuals.isEmpty else { return 0 }
        return (residuals.reduce(0) { $0 + $1.dot($1) } / Double(residuals.count)).squareRoot() * 1000
    }

    /// The largest residual vector length, in mg.
    public var residualMaxMilliG: Double {
        (residuals.map(\.magnitude).max() ?? 0) * 1000
    }

    /// The six-face tumble: exactly one pose for each of the six faces, in any order.
    ///
    /// - Throws: ``SixPointFitError`` when a face is given twice, faces are missing, a mean is
    ///   not about 1 g or does not point along its face, or the result is implausible.
    public init(poses: [Pose], limits: Limits = .standard) throws(SixPointFitError) {
        var seen: Set<Face> = []
        for pose in poses {
            guard seen.insert(pose.face).inserted else { throw SixPointFitError(reason: .duplicateFace(pose.face)) }
        }
        let missing = Face.remaining(after: seen)
        guard missing.isEmpty else { throw SixPointFitError(reason: .missingFaces(missing)) }
        for pose in poses {
            try Self.check(pose, limits: limits)
        }
        try self.init(observations: poses.map { Observation(trueGravity: $0.face.gravity, mean: $0.mean) }, limits: limits)
    }

    /// The general least-squares fit over any poses whose true gravity is known.
    ///
    /// - Throws: ``SixPointFitError`` when a mean is not about 1 g or has no direction, the poses
    ///   do not point gravity in enough directions (fewer than four, or all in one plane), `A` is
    ///   ill-conditioned, or the calibration is implausible.
    public init(observations: [Observation], limits: Limits = .standard) throws(SixPointFitError) {
        var design: [Vector3] = []
        for observation in observations {
            let magnitude = observation.mean.magnitude
            guard observation.mean.isFinite, limits.magnitudeRange.contains(magnitude) else {
                throw SixPointFitError(reason: .magnitudeOutOfRange(face: nil, magnitude: magnitude, range: limits.magnitudeRange))
            }
            guard let direction = observation.trueGravity.normalized else { throw SixPointFitError(reason: .noDirection) }
            design.append(direction)
        }
        // Normal matrix Σ [g; 1][g; 1]ᵀ and the three right-hand sides Σ [g; 1] raw_r.
        var normal = [Double](repeating: 0, count: 16)
        var rhs = [[Double]](repeating: [0, 0, 0, 0], count: 3)
        for (g, observation) in zip(design, observations) {
            let row = [g.x, g.y, g.z, 1]
            let raw = [observation.mean.x, observation.mean.y, observation.mean.z]
            for i in 0..<4 {
                for j in 0..<4 {
                    normal[i * 4 + j] += row[i] * row[j]
                }
                for r in 0..<3 {
                    rhs[r][i] += row[i] * raw[r]
                }
            }
        }
        guard let factor = Cholesky(normal, size: 4) else { throw SixPointFitError(reason: .posesDoNotSpan) }
        let solutions = rhs.map { factor.solve($0) }
        let sensitivity = Matrix3(
            rows: Vector3(x: solutions[0][0], y: solutions[0][1], z: solutions[0][2]),
            Vector3(x: solutions[1][0], y: solutions[1][1], z: solutions[1][2]),
            Vector3(x: solutions[2][0], y: solutions[2][1], z: solutions[2][2])
        )
        let bias = Vector3(x: solutions[0][3], y: solutions[1][3], z: solutions[2][3])
        guard let correction = sensitivity.inverted(maxConditionNumber: limits.maxConditionNumber) else {
            throw SixPointFitError(reason: .illConditioned(conditionNumber: sensitivity.conditionNumber))
        }
        do {
            calibration = try Calibration(matrix: correction, offset: bias, limits: limits.calibration)
        } catch {
            throw SixPointFitError(reason: .implausible(error))
        }
        self.sensitivity = sensitivity
        self.bias = bias
        residuals = zip(design, observations).map { g, observation in sensitivity * g + bias - observation.mean }
    }

    /// Refuses a pose whose mean is not about 1 g or does not point along its face.
    static func check(_ pose: Pose, limits: Limits) throws(SixPointFitError) {
        let magnitude = pose.mean.magnitude
        guard pose.mean.isFinite, limits.magnitudeRange.contains(magnitude) else {
            throw SixPointFitError(reason: .magnitudeOutOfRange(face: pose.face, magnitude: magnitude, range: limits.magnitudeRange))
        }
        let angle = pose.face.angle(to: pose.mean)
        guard angle <= limits.maxAngleFromFace else {
            let detected = try? Face.detect(pose.mean, maxAngle: limits.maxAngleFromFace)
            throw SixPointFitError(reason: .poseOffFace(face: pose.face, angle: angle, looksLike: detected))
        }
    }
}

/// The Cholesky factor L (lower, row-major) of a small symmetric positive-definite matrix.
struct Cholesky {
    let size: Int
    private var lower: [Double]

    /// Nil when the matrix is not positive definite, or so near to singular that a pivot falls
    /// below 1e-9 of the largest diagonal element: the poses then say nothing about some unknown.
    init?(_ matrix: [Double], size n: Int) {
        size = n
        lower = [Double](repeating: 0, count: n * n)
        let scale = (0..<n).map { matrix[$0 * n + $0] }.max() ?? 0
        guard scale > 0, scale.isFinite else { return nil }
        for j in 0..<n {
            var pivot = matrix[j * n + j]
            for k in 0..<j {
                pivot -= lower[j * n + k] * lower[j * n + k]
            }
            guard pivot > 1e-9 * scale else { return nil }
            let diagonal = pivot.squareRoot()
            lower[j * n + j] = diagonal
            for i in (j + 1)..<n {
                var value = matrix[i * n + j]
                for k in 0..<j {
                    value -= lower[i * n + k] * lower[j * n + k]
                }
                lower[i * n + j] = value / diagonal
            }
        }
    }

    /// x with L Lᵀ x = b.
    func solve(_ b: [Double]) -> [Double] {
        let n = size
        var y = b
        for i in 0..<n {
            for k in 0..<i {
                y[i] -= lower[i * n + k] * y[k]
            }
            y[i] /= lower[i * n + i]
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            for k in (i + 1)..<n {
                y[i] -= lower[k * n + i] * y[k]
            }
            y[i] /= lower[i * n + i]
        }
        return y
    }
}

/// Why a tumble calibration could not be made. The ``description`` says what to do.
public struct SixPointFitError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// A reading is zero or not finite, so it points nowhere.
        case noDirection
        /// The reading is `angle` from the `nearest` axis, more than allowed: not lying on a face.
        case notNearAnAxis(nearest: Face, angle: Angle, limit: Angle)
        /// The same face was given twice.
        case duplicateFace(Face)
        /// These faces are missing (in canonical order).
        case missingFaces([Face])
        /// A mean's magnitude is not about 1 g (`face` is nil in the general fit).
        case magnitudeOutOfRange(face: Face?, magnitude: Double, range: ClosedRange<Double>)
        /// The mean given for `face` points `angle` away from it; `looksLike` is the face it does
        /// point along, if any.
        case poseOffFace(face: Face, angle: Angle, looksLike: Face?)
        /// The poses do not point gravity in enough different directions to fit every unknown.
        case posesDoNotSpan
        /// The fitted sensitivity is (nearly) singular.
        case illConditioned(conditionNumber: Double)
        /// The fit worked but its calibration is not plausible.
        case implausible(CalibrationError)
    }

    public let reason: Reason

    public init(reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .noDirection:
            return "The reading is zero or not a number, so it shows no direction; check the sensor is connected and reading."
        case .notNearAnAxis(let nearest, let angle, let limit):
            return "The device is \(Self.degrees(angle)) from lying on a face (nearest: \(nearest)); lay it flat on one"
                + " face, within \(Self.degrees(limit)) of square, and hold it still."
        case .duplicateFace(let face):
            return "The face \(face) was measured twice; measure each of the six faces once, then repeat the tumble."
        case .missingFaces(let faces):
            return "The tumble needs all six faces; still to do: \(faces.map(\.description).joined(separator: ", "))."
        case .magnitudeOutOfRange(let face, let magnitude, let range):
            let which = face.map { " on face \($0)" } ?? ""
            return "The mean reading\(which) is \(Self.g(magnitude)), not about 1 g (\(Self.g(range.lowerBound))…"
                + "\(Self.g(range.upperBound))): the device moved while measuring, or this is not an accelerometer at"
                + " rest. Measure that face again, holding it completely still."
        case .poseOffFace(let face, let angle, let looksLike):
            let hint = looksLike.map { "; it reads like \($0), so perhaps the face was mislabelled" } ?? ""
            return "The reading given for \(face) points \(Self.degrees(angle)) away from it\(hint). Lay the device"
                + " square on that face and measure it again."
        case .posesDoNotSpan:
            return "The poses do not point gravity in enough different directions to fit the calibration;"
                + " measure all six faces."
        case .illConditioned(let condition):
            return "The fitted sensitivity is nearly singular (condition number \(Self.condition(condition))), so the"
                + " readings cannot be from a working accelerometer in those poses; repeat the tumble."
        case .implausible(let error):
            return error.description
        }
    }

    static func degrees(_ angle: Angle) -> String { "\((angle.degrees * 10).rounded() / 10)°" }
    static func g(_ value: Double) -> String { "\((value * 1000).rounded() / 1000) g" }
    static func condition(_ value: Double) -> String { value.isFinite ? plain(value, 1) : "∞" }
}
