import Geometry

/// A correction for an accelerometer's own errors: `g_true = M · (raw − offset)`, in g.
///
/// `offset` removes the zero-g offset (what each axis reads with no acceleration on it) and `M`
/// undoes the gain of each axis and the cross-axis coupling between them (including a small
/// misalignment of the chip in its case). It is applied to raw device-frame samples before any
/// mount remap or ``ZeroReference``, since the errors belong to the chip, not to how it is
/// mounted.
///
/// Every value is plausible for an ADXL345-class part: the initializer and the decoder refuse
/// anything ``Limits`` does not allow, so a damaged file or a botched tumble cannot silently
/// skew every reading. ``identity`` corrects nothing.
///
/// Encoded with stable keys: `{"matrix": [[…],[…],[…]], "offset_g": [x, y, z]}`, rows of `M`
/// and the offset in g.
public struct Calibration: Hashable, Sendable {
    /// `M`: applied after the offset is removed. Near the identity for a healthy sensor.
    public let matrix: Matrix3
    /// The zero-g offset, in g, per device axis; subtracted from the raw reading.
    public let offset: Vector3

    /// What counts as plausible. The defaults allow several times the ADXL345's specified
    /// errors (zero-g offset ±35 mg on x/y and ±40 mg on z, gain ±1 % or +3.5 % at 3.3 V,
    /// cross-axis ±1 %) plus a few degrees of mounting misalignment, and nothing a working
    /// sensor at rest could produce beyond that.
    public struct Limits: Hashable, Sendable {
        /// The largest |offset| on any axis, in g.
        public var maxOffset: Double
        /// Where every singular value of `M` and every diagonal element must lie.
        public var gainRange: ClosedRange<Double>
        /// The largest |element| off the diagonal of `M` (0.1 is about 6° of misalignment).
        public var maxOffDiagonal: Double

        public init(maxOffset: Double = 0.2, gainRange: ClosedRange<Double> = 0.8...1.25, maxOffDiagonal: Double = 0.1) {
            self.maxOffset = maxOffset
            self.gainRange = gainRange
            self.maxOffDiagonal = maxOffDiagonal
        }

        /// The defaults above.
        public static let standard = Limits()
    }

    /// No correction: `apply` returns the raw reading.
    public static let identity = Calibration(unchecked: .identity, offset: .zero)

    /// A calibration with these parameters, if plausible.
    ///
    /// - Throws: ``CalibrationError`` naming the first implausible parameter.
    public init(matrix: Matrix3, offset: Vector3, limits: Limits = .standard) throws(CalibrationError) {
        try Calibration.validate(matrix: matrix, offset: offset, limits: limits)
        self.init(unchecked: matrix, offset: offset)
    }

    private init(unchecked matrix: Matrix3, offset: Vector3) {
        self.matrix = matrix
        self.offset = offset
    }

    /// The corrected gravity for a raw reading, in g: `M · (raw − offset)`.
    public func apply(_ raw: Vector3) -> Vector3 {
        matrix * (raw - offset)
    }

    /// The raw reading this calibration corrects to `corrected`: `M⁻¹ · corrected + offset`; nil
    /// when `M` cannot be inverted (never for a validated calibration).
    ///
    /// For carrying a reading taken under one calibration over to another, as the pipeline does
    /// with the zero reference when the calibration changes.
    public func raw(correctedTo corrected: Vector3) -> Vector3? {
        guard let inverse = matrix.inverse else { return nil }
        return inverse * corrected + offset
    }

    /// The same calibration with an extra zero shift: the result reads `apply(raw) − shift`.
    ///
    /// For folding in a zero error found later on corrected readings (for example by
    /// ``ReversalCalibration``): since `M(raw − b) − s = M(raw − (b + M⁻¹s))`, only the offset
    /// changes.
    ///
    /// - Throws: ``CalibrationError`` when the new offset is implausible.
    public func shifted(by shift: Vector3, limits: Limits = .standard) throws(CalibrationError) -> Calibration {
        guard let inverse = matrix.inverse else { throw CalibrationError(reason: .singular) }
        return try Calibration(matrix: matrix, offset: offset + inverse * shift, limits: limits)
    }

    /// Checks parameters against `limits` without building a calibration.
    ///
    /// - Throws: ``CalibrationError`` naming the first implausible parameter, checked in this
    ///   order: non-finite, offset, diagonal, off-diagonal, singular values.
    public static func validate(matrix: Matrix3, offset: Vector3, limits: Limits = .standard) throws(CalibrationError) {
        guard matrix.isFinite, offset.isFinite else { throw CalibrationError(reason: .notFinite) }
        for (axis, value) in zip(axisNames, [offset.x, offset.y, offset.z]) where abs(value) > limits.maxOffset {
            throw CalibrationError(reason: .offsetTooLarge(axis: axis, offsetG: value, limitG: limits.maxOffset))
        }
        let diagonal = matrix.diagonal
        for (axis, value) in zip(axisNames, [diagonal.x, diagonal.y, diagonal.z]) where !limits.gainRange.contains(value) {
            throw CalibrationError(reason: .gainOutOfRange(axis: axis, gain: value, range: limits.gainRange))
        }
        for i in 0..<3 {
            for j in 0..<3 where i != j && abs(matrix[i, j]) > limits.maxOffDiagonal {
                throw CalibrationError(reason: .crossAxisTooLarge(
                    row: axisNames[i], column: axisNames[j], value: matrix[i, j], limit: limits.maxOffDiagonal
                ))
            }
        }
        guard let singular = matrix.singularValues, singular.z > 0 else { throw CalibrationError(reason: .singular) }
        for value in [singular.x, singular.z] where !limits.gainRange.contains(value) {
            throw CalibrationError(reason: .stretchOutOfRange(singularValue: value, range: limits.gainRange))
        }
    }

    static let axisNames = ["x", "y", "z"]
}

extension Calibration: Codable {
    private enum CodingKeys: String, CodingKey {
        case matrix
        case offset = "offset_g"
    }

    /// Decodes and validates with the standard limits.
    ///
    /// - Throws: `DecodingError.dataCorrupted` carrying the ``CalibrationError`` message when the
    ///   stored parameters are implausible, so a damaged file is reported, never applied.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let matrix = try container.decode(Matrix3.self, forKey: .matrix)
        let parts = try container.decode([Double].self, forKey: .offset)
        guard parts.count == 3 else {
            throw DecodingError.dataCorruptedError(
                forKey: .offset, in: container,
                debugDescription: "offset_g is three numbers in g, [x, y, z]; found \(parts.count)."
            )
        }
        do {
            self = try Calibration(matrix: matrix, offset: Vector3(x: parts[0], y: parts[1], z: parts[2]))
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .matrix, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(matrix, forKey: .matrix)
        try container.encode([offset.x, offset.y, offset.z], forKey: .offset)
    }
}

/// Why calibration parameters were refused. The ``description`` says what is wrong and what to do.
public struct CalibrationError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// A parameter is NaN or infinite.
        case notFinite
        /// The zero-g offset on `axis` is beyond the limit (both in g).
        case offsetTooLarge(axis: String, offsetG: Double, limitG: Double)
        /// The diagonal element for `axis` (its gain correction) is outside the range.
        case gainOutOfRange(axis: String, gain: Double, range: ClosedRange<Double>)
        /// The element at `row`, `column` couples two axes more than the limit.
        case crossAxisTooLarge(row: String, column: String, value: Double, limit: Double)
        /// A singular value of the matrix (a stretch along some direction) is outside the range.
        case stretchOutOfRange(singularValue: Double, range: ClosedRange<Double>)
        /// The matrix cannot be inverted.
        case singular
    }

    public let reason: Reason

    public init(reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        let problem = switch reason {
        case .notFinite:
            "a parameter is not a finite number"
        case .offsetTooLarge(let axis, let offset, let limit):
            "the \(axis) offset is \(Self.milliG(offset)), beyond ±\(Self.milliG(limit))"
        case .gainOutOfRange(let axis, let gain, let range):
            "the \(axis) gain correction is \(plain(gain, 3)), outside \(plain(range.lowerBound, 3))…\(plain(range.upperBound, 3))"
        case .crossAxisTooLarge(let row, let column, let value, let limit):
            "the coupling of \(column) into \(row) is \(plain(value, 3)), beyond ±\(plain(limit, 3))"
        case .stretchOutOfRange(let value, let range):
            "the correction stretches one direction by \(plain(value, 3)), outside \(plain(range.lowerBound, 3))…\(plain(range.upperBound, 3))"
        case .singular:
            "the correction matrix cannot be inverted"
        }
        return "The accelerometer calibration is implausible: \(problem). A working sensor never needs"
            + " that much correction. Recalibrate, holding the device completely still on each face;"
            + " if it happens again, check the sensor is firmly mounted and is the accelerometer configured."
    }

    static func milliG(_ g: Double) -> String { "\(Int((g * 1000).rounded())) mg" }
}
